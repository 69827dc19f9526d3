"""How a door run by a BBS talks to its caller: standard input and output, or a socket.

BBSes hand a door its caller in one of two ways:

- Standard input and output. Synchronet's "Standard" I/O doors, ENiGMA½ (``io: stdio``),
  Mystic on Linux and most Unix boards connect them to a pty. The door puts the terminal in
  raw mode (every key arrives as typed, nothing is echoed but what the door echoes, CR LF is
  sent as written) and puts it back as it was on the way out, whatever happens.
- An inherited socket, its number on line 2 of DOOR32.SYS (comm type 2), as Synchronet's
  socket doors and Maximus pass it. The BBS has negotiated telnet already, but commands (a
  new window size, say) can still arrive: they are taken out of the input, and 0xFF bytes
  in the output are doubled so the caller's client does not read them as commands.

Either way the door gets a reader with ``async read(n)`` (b"" at the end) and a writer with
``write``, ``async drain`` and ``close``: what :class:`door.net.terminal.Terminal` takes. File
descriptors are made non-blocking for the event loop and their flags put back at the end,
because the BBS (or, on the sysop's console, the shell) shares them.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import socket
import stat
import termios
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

STDIN, STDOUT = 0, 1
CLOSE_TIMEOUT = 5.0  # seconds to let the last output reach a socket before giving up

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
_SUBNEGOTIATION_LIMIT = 1024  # a longer "subnegotiation" is garbage, not telnet
NAWS = 31
_NAWS_LENGTH = 5  # the option, then columns and rows in two bytes each

# --- the terminal on standard input ---------------------------------------------------------


@contextlib.contextmanager
def raw_mode(fd: int, *, signals: bool = False) -> Iterator[None]:
    """Put the terminal on ``fd`` in raw mode for the block, then restore it, even on errors.

    Nothing happens if ``fd`` is not a terminal. ``signals`` keeps Ctrl-C as an interrupt
    (the sysop's console), without Ctrl-Z and Ctrl-\\, which would stop or kill the door with
    the terminal still raw.
    """
    if not os.isatty(fd):
        yield
        return
    saved = termios.tcgetattr(fd)
    try:
        # TCSANOW, not TCSADRAIN: a caller who stopped reading must not hold the door here.
        termios.tcsetattr(fd, termios.TCSANOW, _raw(fd, saved, signals))
        yield
    finally:
        with contextlib.suppress(termios.error, OSError):  # the terminal may be gone
            termios.tcsetattr(fd, termios.TCSANOW, saved)


def _raw(fd: int, mode: list[Any], signals: bool) -> list[Any]:
    """``mode`` made raw, as cfmakeraw does, keeping ISIG and Ctrl-C when ``signals``."""
    iflag, oflag, cflag, lflag, ispeed, ospeed, cc = mode
    iflag &= ~(termios.BRKINT | termios.ICRNL | termios.INPCK | termios.ISTRIP | termios.IXON)
    oflag &= ~termios.OPOST
    cflag = (cflag & ~(termios.CSIZE | termios.PARENB)) | termios.CS8
    lflag &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN)
    cc = list(cc)
    cc[termios.VMIN], cc[termios.VTIME] = 1, 0
    if signals:
        disabled = bytes([os.fpathconf(fd, "PC_VDISABLE") & 0xFF])
        cc[termios.VSUSP] = cc[termios.VQUIT] = disabled
    else:
        lflag &= ~termios.ISIG
    return [iflag, oflag, cflag, lflag, ispeed, ospeed, cc]


@contextlib.contextmanager
def nonblocking(*fds: int) -> Iterator[None]:
    """Make ``fds`` non-blocking for the block; put their flags back after, even on errors."""
    saved = {fd: fcntl.fcntl(fd, fcntl.F_GETFL) for fd in fds}
    try:
        for fd, flags in saved.items():
            fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        yield
    finally:
        for fd, flags in saved.items():
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, fcntl.F_SETFL, flags)


async def _until_ready(add: Callable[..., None], remove: Callable[[int], object], fd: int) -> None:
    """Wait until the event loop says ``fd`` is ready (``add`` is add_reader or add_writer)."""
    ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    add(fd, wake)
    try:
        await ready
    finally:
        remove(fd)


class FdReader:
    """``async read(n)`` from a non-blocking file descriptor; b"" at the end or a hang-up."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def read(self, n: int) -> bytes:
        loop = asyncio.get_running_loop()
        while True:
            try:
                return os.read(self._fd, n)
            except BlockingIOError:
                pass
            except OSError as error:
                if error.errno == errno.EIO:  # a pty whose other side closed: carrier lost
                    return b""
                raise
            await _until_ready(loop.add_reader, loop.remove_reader, self._fd)


class FdWriter:
    """``write`` and ``async drain`` to a non-blocking file descriptor, which stays open.

    As a socket's transport does, ``write`` sends at once what the descriptor takes, so that
    what is written between drains (the sysop's message to a caller waiting at a prompt)
    reaches the caller without waiting for the visit's next drain.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = bytearray()

    def write(self, data: bytes) -> None:
        self._pending += data
        try:
            written = os.write(self._fd, self._pending)
        except OSError:  # full (the rest waits for drain), or gone (drain says so)
            return
        del self._pending[:written]

    async def drain(self) -> None:
        """Send everything written; OSError (EIO, EPIPE) once the caller has gone."""
        loop = asyncio.get_running_loop()
        while self._pending:
            try:
                written = os.write(self._fd, self._pending)
            except BlockingIOError:
                await _until_ready(loop.add_writer, loop.remove_writer, self._fd)
                continue
            del self._pending[:written]

    def close(self) -> None:
        self._pending.clear()  # the descriptor is the process's own: it is not closed


@contextlib.contextmanager
def stdio_streams(*, signals: bool = False) -> Iterator[tuple[FdReader, FdWriter]]:
    """The caller on standard input and output, raw if a terminal; all restored after."""
    with raw_mode(STDIN, signals=signals), nonblocking(STDIN, STDOUT):
        yield FdReader(STDIN), FdWriter(STDOUT)


# --- a port the BBS listens on for the door -----------------------------------------------


@contextlib.asynccontextmanager
async def connect_streams(
    port: int, host: str = "127.0.0.1"
) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """The caller on a TCP connection to ``port``, which the BBS opened for this door.

    ENiGMA½'s ``io: socket`` works so: it listens on a port of its own (its ``{srvPort}``),
    the door connects, and the bytes go between it and the caller as they are, no telnet.
    """
    async with asyncio.timeout(CLOSE_TIMEOUT):
        reader, writer = await asyncio.open_connection(host, port)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await writer.wait_closed()


# --- an inherited telnet socket -------------------------------------------------------------


def is_socket(fd: int) -> bool:
    """Whether ``fd`` is an open socket in this process."""
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except (OSError, OverflowError):
        return False


class TelnetInput:
    """Takes telnet commands out of what the caller sends, across packets.

    Options (``IAC WILL x``), subnegotiations (``IAC SB ... IAC SE``) and two-byte commands go;
    ``IAC IAC`` is one 0xFF byte of data. The window sizes reported (NAWS) are kept for
    :meth:`take_sizes`.

    >>> telnet = TelnetInput()
    >>> telnet.feed(b"a\\xff\\xfb\\x1fb\\xff\\xfa\\x1f\\x00\\x50")  # WILL NAWS, a NAWS report...
    b'ab'
    >>> telnet.feed(b"\\x00\\x18\\xff\\xf0c\\xff")  # ...ending in the next packet
    b'c'
    >>> telnet.take_sizes(), telnet.take_sizes()
    ([(80, 24)], [])
    >>> telnet.feed(b"\\xffd\\xff\\xf1e")
    b'\\xffde'
    """

    _DATA, _COMMAND, _OPTION, _SUB, _SUB_IAC = range(5)

    def __init__(self) -> None:
        self._state = self._DATA
        self._sub_length = 0
        self._sub = bytearray()  # the subnegotiation read so far, if short enough to matter
        self._sizes: list[tuple[int, int]] = []

    def take_sizes(self) -> list[tuple[int, int]]:
        """The window sizes reported since the last call, ``(columns, rows)``, oldest first."""
        sizes, self._sizes = self._sizes, []
        return sizes

    def feed(self, data: bytes) -> bytes:
        if self._state == self._DATA and IAC not in data:
            return data
        kept = bytearray()
        for byte in data:
            if self._state == self._DATA:
                if byte == IAC:
                    self._state = self._COMMAND
                else:
                    kept.append(byte)
            elif self._state == self._COMMAND:
                self._command(byte, kept)
            elif self._state == self._OPTION:
                self._state = self._DATA
            else:
                self._subnegotiation(byte)
        return bytes(kept)

    def _command(self, byte: int, kept: bytearray) -> None:
        if byte == IAC:
            kept.append(IAC)
            self._state = self._DATA
        elif byte == SB:
            self._state, self._sub_length = self._SUB, 0
            self._sub.clear()
        elif WILL <= byte <= DONT:
            self._state = self._OPTION
        else:  # NOP, AYT, GA and the like: two bytes in all
            self._state = self._DATA

    def _subnegotiation(self, byte: int) -> None:
        self._sub_length += 1
        if self._state == self._SUB_IAC:
            if byte == SE:
                self._state = self._DATA
                self._ended(bytes(self._sub))
                return
            self._state = self._SUB
            if byte == IAC:  # an escaped 0xFF of the subnegotiation's data
                self._keep(byte)
        elif byte == IAC:
            self._state = self._SUB_IAC
        elif self._sub_length > _SUBNEGOTIATION_LIMIT:
            self._state = self._DATA  # never ended: go back to reading keys
        else:
            self._keep(byte)

    def _keep(self, byte: int) -> None:
        if len(self._sub) < _NAWS_LENGTH:
            self._sub.append(byte)
        else:
            self._sub = bytearray(b"\0")  # longer than any window size: not one

    def _ended(self, body: bytes) -> None:
        if len(body) == _NAWS_LENGTH and body[0] == NAWS:
            self._sizes.append((body[1] << 8 | body[2], body[3] << 8 | body[4]))


def escape_iac(data: bytes) -> bytes:
    """Data for a telnet connection: each 0xFF doubled.

    >>> escape_iac(b"a\\xffb")
    b'a\\xff\\xffb'
    """
    return data.replace(b"\xff", b"\xff\xff")


class TelnetReader:
    """The caller's bytes from a telnet socket, without telnet commands; each window size
    the caller's client reports is passed to ``on_resize(columns, rows)``."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self._telnet = TelnetInput()
        self.on_resize: Callable[[int, int], None] = lambda columns, rows: None

    async def read(self, n: int) -> bytes:
        while True:
            data = await self._reader.read(n)
            if not data:
                return b""
            kept = self._telnet.feed(data)
            for columns, rows in self._telnet.take_sizes():
                self.on_resize(columns, rows)
            if kept:
                return kept


class TelnetWriter:
    """Bytes for the caller to a telnet socket, 0xFF escaped."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, data: bytes) -> None:
        self._writer.write(escape_iac(data))

    async def drain(self) -> None:
        await self._writer.drain()

    def close(self) -> None:
        self._writer.close()

    async def wait_closed(self) -> None:
        await self._writer.wait_closed()


@contextlib.asynccontextmanager
async def socket_streams(handle: int) -> AsyncIterator[tuple[TelnetReader, TelnetWriter]]:
    """The caller on the telnet socket ``handle``, inherited from the BBS.

    The socket is used through a duplicate, so that the BBS's connection stays open when the
    door is done (the caller goes back to the BBS) and ``handle`` can get its flags back.
    """
    flags = fcntl.fcntl(handle, fcntl.F_GETFL)
    sock = socket.socket(fileno=os.dup(handle))
    try:
        reader, writer = await asyncio.open_connection(sock=sock)
    except BaseException:
        sock.close()
        raise
    telnet = TelnetWriter(writer)
    try:
        yield TelnetReader(reader), telnet
    finally:
        telnet.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await telnet.wait_closed()
        with contextlib.suppress(OSError):
            fcntl.fcntl(handle, fcntl.F_SETFL, flags)
