"""The sysop's control channel: a Unix socket beside the database, for the running door,
and one for each door-mode call in a folder beside it (:mod:`door.running.door_calls`).

Only the door's own user (and root) can use it: the socket is made owner-only (0600), and
each connection's peer is checked again (``SO_PEERCRED``), which also covers the moment
between making the socket and setting its mode. ``canfield-door sysop who|send|kick|watch|
status|reload`` (:mod:`door.commands.live`) is the client.

The protocol is one JSON object a line. The client sends one request::

    {"command": "who"}
    {"command": "send", "node": 3, "text": "Back in five"}     (node "all": every caller)
    {"command": "kick", "node": 3, "reason": "Maintenance"}
    {"command": "watch", "node": 3}
    {"command": "status"}
    {"command": "reload"}
    {"command": "contests"}     (open and close the contests that are due, then answer)

and gets one answer, ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``. After the
answer to ``watch``, the caller's screen follows as it is sent, UTF-8, until the call ends or
the client closes the connection. A door-mode call's socket answers ``who``, ``send``, ``kick``
and ``watch`` for its one caller, and refuses the others: they are for the running door.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import logging
import os
import socket
import stat
import struct
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeGuard, TypeVar, runtime_checkable

from ansi.charset import decode
from ansi.text import sanitize
from door.files import PRIVATE_FILE
from door.net.nodes import Call
from door.views.layout import wrap
from door.words import _
from door.words.speaking import speaking
from door.words.told import Said

log = logging.getLogger("door")

REQUEST_LIMIT = 16384  # bytes of one request line
REQUEST_TIMEOUT = 10.0  # seconds a client has to send its request
WATCH_BACKLOG = 512  # chunks of screen a slow watcher may fall behind before being dropped
SOCKET_PATH_LIMIT = 107  # bytes in a Unix socket's path (sun_path, less the final NUL)
MESSAGE_WIDTH = 76  # a sysop's message fits the game's message line
REASON_LIMIT = 60

Answer = dict[str, Any]


def control_path(database: Path) -> Path:
    """Where the control socket of the door serving ``database`` is.

    >>> control_path(Path("/srv/canfield/canfield.db"))
    PosixPath('/srv/canfield/canfield.db.control')
    """
    return database.with_name(database.name + ".control")


def calls_folder(database: Path) -> Path:
    """The folder of the door-mode calls' sockets, one a call, for the door on ``database``.

    >>> calls_folder(Path("/srv/canfield/canfield.db"))
    PosixPath('/srv/canfield/canfield.db.calls')
    """
    return database.with_name(database.name + ".calls")


class Reachable(Protocol):
    """What the control channel asks of whatever holds calls: the running door, or one
    door-mode call."""

    def who(self) -> list[dict[str, Any]]: ...
    def send(self, node: int | None, text: str) -> list[int]: ...
    def kick(self, node: int, reason: str) -> bool: ...
    def call(self, node: int) -> Call | None: ...


@runtime_checkable
class Controlled(Reachable, Protocol):
    """What the control channel asks of the running door besides its calls."""

    async def status(self) -> dict[str, Any]: ...
    def reload(self) -> Answer: ...
    async def settle_contests(self) -> Answer: ...


class ControlError(Exception):
    """The control socket can't be made; the message says why."""


class ControlServer:
    """Listens on the control socket and answers the sysop's requests."""

    def __init__(self, path: Path, door: Reachable | None) -> None:
        """``door`` None: a subclass answers the requests (:meth:`_handle`)."""
        self.path = path
        self._door = door
        self._server: asyncio.Server | None = None
        self._clients: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Make the socket; ControlError if it can't be, or if a door already answers on it."""
        if len(os.fsencode(self.path)) > SOCKET_PATH_LIMIT:
            raise ControlError(f"{self.path}: the path is too long for a Unix socket")
        await self._clear_stale()
        try:
            self._server = await asyncio.start_unix_server(
                self._client, path=str(self.path), limit=REQUEST_LIMIT
            )
            os.chmod(self.path, PRIVATE_FILE)
        except OSError as error:
            raise ControlError(f"{self.path}: {error.strerror or error}") from None

    async def _clear_stale(self) -> None:
        """Remove a socket left by a door that is gone; refuse one a door answers on."""
        try:
            mode = self.path.lstat().st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISSOCK(mode):
            raise ControlError(f"{self.path}: exists and is not a socket; move it away")
        try:
            _reader, writer = await asyncio.wait_for(
                asyncio.open_unix_connection(str(self.path)), 2
            )
        except (OSError, TimeoutError):
            self.path.unlink(missing_ok=True)  # nobody answers: left by a door that died
            return
        writer.close()
        raise ControlError(f"{self.path}: another door is running with this database")

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._clients):
                task.cancel()
            with suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None
            with suppress(OSError):
                self.path.unlink()

    # --- one client --------------------------------------------------------------------

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._clients.add(task)
        try:
            if not _same_user(writer):
                await send_answer(writer, {"ok": False, "error": "permission denied"})
                return
            request = await _request(reader)
            if request is None:
                await send_answer(writer, {"ok": False, "error": "not a request"})
                return
            await self._handle(request, reader, writer)
        except (OSError, EOFError, asyncio.IncompleteReadError):
            pass  # the client went away
        except Exception:
            log.exception("control: a request failed")
            with suppress(Exception):
                await send_answer(writer, {"ok": False, "error": "the door failed; see its log"})
        finally:
            self._clients.discard(task)
            writer.close()

    async def _handle(
        self, request: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        assert self._door is not None
        if request.get("command") == "watch":
            await answer_watch(self._door, request, reader, writer)
        else:
            await send_answer(writer, await answer(self._door, request))


async def answer(door: Reachable, request: dict[str, Any]) -> Answer:
    """The answer to a request, every command but ``watch`` (:func:`answer_watch`)."""
    command = request.get("command")
    if command in ("status", "reload", "contests") and not isinstance(door, Controlled):
        return {"ok": False, "error": f"{command} is for the running door"}
    if command == "who":
        return {"ok": True, "calls": door.who()}
    if command == "status":
        assert isinstance(door, Controlled)
        return {"ok": True, **(await door.status())}
    if command == "reload":
        assert isinstance(door, Controlled)
        return door.reload()
    if command == "contests":
        assert isinstance(door, Controlled)
        return await door.settle_contests()
    if command == "send":
        node = request.get("node")
        text = request.get("text")
        if not isinstance(text, str) or not (node == "all" or is_node(node)):
            return {"ok": False, "error": "send needs a node and a text"}
        reached = door.send(None if node == "all" else node, text)
        if not reached and node != "all":
            return nobody(node)
        return {"ok": True, "nodes": reached}
    if command == "kick":
        node, reason = request.get("node"), request.get("reason", "")
        if not is_node(node) or not isinstance(reason, str):
            return {"ok": False, "error": "kick needs a node"}
        if door.kick(node, reason):
            return {"ok": True, "node": node}
        return nobody(node)
    return {"ok": False, "error": f"no such command: {command!r}"}


async def answer_watch(
    door: Reachable,
    request: dict[str, Any],
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> None:
    """Answer ``watch``, then send the caller's screen (:func:`watch`)."""
    node = request.get("node")
    call = door.call(node) if is_node(node) else None
    if call is None:
        await send_answer(writer, nobody(node))
        return
    await send_answer(writer, {"ok": True, "node": node, "alias": call.alias})
    await watch(call, reader, writer)


def is_node(node: object) -> TypeGuard[int]:
    return isinstance(node, int) and not isinstance(node, bool) and node > 0


def nobody(node: object) -> Answer:
    return {"ok": False, "error": f"nobody is on node {node}"}


def _same_user(writer: asyncio.StreamWriter) -> bool:
    """Whether the peer runs as the door's user, or as root."""
    sock = writer.get_extra_info("socket")
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return True  # the socket's mode alone guards it
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return uid in (os.getuid(), 0)


async def _request(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    try:
        line = await asyncio.wait_for(reader.readline(), REQUEST_TIMEOUT)
    except (TimeoutError, ValueError):  # ValueError: a line over the limit
        return None
    try:
        request = json.loads(line)
    except ValueError:
        return None
    return request if isinstance(request, dict) else None


async def send_answer(writer: asyncio.StreamWriter, answer: Answer) -> None:
    writer.write(json.dumps(answer).encode() + b"\n")
    await writer.drain()


# --- what the sysop says ----------------------------------------------------------------


def one_line(text: str, width: int) -> str:
    """``text`` cleaned, on one line of at most ``width`` characters, cut between words.

    >>> one_line("Back in \\x1b[31mfive\\r\\n minutes", 40), one_line("one two three", 11)
    ('Back in five minutes', 'one two ...')
    """
    lines = wrap(sanitize(text), width)
    if len(lines) == 1:
        return lines[0]
    return wrap(sanitize(text), width - 4)[0] + " ..."


def sysop_message(sysop: str, text: str) -> str:
    """What a caller is shown of the sysop's message, in the language spoken now: cleaned,
    and cut between words to fit the game's message line.

    >>> sysop_message("Sysop", "Back in \\x1b[31mfive\\r\\n minutes")
    'Sysop: Back in five minutes'
    >>> len(sysop_message("Sysop", "word " * 40)) <= MESSAGE_WIDTH
    True
    """
    # TRANSLATORS: the sysop's message to a caller, on the game's message line (the line is
    # cut to fit): {sysop} is the sysop's name, {text} what they wrote.
    framed = _("{sysop}: {text}").format(sysop=sanitize(sysop, 40), text=sanitize(text))
    return one_line(framed, MESSAGE_WIDTH)


Listening = TypeVar("Listening", bound="ControlServer")


async def open_control(server: Listening) -> Listening | None:
    """``server`` listening, or None (said in the log) when its socket can't be made: the
    door serves its callers all the same, without the sysop's live commands."""
    try:
        await server.start()
    except ControlError as error:
        log.warning("no control channel for the sysop's commands: %s", error)
        return None
    log.info("control socket %s", server.path)
    return server


def who_row(call: Call, now: float) -> dict[str, Any]:
    """A call as ``sysop who`` lists it: node, alias, way in, where from, what they are
    doing, and their idle and on times at ``now`` (monotonic seconds)."""
    return {
        "node": call.node,
        "alias": call.alias,
        "way": call.way,
        "address": sanitize(call.address, 60),
        "activity": sanitize(call.presence.activity, 60),
        "idle": int(call.terminal.clocks.idle_seconds),
        "on": int(now - call.since),
    }


def tell_call(call: Call, sysop: str, text: str) -> None:
    """Show the sysop's ``text`` on the caller's message line, framed in their language."""
    with speaking(call.terminal.words):
        call.terminal.tell(sysop_message(sysop, text))
    # The caller sees "Sysop: text"; the log line names the sysop once.
    log.info("node %d: the sysop says: %s", call.node, sanitize(text, MESSAGE_WIDTH))


def end_call(call: Call, reason: str) -> None:
    """End ``call`` politely for the sysop's ``reason``, the game saved."""
    cleaned = kick_reason(reason)
    log.info(
        "node %d%s: the sysop ends the call%s",
        call.node,
        f" ({call.alias})" if call.alias else "",
        f": {cleaned}" if cleaned else "",
    )
    call.end(kick_farewell(cleaned, saved=call.terminal.logged_in), "ended by the sysop")


def kick_farewell(reason: str, *, saved: bool = True) -> str:
    """What a caller the sysop sends off is told (``saved``: a caller logged in, whose game
    is kept): English, said in the caller's language as they are told it.

    >>> kick_farewell("Maintenance")
    'The sysop has ended your call: Maintenance. Your game is saved.'
    >>> kick_farewell("", saved=False)
    'The sysop has ended your call.'
    """
    return Said(partial(_kicked, reason.rstrip("."), saved))


def _kicked(reason: str, saved: bool) -> str:
    if reason and saved:
        text = _("The sysop has ended your call: {reason}. Your game is saved.")
    elif reason:
        text = _("The sysop has ended your call: {reason}.")
    elif saved:
        text = _("The sysop has ended your call. Your game is saved.")
    else:
        text = _("The sysop has ended your call.")
    return text.format(reason=reason)


def kick_reason(reason: str) -> str:
    """The sysop's reason for ending a call, cleaned to a line; empty if there is none.

    >>> kick_reason("Maintenance\\r\\n"), kick_reason("\\x1b[2J")
    ('Maintenance', '')
    """
    return one_line(reason, REASON_LIMIT) if sanitize(reason) else ""


# --- watching a caller ----------------------------------------------------------------


def _to_utf8() -> Callable[[bytes, str], bytes]:
    """What a caller was sent, for the sysop's (UTF-8) terminal."""
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def convert(data: bytes, charset: str) -> bytes:
        if charset == "cp437":
            return decode(data, "cp437", glyphs=True).encode()
        if charset == "utf-8":
            return utf8.decode(data).encode()
        return data

    return convert


async def watch(
    call: Call,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> None:
    """Send the caller's screen as it is now, then everything they are sent, until their
    call ends or the watcher closes the connection (or sends anything)."""
    chunks: asyncio.Queue[bytes | None] = asyncio.Queue(WATCH_BACKLOG)
    convert = _to_utf8()

    def watcher(data: bytes, charset: str) -> None:
        with suppress(asyncio.QueueFull):  # a watcher far behind loses screens, not the caller
            chunks.put_nowait(convert(data, charset))

    def ended(_future: object) -> None:
        with suppress(asyncio.QueueFull):
            chunks.put_nowait(None)

    replay = call.presence.replay
    if replay is not None:
        writer.write(replay().encode())
    call.watch(watcher)
    call.task.add_done_callback(ended)
    stop = asyncio.ensure_future(reader.read(1))
    try:
        while True:
            chunk_waiter = asyncio.ensure_future(chunks.get())
            done, _pending = await asyncio.wait(
                {chunk_waiter, stop}, return_when=asyncio.FIRST_COMPLETED
            )
            if stop in done:
                chunk_waiter.cancel()
                return
            chunk = chunk_waiter.result()
            if chunk is None:
                writer.write(b"\r\n\x1b[0m\r\n[The caller has hung up.]\r\n")
                await writer.drain()
                return
            writer.write(chunk)
            await writer.drain()
    finally:
        stop.cancel()
        call.unwatch(watcher)
        call.task.remove_done_callback(ended)
