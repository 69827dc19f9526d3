"""``serve`` on every core: one front process and ``[server] workers`` workers.

The front holds no game. It listens on every way's port (telnet, and SSH, RLOGIN and the web
when sysop.toml gives them one), admits or refuses each connection the moment it arrives by
the one table of nodes (:class:`~door.net.nodes.Table`: ``max_nodes``, the nodes reserved for
callers logged in, the limits per address, room made for a new caller) and, for RLOGIN, by
the linked boards and their wrong secrets, since those decisions need one view of every
call, and hands each admitted connection to the worker serving the fewest, over a Unix
socket (:mod:`door.running.handoff`), before a byte of its protocol was read: the worker
does the whole protocol (the SSH key exchange, the TLS handshake) and the visit
(:mod:`door.running.worker`). A telnet connection takes its node as it is handed over; a
call by another way takes one when it begins (an SSH caller has logged in, a linked board's
handshake is read, a web page opens its WebSocket), given here by the same table. A web
connection goes to the worker holding the other web connections of its address, if one
does, so that the web guard there counts them all (:mod:`door.net.web_guard`).

Workers are forked from the front once everything is imported (the modules of the ways the
front only listens for too), the garbage collector's objects frozen first (``gc.freeze``),
so that the pages the imports filled stay shared. A worker that dies (killed, or failed) is
forked again at once; its callers' nodes are freed (their games are saved as on any dropped
line: every play is committed before the board that shows it is drawn), and new callers go
to the live workers meanwhile.

Signals: SIGINT and SIGTERM close the door (every worker tells its callers, as one process
does); SIGHUP reads sysop.toml again here (the limits of the table of nodes) and in every
worker (what their visits read); SIGUSR1 has every worker log its store's commits.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import os
import signal
import socket
import time
import traceback
from collections.abc import Callable, Coroutine
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ansi.charset import encode
from door.config import Config, ConfigError
from door.net.listening import CLOSE_GRACE, SHUTDOWN_MESSAGE, AddressLog
from door.net.nodes import TAKE_OVER_GRACE, TAKEN_OVER_MESSAGE, Table, Way, address_key
from door.net.rlogin import Refused, WrongSecrets, linked_boards, refusal_line
from door.running.control import (
    Answer,
    ControlServer,
    control_path,
    is_node,
    nobody,
    open_control,
    send_answer,
)
from door.running.handoff import Channel, Message, Requests, channel_pair
from door.running.reload import compare
from door.running.service import Service
from door.running.worker import Worker, forget_front_signals, name_in_log
from door.store import Store
from door.store.hashing import CHECKS, HASHING
from door.words import N_
from door.words.told import told

log = logging.getLogger("door")

STARTING: Answer = {"ok": False, "error": "the door is starting; try again in a moment"}
RESTARTING = N_("The door is starting again. Please call again in a moment.")
RESTART_PAUSE = 1.0  # seconds between forks of a worker that keeps dying at once
QUICK_DEATH = 5.0  # seconds: a worker dying sooner after its start is paused before a fork


@dataclass(eq=False)
class HandedCall:
    """A connection the front handed to a worker, on its node, as the table sees it."""

    node: int
    way: Way
    address: str
    worker: WorkerLink
    call_id: int
    since: float = field(default_factory=time.monotonic)
    farewell: str | None = None
    ending: str | None = None
    user_id: int | None = None
    board: str | None = None
    answered: bool = False
    alias: str = ""
    gone: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def logged_in(self) -> bool:
        return self.user_id is not None

    def end(self, farewell: str, ending: str) -> None:
        """Have the worker end the call (its visit saves and says ``farewell``)."""
        if self.farewell is None:
            self.farewell, self.ending = farewell, ending
            self.worker.channel.send(
                {"end": self.call_id, "node": self.node, "farewell": farewell, "ending": ending}
            )


@dataclass(frozen=True)
class Lines:
    """A linked board as a worker names it when its caller asks for a node."""

    tag: str
    name: str
    max_calls: int | None


@dataclass(eq=False)
class HandedConnection:
    """A connection by SSH, RLOGIN or the web the front handed to a worker, until it ends:
    ``arrived()`` once an SSH caller has logged in or gone (until then it counts as a node
    of its address)."""

    connection_id: int
    way: Way
    address: str
    arrived: Callable[[], None] = lambda: None


class FrontTable(Table[HandedCall]):
    """The front's table of every worker's calls. A worker keeps the log-in limit of its
    own calls (its table starts the clock as the visit begins), so this one does not."""

    clocks_log_in = False


@dataclass(eq=False)
class WorkerLink:
    """One worker as the front knows it: its process, its line, its calls."""

    index: int
    pid: int
    channel: Channel = field(init=False)
    requests: Requests = field(default_factory=Requests)
    started: float = field(default_factory=time.monotonic)
    calls: dict[int, HandedCall] = field(default_factory=dict)  # by call id
    connections: dict[int, HandedConnection] = field(default_factory=dict)  # by id

    @property
    def load(self) -> int:
        """How busy the worker is: its calls and connections (a call may be both)."""
        return len(self.calls) + len(self.connections)


class Front:
    """The front process of ``serve`` with more than one worker; :meth:`run` serves until a
    shutdown signal. ``reread`` reads sysop.toml again, as :class:`Service`'s does."""

    def __init__(self, config: Config, reread: Callable[[], Config]) -> None:
        self.config = config
        self._reread = reread
        self.table = FrontTable(config.server)
        self._workers: dict[int, WorkerLink] = {}  # by index
        self._listeners: dict[Way, socket.socket] = {}
        self._ports: dict[Way, int] = {}
        self._fingerprint = ""  # the SSH host key's, when SSH is on
        self._refusals = AddressLog()
        self._wrong_secrets = WrongSecrets()
        self._next_call = 0
        self._closing: str | None = None
        self._stopped = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._control: FrontControl | None = None
        self._leases: dict[tuple[int, int], asyncio.Task[None]] = {}  # (worker, lease)
        self._tasks: set[asyncio.Task[object]] = set()

    async def run(self) -> None:
        self._loop = loop = asyncio.get_running_loop()
        handlers = {
            signal.SIGINT: lambda: self.close("SIGINT"),
            signal.SIGTERM: lambda: self.close("SIGTERM"),
            signal.SIGHUP: self._hang_up_signal,
            signal.SIGUSR1: self._pass_on_usr1,
            signal.SIGCHLD: self._reap,
        }
        for number, handler in handlers.items():
            loop.add_signal_handler(number, handler)
        server = self.config.server
        # The database made, or brought to this door's schema, once, before the workers
        # open it side by side: two making it at once race to set its WAL mode, and one is
        # refused ("database is locked").
        async with await Store.open(server.database):
            pass
        try:
            self._listen()
            _import_every_way(self.config)
            for index in range(server.workers):
                self._fork(index)
            for way, listener in self._listeners.items():
                loop.add_reader(listener.fileno(), self._accept, way)
            self._log_listening()
            self._control = await open_control(
                FrontControl(control_path(self.config.server.database), self)
            )
            await self._stopped.wait()
        finally:
            if self._control is not None:
                await self._control.close()
            self._stop_listening()
            for number in handlers:
                loop.remove_signal_handler(number)
            for link in self._workers.values():
                _end_process(link.pid)
        log.info("door stopped")

    def _listen(self) -> None:
        """Listen on every way's port, before the workers are forked (they learn the ports)."""
        config = self.config
        wanted = {
            Way.TELNET: (config.server.host, config.server.port),
            Way.SSH: (config.server.host, config.ssh.port),
            Way.RLOGIN: (config.server.host, config.rlogin.port),
            Way.WEB: (config.web.host or config.server.host, config.web.port),
        }
        if config.ssh.port is not None:
            from door.net.ssh import load_host_key

            # Made here, once, not by every worker at once.
            self._fingerprint = load_host_key(config.host_key).get_fingerprint("sha256")
        for way, (host, port) in wanted.items():
            if port is None:
                continue
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            listener = socket.create_server((host, port), family=family, backlog=1024)
            listener.setblocking(False)
            self._listeners[way] = listener
            self._ports[way] = int(listener.getsockname()[1])

    def _log_listening(self) -> None:
        config, ports = self.config, self._ports
        server = config.server
        log.info(
            "listening on %s port %d for %d nodes, with %d workers",
            server.host,
            ports[Way.TELNET],
            server.max_nodes,
            server.workers,
        )
        if Way.SSH in ports:
            log.info(
                "listening for SSH on %s port %d; host key %s, fingerprint %s",
                server.host,
                ports[Way.SSH],
                config.host_key,
                self._fingerprint,
            )
        if Way.RLOGIN in ports:
            log.info(
                "listening for RLOGIN on %s port %d for %d linked board(s)",
                server.host,
                ports[Way.RLOGIN],
                len(config.rlogin.boards),
            )
        if Way.WEB in ports:
            scheme = "https" if config.web.certificate is not None else "http"
            host = config.web.host or server.host
            log.info("listening for web on %s port %d (%s)", host, ports[Way.WEB], scheme)

    def _keep(self, work: Coroutine[Any, Any, object]) -> None:
        """Run ``work`` in a task held until it ends (the loop holds tasks weakly)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- workers ---------------------------------------------------------------------------

    def _fork(self, index: int) -> None:
        front_end, worker_end = channel_pair()
        gc.freeze()  # what the front made so far stays on pages the workers share
        pid = os.fork()
        if pid == 0:  # the worker
            status = 1
            try:
                front_end.close()
                self._forget_in_worker()
                status = run_worker(index, worker_end, self.config, self._reread, self._ports)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(status)
        worker_end.close()
        link = WorkerLink(index, pid)
        link.channel = Channel(
            front_end,
            lambda message, fds: self._heard(link, message, fds),
            lambda: self._worker_gone(link),
        )
        link.channel.start()
        self._workers[index] = link
        log.info("worker %d started (process %d)", index, pid)

    def _forget_in_worker(self) -> None:
        """A worker keeps none of the front's sockets."""
        for listener in self._listeners.values():
            listener.close()
        for link in self._workers.values():
            link.channel.abandon()

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            link = next((w for w in self._workers.values() if w.pid == pid), None)
            if link is None:
                continue
            del self._workers[link.index]
            link.channel.close()
            self._free_calls(link)
            if self._closing is not None:
                log.info("worker %d stopped", link.index)
                if not self._workers:
                    self._stopped.set()
                continue
            log.warning(
                "worker %d (process %d) ended (%s) with %d caller(s) on; starting it again",
                link.index,
                pid,
                _status(status),
                len(link.calls),
            )
            pause = RESTART_PAUSE if time.monotonic() - link.started < QUICK_DEATH else 0.0
            assert self._loop is not None
            self._loop.call_later(pause, self._refork, link.index)

    def _refork(self, index: int) -> None:
        if self._closing is None and index not in self._workers:
            self._fork(index)

    def _worker_gone(self, link: WorkerLink) -> None:
        """The worker's line closed: it is ending (reaped on SIGCHLD); no call goes to it."""
        link.requests.cancel()
        for lease in [lease for lease in self._leases if lease[0] == link.index]:
            self._leases.pop(lease).cancel()
        self._free_calls(link)

    def _free_calls(self, link: WorkerLink) -> None:
        for call in list(link.calls.values()):
            self._release(call)
        for connection in link.connections.values():
            connection.arrived()
        link.connections.clear()

    # --- calls -----------------------------------------------------------------------------

    def _accept(self, way: Way) -> None:
        listener = self._listeners.get(way)
        if listener is None:
            return
        for _ in range(64):  # then let the loop hear the workers
            try:
                connection, peer = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of descriptors: the connection waits its turn
                log.warning("cannot accept a connection: %s", error)
                return
            address = str(peer[0]) if peer else "unknown"
            if way == Way.TELNET:
                self._admit(connection, address)
            else:
                self._admit_by(way, connection, address)

    def _admit(self, connection: socket.socket, address: str) -> None:
        """A telnet connection: refused here, or handed over on the node it takes."""
        refusal = self._closing or self.table.refusal(address)
        live = self._live()
        if refusal is None and not live:
            refusal = RESTARTING
        if refusal is not None:
            self._refusals.note(address, f"refused {address}: {refusal}")
            _tell(connection, told(refusal, self.config.words.words(None)))
            return
        worker = min(live, key=lambda link: link.load)
        self._next_call += 1
        call = HandedCall(self.table.free_node(), Way.TELNET, address, worker, self._next_call)
        self.table.seat(call)
        worker.calls[call.call_id] = call
        message = {"call": call.call_id, "node": call.node, "way": call.way.value}
        if not worker.channel.send(message, connection):
            self._release(call)

    def _admit_by(self, way: Way, connection: socket.socket, address: str) -> None:
        """A connection by SSH, RLOGIN or the web: refused here, or handed over with no
        node (its call asks for one when it begins: :meth:`_seat`)."""
        live = self._live()
        refusal = self._closing or (None if live else RESTARTING)
        if refusal is None and way == Way.RLOGIN:
            try:
                linked_boards(address, self.config.rlogin.boards, self._wrong_secrets)
            except Refused as refused:
                self._refusals.note(address, f"refused RLOGIN from {address}: {refused.why}")
                _send_and_close(connection, refusal_line(refused, self.config.words.words(None)))
                return
        if refusal is not None:
            self._refusals.note(address, f"refused {way.upper()} from {address}: {refusal}")
            if way == Way.RLOGIN:
                said = refusal_line(Refused(refusal), self.config.words.words(None))
                _send_and_close(connection, said)
            elif way == Way.WEB:
                from door.net.web_guard import refusal_response

                words = told(refusal, self.config.words.words(None))
                _send_and_close(connection, refusal_response("503 Service Unavailable", words))
            else:
                # Lines before SSH's version: clients may show them.
                _tell(connection, told(refusal, self.config.words.words(None)))
            return
        self._next_call += 1
        handed = HandedConnection(self._next_call, way, address)
        message: Message = {"connection": handed.connection_id, "way": way.value}
        if way == Way.SSH:
            # Any caller may be one who logs in; the SSH client hears a refusal in SSH's
            # disconnect message, from the worker. Until it logs in, it counts as a node.
            ssh_refusal = self.table.refusal(address, logged_in=True)
            if ssh_refusal is None:
                handed.arrived = self.table.arriving(address)
            else:
                self._refusals.note(address, f"refused SSH from {address}: {ssh_refusal}")
                message["refused"] = ssh_refusal
        worker = self._worker_for(way, address, live)
        worker.connections[handed.connection_id] = handed
        if not worker.channel.send(message, connection):
            worker.connections.pop(handed.connection_id, None)
            handed.arrived()

    def _worker_for(self, way: Way, address: str, live: list[WorkerLink]) -> WorkerLink:
        """The worker serving the fewest; for a web connection, the one holding the other
        web connections of its address, if one does (a proxy's carry many callers: any)."""
        if way == Way.WEB:
            from door.net.web import within

            if not within(address, self.config.web.proxies):
                key = address_key(address)
                for link in live:
                    held = link.connections.values()
                    if any(c.way == Way.WEB and address_key(c.address) == key for c in held):
                        return link
        return min(live, key=lambda link: link.load)

    def _seat(self, link: WorkerLink, message: Message) -> None:
        """Give a node to a call by SSH, RLOGIN or the web that begins on ``link``'s worker,
        if the table's rules let it have one now; the answer says which, or why not."""
        way, address = Way(message["seat"]), str(message["address"])
        named = message.get("board")
        board = None if not named else Lines(named["tag"], named["name"], named["max_calls"])
        # Every other way's connection was counted as it arrived here; a web call's address
        # is known from its WebSocket's request alone, which only the worker reads.
        refusal = self._closing or self.table.refusal(
            address,
            logged_in=bool(message.get("known")),
            count=way == Way.WEB,
            rationed=bool(message.get("rationed", True)),
            board=board,
        )
        if refusal is not None:
            # In English for the worker's log, and as the caller is told it (the board's
            # language: a count in it can't be looked up again in a worker's catalog).
            said = told(refusal, self.config.words.words(None))
            value = {"refused": str(refusal), "said": said}
            link.channel.send({"answer": message["ask"], "value": value})
            return
        self._next_call += 1
        user = message.get("user")
        call = HandedCall(
            self.table.free_node(),
            way,
            address,
            link,
            self._next_call,
            user_id=None if user is None else int(user),
            board=None if board is None else board.tag,
        )
        self.table.seat(call)
        link.calls[call.call_id] = call
        link.channel.send(
            {"answer": message["ask"], "value": {"node": call.node, "call": call.call_id}}
        )

    def _release(self, call: HandedCall) -> None:
        call.worker.calls.pop(call.call_id, None)
        self.table.unseat(call)
        call.gone.set()

    def _heard(self, link: WorkerLink, message: Message, fds: list[int]) -> None:
        for fd in fds:  # a worker hands the front no connection
            socket.socket(fileno=fd).close()
        if link.requests.answered(message):
            return
        if "gone" in message:
            call = link.calls.get(message["gone"])
            if call is not None:
                self._release(call)
        elif "logged_in" in message:
            call = link.calls.get(message["logged_in"])
            if call is not None:
                self.table.log_in(call.node, int(message["user"]))
                call.alias = str(message.get("alias", ""))
        elif "seat" in message:
            self._seat(link, message)
        elif "arrived" in message:
            handed = link.connections.get(message["arrived"])
            if handed is not None:
                handed.arrived()
        elif "closed" in message:
            handed = link.connections.pop(message["closed"], None)
            if handed is not None:
                handed.arrived()
        elif "wrong_secret" in message:
            self._wrong_secrets.wrong(str(message["wrong_secret"]))
        elif "right_secret" in message:
            self._wrong_secrets.right(str(message["right_secret"]))
        elif "answered" in message:
            call = link.calls.get(message["answered"])
            if call is not None:
                call.answered = True
        elif "other_node" in message:
            other = self.table.holder(int(message["other_node"]), besides=int(message["besides"]))
            link.channel.send({"answer": message["ask"], "value": other and other.node})
        elif "hold" in message or "turn" in message:
            assert self._loop is not None
            lease = (link.index, int(message["lease"]))
            self._leases[lease] = self._loop.create_task(self._lease(link, message))
        elif "let_go" in message:
            task = self._leases.pop((link.index, int(message["let_go"])), None)
            if task is not None:
                task.cancel()
        elif "game_ended" in message or "wake_solver" in message:
            keeper = self._workers.get(0)  # the worker keeping the jobs hears of it
            if keeper is not None:
                keeper.channel.send(message)
        elif "take_over" in message:
            assert self._loop is not None
            self._keep(self._take_over(link, message))

    async def _lease(self, link: WorkerLink, message: Message) -> None:
        """Hold a password check's names, or a hash's turn, for a worker, until it lets go
        (or ends): every worker's checks and hashes wait in the front's one line."""
        turn = (
            CHECKS.holding(*message["hold"])
            if "hold" in message
            else HASHING.turn(int(message["turn"]))
        )
        with suppress(asyncio.CancelledError):
            async with turn:
                link.channel.send({"answer": message["ask"], "value": True})
                await asyncio.get_running_loop().create_future()  # until let go

    async def _take_over(self, link: WorkerLink, message: Message) -> None:
        stale = self.table.call(int(message["take_over"]))
        if stale is not None:
            log.info("node %d (%s): taken over from another node", stale.node, stale.alias)
            stale.end(TAKEN_OVER_MESSAGE, "taken over by a log-in on another node")
            grace = float(message.get("grace", TAKE_OVER_GRACE))
            try:
                async with asyncio.timeout(grace):
                    await stale.gone.wait()
            except TimeoutError:
                pass
        link.channel.send({"answer": message["ask"], "value": True})

    # --- the sysop -------------------------------------------------------------------------

    def _pass_on_usr1(self) -> None:
        """Each worker logs its store's commits and its collector's passes."""
        for link in self._workers.values():
            _signal(link.pid, signal.SIGUSR1)

    def _hang_up_signal(self) -> None:
        log.info("SIGHUP received: reading %s again", self.config.path)
        assert self._loop is not None
        self._keep(self.reload())

    async def reload(self) -> Answer:
        """Read sysop.toml again here (the table's limits) and in every worker, each taking
        it on as one process does (:meth:`Service.reload`); worker 0's answer."""
        try:
            fresh = self._reread()
        except ConfigError as error:
            log.error("settings not reloaded; the door keeps those it has: %s", error)
            return {"ok": False, "error": str(error)}
        self.config = compare(self.config, fresh).config
        self.table.limits = self.config.server
        answers = await self._ask_every({"command": "reload"})
        return answers[0] if answers else STARTING

    async def _ask(self, link: WorkerLink, request: dict[str, object]) -> Answer | None:
        answer = await link.requests.ask(link.channel, {"request": request})
        return answer if isinstance(answer, dict) else None

    async def _ask_every(self, request: dict[str, object]) -> list[Answer]:
        """Each live worker's answer, by worker."""
        links = sorted(self._live(), key=lambda link: link.index)
        answers = await asyncio.gather(*(self._ask(link, request) for link in links))
        return [answer for answer in answers if answer is not None]

    def _live(self) -> list[WorkerLink]:
        return [link for link in self._workers.values() if link.channel.open]

    async def control_answer(self, request: dict[str, Any]) -> Answer:
        """The answer to a sysop's command (all but ``watch``), from the workers whose
        calls it is about: ``who`` and ``send all`` from every worker, ``send`` and ``kick``
        from the node's, ``status`` and ``contests`` from the worker keeping the jobs
        (the calls counted here)."""
        command = request.get("command")
        if command == "reload":
            return await self.reload()
        if command == "who":
            answers = await self._ask_every(request)
            calls = [call for answer in answers for call in answer.get("calls", ())]
            return {"ok": True, "calls": sorted(calls, key=lambda call: call["node"])}
        if command == "send" and request.get("node") == "all":
            answers = await self._ask_every(request)
            if any(not answer.get("ok") for answer in answers):
                return next(answer for answer in answers if not answer.get("ok"))
            return {"ok": True, "nodes": sorted(n for a in answers for n in a.get("nodes", ()))}
        node = request.get("node")
        call = self.table.call(node) if command in ("send", "kick") and is_node(node) else None
        link = call.worker if call is not None else self._workers.get(0)
        if link is None or not link.channel.open:
            live = self._live()
            if not live:
                return STARTING
            link = live[0]
        answer = await self._ask(link, request)
        if answer is None:
            return STARTING
        if command == "status" and answer.get("ok"):
            answer = {
                **answer,
                "callers": len(self.table.calls),
                "peak": self.table.peak_today(),
                "max_nodes": self.config.server.max_nodes,
                "workers": len(self._workers),
            }
        return answer

    def watch(self, request: dict[str, Any], connection: socket.socket) -> Answer | None:
        """Hand the sysop's ``connection`` to the worker serving the node to watch; the
        answer to give here if there is no such call."""
        node = request.get("node")
        call = self.table.call(node) if is_node(node) else None
        if call is None or not call.worker.channel.open:
            connection.close()
            return nobody(node)
        call.worker.channel.send({"watch": request}, connection)
        return None

    def close(self, name: str, reason: str = SHUTDOWN_MESSAGE) -> None:
        """Close the door: no more callers, and every worker tells its own and ends."""
        if self._closing is not None:
            return
        log.info("%s received", name)
        self._closing = reason
        self.table.closing = reason
        self._stop_listening()
        for link in self._workers.values():
            link.channel.send({"close": reason})
        if not self._workers:
            self._stopped.set()
            return
        assert self._loop is not None
        self._loop.call_later(CLOSE_GRACE + 5.0, self._stopped.set)

    def _stop_listening(self) -> None:
        for listener in self._listeners.values():
            if self._loop is not None:
                self._loop.remove_reader(listener.fileno())
            listener.close()
        self._listeners.clear()


class FrontControl(ControlServer):
    """The control socket, kept by the front: each command answered by the workers whose
    calls it is about (:meth:`Front.control_answer`), a watch by the worker serving the
    caller watched, to whom the sysop's connection is handed."""

    def __init__(self, path: Path, front: Front) -> None:
        super().__init__(path, None)
        self._front = front

    async def _handle(
        self, request: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if request.get("command") != "watch":
            await send_answer(writer, await self._front.control_answer(request))
            return
        sock = writer.get_extra_info("socket")
        refused = self._front.watch(request, socket.socket(fileno=os.dup(sock.fileno())))
        if refused is not None:
            await send_answer(writer, refused)


def _import_every_way(config: Config) -> None:
    """Import the modules of each way sysop.toml turns on, as every worker will once forked:
    imported here, their pages are shared by the workers rather than copied into each (the
    web's, with aiohttp's server: 5 to 6 MB a worker)."""
    if config.web.port is not None:
        importlib.import_module("door.net.web")
    if config.ssh.port is not None:
        importlib.import_module("door.net.ssh")


def run_worker(
    index: int,
    sock: socket.socket,
    config: Config,
    reread: Callable[[], Config],
    ports: dict[Way, int],
) -> int:
    """A worker's life, in the process just forked (serving the ways in on the front's
    ``ports``); its exit status."""
    forget_front_signals()
    name_in_log(index)
    worker = Worker(index, sock, config, ports)
    asyncio.run(Service(config, reread, worker=worker).run())
    return 0


def _tell(connection: socket.socket, refusal: str) -> None:
    """Say why a connection is refused, and hang up, as telnet's listener does."""
    _send_and_close(connection, encode(f"\r\n{refusal}\r\n", "ascii"))  # no charset known yet


# A refused connection is read from (and what it sent dropped) for this long after it is
# told why, at most so many at once: a socket closed with bytes unread, or with bytes still
# to come (an RLOGIN handshake sent as it connects), is reset, and a reset may reach the
# caller before the reason does.
_LINGER = 2.0
_LINGERING_MOST = 256
_lingering: set[socket.socket] = set()


def _send_and_close(connection: socket.socket, data: bytes) -> None:
    """Send what a refused connection is told (what fits at once), and hang up: at once, or
    once the caller has read it and hung up too (within :data:`_LINGER`)."""
    try:
        connection.setblocking(False)
        connection.send(data)
        connection.shutdown(socket.SHUT_WR)
    except OSError:
        connection.close()
        return
    if len(_lingering) >= _LINGERING_MOST:
        connection.close()
        return
    loop = asyncio.get_running_loop()
    _lingering.add(connection)

    def finish() -> None:
        if connection in _lingering:
            _lingering.discard(connection)
            loop.remove_reader(connection.fileno())
            timer.cancel()
            connection.close()

    def drop_what_came() -> None:
        try:
            if connection.recv(4096):
                return
        except BlockingIOError:
            return
        except OSError:
            pass
        finish()

    timer = loop.call_later(_LINGER, finish)
    loop.add_reader(connection.fileno(), drop_what_came)


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.WEXITSTATUS(status)}"


def _signal(pid: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, number)


def _end_process(pid: int) -> None:
    """A worker still there once the door has closed (it did not end in time)."""
    _signal(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
