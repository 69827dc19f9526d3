"""A worker of ``serve``'s front process (:mod:`door.running.front`): a whole door but for
listening and admission, serving the connections the front hands it.

The worker runs :class:`~door.running.service.Service` as one process alone would, with
its own store (one SQLite database in WAL mode for every worker: each worker's writer takes
the write lock in turn), and with a table of nodes, :class:`WorkerNodes`, that holds the
calls it serves on the nodes the front gave them and tells the front what the front decides
by: a caller logged in (and as whom), a caller who answered, a connection gone. Whether a
user is on another node, and taking that call over, it asks the front, which knows every
worker's calls. The first worker (``index`` 0) also keeps the door's background jobs (the
contest clock, the solver's background search, bulletins, backups, the league's sync), so
they run once whatever the number of workers.

A telnet connection comes with the node the front gave it. A connection by SSH, RLOGIN or
the web comes with no node (an SSH caller logs in first, a linked board sends its handshake, a
web connection may only ask for pages): when its call begins, the worker asks the front for a
node (``seat``), which the front gives, or refuses, by the one table's rules; and it tells the
front when an SSH caller has logged in (``arrived``: no longer counted as arriving from its
address), when a connection has ended (``closed``) and of wrong and right RLOGIN secrets.

What the front says: ``call`` (a telnet connection, with its node and id), ``connection``
(a connection by another way, with its id, and the refusal to tell an SSH client), ``end``
(end the call on a node: a take-over, the log-in limit reached elsewhere, room made for a
new caller), ``request`` (a sysop's command on the control socket, which the front keeps:
who, send, kick, status, reload, contests, answered here for this worker's calls),
``watch`` (the sysop's connection itself, handed over to watch a caller here),
``game_ended`` (a game ended on another worker: for the bulletins), ``wake_solver`` (a
winnable deal taken on another worker: the stock is topped up), ``close`` (the door is
shutting down) and the answers to the worker's questions.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import signal
import socket
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from typing import Any, Protocol, TypeVar

from door.config import Config
from door.net.listening import SHUTDOWN_MESSAGE
from door.net.nodes import (
    TAKE_OVER_GRACE,
    Call,
    LinkedLines,
    NodeLimits,
    Nodes,
    NoNode,
    Way,
)
from door.net.rlogin import WrongSecrets
from door.net.terminal import Terminal
from door.running import control
from door.running.control import Controlled
from door.running.handoff import Channel, Message, Requests
from door.running.ways import Handed, Ways
from door.store.hashing import HASHING, arbitrate
from door.words.told import Said

T = TypeVar("T")

log = logging.getLogger("door")


class ServedDoor(Controlled, Protocol):
    """The door a worker runs (its :class:`~door.running.service.Service`)."""

    def game_ended(self) -> None: ...
    def wake_solver(self) -> None: ...


class WorkerNodes(Nodes):
    """A worker's own calls, on the nodes its front gave them; the front admits callers."""

    def __init__(self, limits: NodeLimits, channel: Channel, requests: Requests) -> None:
        super().__init__(limits)
        self._channel = channel
        self._requests = requests
        self._ids: dict[int, int] = {}  # node: the front's id of the connection on it
        # Calls the front ended before their visit held the node (still negotiating).
        self._ended: dict[int, tuple[str, str]] = {}  # by call id: farewell, ending

    def refusal(
        self,
        address: str,
        *,
        logged_in: bool = False,
        count: bool = True,
        rationed: bool = True,
        board: LinkedLines | None = None,
    ) -> str | None:
        """The front admits every call a worker serves, as its connection arrives and as it
        is given its node (:meth:`admitted`): only a door closing refuses one here."""
        return self.closing

    def handed(self, node: int, call_id: int) -> None:
        """The front has handed over connection ``call_id`` on ``node``."""
        self._ids[node] = call_id

    def gone(self, node: int, call_id: int) -> None:
        """Connection ``call_id`` has ended: tell the front its node is free."""
        if self._ids.get(node) == call_id:
            del self._ids[node]
        self._ended.pop(call_id, None)
        self._channel.send({"gone": call_id})

    @contextmanager
    def hold(
        self,
        way: Way,
        address: str,
        terminal: Terminal,
        *,
        user_id: int | None = None,
        node: int | None = None,
        board: str | None = None,
    ) -> Iterator[Call]:
        with super().hold(
            way, address, terminal, user_id=user_id, node=node, board=board
        ) as call:
            call_id = self._ids.get(call.node)
            if call_id is not None:

                def answered() -> None:
                    self._channel.send({"answered": call_id})

                terminal.on_answer = answered
                ended = self._ended.pop(call_id, None)
                if ended is not None:
                    call.end(*ended)
            yield call

    @asynccontextmanager
    async def admitted(
        self,
        way: Way,
        address: str,
        terminal: Terminal,
        *,
        logged_in: bool = False,
        rationed: bool = True,
        board: LinkedLines | None = None,
        user_id: int | None = None,
        node: int | None = None,
    ) -> AsyncIterator[Call]:
        """Hold the ``node`` the front gave a telnet connection as it handed it over; for a
        call by another way, a node the front gives now (or :class:`NoNode`, as it refuses)."""
        if node is not None:
            async with super().admitted(way, address, terminal, user_id=user_id, node=node) as call:
                yield call
            return
        node, call_id = await self._seat(way, address, logged_in, rationed, board, user_id)
        self._ids[node] = call_id
        try:
            tag = None if board is None else board.tag
            with self.hold(way, address, terminal, user_id=user_id, node=node, board=tag) as call:
                yield call
        finally:
            self.gone(node, call_id)

    async def _seat(
        self,
        way: Way,
        address: str,
        logged_in: bool,
        rationed: bool,
        board: LinkedLines | None,
        user_id: int | None,
    ) -> tuple[int, int]:
        """The node and call id the front gives a call by ``way`` from ``address``."""
        lines = board and {"tag": board.tag, "name": board.name, "max_calls": board.max_calls}
        asked: Message = {
            "seat": way.value,
            "address": address,
            "known": logged_in,
            "rationed": rationed,
            "board": lines,
            "user": user_id,
        }
        asking = asyncio.ensure_future(self._requests.ask(self._channel, asked))
        try:
            answer = await asyncio.shield(asking)
        except asyncio.CancelledError:  # a node given after all is given back
            asking.add_done_callback(self._given_back)
            raise
        if not isinstance(answer, dict):  # the front has gone
            raise NoNode(self.closing or SHUTDOWN_MESSAGE)
        if "refused" in answer:
            said = str(answer.get("said") or answer["refused"])
            raise NoNode(Said(lambda: said, english=str(answer["refused"])))
        return int(answer["node"]), int(answer["call"])

    def _given_back(self, asking: asyncio.Future[Any]) -> None:
        answer = None if asking.cancelled() else asking.result()
        if isinstance(answer, dict) and "call" in answer:
            self._channel.send({"gone": answer["call"]})

    def log_in(self, node: int, user_id: int) -> None:
        super().log_in(node, user_id)
        call_id, call = self._ids.get(node), self.call(node)
        if call_id is not None:
            alias = call.alias if call is not None else ""
            self._channel.send({"logged_in": call_id, "user": user_id, "alias": alias})

    async def other_node(self, user_id: int, *, besides: int) -> int | None:
        answer = await self._requests.ask(
            self._channel, {"other_node": user_id, "besides": besides}
        )
        return answer if isinstance(answer, int) else None

    async def take_over_node(self, node: int, *, grace: float = TAKE_OVER_GRACE) -> None:
        await self._requests.ask(self._channel, {"take_over": node, "grace": grace})

    def end(self, node: int, call_id: int, farewell: str, ending: str) -> None:
        """End connection ``call_id`` on ``node`` as the front asks."""
        if self._ids.get(node) != call_id:
            return
        call = self.call(node)
        if call is not None:
            call.end(farewell, ending)
        else:  # its visit ends as soon as it begins
            self._ended[call_id] = (farewell, ending)


class FrontTurns:
    """Password checks and hashes that take their turns from the front, which holds one
    :data:`~door.store.hashing.CHECKS` and one :data:`~door.store.hashing.HASHING` for every
    worker: one check per alias and per address at a time, and one hash per spare core,
    the waiting served in the same order, whichever worker the callers are on. The hash
    itself runs here, in this worker's hashing threads."""

    def __init__(self, channel: Channel, requests: Requests) -> None:
        self._channel = channel
        self._requests = requests
        self._leases = itertools.count(1)

    @asynccontextmanager
    async def _lease(self, what: Message) -> AsyncIterator[None]:
        lease = next(self._leases)
        try:
            await self._requests.ask(self._channel, {**what, "lease": lease})
            yield
        finally:
            self._channel.send({"let_go": lease})

    def holding(self, *names: str) -> AbstractAsyncContextManager[None]:
        return self._lease({"hold": list(names)})

    async def run(self, standing: int, function: Callable[..., T], *args: object) -> T:
        async with self._lease({"turn": standing}):
            return await asyncio.get_running_loop().run_in_executor(
                HASHING.executor, function, *args
            )


class FrontSecrets(WrongSecrets):
    """Wrong RLOGIN secrets, counted by the front for every worker: it refuses an address
    that must rest before it hands the connection over, so none rests here."""

    def __init__(self, channel: Channel) -> None:
        super().__init__()
        self._channel = channel

    def rest(self, address: str, now: float | None = None) -> float:
        return 0.0

    def wrong(self, address: str, now: float | None = None) -> float:
        self._channel.send({"wrong_secret": address})
        return 0.0

    def right(self, address: str) -> None:
        self._channel.send({"right_secret": address})


class Worker:
    """A worker's link to its front: ``index`` among the workers, its channel, and the
    ports the front listens on, by way."""

    def __init__(
        self, index: int, sock: socket.socket, config: Config, ports: Mapping[Way, int]
    ) -> None:
        self.index = index
        self.requests = Requests()
        self.channel = Channel(sock, self._receive, self._front_gone)
        self.nodes = WorkerNodes(config.server, self.channel, self.requests)
        self.handed = Handed(ports, FrontSecrets(self.channel))
        turns = FrontTurns(self.channel, self.requests)
        arbitrate(turns, turns)
        self.ways: Ways | None = None
        self.door: ServedDoor | None = None
        self._shut_down: Callable[[str], None] | None = None
        self._waiting: list[tuple[Message, list[int]]] = []
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def keeps_jobs(self) -> bool:
        """Whether this worker keeps the door's background jobs (only one does)."""
        return self.index == 0

    def start(self, shut_down: Callable[[str], None]) -> None:
        """Hear the front from now on (connections handed over before :meth:`serve` wait)."""
        self._shut_down = shut_down
        self.channel.start()
        self.channel.send({"ready": self.index})

    def serve(self, ways: Ways, door: ServedDoor) -> None:
        """Serve the connections handed over, each by its way in ``ways``, and the sysop's
        commands the front relays, by ``door``."""
        self.ways, self.door = ways, door
        waiting, self._waiting = self._waiting, []
        for message, fds in waiting:
            self._receive(message, fds)

    def _receive(self, message: Message, fds: list[int]) -> None:
        if self.requests.answered(message):
            return
        if any(key in message for key in ("call", "connection", "request", "watch")):
            if self.ways is None:  # the store is opening: they wait
                self._waiting.append((message, fds))
            elif "call" in message:
                self._adopt(message, fds)
            elif "connection" in message:
                self._adopt_connection(message, fds)
            else:
                self._keep(self._answer(message, fds))
            return
        for fd in fds:  # only a call brings a connection
            socket.socket(fileno=fd).close()
        if "end" in message:
            self.nodes.end(message["node"], message["end"], message["farewell"], message["ending"])
        elif "game_ended" in message and self.door is not None:
            self.door.game_ended()
        elif "wake_solver" in message and self.door is not None:
            self.door.wake_solver()
        elif "close" in message and self._shut_down is not None:
            self._shut_down("the front's close")

    def game_ended(self) -> None:
        """A game ended here: the worker keeping the bulletins hears of it through the front."""
        if not self.keeps_jobs:
            self.channel.send({"game_ended": self.index})

    def wake_solver(self) -> None:
        """A winnable deal was taken here: the worker keeping the stock tops it up."""
        self.channel.send({"wake_solver": self.index})

    async def _answer(self, message: Message, fds: list[int]) -> None:
        """A sysop's command relayed by the front, or their connection to watch a caller."""
        assert self.door is not None
        if "request" in message:
            for fd in fds:
                socket.socket(fileno=fd).close()
            answered = await control.answer(self.door, message["request"])
            self.channel.send({"answer": message["ask"], "value": answered})
            return
        if not fds:
            return
        for extra in fds[1:]:
            socket.socket(fileno=extra).close()
        reader, writer = await asyncio.open_unix_connection(sock=socket.socket(fileno=fds[0]))
        try:
            await control.answer_watch(self.door, message["watch"], reader, writer)
        except OSError:
            pass  # the sysop went away
        finally:
            writer.close()

    def _adopt(self, message: Message, fds: list[int]) -> None:
        call_id, node = int(message["call"]), int(message["node"])
        if not fds:
            self.nodes.gone(node, call_id)
            return
        for extra in fds[1:]:
            socket.socket(fileno=extra).close()
        connection = socket.socket(fileno=fds[0])
        assert self.ways is not None
        self.nodes.handed(node, call_id)
        gone = functools.partial(self.nodes.gone, node, call_id)
        self._keep(self.ways.telnet.adopt(connection, node, gone))

    def _adopt_connection(self, message: Message, fds: list[int]) -> None:
        """A connection by SSH, RLOGIN or the web, served by its way here."""
        connection_id, way = int(message["connection"]), Way(message["way"])
        closed = self._once({"closed": connection_id})
        for extra in fds[1:]:
            socket.socket(fileno=extra).close()
        assert self.ways is not None
        ways = self.ways
        if not fds:
            closed()
            return
        connection = socket.socket(fileno=fds[0])
        if way == Way.SSH and ways.ssh is not None:
            from door.net.ssh import Handed as SshHanded  # loaded already: SSH is on

            arrived = self._once({"arrived": connection_id})
            handed = SshHanded(message.get("refused"), arrived, closed)
            self._keep(ways.ssh.adopt(connection, handed))
        elif way == Way.RLOGIN and ways.rlogin is not None:
            self._keep(ways.rlogin.adopt(connection, closed))
        elif way == Way.WEB and ways.web is not None:
            self._keep(ways.web.adopt(connection, closed))
        else:  # a way this worker does not serve: never expected
            connection.close()
            closed()

    def _once(self, message: Message) -> Callable[[], None]:
        """A function that sends ``message`` to the front the first time it is called."""
        sent = [False]

        def send() -> None:
            if not sent[0]:
                sent[0] = True
                self.channel.send(message)

        return send

    def _keep(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task held until it ends (the loop holds tasks weakly)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _front_gone(self) -> None:
        self.requests.cancel()
        if self._shut_down is not None:
            self._shut_down("the front process has gone")


def forget_front_signals() -> None:
    """In a worker just forked: the front's signal handlers are not this process's."""
    signal.set_wakeup_fd(-1)
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)


def name_in_log(index: int) -> None:
    """Begin each line a worker logs with its number, so that the sysop tells them apart."""
    for handler in logging.getLogger().handlers:
        handler.setFormatter(
            logging.Formatter(f"%(asctime)s %(levelname)s worker {index}: %(message)s")
        )
