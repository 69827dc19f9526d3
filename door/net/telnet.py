"""The telnet server: callers connect, get a node, and are handed to the door's visit.

telnetlib3 does the telnet protocol, in bytes mode (``encoding=False``): the charset is
chosen per caller after detection and encoded in :mod:`door.net.terminal`, and telnetlib3's
unicode streams raise on undecodable input. The server asks for character-at-a-time mode
(WILL ECHO, WILL SGA), the window size (DO NAWS) and the terminal type (DO TTYPE), and waits
a bounded time for the answers; a client that answers nothing still gets its visit.

Each connection gets a node, 1 to ``max_nodes``, or is told why not and hung up. Each visit
is wrapped (by :func:`~door.net.listening.guard_call`, as on every way in) so that
whatever happens in it, the caller hears how it ended, the node is freed, and the server goes
on serving:

- :class:`~door.net.clocks.IdleTimeout` and :class:`~door.net.clocks.TimeUp`: a goodbye;
- :class:`~door.net.terminal.CallerGone`: nothing (nobody is listening);
- any other exception: logged with its traceback, and an apology to the caller.

Everything is logged on the ``door`` logger, one line per event, with the node number and
the caller's alias once the visit has set it (:class:`~door.net.presence.Presence`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import signal
import socket
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, cast

import telnetlib3

from ansi.charset import encode
from ansi.text import sanitize
from door.net.detection import DETECT_TIMEOUT, TerminalInfo, known_charset, screen_size
from door.net.library_internals import (
    CompressedInputRefused,
    break_cycles,
    forget_read_callback,
    mark_closed,
    wake_drain_waiters,
)
from door.net.listening import (
    CLOSE_GRACE,
    SHUTDOWN_MESSAGE,
    SORRY_MESSAGE,
    Listening,
    ServerSettings,
    call_terminal,
    peer_address,
    settle_call,
)
from door.net.nodes import Call, Nodes, NoNode, Way
from door.net.telnet_guard import (
    COMMAND_BURST,
    COMMAND_RATE,
    SUBNEGOTIATION_LIMIT,
    DoorWriter,
    FaultLog,
    TokenBucket,
    commands_granted,
    quiet,
)
from door.net.terminal import Terminal
from door.words.told import told

log = logging.getLogger("door")

#: ``visit(terminal, node)``: what a telnet caller is handed to once their terminal is known.
VisitHandler = Callable[[Terminal, int], Awaitable[None]]

NEGOTIATE_TIMEOUT = 2.0  # seconds to wait for answers to telnet negotiation
# Bytes a second of a caller's input the door takes, after a first burst of INPUT_BURST;
# a caller who sends more is hung up. What a person needs: a fast typist sends 15 keys a
# second, a held arrow key 30 (3 bytes each), a paste a few kilobytes at once (an SSH key
# line is under one). Far less than a flood: telnetlib3 reads telnet commands byte by byte
# in Python, and every key costs the door some work, so one caller flooding would otherwise
# take the event loop from everyone else.
INPUT_RATE = 512
INPUT_BURST = 16384 + 1024  # a whole 16 KB paste, besides a client's answers at connect
_PIECE = 2 * SUBNEGOTIATION_LIMIT  # bytes handed to telnetlib3 at a time


class _DoorProtocol(CompressedInputRefused, telnetlib3.TelnetServer):
    """telnetlib3's server protocol, with the door's guards against broken or hostile clients.

    - A caller the node table refuses (too many connections from the address, too often, or
      no node free) is told why and hung up as soon as they connect, before any negotiation.
    - A pending ``drain()`` wakes when the connection is lost: telnetlib3's
      ``connection_lost`` does not reach ``FlowControlMixin``'s, so a visit blocked writing
      to a caller who stopped reading and then vanished would wait for ever.
    - A caller who sends more than :data:`INPUT_BURST` bytes faster than :data:`INPUT_RATE`,
      or more telnet commands than :data:`~door.net.telnet_guard.COMMAND_BURST` faster than
      :data:`~door.net.telnet_guard.COMMAND_RATE`, is hung up: nobody types or pastes that
      much, and telnetlib3 reads telnet commands byte by byte in Python, so a flood of them
      would take the event loop from everyone else.
    - Sub-negotiations are checked before telnetlib3 reads them, and faults are logged a line
      per kind, then counted (:mod:`door.net.telnet_guard`); a caller sending one longer than
      :data:`~door.net.telnet_guard.SUBNEGOTIATION_LIMIT` is hung up.
    - MCCP3 (compressed input) is refused: the door offers no compression, and inflating
      what a client sends would turn a few kilobytes into megabytes of telnet commands.
    - Once the connection is lost and its shell has ended, the reference cycles telnetlib3's
      objects make (tables of their own bound methods, timers, futures) are broken, so the
      connection's memory is freed at once rather than left to a full garbage collection,
      which the door runs seldom (see :func:`door.commands.serve.calm_garbage_collector`).
      Its loss may be reported again after (a WebSocket's transport reports it as it ends,
      after telnetlib3 reported it on hanging up): that passes quietly.

    What of this reaches into telnetlib3's or asyncio's private state does so through
    :mod:`door.net.library_internals`.
    """

    listening: Listening  # set on the subclass each server makes
    # Made by telnetlib3's connection_made, before any other method here runs; the writer by
    # the writer_factory below.
    reader: telnetlib3.TelnetReader
    writer: DoorWriter
    _in_shell = False
    _lost = False
    _refused = False
    #: Called once the connection is gone and let go (a worker tells its front the node
    #: the front gave it is free).
    on_gone: Callable[[], None] | None = None

    #: Told of each window size the client reports (NAWS) once the call's terminal is known,
    #: as ``(columns, rows)``.
    on_resize: Callable[[int, int], None] | None = None

    def __init__(self, **options: Any) -> None:
        super().__init__(writer_factory=DoorWriter, **options)

    def on_naws(self, rows: int, cols: int) -> None:
        super().on_naws(rows, cols)
        if self.on_resize is None:
            return
        try:
            self.on_resize(cols, rows)
        except Exception:  # telnetlib3 would swallow it: a fault here is the door's
            log.exception("drawing for a new window size failed")

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # telnetlib3 forgets its own at connection_lost; every transport here can abort.
        self._socket_transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername")
        self._address = str(peer[0]) if peer else "unknown"
        refusal = self.listening.admit(self._address)
        if refusal is not None:
            # Told at once, before telnetlib3 makes anything: a flood of refused
            # connections costs the door little.
            self._refused = True
            assert isinstance(transport, asyncio.WriteTransport)
            said = told(refusal, self.listening.nodes.words)  # before any charset is known
            transport.write(encode(f"\r\n{said}\r\n", "ascii"))
            transport.close()
            return
        super().connection_made(transport)
        now = asyncio.get_running_loop().time()
        self._budget = TokenBucket(INPUT_RATE, INPUT_BURST, now)
        self._commands = TokenBucket(COMMAND_RATE, COMMAND_BURST, now)
        self._faults = FaultLog(self._address)
        quiet(self.writer, self._faults)

    def data_received(self, data: bytes) -> None:
        if self._refused or self._lost:
            return
        now = asyncio.get_running_loop().time()
        granted = self._budget.take(len(data), now)
        within = commands_granted(data[:granted], self._commands, now)
        # Read a piece at a time: telnetlib3 reads a sub-negotiation byte by byte, and one cut
        # short ends the reading (and the call) at once, not at the end of a long chunk.
        for start in range(0, within, _PIECE):
            super().data_received(data[start : min(start + _PIECE, within)])
            if self.writer.cut_short:
                break
        if self._lost:
            return
        if self.writer.cut_short:
            log.info("hung up on %s: a sub-negotiation that never ends", self._address)
            self._socket_transport.abort()
        elif within < len(data):
            flood = "telnet commands" if within < granted else "input"
            log.info("hung up on %s: a flood of %s", self._address, flood)
            self._socket_transport.abort()

    def compressed_input_refused(self) -> None:
        log.info("refused compressed input from %s", self._address)

    def begin_shell(self, future: asyncio.Future[None]) -> None:
        # As telnetlib3's, with the shell wrapped so that its end is known.
        if future.cancelled() or future.exception() is not None or self.shell is None:
            return
        self._in_shell = True
        asyncio.get_running_loop().create_task(self._run_shell())

    async def _run_shell(self) -> None:
        try:
            assert self.shell is not None
            await self.shell(self.reader, self.writer)
        finally:
            self._in_shell = False
            if self._lost:
                asyncio.get_running_loop().call_soon(self._let_go)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._lost:
            return
        self._lost = True
        if self._refused:
            mark_closed(self)
            asyncio.get_running_loop().call_soon(self._let_go)
            return
        super().connection_lost(exc)
        wake_drain_waiters(self, exc)
        self._faults.close()
        if not self._in_shell:
            # After the transport has finished its own connection_lost.
            asyncio.get_running_loop().call_soon(self._let_go)

    def _let_go(self) -> None:
        """Break the cycles between this connection's objects: nothing uses them any more."""
        transport = self._socket_transport
        gone, self.on_gone = self.on_gone, None
        if gone is not None:
            gone()
        break_cycles(self)
        self._lost = True  # a loss reported again finds the connection gone
        forget_read_callback(transport)


class DoorServer:
    """A listening door: made by :func:`start_server`, ended by :meth:`close`. Made with
    another ``way`` and never listening, it serves a way in that carries telnet inside
    another protocol (:meth:`connection`), its callers shown under that way."""

    def __init__(
        self,
        config: ServerSettings,
        visit: VisitHandler,
        *,
        detect_timeout: float = DETECT_TIMEOUT,
        negotiate_timeout: float = NEGOTIATE_TIMEOUT,
        nodes: Nodes | None = None,
        way: Way = Way.TELNET,
    ) -> None:
        self.config = config
        self.nodes = nodes if nodes is not None else Nodes(config)
        self._visit = visit
        self._detect_timeout = detect_timeout
        self._negotiate_timeout = negotiate_timeout
        self._telnet: telnetlib3.Server | None = None
        self._forgetting: asyncio.Task[None] | None = None
        self._listening = Listening(way, self.nodes)
        self._protocol = type("DoorProtocol", (_DoorProtocol,), {"listening": self._listening})

    def _protocol_options(self) -> dict[str, Any]:
        """What telnetlib3 makes each connection's protocol with."""
        return {
            "shell": self._shell,
            "encoding": False,
            # Bytes are 8-bit whatever BINARY says (BBS terminals expect CP437), and
            # negotiation need not wait for BINARY to be agreed.
            "force_binary": True,
            "connect_maxwait": self._negotiate_timeout,
            "timeout": 0,  # the door keeps its own idle time, with a warning first
            "compression": False,
            "cols": 0,  # 0x0 until NAWS says otherwise: "unknown", not a guess
            "rows": 0,
        }

    def connection(self) -> asyncio.Protocol:
        """A telnet connection's protocol, as the listener makes one, for a way in that
        carries the telnet stream itself (the web's WebSocket): the same negotiation, guards
        and visit; its transport names the caller's address as ``peername``."""
        return self._protocol(**self._protocol_options())

    async def adopt(self, sock: socket.socket, node: int, gone: Callable[[], None]) -> None:
        """Serve a connection a front process accepted and admitted (:mod:`door.running`),
        on the ``node`` it gave; ``gone()`` once the connection has ended, whenever it
        ends (before the visit began, too)."""
        options = {**self._protocol_options(), "shell": functools.partial(self._shell, node=node)}

        def protocol() -> asyncio.Protocol:
            made = self._protocol(**options)
            made.on_gone = gone
            return made

        try:
            await asyncio.get_running_loop().connect_accepted_socket(protocol, sock)
        except OSError:  # gone already
            sock.close()
            gone()

    async def _listen(self) -> None:
        self._telnet = await telnetlib3.create_server(
            host=self.config.host,
            port=self.config.port,
            protocol_factory=self._protocol,
            **self._protocol_options(),
        )
        assert self._telnet.sockets
        self._listening.port = int(self._telnet.sockets[0].getsockname()[1])
        self._forgetting = asyncio.create_task(_forget_clients(self._telnet))
        log.info(
            "listening on %s port %d for %d nodes",
            self.config.host,
            self._listening.port,
            self.config.max_nodes,
        )

    @property
    def port(self) -> int:
        """The port listened on (the real one when the configuration said 0)."""
        return self._listening.port

    @property
    def way(self) -> Way:
        """The way in its callers are shown under: telnet, or the way that carries it."""
        return self._listening.way

    async def serve_forever(self) -> None:
        """Return once the server has been closed."""
        await self._listening.wait_closed()

    async def close(self, reason: str = SHUTDOWN_MESSAGE, *, grace: float = CLOSE_GRACE) -> None:
        """Tell every caller ``reason``, end their visits and stop listening.

        Visits are cancelled, so they save in ``finally`` or on :class:`asyncio.CancelledError`;
        they get ``grace`` seconds. Callers connecting meanwhile hear ``reason`` too. Calling
        again waits for the first close to finish.
        """
        if not await self._listening.begin_close(reason):
            return
        self.nodes.closing = reason
        await self._listening.end_calls(grace)
        if self._forgetting is not None:
            self._forgetting.cancel()
        if self._telnet is not None:
            self._telnet.close()
            try:
                async with asyncio.timeout(grace):
                    await self._telnet.wait_closed()
            except TimeoutError:
                log.warning("listener did not close within %g seconds", grace)
        log.info("closed")
        self._listening.finish_close()

    # --- one connection -------------------------------------------------------------------

    async def _shell(self, reader: Any, writer: Any, node: int | None = None) -> None:
        """telnetlib3's shell: one connection from negotiation's end to hang-up.

        telnetlib3 runs this in a task nobody awaits, so nothing may escape it.
        """
        address = peer_address(writer)
        # A client that refused WILL ECHO echoes itself.
        terminal = call_terminal(
            self.config, reader, writer, self.nodes.words, echo=bool(writer.will_echo)
        )
        try:
            # Counted when the connection was made; asked again, as a node may have gone.
            async with self.nodes.admitted(self.way, address, terminal, node=node) as call:
                await self._visit_node(call, terminal, writer, address)
        except NoNode as refused:
            self._listening.note_refusal(address, refused.why)
            await terminal.hang_up(told(refused.why, terminal.words))
        except Exception:  # a fault here, outside any visit; keep serving
            log.exception("connection from %s failed", address)
            await terminal.hang_up(told(SORRY_MESSAGE, terminal.words))

    async def _visit_node(self, call: Call, terminal: Terminal, writer: Any, address: str) -> None:
        """Detect the terminal, run the visit, and hang up saying how it ended."""
        node, started = call.node, call.since

        async def visit() -> None:
            await _detect(terminal, writer, self._detect_timeout)
            protocol = writer.protocol  # the writer lets it go as the connection ends
            protocol.on_resize = terminal.resize
            try:
                await settle_call(
                    node,
                    f"{'' if self.way == Way.TELNET else self.way + ' '}connect from {address}",
                    terminal,
                    self._detect_timeout,
                    self.config.time_limit,
                    started,
                )
                await self._visit(terminal, node)
            finally:
                protocol.on_resize = None  # no cycle left through the terminal

        await self._listening.guard(call, visit)


async def _forget_clients(telnet: telnetlib3.Server) -> None:
    """Take each connection off telnetlib3's queue for ``wait_for_client()`` as it comes.

    The door meets its callers in the shell and never asks that queue, which keeps the last
    1,000 connections, and everything they read, alive long after they hung up.
    """
    while True:
        await telnet.wait_for_client()


async def _detect(terminal: Terminal, writer: Any, timeout: float) -> TerminalInfo:
    """Detect the terminal, then take in negotiation answers that came during the wait."""
    info = await terminal.detect(
        term_type=_term_type(writer), size=_window_size(writer), timeout=timeout
    )
    terminal.echo = bool(writer.will_echo)
    width, height = screen_size(_window_size(writer))
    if (width, height) != (info.width, info.height):
        terminal.info = info = replace(info, width=width, height=height)
    return info


def _term_type(writer: Any) -> str:
    """The terminal type the client gave (TTYPE), made safe to log.

    Clients cycle through names from the most to the least specific, and telnetlib3 keeps the
    last as ``TERM``. The first is kept when it names a type with a known charset: Windows
    telnet answers ANSI (a CP437 console), then VT100.
    """
    first = writer.get_extra_info("ttype1") or ""
    chosen = writer.get_extra_info("TERM") or ""
    return sanitize(first if known_charset(first) else chosen, 40)


def _window_size(writer: Any) -> tuple[int, int] | None:
    """``(width, height)`` from NAWS, or None if the client sent none."""
    width, height = writer.get_extra_info("cols") or 0, writer.get_extra_info("rows") or 0
    return (int(width), int(height)) if width and height else None


async def start_server(
    config: ServerSettings,
    visit: VisitHandler,
    *,
    detect_timeout: float = DETECT_TIMEOUT,
    negotiate_timeout: float = NEGOTIATE_TIMEOUT,
    nodes: Nodes | None = None,
) -> DoorServer:
    """Listen on ``config.host`` and ``config.port``, running ``visit(terminal, node)`` per caller.

    ``negotiate_timeout`` bounds the wait for telnet negotiation answers, ``detect_timeout``
    the wait for the answer to the ANSI probe; ``nodes`` is the table of nodes shared with the
    other ways in (by default, one of the server's own).
    """
    server = DoorServer(
        config,
        visit,
        detect_timeout=detect_timeout,
        negotiate_timeout=negotiate_timeout,
        nodes=nodes,
    )
    await server._listen()
    return server


async def run_server(
    config: ServerSettings,
    visit: VisitHandler,
    *,
    detect_timeout: float = DETECT_TIMEOUT,
    on_start: Callable[[DoorServer], None] | None = None,
    nodes: Nodes | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, then close, telling callers the door is shutting down.

    ``on_start`` is called with the listening server (to learn its port, say).
    """
    server = await start_server(config, visit, detect_timeout=detect_timeout, nodes=nodes)
    loop = asyncio.get_running_loop()
    closing: list[asyncio.Task[None]] = []

    def shut_down(name: str) -> None:
        log.info("%s received", name)
        if not closing:  # a second signal changes nothing; the first close is under way
            closing.append(asyncio.create_task(server.close(SHUTDOWN_MESSAGE)))

    signals = (signal.SIGINT, signal.SIGTERM)
    for number in signals:
        loop.add_signal_handler(number, shut_down, number.name)
    try:
        if on_start is not None:
            on_start(server)
        await server.serve_forever()
    finally:
        for number in signals:
            loop.remove_signal_handler(number)
        await server.close(SHUTDOWN_MESSAGE)
