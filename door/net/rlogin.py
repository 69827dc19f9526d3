"""The RLOGIN server (RFC 1282): the way linked boards send their callers, as door networks do.

A linked board opens a connection and sends, as RFC 1282 has it, a NUL and three
NUL-terminated fields: the client-user name, the server-user name and the terminal type
(``ansi-bbs/38400``). The door reads them in DoorParty's form, which Synchronet, Mystic and
ENiGMA½ sysops already type for door networks:

- one user field is ``[TAG]alias``: the board's tag in brackets, then the caller's alias;
- the other is the board's shared secret (Synchronet's ``bbs.rlogin_gate`` sends its
  "password" as the client-user name, others as the server-user name: either order is
  taken).

The connection must come from one of the board's addresses in sysop.toml, and the secret
must be that board's. Anything else (an address of no linked board, a wrong tag or secret, a
handshake that is not RFC 1282's, one that does not end within ``handshake_timeout``
seconds, a full door) is refused with RFC 1282's error byte (1) and one line, and logged a
line a minute per address (:class:`~door.net.listening.AddressLog`); the secret is never
logged. After :data:`FREE_WRONG_SECRETS` wrong tags or secrets from an address, it is
refused as it connects, before its handshake is read, for 15 seconds, then twice as long
after each further wrong one, up to 5 minutes (:class:`WrongSecrets`). A board's callers
are not limited by ``max_per_address`` (a door network's hub sends all its callers from one
address), but by the board's own ``max_calls``, counted by the table of nodes.

Served by a worker of a front process, a connection comes admitted by the front (the
address a linked board's, not resting), which also counts the wrong secrets the worker
reads (:meth:`RloginDoor.adopt`).

An accepted caller gets RFC 1282's NUL, then the door's terminal detection and the main menu
as a user of that board (:class:`Arrival`); Goodbye closes the connection, and the board
takes its caller back.

Window sizes a client sends in band (``FF FF 's' 's'``, then rows, columns and pixels) are
taken out of the input and followed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import socket
import struct
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from gettext import NullTranslations

from ansi.charset import encode
from ansi.text import sanitize
from door.linked_board import LinkedBoard
from door.net.clocks import span
from door.net.detection import DETECT_TIMEOUT
from door.net.listening import (
    CLOSE_GRACE,
    SHUTDOWN_MESSAGE,
    Listening,
    ServerSettings,
    call_terminal,
    peer_address,
    settle_call,
)
from door.net.nodes import Nodes, NoNode, Way, address_key
from door.net.terminal import Terminal
from door.words import N_, ngettext
from door.words.told import Said, told

log = logging.getLogger("door")

HANDSHAKE_TIMEOUT = 10.0  # seconds a board has to send the whole handshake
HANDSHAKE_LIMIT = 512  # bytes: three short fields; more is not a handshake
ALIAS_LIMIT = 40  # as a drop file's alias
CLOSE_TIMEOUT = 5.0

# What a board is told of a refusal (its software may show its caller), in the board's
# language as door.words.told says them.
NOT_LINKED = N_("This address is not a board linked to this door.")
NOT_A_HANDSHAKE = N_("That is not an RLOGIN handshake.")
TOO_SLOW = N_("The RLOGIN handshake took too long.")
WRONG_FIELDS = N_("Unknown board tag or wrong secret.")
FREE_WRONG_SECRETS = 3  # wrong tags or secrets from an address before it rests
FIRST_REST = 15.0  # seconds; doubled after each further wrong secret
LONGEST_REST = 300.0
FORGET_WRONG_SECRETS = 3600.0  # seconds after the last wrong secret

#: ``visit(terminal, node, arrival)``: a linked board's caller, from the main menu on.
RloginVisit = Callable[[Terminal, int, "Arrival"], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Arrival:
    """Who came over RLOGIN: a caller of ``board``, with their alias and terminal type."""

    board: LinkedBoard
    alias: str
    term_type: str


class Refused(Exception):
    """The connection is refused; the message is the one line the board is sent."""

    def __init__(self, message: str, why: str = "") -> None:
        super().__init__(message)
        self.why = why or message  # for the log, which may say more than the board is told


# --- the handshake --------------------------------------------------------------------------


async def read_handshake(reader: asyncio.StreamReader) -> tuple[list[bytes], bytes]:
    """The three fields of the handshake, and any bytes that came after it.

    :raises Refused: the bytes are not a handshake.
    :raises EOFError: the connection ended first.
    """
    data = b""
    while data.count(b"\0") < 4:
        if data[:1] not in (b"", b"\0"):
            raise Refused(NOT_A_HANDSHAKE, "it does not begin with a NUL")
        if len(data) > HANDSHAKE_LIMIT:
            raise Refused(NOT_A_HANDSHAKE, f"no end in its first {HANDSHAKE_LIMIT} bytes")
        chunk = await reader.read(256)
        if not chunk:
            raise EOFError("the connection ended during the handshake")
        data += chunk
    if data[:1] != b"\0":
        raise Refused(NOT_A_HANDSHAKE, "it does not begin with a NUL")
    client, server, term, rest = data[1:].split(b"\0", 3)
    if len(data) - len(rest) > HANDSHAKE_LIMIT:
        raise Refused(NOT_A_HANDSHAKE, f"longer than {HANDSHAKE_LIMIT} bytes")
    return [client, server, term], rest


def _text(field: bytes) -> str:
    """A field as text: UTF-8 if it is, else CP437 as BBSes write it."""
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError:
        return field.decode("cp437")


def _tagged(field: str) -> tuple[str, str] | None:
    """``("TAG", "alias")`` from ``[TAG]alias``, or None."""
    if not field.startswith("["):
        return None
    tag, bracket, alias = field[1:].partition("]")
    return (tag, alias) if bracket and tag else None


def identify(fields: Sequence[bytes], boards: Sequence[LinkedBoard]) -> Arrival:
    """Who the handshake says is calling, among ``boards`` (those the address may be).

    :raises Refused: no board with that tag and secret, or no alias.
    """
    client, server, term = (_text(field) for field in fields)
    for tagged, secret in ((server, client), (client, server)):
        found = _tagged(tagged)
        if found is None:
            continue
        tag, alias = found
        for board in boards:
            # compare_digest: how long the answer takes says nothing of the secret.
            matches = hmac.compare_digest(secret.encode(), board.secret.encode())
            if board.tag.casefold() == tag.casefold() and matches:
                alias = sanitize(alias, ALIAS_LIMIT).strip()
                if not alias:
                    raise Refused(NOT_A_HANDSHAKE, f"board {board.tag} sent no alias")
                term_type = sanitize(term.partition("/")[0], 40)
                return Arrival(board, alias, term_type)
    tags = [found[0] for found in map(_tagged, (server, client)) if found]
    shown = sanitize(tags[0], 20) if tags else "none"
    raise Refused(WRONG_FIELDS, f"tag {shown} with a secret that is not that board's")


# --- the caller's bytes, for Terminal -------------------------------------------------------

_COOKIE = b"\xff\xffss"
_WINDOW = len(_COOKIE) + 8


class WindowSizes:
    """Takes RFC 1282's window-size messages out of the input, across packets.

    >>> sizes = WindowSizes()
    >>> sizes.feed(b"ab\\xff\\xffss\\x00\\x32\\x00\\x84\\x00\\x00")
    (b'ab', [])
    >>> sizes.feed(b"\\x00\\x00cd")
    (b'cd', [(132, 50)])
    """

    def __init__(self) -> None:
        self._held = b""

    def feed(self, data: bytes) -> tuple[bytes, list[tuple[int, int]]]:
        """The caller's bytes, and each ``(columns, rows)`` the client reported."""
        data, self._held = self._held + data, b""
        if b"\xff" not in data:
            return data, []
        kept = bytearray()
        sizes: list[tuple[int, int]] = []
        start = 0
        while (found := data.find(b"\xff", start)) >= 0:
            kept += data[start:found]
            tail = data[found : found + _WINDOW]
            if len(tail) < _WINDOW and _COOKIE.startswith(tail[: len(_COOKIE)]):
                self._held = tail  # maybe a message cut between packets
                return bytes(kept), sizes
            if tail.startswith(_COOKIE):
                rows, columns, _, _ = struct.unpack(">4H", tail[len(_COOKIE) :])
                sizes.append((columns, rows))
                start = found + _WINDOW
            else:
                kept.append(0xFF)
                start = found + 1
        kept += data[start:]
        return bytes(kept), sizes


class RloginReader:
    """The caller's bytes from an RLOGIN connection, window-size messages taken out and
    passed to ``on_resize(columns, rows)``."""

    def __init__(self, reader: asyncio.StreamReader, first: bytes = b"") -> None:
        self._reader = reader
        self._first = first
        self._sizes = WindowSizes()
        self.on_resize: Callable[[int, int], None] = lambda columns, rows: None

    async def read(self, n: int) -> bytes:
        while True:
            data, self._first = self._first or await self._reader.read(n), b""
            if not data:
                return b""
            kept, sizes = self._sizes.feed(data)
            for columns, rows in sizes:
                self.on_resize(columns, rows)
            if kept:
                return kept


# --- wrong secrets ---------------------------------------------------------------------------


class WrongSecrets:
    """Wrong tags or secrets per address: after :data:`FREE_WRONG_SECRETS` of them the address
    rests, longer after each one, and is forgotten an hour after its last; a right one forgets
    it at once.

    >>> guesses = WrongSecrets()
    >>> [guesses.wrong("192.0.2.7", now=0.0) for _ in range(5)]
    [0.0, 0.0, 0.0, 15.0, 30.0]
    >>> guesses.rest("192.0.2.7", now=10.0), guesses.rest("192.0.2.7", now=40.0)
    (20.0, 0.0)
    """

    def __init__(self) -> None:
        self._by_address: dict[str, tuple[int, float, float]] = {}  # count, last, rest until

    def rest(self, address: str, now: float | None = None) -> float:
        """Seconds the address must wait before its handshake is read again; 0 now."""
        now = time.monotonic() if now is None else now
        _, _, until = self._by_address.get(address_key(address), (0, 0.0, 0.0))
        return max(0.0, until - now)

    def wrong(self, address: str, now: float | None = None) -> float:
        """Count a wrong tag or secret; the seconds the address now rests."""
        now = time.monotonic() if now is None else now
        key = address_key(address)
        count, last, _ = self._by_address.get(key, (0, now, 0.0))
        count = count + 1 if now - last < FORGET_WRONG_SECRETS else 1
        rest = 0.0
        if count > FREE_WRONG_SECRETS:
            rest = min(LONGEST_REST, FIRST_REST * 2 ** min(count - FREE_WRONG_SECRETS - 1, 20))
        self._by_address[key] = (count, now, now + rest)
        if len(self._by_address) > 1024:  # forget addresses that have kept quiet
            for stale, (_, at, _) in list(self._by_address.items()):
                if now - at >= FORGET_WRONG_SECRETS:
                    del self._by_address[stale]
        return rest

    def right(self, address: str) -> None:
        self._by_address.pop(address_key(address), None)


def linked_boards(
    address: str, boards: Sequence[LinkedBoard], wrong_secrets: WrongSecrets
) -> list[LinkedBoard]:
    """The linked boards ``address`` may be, asked as its connection arrives.

    :raises Refused: the address is no linked board's, or it gave too many wrong secrets
        lately.
    """
    linked = [board for board in boards if board.admits(address)]
    if not linked:
        raise Refused(NOT_LINKED, "not the address of a linked board")
    rest = wrong_secrets.rest(address)
    if rest > 0:
        raise Refused(Said(partial(_try_again_in, rest)), "resting after wrong secrets")
    return linked


def refusal_line(refused: Refused, words: NullTranslations) -> bytes:
    """RFC 1282's refusal: a byte 1, then the reason (in ``words``, the board's language);
    the connection is closed after it."""
    return b"\x01" + encode(told(refused.args[0], words), "ascii") + b"\r\n"


# --- the server -----------------------------------------------------------------------------


class RloginDoor:
    """An RLOGIN door: listens (:meth:`listen`), or serves connections another process
    accepted (:meth:`adopt`); ended by :meth:`close`.

    ``boards`` gives the linked boards as sysop.toml says now (a reload may change them).
    """

    def __init__(
        self,
        config: ServerSettings,
        boards: Callable[[], Sequence[LinkedBoard]],
        visit: RloginVisit,
        nodes: Nodes,
        *,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        detect_timeout: float = DETECT_TIMEOUT,
        wrong_secrets: WrongSecrets | None = None,
    ) -> None:
        self.config = config
        self.nodes = nodes
        self._boards = boards
        self._visit = visit
        self._handshake_timeout = handshake_timeout
        self._detect_timeout = detect_timeout
        self._server: asyncio.Server | None = None
        self._handshaking: set[asyncio.StreamWriter] = set()
        self._listening = Listening(Way.RLOGIN, nodes)
        self._wrong_secrets = WrongSecrets() if wrong_secrets is None else wrong_secrets

    async def listen(self, host: str, port: int) -> None:
        self._server = await asyncio.start_server(self._connection, host, port)
        self._listening.port = int(self._server.sockets[0].getsockname()[1])
        log.info(
            "listening for RLOGIN on %s port %d for %d linked board(s)",
            host,
            self._listening.port,
            len(self._boards()),
        )

    @property
    def port(self) -> int:
        """The port listened on (the real one when the configuration said 0)."""
        return self._listening.port

    async def close(self, reason: str = SHUTDOWN_MESSAGE, *, grace: float = CLOSE_GRACE) -> None:
        """Tell RLOGIN callers ``reason``, end their visits, and stop listening."""
        if not await self._listening.begin_close(reason):
            return
        self.nodes.closing = self.nodes.closing or reason
        if self._server is not None:
            self._server.close()
        for writer in list(self._handshaking):
            writer.close()
        await self._listening.end_calls(grace)
        self._listening.finish_close()

    def serve_handed(self, port: int) -> None:
        """Listen on nothing and serve the connections another process accepts on ``port``
        and hands over (:meth:`adopt`)."""
        self._listening.port = port

    async def adopt(self, sock: socket.socket, gone: Callable[[], None]) -> None:
        """Serve a connection another process accepted and admitted (:func:`linked_boards`),
        as if it had arrived here; ``gone()`` once it has ended."""
        try:
            reader, writer = await asyncio.open_connection(sock=sock)
        except OSError:  # gone already
            sock.close()
            gone()
            return
        try:
            await self._connection(reader, writer)
        finally:
            gone()

    # --- one connection -------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """asyncio runs this in a task of its own; nothing may escape it."""
        address = peer_address(writer)
        try:
            boards = self._admit(address)
            arrival, rest = await self._handshake(reader, writer, address, boards)
            if arrival is None:
                return
            await self._call(arrival, RloginReader(reader, rest), writer, address)
        except Refused as refused:
            self._listening.note_refusal(address, refused.why)
            writer.write(refusal_line(refused, self.nodes.words))
        except (OSError, EOFError):
            pass  # the board hung up
        except asyncio.CancelledError:
            # The door ended the call (closing, the sysop, a take-over): its visit has said
            # goodbye and logged it. The task ends here, not cancelled: Python 3.11's
            # start_server asks a cancelled task for its exception and logs the error.
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        except Exception:  # a fault here, outside any visit; keep serving
            log.exception("RLOGIN connection from %s failed", address)
        finally:
            await _close(writer)

    def _admit(self, address: str) -> list[LinkedBoard]:
        """The linked boards ``address`` may be, asked as the connection arrives.

        :raises Refused: the door is closing, the address is no linked board's, or it gave
            too many wrong secrets lately.
        """
        if self._listening.closing is not None:
            raise Refused(self._listening.closing)
        return linked_boards(address, self._boards(), self._wrong_secrets)

    async def _handshake(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        address: str,
        boards: Sequence[LinkedBoard],
    ) -> tuple[Arrival | None, bytes]:
        """Who the board sends, and the bytes after the handshake; None if it hung up."""
        self._handshaking.add(writer)
        try:
            async with asyncio.timeout(self._handshake_timeout):
                fields, rest = await read_handshake(reader)
        except TimeoutError:
            raise Refused(
                TOO_SLOW, f"no whole handshake in {self._handshake_timeout:g} s"
            ) from None
        except EOFError:
            return None, b""
        finally:
            self._handshaking.discard(writer)
        try:
            arrival = identify(fields, boards)
        except Refused as refused:
            if refused.args[0] == WRONG_FIELDS:
                self._wrong_secrets.wrong(address)
            raise
        self._wrong_secrets.right(address)
        return arrival, rest

    async def _call(
        self, arrival: Arrival, reader: RloginReader, writer: asyncio.StreamWriter, address: str
    ) -> None:
        terminal = call_terminal(self.config, reader, writer, self.nodes.words)
        terminal.logged_in = True  # the board vouches for its caller
        started = time.monotonic()

        async def visit() -> None:
            await terminal.detect(term_type=arrival.term_type, timeout=self._detect_timeout)
            reader.on_resize = terminal.resize
            came = f"RLOGIN from {arrival.board.name} ({address})"
            await settle_call(
                call.node, came, terminal, self._detect_timeout, self.config.time_limit, started
            )
            await self._visit(terminal, call.node, arrival)

        # A linked board proved itself, and vouches for its caller: one who may take a node
        # kept for callers logged in, and whose calls the board's max_calls rations.
        try:
            async with self.nodes.admitted(
                Way.RLOGIN, address, terminal, logged_in=True, rationed=False, board=arrival.board
            ) as call:
                writer.write(b"\0")  # RFC 1282: the handshake is accepted
                call.presence.alias = arrival.alias
                await self._listening.guard(call, visit)
        except NoNode as refused:
            raise Refused(refused.why) from None


def _try_again_in(seconds: float) -> str:
    count, in_minutes = span(seconds)
    if in_minutes:
        text = ngettext(
            "Too many wrong secrets lately. Try again in {count} minute.",
            "Too many wrong secrets lately. Try again in {count} minutes.",
            count,
        )
    else:
        text = ngettext(
            "Too many wrong secrets lately. Try again in {count} second.",
            "Too many wrong secrets lately. Try again in {count} seconds.",
            count,
        )
    return text.format(count=count)


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with contextlib.suppress(OSError, TimeoutError):
        async with asyncio.timeout(CLOSE_TIMEOUT):
            await writer.wait_closed()
