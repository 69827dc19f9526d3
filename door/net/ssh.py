"""The SSH server: callers log in at their client's own password prompt, then visit as over
telnet.

asyncssh does the protocol. A caller's alias is the SSH user name and their door password the
SSH password, checked by the door's own check (scrypt, through ``check_password``), with the
telnet log-in's throttling: each wrong password answers later than the last, and after
``login_tries`` of them the connection is closed. The user ``new``, with any password, is let
in to sign up. A caller who has added an SSH key to their settings may log in with it
(``check_key``).

A connection is admitted, or refused, by the node table's rules the moment it arrives, as a
telnet caller is (too many connections from the address, too often, no node free): a refused
client hears why in SSH's disconnect message before its key exchange, and its password is
never checked. Until its session starts an admitted connection holds no node but counts as
one for its address (:meth:`~door.net.nodes.Nodes.arriving`), so one address cannot keep more
password prompts open than it may hold nodes; a client that never finishes its key exchange
or its log in is cut off after ``login_timeout`` seconds. (Served by a worker of a front
process, a connection comes admitted by the front, counted as arriving there, or with the
refusal to tell: :meth:`SshDoor.adopt`.) Passwords are checked with the
caller's address, so that the address's back-off holds over SSH as at the telnet prompt, and
wrong ones are logged a line a minute per address. The session's
TERM and window size come with its pty request, and a change of window size is followed. From
there the caller's bytes reach the same :class:`~door.net.terminal.Terminal` as a telnet
caller's, through :class:`SshReader` and :class:`SshWriter`, and the visit is guarded the same
way (:func:`~door.net.listening.guard_call`).

The host key is made on first start (Ed25519, owner-only permissions) unless it exists, and its
fingerprint is logged so the sysop can publish it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh

from ansi.text import sanitize
from door.net.detection import DETECT_TIMEOUT
from door.net.listening import (
    CLOSE_GRACE,
    SHUTDOWN_MESSAGE,
    SORRY_MESSAGE,
    AddressLog,
    Listening,
    ServerSettings,
    call_terminal,
    peer_address,
    settle_call,
)
from door.net.nodes import Call, Nodes, NoNode, Way
from door.net.terminal import Terminal
from door.words import N_
from door.words.told import told

log = logging.getLogger("door")

NEW_CALLER = "new"  # the SSH user name, any password, that leads to signing up
LOGIN_TIMEOUT = 60.0  # seconds from connecting to logged in, key exchange included
CLOSE_TIMEOUT = 5.0  # seconds for a session's last bytes to go before the line is cut
NO_COMMANDS_MESSAGE = N_("This door runs no commands: connect without one to play.")
LOG_IN_AGAIN_MESSAGE = N_("Please log in again.")
WRONG_PASSWORDS_MESSAGE = N_("Too many wrong passwords. Goodbye.")

#: ``check_key(alias, key)`` (an OpenSSH public key line): who the caller is, or None.
Check = Callable[[str, str], Awaitable[object | None]]
#: ``check_password(alias, password, address)``: who the caller is, or None.
PasswordCheck = Callable[[str, str, str], Awaitable[object | None]]
#: ``visit(terminal, node, who)``: ``who`` is what a check returned, or None for a new caller.
SshVisit = Callable[[Terminal, int, object | None], Awaitable[None]]


class NewCaller:
    """Who a caller is when they came in as ``new``: nobody yet."""


# --- the host key ---------------------------------------------------------------------------


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The host key in ``path``, made there first (owner-only) if there is no such file."""
    if not path.exists():
        key = asyncssh.generate_private_key("ssh-ed25519")
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL: never overwrite a key that appeared meanwhile; 0600 from the first byte.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(key.export_private_key())
        log.info("made a new SSH host key in %s", path)
    return asyncssh.read_private_key(path)


def _key_line(key: asyncssh.SSHKey) -> str:
    return " ".join(key.export_public_key("openssh").decode("ascii").split()[:2])


# --- the caller's bytes, for Terminal -------------------------------------------------------


class SshReader:
    """``async read(n)`` from a session's standard input; b"" at the end or a broken line.

    A change of the client's window size arrives as an exception on read; it is passed to
    ``on_resize(width, height)`` and reading goes on.
    """

    def __init__(self, process: asyncssh.SSHServerProcess) -> None:
        self._stdin = process.stdin
        self.on_resize: Callable[[int, int], None] = lambda width, height: None

    async def read(self, n: int) -> bytes:
        while True:
            try:
                data = await self._stdin.read(n)
            except asyncssh.TerminalSizeChanged as change:
                self.on_resize(change.width, change.height)
                continue
            except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                continue  # nothing a door does with a break or a signal
            except asyncssh.Error:
                return b""
            return data if isinstance(data, bytes) else data.encode("utf-8")


class SshWriter:
    """``write``, ``async drain`` and ``close`` on a session's standard output.

    Closing ends the session once what was written has gone; :meth:`finish` then closes the
    connection, so that a client keeping it open holds nothing.
    """

    def __init__(self, process: asyncssh.SSHServerProcess) -> None:
        self._process = process

    def write(self, data: bytes) -> None:
        self._process.stdout.write(data)

    async def drain(self) -> None:
        try:
            await self._process.stdout.drain()
        except asyncssh.Error as error:
            raise ConnectionError(str(error)) from error

    def close(self) -> None:
        with contextlib.suppress(OSError, asyncssh.Error):
            self._process.exit(0)  # the channel closes after its last bytes

    async def finish(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Close the session, wait (a bounded time) for it to close, then the connection."""
        self.close()
        with contextlib.suppress(TimeoutError, OSError, asyncssh.Error):
            async with asyncio.timeout(timeout):
                await self._process.wait_closed()
        connection = self._process.get_extra_info("connection")
        if connection is not None:
            connection.close()


# --- logging in -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Handed:
    """A connection another process accepted and admitted, or refused (``refusal``, told in
    SSH's disconnect message), and handed over (:meth:`SshDoor.adopt`): ``arrived()`` once it
    has logged in or gone, ``gone()`` once it has ended (each may be called more than once)."""

    refusal: str | None
    arrived: Callable[[], None]
    gone: Callable[[], None]


class _LogIn(asyncssh.SSHServer):
    """One connection's log in: who each user name proved to be, and the wrong passwords."""

    def __init__(self, door: SshDoor, handed: Handed | None = None) -> None:
        self._door = door
        self._handed = handed
        self._connection: asyncssh.SSHServerConnection | None = None
        self._address = "unknown"
        self._failures = 0
        self._arrived: Callable[[], None] = lambda: None
        self.proved: dict[str, object] = {}  # user name -> who the door's check found

    def connection_made(self, connection: asyncssh.SSHServerConnection) -> None:
        self._connection = connection
        peer = connection.get_extra_info("peername")
        self._address = str(peer[0]) if peer else "unknown"
        connection.set_extra_info(door_login=self)
        handed = self._handed
        refusal = self._door.admit(self._address) if handed is None else handed.refusal
        if refusal is not None:
            # Once asyncssh has sent its version: the client shows the reason and goes.
            asyncio.get_running_loop().call_soon(
                connection.disconnect,
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
                told(refusal, self._door.nodes.words),
            )
            return
        # A connection handed over was counted as arriving by the process that admitted it.
        if handed is None:
            self._arrived = self._door.nodes.arriving(self._address)
        else:
            self._arrived = handed.arrived
        self._door._pending.add(connection)

    def connection_lost(self, exc: Exception | None) -> None:
        self._arrived()
        if self._connection is not None:
            self._door._pending.discard(self._connection)
        if self._handed is not None:
            self._handed.gone()

    def auth_completed(self) -> None:
        self._arrived()  # the session, if one starts, holds a node of its own
        if self._connection is not None:
            self._door._pending.discard(self._connection)

    def begin_auth(self, username: str) -> bool:
        return True  # every caller logs in

    def password_auth_supported(self) -> bool:
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_password(self, username: str, password: str) -> bool:
        if username.casefold() == NEW_CALLER:
            self.proved[username] = NewCaller()
            return True
        who = await self._door.check_password(username, password, self._address)
        if who is not None:
            self.proved[username] = who
            return True
        self._failures += 1
        self._door.wrong_passwords.note(
            self._address, f"ssh: wrong password for {sanitize(username, 40)} from {self._address}"
        )
        if self._failures >= self._door.login_tries:
            assert self._connection is not None
            self._connection.disconnect(
                asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                told(WRONG_PASSWORDS_MESSAGE, self._door.nodes.words),
            )
            return False
        await asyncio.sleep(self._door.login_delay * 2 ** (self._failures - 1))  # slower each time
        return False

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if username.casefold() == NEW_CALLER:
            return False
        who = await self._door.check_key(username, _key_line(key))
        if who is None:
            return False
        self.proved[username] = who
        return True


# --- the server -----------------------------------------------------------------------------


class SshDoor:
    """An SSH door: listens (:meth:`listen`), or serves connections another process accepted
    (:meth:`adopt`); ended by :meth:`close`."""

    def __init__(
        self,
        config: ServerSettings,
        visit: SshVisit,
        nodes: Nodes,
        *,
        check_password: PasswordCheck,
        check_key: Check,
        login_tries: int = 3,
        login_delay: float = 1.0,
        login_timeout: float = LOGIN_TIMEOUT,
        detect_timeout: float = DETECT_TIMEOUT,
    ) -> None:
        self.config = config
        self.nodes = nodes
        self.check_password = check_password
        self.check_key = check_key
        self.login_tries = login_tries
        self.login_delay = login_delay
        self.login_timeout = login_timeout
        self._visit = visit
        self._detect_timeout = detect_timeout
        self._server: asyncssh.SSHAcceptor | None = None
        self._pending: set[asyncssh.SSHServerConnection] = set()
        self._listening = Listening(Way.SSH, nodes)
        self._handed_options: dict[str, Any] = {}  # asyncssh's, for connections handed over
        self.wrong_passwords = AddressLog()  # a line a minute per address

    def _options(self, key: asyncssh.SSHKey) -> dict[str, Any]:
        """What asyncssh serves each connection with."""
        return {
            "server_host_keys": [key],
            "process_factory": self._session,
            "encoding": None,  # bytes: the caller's charset is the Terminal's business
            "line_editor": False,
            "login_timeout": self.login_timeout,
            "agent_forwarding": False,
            "x11_forwarding": False,
            "allow_scp": False,
            "keepalive_interval": 60,
            "keepalive_count_max": 3,
        }

    async def listen(self, host: str, port: int, host_key: Path) -> None:
        key = load_host_key(host_key)
        self._server = await asyncssh.create_server(
            lambda: _LogIn(self), host, port, **self._options(key)
        )
        sockets = self._server.sockets
        self._listening.port = int(sockets[0].getsockname()[1]) if sockets else port
        log.info(
            "listening for SSH on %s port %d; host key %s, fingerprint %s",
            host,
            self._listening.port,
            host_key,
            key.get_fingerprint("sha256"),
        )

    @property
    def port(self) -> int:
        """The port listened on (the real one when the configuration said 0)."""
        return self._listening.port

    def serve_handed(self, port: int, host_key: Path) -> None:
        """Listen on nothing and serve the connections another process accepts on ``port``
        and hands over (:meth:`adopt`), with the host key in ``host_key`` (made already)."""
        self._listening.port = port
        self._handed_options = self._options(load_host_key(host_key))

    async def adopt(self, sock: socket.socket, handed: Handed) -> None:
        """Serve a connection another process accepted (:meth:`serve_handed`): its key
        exchange, its log in and its sessions, as if it had arrived here."""
        try:
            await asyncssh.run_server(
                sock, server_factory=lambda: _LogIn(self, handed), **self._handed_options
            )
        except (OSError, asyncssh.Error, TimeoutError):  # refused, or gone before its log in
            sock.close()
            handed.arrived()
            handed.gone()

    def admit(self, address: str) -> str | None:
        """Why a connection from ``address`` may not log in, or None: asked as it arrives.

        Any caller may be one who logs in, and may take a node kept for those: which they
        are is asked again when their session starts."""
        return self._listening.admit(address, logged_in=True)

    async def close(self, reason: str = SHUTDOWN_MESSAGE, *, grace: float = CLOSE_GRACE) -> None:
        """Tell SSH callers ``reason``, end their visits, and stop listening."""
        if not await self._listening.begin_close(reason):
            return
        self.nodes.closing = self.nodes.closing or reason
        if self._server is not None:
            self._server.close()
        for connection in list(self._pending):  # not logged in yet: nothing to save
            connection.close()
        await self._listening.end_calls(grace)
        if self._server is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace):
                    await self._server.wait_closed()
        self._listening.finish_close()

    # --- one session ----------------------------------------------------------------------

    async def _session(self, process: asyncssh.SSHServerProcess) -> None:
        """asyncssh runs this in a task of its own per session; nothing may escape it."""
        address = peer_address(process)
        reader, writer = SshReader(process), SshWriter(process)
        terminal = call_terminal(self.config, reader, writer, self.nodes.words)
        try:
            if process.command is not None or process.subsystem is not None:
                await terminal.hang_up(told(NO_COMMANDS_MESSAGE, terminal.words))
                return
            login: _LogIn | None = process.get_extra_info("door_login")
            username = process.get_extra_info("username") or ""
            who = None if login is None else login.proved.get(username)
            if who is None:  # asyncssh let in nobody the door did not prove; never expected
                await terminal.hang_up(told(LOG_IN_AGAIN_MESSAGE, terminal.words))
                return
            # A caller who proved who they are may take a node kept for those logged in.
            user_id = getattr(who, "id", None)
            # Counted when the connection arrived; asked again, as a node may have gone.
            async with self.nodes.admitted(
                Way.SSH, address, terminal, logged_in=user_id is not None, user_id=user_id
            ) as call:
                await self._visit_node(call, process, reader, terminal, address, who)
        except NoNode as refused:
            self._listening.note_refusal(address, refused.why)
            await terminal.hang_up(told(refused.why, terminal.words))
        except Exception:  # a fault here, outside any visit; keep serving
            log.exception("SSH connection from %s failed", address)
            await terminal.hang_up(told(SORRY_MESSAGE, terminal.words))
        finally:
            await writer.finish()

    async def _visit_node(
        self,
        call: Call,
        process: asyncssh.SSHServerProcess,
        reader: SshReader,
        terminal: Terminal,
        address: str,
        who: object,
    ) -> None:
        node, started = call.node, call.since

        async def visit() -> None:
            term_type = sanitize(process.get_terminal_type() or "", 40)
            width, height, _, _ = process.get_terminal_size()
            size = (width, height) if width and height else None
            await terminal.detect(term_type=term_type, size=size, timeout=self._detect_timeout)
            reader.on_resize = terminal.resize
            await settle_call(
                node,
                f"SSH connect from {address}",
                terminal,
                self._detect_timeout,
                self.config.time_limit,
                started,
            )
            await self._visit(terminal, node, None if isinstance(who, NewCaller) else who)

        await self._listening.guard(call, visit)
