"""A telnet caller for tests: real TCP, real telnet negotiation, a pyte screen.

It answers the server's negotiation the way a BBS terminal does (its terminal type, its
window size), answers the ANSI cursor-position probe when it plays an ANSI terminal, and
shows what it receives on a pyte screen, decoded in its charset.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import re
import time

import pyte

from ansi.charset import decode
from door.net.detection import size_believable

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
ECHO, SGA, TTYPE, NAWS, BINARY = 1, 3, 24, 31, 0
IS, SEND = 0, 1
CPR_REQUEST = b"\x1b[6n"
# Seconds a screen may take to show what a test waits for: far more than it needs, so that a
# machine busy with other work (or the suite's own parallel workers) does not fail a test.
WAIT = 30.0


def screen_size(size: tuple[int, int] | None) -> tuple[int, int]:
    """The size of the screen a window reported as ``size`` shows: a size no window has
    (0x0, 65535x65535: hostile or broken clients, NetRunner's 1x1) shows 80x24."""
    return (size and size_believable(*size)) or (80, 24)


class Caller:
    """One caller. ``ansi`` decides whether it answers the cursor-position probe; ``size``
    is its window, ``(columns, rows)``, reported by NAWS (None: it refuses NAWS, and shows
    80x24)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        term: str = "xterm",
        charset: str = "utf-8",
        ansi: bool = True,
        size: tuple[int, int] | None = (80, 24),
    ) -> None:
        self.reader, self.writer = reader, writer
        self.term, self.charset, self.ansi, self.size = term, charset, ansi, size
        self.screen = pyte.Screen(*screen_size(size))
        self.stream = pyte.Stream(self.screen)
        self.utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.received = bytearray()  # every byte after telnet commands were taken out
        self.text = ""  # everything received, decoded, for plain-text callers
        self._pending = b""
        self._arrived = asyncio.Event()  # set when bytes have been shown, or the line drops
        self._reader_task = asyncio.create_task(self._read_forever())
        self.closed = asyncio.Event()

    @classmethod
    async def connect(cls, port: int, **options) -> Caller:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        return cls(reader, writer, **options)

    # -- the telnet side ----------------------------------------------------------------------

    def _send(self, *data: int) -> None:
        self.writer.write(bytes(data))

    def _answer(self, verb: int, option: int) -> None:
        if verb == DO:
            agree = option in (TTYPE, BINARY) or (option == NAWS and self.size is not None)
            self._send(IAC, WILL if agree else WONT, option)
            if option == NAWS and self.size is not None:
                cols, rows = self.size
                self._send(IAC, SB, NAWS, cols >> 8, cols & 255, rows >> 8, rows & 255, IAC, SE)
        elif verb == WILL:
            self._send(IAC, DO if option in (ECHO, SGA, BINARY) else DONT, option)

    def _subnegotiation(self, body: bytes) -> None:
        if body[:2] == bytes([TTYPE, SEND]):
            self.writer.write(bytes([IAC, SB, TTYPE, IS]) + self.term.encode() + bytes([IAC, SE]))

    def _take_commands(self, data: bytes) -> bytes:
        """Answer telnet commands in ``data``; return the rest (kept whole across packets)."""
        data = self._pending + data
        self._pending = b""
        out = bytearray()
        i = 0
        while i < len(data):
            byte = data[i]
            if byte != IAC:
                out.append(byte)
                i += 1
                continue
            if i + 1 >= len(data):
                self._pending = data[i:]
                break
            verb = data[i + 1]
            if verb == IAC:
                out.append(IAC)
                i += 2
            elif verb in (DO, DONT, WILL, WONT):
                if i + 2 >= len(data):
                    self._pending = data[i:]
                    break
                self._answer(verb, data[i + 2])
                i += 3
            elif verb == SB:
                end = data.find(bytes([IAC, SE]), i)
                if end < 0:
                    self._pending = data[i:]
                    break
                self._subnegotiation(data[i + 2 : end])
                i = end + 2
            else:
                i += 2
        return bytes(out)

    async def _read_forever(self) -> None:
        try:
            while data := await self.reader.read(4096):
                text_bytes = self._take_commands(data)
                self.received += text_bytes
                # Shown up to each position request, which is answered with where the
                # cursor really is, as a terminal does (the door's charset probe reads it).
                pieces = text_bytes.split(CPR_REQUEST)
                for index, piece in enumerate(pieces):
                    self._show(piece)
                    if index < len(pieces) - 1 and self.ansi:
                        cursor = self.screen.cursor
                        self.writer.write(f"\x1b[{cursor.y + 1};{cursor.x + 1}R".encode())
                self.shown()
                self._arrived.set()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.closed.set()
            self._arrived.set()

    def shown(self) -> None:
        """Called once a chunk of what the door sent is on the screen, as a terminal shows
        it before the next chunk comes."""

    def _show(self, text_bytes: bytes) -> None:
        if self.charset == "utf-8":
            text = self.utf8.decode(text_bytes)
        else:
            text = decode(text_bytes, self.charset, glyphs=True)
        self.text += text
        self.stream.feed(text)

    # -- what a test does ---------------------------------------------------------------------

    def display(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def row(self, number: int) -> str:
        """Screen row ``number``, 1-based as ANSI counts."""
        return self.screen.display[number - 1].rstrip()

    async def wait_for(self, pattern: str, timeout: float = WAIT, *, in_text: bool = False) -> str:
        """Wait until the screen (or, for plain callers, the text received) matches: looked at
        again each time bytes arrive, so it returns as soon as they are shown."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            self._arrived.clear()
            haystack = self.text if in_text else self.display()
            if regex.search(haystack):
                return haystack
            left = deadline - time.monotonic()
            if self.closed.is_set() or left <= 0:
                shown = haystack[-3000:]
                raise AssertionError(f"{pattern!r} not seen in {timeout} s; the screen:\n{shown}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)

    async def type(self, text: str, enter: bool = True) -> None:
        data = text.encode("utf-8" if self.charset == "utf-8" else "latin-1", "replace")
        self.writer.write(data + (b"\r\n" if enter else b""))
        await self.writer.drain()

    async def resize(self, columns: int, rows: int) -> None:
        """The window changes size: the screen keeps what it shows (cut, or blank where it
        grew), as a terminal's does, and the new size is reported (NAWS)."""
        self.size = (columns, rows)
        self.screen.resize(rows, columns)
        self._send(IAC, SB, NAWS, columns >> 8, columns & 255, rows >> 8, rows & 255, IAC, SE)
        await self.writer.drain()

    async def key(self, key: str) -> None:
        self.writer.write(key.encode())
        await self.writer.drain()

    def forget_text(self) -> None:
        """Start afresh what ``wait_for(in_text=True)`` looks at."""
        self.text = ""

    async def hang_up(self) -> None:
        self.writer.close()
        self._reader_task.cancel()
        with contextlib.suppress(ConnectionError):
            await self.writer.wait_closed()

    async def wait_closed(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self.closed.wait(), timeout)


class DroppingCaller(Caller):
    """A UTF-8 terminal behind a relay that reads the door's bytes as CP437, drops
    0x03-0x06 and re-encodes the rest as UTF-8."""

    def _show(self, text_bytes: bytes) -> None:
        relayed = text_bytes.translate(None, bytes(range(3, 7))).decode("cp437")
        self.text += relayed
        self.stream.feed(relayed)
