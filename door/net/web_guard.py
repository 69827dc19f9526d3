"""Guards on the web port: every connection counted and timed, as telnet's are.

aiohttp keeps a connection open as long as its client likes: one that sends nothing, or a
header a byte at a time, or that sits idle between requests for keep-alive, costs the door
a file descriptor and a handler each, and the node table never hears of it (only a
WebSocket's telnet call takes a node). So each connection on the web port is wrapped, as
it arrives, in a :class:`GuardedConnection` before aiohttp sees it:

- one address may hold ``max_per_address`` connections (as many as telnet lets it hold
  nodes); a connection past that first ends the address's oldest connection that is in no
  request (an idle keep-alive, or one that has not finished sending its request), and is
  refused with ``503`` only when all of them are in a request. Connections from ``[web]
  proxies`` carry many callers each and are not counted per address (their callers are, by
  the node table, once their WebSocket names them);
- all web connections together are kept below the open-file limit (:func:`connection_cap`),
  with room left for telnet, SSH and the sysop: past the cap, the oldest connection in no
  request is ended, or the new one refused;
- a request's head (its request line and headers) must arrive within
  :data:`HEADER_SECONDS` of its first byte, or of the connection's start, and be no longer
  than :data:`HEAD_MOST`: a longer one is refused with ``431`` (:class:`RequestFraming`
  follows each request past its body, by its length or its chunks, so that no body is
  taken for a head);
- between requests, aiohttp's keep-alive ends a connection idle for
  :data:`KEEPALIVE_SECONDS`;
- from the moment the door takes a request's WebSocket (:meth:`GuardedConnection.upgrade`,
  before aiohttp reads anything of it), every frame is read here first, by its header
  alone, starting from the first byte after that request, whatever requests came before it
  on the connection: each one, a message, a fragment, a ping or a pong, empty or not, costs
  the connection one of :data:`FRAME_RATE` a second (after a first :data:`FRAME_BURST`), and
  a connection past that is hung up as a telnet caller sending a flood of input is; a frame
  a client did not mask (RFC 6455 says every frame from a client is) ends it too. The bytes
  a message carries are paid for besides, from the telnet call's own input allowance.

A request aiohttp cannot read (a header with no colon, a bad version or Content-Length, a
bare LF, a NUL) is refused with ``400`` and logged as telnet's refusals are, a line a minute
per address and then a count, with no traceback (:class:`HttpFaultLog`); aiohttp would log
each one as an ERROR with its traceback.

A failure to accept a connection (the process out of file descriptors, EMFILE) is logged
once a minute with a count (:class:`AcceptFailures`), instead of asyncio's traceback a
second.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import sys
import time
from collections.abc import Callable
from gettext import NullTranslations
from typing import Any

from aiohttp.http import HttpProcessingError

from door.net.library_internals import held_after_upgrade
from door.net.listening import AddressLog
from door.net.nodes import TOO_MANY_MESSAGE, address_key
from door.net.telnet_guard import TokenBucket
from door.words import N_, _
from door.words.told import Said, told

log = logging.getLogger("door")

HEADER_SECONDS = 10.0  # a request's head must have arrived this long after its first byte
KEEPALIVE_SECONDS = 5.0  # an idle connection between requests is closed after this
FILE_ROOM = 256  # file descriptors left for telnet, SSH, the database, the log and the sysop
MOST_CONNECTIONS = 1024  # web connections at most, whatever the open-file limit
# WebSocket frames a second a connection may send, after a first burst: a person types 15
# keys a second, holds an arrow key at 30, and a paste is one message; a browser answers a
# ping a minute. Each frame costs the door a little work whatever it carries.
FRAME_RATE = 64
FRAME_BURST = 256
# A request's head at most: a browser's is under 2 KB, and the door sets no cookies.
HEAD_MOST = 16 * 1024
BUSY_MESSAGE = N_("The door has too many web connections just now. Please try again in a minute.")
HEAD_TOO_LONG_MESSAGE = Said(
    lambda: _("A request's headers are {size} KB at most.").format(size=HEAD_MOST // 1024)
)
_HEAD_END = (b"\r\n\r\n", b"\n\n")


def connection_cap(open_files: int, max_nodes: int) -> int:
    """How many web connections the door keeps at once, with ``open_files`` descriptors
    (RLIMIT_NOFILE): enough left for every node on telnet or SSH twice over (a call and a
    refused knock each), and :data:`FILE_ROOM` for the rest.

    >>> connection_cap(1024, 32), connection_cap(65536, 32), connection_cap(300, 32)
    (704, 1024, 16)
    """
    room = FILE_ROOM + 2 * max_nodes
    return max(16, min(MOST_CONNECTIONS, open_files - room))


def open_file_limit() -> int:
    """The process's soft limit on open files."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def refusal_response(status: str, text: str) -> bytes:
    """A whole HTTP response, written straight to a connection aiohttp never saw; ``text``
    in the caller's language, as a browser shows it.

    >>> refusal_response("503 Service Unavailable", "Busy.").split(b"\\r\\n")[0]
    b'HTTP/1.1 503 Service Unavailable'
    >>> refusal_response("503 Service Unavailable", "Später.").endswith("Später.\\r\\n".encode())
    True
    """
    body = (text + "\r\n").encode("utf-8")
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\nRetry-After: 60\r\n\r\n"
    )
    return head.encode("ascii") + body


class WebConnections:
    """The web port's connections: who holds how many, and which may be ended for a new one.

    ``per_address`` and ``cap`` are read at each arrival (the sysop may reload the limits);
    ``proxies`` says whether a peer is one of ``[web] proxies``; ``words``, the board's
    language, which a refused connection is told in.
    """

    def __init__(
        self,
        per_address: Callable[[], int],
        cap: Callable[[], int],
        is_proxy: Callable[[str], bool],
        words: Callable[[], NullTranslations],
    ) -> None:
        self._per_address = per_address
        self._cap = cap
        self._is_proxy = is_proxy
        self.words = words
        self._open: dict[GuardedConnection, None] = {}  # in order of arrival
        self._by_address: dict[str, dict[GuardedConnection, None]] = {}
        self._by_transport: dict[object, GuardedConnection] = {}
        self.refusals = AddressLog()

    def __len__(self) -> int:
        return len(self._open)

    def held_by(self, address: str) -> int:
        """How many connections ``address`` (as the node table counts it) holds."""
        return len(self._by_address.get(address_key(address), ()))

    def of(self, transport: object) -> GuardedConnection | None:
        """The guard of the connection on ``transport`` (a request's), if any."""
        return self._by_transport.get(transport)

    def admit(self, connection: GuardedConnection) -> str | None:
        """Count ``connection`` in, making room if it must; why not, if it may not come in."""
        key = address_key(connection.peer)
        if len(self._open) >= self._cap() and not _end_oldest_idle(self._open):
            return BUSY_MESSAGE
        if not self._is_proxy(connection.peer):
            held = self._by_address.get(key, {})
            if len(held) >= self._per_address() and not _end_oldest_idle(held):
                return TOO_MANY_MESSAGE
        self._open[connection] = None
        self._by_address.setdefault(key, {})[connection] = None
        self._by_transport[connection.transport] = connection
        return None

    def forget(self, connection: GuardedConnection) -> None:
        self._open.pop(connection, None)
        self._by_transport.pop(connection.transport, None)
        key = address_key(connection.peer)
        held = self._by_address.get(key)
        if held is not None:
            held.pop(connection, None)
            if not held:
                del self._by_address[key]


def _end_oldest_idle(connections: dict[GuardedConnection, None]) -> bool:
    """End the oldest of ``connections`` that is in no request; False if all are."""
    for connection in connections:
        if connection.idle:
            connection.end("ended for a newer connection")
            return True
    return False


class GuardedConnection(asyncio.Protocol):
    """One connection on the web port, between asyncio and aiohttp's handler (``inner``):
    counted by ``table`` as it arrives, its request heads timed and their size capped, its
    WebSocket's frames paid for once the door takes one, and ended when room is needed
    while it is in no request (:attr:`requests` counts those the door is in)."""

    def __init__(
        self,
        inner: asyncio.Protocol,
        table: WebConnections,
        on_lost: Callable[[], None] | None = None,
    ) -> None:
        self.inner = inner
        self.table = table
        self.on_lost = on_lost  # called once the connection has ended, admitted or not
        self.peer = "unknown"
        self.transport: asyncio.Transport | None = None
        self.requests = 0  # requests the door's handlers are in on this connection
        self.upgraded = False  # a WebSocket: no more request heads
        self._admitted = False
        self._refused = False  # a head too long: answered, and closing
        self._reading_head = True  # the connection's start counts as the start of a head
        self._framing = RequestFraming()
        self._timer: asyncio.TimerHandle | None = None
        self.address = "unknown"  # the caller's, once a WebSocket's request names it
        self._frames: FrameWalker | None = None  # once the door took a WebSocket

    @property
    def idle(self) -> bool:
        """In no request and no WebSocket, and nothing left to send: safe to end."""
        return (
            not self.upgraded
            and self.requests == 0
            and self.transport is not None
            # One already ended counts until asyncio reports it lost: ending it again
            # would make no room, and a burst of connections would each "end" the same one.
            and not self.transport.is_closing()
            and self.transport.get_write_buffer_size() == 0
        )

    def end(self, why: str) -> None:
        """Close the connection now."""
        log.debug("web connection from %s %s", self.peer, why)
        if self.transport is not None:
            self.transport.abort()

    # --- asyncio.Protocol -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = self.address = str(peer[0]) if peer else "unknown"
        refusal = self.table.admit(self)
        if refusal is not None:
            self.table.refusals.note(self.peer, f"refused WEB from {self.peer}: {refusal}")
            status = "503 Service Unavailable"
            transport.write(refusal_response(status, told(refusal, self.table.words())))
            transport.close()
            return
        self._admitted = True
        self._start_head_timer()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if not self._admitted or self._refused:
            return
        if self._frames is not None:
            fault = self._frames.walk(data, 0)
            if fault is not None:
                self._hang_up(fault)
                return
        elif not self._follow_requests(data):
            return
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        if not self._admitted:
            return None
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        lost, self.on_lost = self.on_lost, None
        if lost is not None:
            lost()
        if not self._admitted:
            return
        self._admitted = False
        self.table.forget(self)
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def _hang_up(self, fault: str) -> None:
        self.table.refusals.note(self.address, f"hung up on {self.address}: {fault}")
        self.end(fault)

    # --- request heads --------------------------------------------------------------------

    def _follow_requests(self, data: bytes) -> bool:
        """Time each request's head from its first byte to its blank line; False when one
        ran past :data:`HEAD_MOST`, and the connection was refused for it."""
        heads = self._framing.heads
        if not self._framing.read(data):
            self._refused = True  # nothing more of it reaches aiohttp
            self._reading_head = False
            self._stop_head_timer()
            self.table.refusals.note(
                self.peer, f"refused WEB from {self.peer}: a request's head past {HEAD_MOST} bytes"
            )
            assert self.transport is not None
            status = "431 Request Header Fields Too Large"
            refusal = told(HEAD_TOO_LONG_MESSAGE, self.table.words())
            self.transport.write(refusal_response(status, refusal))
            self.transport.close()
            return False
        if not self._framing.in_head:
            self._reading_head = False
            self._stop_head_timer()
        elif not self._reading_head or self._framing.heads != heads:
            self._reading_head = True
            self._start_head_timer()
        return True

    def upgrade(self) -> bool:
        """The door takes this request's WebSocket: no heads any more; from here on, every
        frame is paid for, starting with those aiohttp holds already. Called before the
        WebSocket is prepared; False if those frames were a flood, and the connection ended."""
        self.upgraded = True
        self._reading_head = False
        self._stop_head_timer()
        self._frames = FrameWalker(asyncio.get_running_loop().time())
        fault = self._frames.walk(held_after_upgrade(self.inner), 0)
        if fault is not None:
            self._hang_up(fault)
            return False
        return True

    def _start_head_timer(self) -> None:
        self._stop_head_timer()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(HEADER_SECONDS, self._head_overdue)

    def _stop_head_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head_overdue(self) -> None:
        self._timer = None
        if self._reading_head and not self.upgraded and self.requests == 0:
            self.table.refusals.note(
                self.peer,
                f"hung up on WEB from {self.peer}: no whole request within {HEADER_SECONDS:g} s",
            )
            self.end("sent no whole request in time")


def asks_to_upgrade(method: str, connection: str, upgrade: str) -> bool:
    """Whether a request with this method, ``Connection`` and ``Upgrade`` is one after
    which aiohttp reads no more requests on its connection (a WebSocket, or a tunnel).

    >>> asks_to_upgrade("GET", "keep-alive, Upgrade", "WebSocket")
    True
    >>> asks_to_upgrade("CONNECT", "", ""), asks_to_upgrade("GET", "upgrade", "h2c")
    (True, False)
    """
    tokens = {token.strip().lower() for token in connection.split(",")}
    return method == "CONNECT" or (
        "upgrade" in tokens and upgrade.strip().lower() in ("websocket", "tcp")
    )


class RequestFraming:
    """Where a connection's requests begin and end, as HTTP/1.1 frames them (RFC 9112):
    each head up to its blank line, then its body, by its ``Content-Length`` or its chunks,
    so that no body is taken for a head. After a head that asks to upgrade, nothing more is
    a request: what follows is the WebSocket's (or nothing's, the door closing a connection
    whose request to upgrade it did not take, once it has answered it). Only the head timer
    and the cap rest on this: a request framed otherwise by aiohttp is one it refuses with
    ``400``, closing the connection."""

    __slots__ = ("_body", "_chunks", "_head", "_upgraded", "heads")

    def __init__(self) -> None:
        self._head = bytearray()  # the head under way, so far
        self._body = 0  # bytes still to come of a body of known length
        self._chunks: ChunkedBody | None = None  # a chunked body under way
        self._upgraded = False
        self.heads = 0  # how many heads have ended

    @property
    def in_head(self) -> bool:
        """Whether some of a head has come, and not its end."""
        return bool(self._head)

    def read(self, data: bytes) -> bool:
        """Follow ``data``; False when a head runs past :data:`HEAD_MOST`."""
        at, size = 0, len(data)
        while at < size and not self._upgraded:
            if self._body:
                step = min(self._body, size - at)
                self._body -= step
                at += step
            elif self._chunks is not None:
                at = self._chunks.read(data, at)
                if self._chunks.done:
                    self._chunks = None
            else:
                at = self._read_head(data, at)
                if len(self._head) > HEAD_MOST:
                    return False
        return True

    def _read_head(self, data: bytes, at: int) -> int:
        """Take ``data[at:]`` into the head under way; where its end is in ``data``, if there."""
        had = len(self._head)
        self._head += data[at : at + HEAD_MOST + 1 - had]  # a byte past the cap says enough
        start = max(0, had - 3)
        ends = [(i, len(end)) for end in _HEAD_END if (i := self._head.find(end, start)) >= 0]
        if not ends:
            return len(data)
        found, length = min(ends)
        end = found + length
        if end > HEAD_MOST:
            return len(data)
        head = bytes(self._head[:end])
        self._head = bytearray()
        self.heads += 1
        self._frame_body(head)
        return at + end - had

    def _frame_body(self, head: bytes) -> None:
        lines = head.decode("latin-1").splitlines()
        method = lines[0].split(" ", 1)[0] if lines else ""
        fields: dict[str, list[str]] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if colon:
                fields.setdefault(name.strip().lower(), []).append(value.strip())
        length = fields.get("content-length", ["0"])[0]
        if "transfer-encoding" in fields:
            self._chunks = ChunkedBody()
        elif length.isascii() and length.isdigit():
            self._body = int(length)
        connection = ",".join(fields.get("connection", []))
        upgrade = ",".join(fields.get("upgrade", []))
        self._upgraded = asks_to_upgrade(method, connection, upgrade)


class ChunkedBody:
    """A chunked body followed to its end (RFC 9112 §7.1): each chunk's size line, its
    bytes and their CRLF, then the last chunk's trailer lines up to a blank one."""

    __slots__ = ("_left", "_line", "_trailer", "done")

    LONGEST_LINE = 8192  # past this, aiohttp has refused the request

    def __init__(self) -> None:
        self._line = bytearray()  # a size or trailer line under way
        self._left = 0  # bytes still to come of a chunk and its CRLF
        self._trailer = False  # past the last chunk, in its trailer lines
        self.done = False

    def read(self, data: bytes, at: int) -> int:
        """Follow ``data[at:]``; where this body ends in ``data``, or its length."""
        size = len(data)
        while at < size and not self.done:
            if self._left:
                step = min(self._left, size - at)
                self._left -= step
                at += step
                continue
            newline = data.find(b"\n", at)
            if newline < 0:
                self._line += data[at:]
                self.done = len(self._line) > self.LONGEST_LINE
                return size
            self._line += data[at:newline]
            at = newline + 1
            line, self._line = bytes(self._line).strip(), bytearray()
            if self._trailer:
                self.done = not line
                continue
            try:
                chunk = int(line.split(b";", 1)[0], 16)
            except ValueError:
                self.done = True  # aiohttp refuses it
                continue
            if chunk:
                self._left = chunk + 2
            else:
                self._trailer = True
        return at


class FrameWalker:
    """Reads WebSocket frames from a client by their headers only, charging each one."""

    __slots__ = ("_budget", "_header", "_skip")

    def __init__(self, now: float) -> None:
        self._budget = TokenBucket(FRAME_RATE, FRAME_BURST, now)
        self._header = bytearray()
        self._skip = 0  # bytes of the current frame's payload still to come

    def walk(self, data: bytes, start: int) -> str | None:
        """Charge the frames in ``data[start:]``; what is wrong, if the connection must end."""
        now = asyncio.get_running_loop().time()
        at, size = start, len(data)
        while at < size:
            if self._skip:
                step = min(self._skip, size - at)
                self._skip -= step
                at += step
                continue
            wanted = _header_length(self._header)
            take = min(wanted - len(self._header), size - at)
            self._header += data[at : at + take]
            at += take
            if len(self._header) < _header_length(self._header):
                continue
            header = self._header
            if not header[1] & 0x80:
                return "a WebSocket frame it did not mask"
            self._skip = _payload_length(header)
            self._header = bytearray()
            if not self._budget.take(1, now):
                return "a flood of input (WebSocket frames)"
        return None


def _header_length(header: bytearray) -> int:
    """How long a frame's header is, as far as its first bytes tell (2 until they are in)."""
    if len(header) < 2:
        return 2
    short = header[1] & 0x7F
    extended = 2 if short == 126 else 8 if short == 127 else 0
    return 2 + extended + (4 if header[1] & 0x80 else 0)


def _payload_length(header: bytearray) -> int:
    short = header[1] & 0x7F
    if short == 126:
        return int.from_bytes(header[2:4], "big")
    if short == 127:
        return int.from_bytes(header[2:10], "big")
    return short


def guarded(make: Callable[[], Any], table: WebConnections) -> Callable[[], GuardedConnection]:
    """A protocol factory: each connection ``make`` makes, guarded and counted by ``table``."""

    def factory() -> GuardedConnection:
        return GuardedConnection(make(), table)

    return factory


class HttpFaultLog:
    """What aiohttp's request handlers log through (their ``logger``): a request that could
    not be read becomes a line a minute per address in ``refusals``, without a traceback;
    anything else goes on to aiohttp's own ``aiohttp.server`` logger as it was."""

    def __init__(self, refusals: AddressLog) -> None:
        self._refusals = refusals
        self._logger = logging.getLogger("aiohttp.server")

    def exception(self, msg: str, *args: object, exc_info: Any = True, **kwargs: Any) -> None:
        error = exc_info if isinstance(exc_info, BaseException) else sys.exc_info()[1]
        if isinstance(error, HttpProcessingError):
            address = str(args[0]) if args else "unknown"
            why = " ".join(str(error.message or type(error).__name__).split())[:80]
            self._refusals.note(
                address, f"refused WEB from {address}: a request that could not be read ({why})"
            )
            return
        self._logger.exception(msg, *args, exc_info=exc_info, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger, name)  # debug, warning and the rest, as they were


class AcceptFailures:
    """asyncio's "socket.accept() out of system resource", logged once a minute with a count.

    Installed as the event loop's exception handler in front of the one it had: when the
    process runs out of file descriptors, asyncio reports every failed accept (a traceback a
    second per listener) and retries; the door logs the first, then how many more.
    """

    WINDOW = 60.0
    MESSAGE = "socket.accept() out of system resource"

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._previous = loop.get_exception_handler()
        self._logged_at = -self.WINDOW
        self._unlogged = 0
        loop.set_exception_handler(self._handle)

    def _handle(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != self.MESSAGE:
            if self._previous is not None:
                self._previous(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if now - self._logged_at < self.WINDOW:
            self._unlogged += 1
            return
        more = f" ({self._unlogged} more in the minute before)" if self._unlogged else ""
        log.warning(
            "could not accept a connection: %s%s",
            context.get("exception") or "no descriptors",
            more,
        )
        self._logged_at, self._unlogged = now, 0

    def remove(self) -> None:
        """Give the loop its own handler back (if no one has put another in since)."""
        if self._loop.get_exception_handler() == self._handle:
            self._loop.set_exception_handler(self._previous)
