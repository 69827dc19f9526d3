"""The door's nodes: one table for every way in, so that limits count every caller once.

A caller who comes in by telnet, SSH or RLOGIN takes a node, 1 to ``max_nodes``, for the
length of the call, or is told why not. The table also answers who is on which node, which
the sysop's tools and a shutdown need. It reads its limits from a settings object that may be
replaced while the door runs; calls in progress keep their nodes.

The rules that keep one hostile caller from holding the door, for every way in alike:

- a caller who has not logged in within ``login_timeout`` seconds of connecting is hung up;
- ``reserved_nodes`` nodes are only for callers who have logged in (a way in that knows
  its caller before the visit, such as SSH, asks with ``logged_in=True``), so that callers
  who never log in cannot take them all;
- when a new caller finds the other nodes all held by callers not logged in, the oldest call
  that has answered nothing in a third of ``login_timeout`` (at most :data:`ANSWER_GRACE`)
  is ended to make room: slow connections that never log in cannot keep callers out;
- when those are all held by callers who answer, a new caller from an address holding at
  least two fewer of them than the address holding the most ends that address's oldest
  such call: a few addresses filling the nodes make room for callers from others;
- an address may hold ``max_per_address`` nodes at once (connections still logging in
  before they take a node, as over SSH, count as nodes: :meth:`Nodes.arriving`), and
  connect at most ``connections_per_minute`` times in any minute; an IPv6 address counts as
  its /64, the block one subscriber is usually given;
- a linked board's callers (RLOGIN) hold at most its ``max_calls`` nodes at once;
- a user logged in on one node who logs in on another may take over the first: its visit
  is ended as a shutdown ends it, with its game saved, and the new one goes on.

A way in asks for a node with :meth:`Nodes.admitted` (the rules asked and the node held at
once, or :class:`NoNode` raised with why not), so that a table whose rules are kept in another
process (a worker's, whose front admits callers) can ask there first.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from functools import partial
from gettext import NullTranslations
from typing import Generic, Protocol, TypeVar

from ansi.text import sanitize
from door.net.presence import Presence, Watcher
from door.net.terminal import Terminal
from door.words import N_, ngettext
from door.words.speaking import ENGLISH_WORDS
from door.words.told import Said

log = logging.getLogger("door")

# What a caller is told, in English (the log's, and each text's msgid): said in their
# language where they are told (door.words.told).
TOO_MANY_MESSAGE = N_("Too many connections from your address.")
TOO_OFTEN_MESSAGE = N_("Too many calls from your address in the last minute. Please wait a minute.")
LOGIN_TIMEOUT_MESSAGE = N_("You did not log in in time. Goodbye.")
TAKEN_OVER_MESSAGE = N_(
    "You logged in on another node, which took over this call. Your game is saved."
)
MADE_ROOM_MESSAGE = N_("A new caller needed your node. Goodbye.")
RATE_WINDOW = 60.0  # seconds over which connections_per_minute counts
ANSWER_GRACE = 30.0  # seconds a caller not logged in may take to answer before making room
TAKE_OVER_GRACE = 10.0  # seconds a visit taken over gets to save and say goodbye


class Way(StrEnum):
    """How a caller came in, as the node table, the log and ``sysop who`` name it."""

    TELNET = "telnet"
    SSH = "ssh"
    RLOGIN = "rlogin"
    WEB = "web"
    DOOR = "door"  # door mode: launched by a BBS with a drop file


class LinkedLines(Protocol):
    """What the table reads of a linked board (:class:`door.linked_board.LinkedBoard`): its
    callers hold at most ``max_calls`` nodes (None: as many as the table gives)."""

    @property
    def tag(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def max_calls(self) -> int | None: ...


class NoNode(Exception):
    """A caller may not have a node now; ``why`` is what they are told."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class NodeLimits(Protocol):
    """The fields of :class:`door.config.ServerConfig` the node table reads."""

    @property
    def max_nodes(self) -> int: ...
    @property
    def max_per_address(self) -> int: ...
    @property
    def reserved_nodes(self) -> int: ...
    @property
    def connections_per_minute(self) -> int: ...
    @property
    def login_timeout(self) -> int: ...


def address_key(address: str) -> str:
    """What limits per address count by: an IPv4 address, or an IPv6 address's /64.

    >>> address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::9")
    True
    >>> address_key("::ffff:192.0.2.7"), address_key("unknown")
    ('192.0.2.7', 'unknown')
    """
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


class Seat(Protocol):
    """What the table's rules read of a call holding a node, wherever its visit runs: a
    :class:`Call` in this process, or a call a front process handed to a worker
    (:mod:`door.running.front`)."""

    node: int
    way: Way
    address: str
    since: float
    farewell: str | None
    user_id: int | None
    board: str | None  # the tag of the linked board that sent the caller, if one did

    @property
    def alias(self) -> str: ...
    @property
    def logged_in(self) -> bool: ...
    @property
    def answered(self) -> bool: ...
    def end(self, farewell: str, ending: str) -> None: ...


@dataclass(eq=False)
class Call:
    """A connected caller holding a node: how they came, from where, and their visit's task.

    ``user_id`` is set once the caller has logged in; ``farewell`` is what the caller is told
    when their visit is ended from outside (the sysop's kick, a take-over, the log-in limit);
    ``presence`` is what the sysop sees of the call, which the visit keeps up to date.
    """

    node: int
    way: Way
    address: str
    task: asyncio.Task[object]
    terminal: Terminal
    since: float = field(default_factory=time.monotonic)
    farewell: str | None = None  # set when the call is ended: what the caller is told
    ending: str | None = None  # and why, for the log ("ended by the sysop", ...)
    user_id: int | None = None
    presence: Presence = field(default_factory=Presence)
    board: str | None = None  # the tag of the linked board that sent the caller, if one did

    @property
    def alias(self) -> str:
        """The caller's alias once the visit knows it, made safe to show; else empty."""
        return sanitize(self.presence.alias or "", 40)

    @property
    def logged_in(self) -> bool:
        return self.user_id is not None

    @property
    def answered(self) -> bool:
        return self.terminal.answered

    def watch(self, watcher: Watcher) -> None:
        """Send ``watcher`` every chunk of output the caller is sent from now on."""
        self.presence.watchers.append(watcher)
        self.terminal.on_output = self.presence.show

    def unwatch(self, watcher: Watcher) -> None:
        """Stop sending ``watcher`` the caller's output."""
        if watcher in self.presence.watchers:
            self.presence.watchers.remove(watcher)
        if not self.presence.watchers:
            self.terminal.on_output = None

    def end(self, farewell: str, ending: str) -> None:
        """End the call (the sysop's kick, a take-over, the log-in limit): the visit is
        cancelled, so it saves and says ``farewell``, as at a shutdown; the log gives
        ``ending`` as the reason."""
        if self.farewell is None:
            self.farewell, self.ending = farewell, ending
            self.task.cancel()


S = TypeVar("S", bound=Seat)


def _all_busy(nodes: int) -> str:
    return ngettext(
        "The only node is busy. Please call again later.",
        "All {count} nodes are busy. Please call again later.",
        nodes,
    ).format(count=nodes)


def _lines_busy(board: str, calls: int) -> str:
    return ngettext(
        "All {count} of {board}'s lines are busy. Please call again later.",
        "All {count} of {board}'s lines are busy. Please call again later.",
        calls,
    ).format(count=calls, board=board)


def _all_busy_for_guests(nodes: int) -> str:
    return ngettext(
        "The only node for callers not yet logged in is busy. Please call again later.",
        "All {count} nodes for callers not yet logged in are busy. Please call again later.",
        nodes,
    ).format(count=nodes)


class Table(Generic[S]):
    """Which node each caller holds, and who may have one now, whatever a held call is."""

    #: Whether a call seated not logged in is ended after ``login_timeout`` seconds (a
    #: front process leaves that to the worker serving the call).
    clocks_log_in = True

    def __init__(self, limits: NodeLimits) -> None:
        self.limits = limits
        #: The board's language: what a caller is told before a visit speaks theirs (a
        #: refusal at the door), as sysop.toml's ``[words]`` gives it.
        self.words: NullTranslations = ENGLISH_WORDS
        self._calls: dict[int, S] = {}
        self._login_timers: dict[int, asyncio.TimerHandle] = {}
        self._per_address: Counter[str] = Counter()
        self._arriving: Counter[str] = Counter()  # connections logging in that hold no node
        # The times of the latest connections from each address (as address_key), at most
        # connections_per_minute of them: enough to tell whether a minute holds more.
        self._knocks: dict[str, deque[float]] = {}
        self._knocks_since_sweep = 0
        self.closing: str | None = None  # the reason, once the door has begun to close
        self.peak = 0  # most calls at once on :attr:`peak_day`
        self.peak_day = date.today()

    def refusal(
        self,
        address: str,
        *,
        logged_in: bool = False,
        count: bool = True,
        rationed: bool = True,
        board: LinkedLines | None = None,
    ) -> str | None:
        """Why a caller from ``address`` can't have a node now, or None if they can.

        Call it once per connection: with ``count`` (the default) it counts the connection
        against the address's rate, refused or not, so that an address that keeps knocking
        stays refused. ``logged_in``: the caller is known already and may take a reserved node.
        ``rationed`` False: the address's nodes are not limited to ``max_per_address`` (a
        linked board's, which has a limit of its own). ``board``: the linked board sending
        the caller, whose callers may hold its ``max_calls`` nodes.
        """
        if self.closing is not None:
            return self.closing
        if board is not None and board.max_calls is not None:
            on = sum(1 for call in self._calls.values() if call.board == board.tag)
            if on >= board.max_calls:
                return Said(partial(_lines_busy, board.name, board.max_calls))
        key = address_key(address)
        if count and self._too_often(key, time.monotonic()):
            return TOO_OFTEN_MESSAGE
        held = self._per_address[key] + self._arriving[key]
        if rationed and held >= self.limits.max_per_address:
            return TOO_MANY_MESSAGE
        nodes = self.limits.max_nodes
        staying = [call for call in self._calls.values() if call.farewell is None]
        guests = [call for call in staying if not call.logged_in]
        open_to_guests = max(1, nodes - self.limits.reserved_nodes)
        if (
            not logged_in
            and len(guests) >= open_to_guests
            and (self._make_room(guests) or self._share_room(key, guests))
        ):
            return None
        if len(staying) >= nodes:
            return Said(lambda: _all_busy(nodes))
        if not logged_in and len(guests) >= open_to_guests:
            return Said(lambda: _all_busy_for_guests(open_to_guests))
        return None

    def _make_room(self, guests: list[S]) -> bool:
        """End the oldest of ``guests`` (calls not logged in) that has answered nothing for a
        while, for a new caller; False if none has."""
        now = time.monotonic()
        timeout = self.limits.login_timeout
        grace = min(ANSWER_GRACE, timeout / 3) if timeout > 0 else ANSWER_GRACE
        silent = [c for c in guests if not c.answered and now - c.since >= grace]
        if not silent:
            return False
        oldest = min(silent, key=lambda call: call.since)
        log.info(
            "node %d: answered nothing in %d s; ended for a new caller",
            oldest.node,
            now - oldest.since,
        )
        oldest.end(MADE_ROOM_MESSAGE, "ended for a new caller")
        return True

    def _share_room(self, key: str, guests: list[S]) -> bool:
        """End the oldest call not logged in of the address holding the most such calls, for
        a new caller whose address (``key``) holds at least two fewer; False if none does.

        So a few addresses that fill every node open to callers not yet logged in, answering
        enough never to be ended as silent, give way to callers from other addresses, one
        node each, while they would only take nodes from each other.
        """
        held = Counter(address_key(call.address) for call in guests)
        crowded, most = held.most_common(1)[0]
        if most < held[key] + 2:
            return False
        oldest = min(
            (call for call in guests if address_key(call.address) == crowded),
            key=lambda call: call.since,
        )
        log.info(
            "node %d: ended for a caller from another address (%s held %d nodes not logged in)",
            oldest.node,
            sanitize(oldest.address, 60),
            most,
        )
        oldest.end(MADE_ROOM_MESSAGE, "ended for a new caller")
        return True

    def _too_often(self, key: str, now: float) -> bool:
        """Count a connection from ``key``; has it connected too often in the last minute?"""
        limit = self.limits.connections_per_minute
        knocks = self._knocks.get(key)
        if knocks is None or knocks.maxlen != limit:
            knocks = self._knocks[key] = deque(knocks or (), maxlen=limit)
        too_often = len(knocks) >= limit and now - knocks[0] < RATE_WINDOW
        knocks.append(now)
        self._knocks_since_sweep += 1
        if self._knocks_since_sweep >= 1024:
            self._sweep(now)
        return too_often

    def _sweep(self, now: float) -> None:
        """Forget addresses not heard from for a minute: the table stays as small as the
        number of addresses that called in the last minute."""
        self._knocks_since_sweep = 0
        stale = [key for key, knocks in self._knocks.items() if now - knocks[-1] >= RATE_WINDOW]
        for key in stale:
            del self._knocks[key]

    def arriving(self, address: str) -> Callable[[], None]:
        """Count a connection from ``address`` that is logging in before it takes a node (an
        SSH client at its password prompt) as holding one; call what this returns when it has
        logged in or gone (once or more), and it no longer counts."""
        key = address_key(address)
        self._arriving[key] += 1
        counted = [True]

        def arrived() -> None:
            if counted.pop() if counted else False:
                self._arriving[key] -= 1
                if not self._arriving[key]:
                    del self._arriving[key]

        return arrived

    def free_node(self) -> int:
        """The lowest node nobody holds."""
        node = 1
        while node in self._calls:
            node += 1
        return node

    def seat(self, call: S) -> None:
        """Put ``call`` on its node, counted against its address; a caller not known yet
        (``user_id`` None) is hung up if not logged in (:meth:`log_in`) within
        ``login_timeout`` seconds. Ask :meth:`refusal` first: this seats a call even past
        the limits (a caller already admitted keeps their node when a reload lowers them)."""
        self._calls[call.node] = call
        self._per_address[address_key(call.address)] += 1
        self._count_peak()
        if self.clocks_log_in and call.user_id is None and self.limits.login_timeout > 0:
            self._login_timers[call.node] = asyncio.get_running_loop().call_later(
                self.limits.login_timeout, self._login_overdue, call
            )

    def unseat(self, call: S) -> None:
        """Free ``call``'s node (once or more)."""
        if self._calls.get(call.node) is not call:
            return
        timer = self._login_timers.pop(call.node, None)
        if timer is not None:
            timer.cancel()
        del self._calls[call.node]
        key = address_key(call.address)
        self._per_address[key] -= 1
        if not self._per_address[key]:
            del self._per_address[key]

    def _count_peak(self) -> None:
        today = date.today()
        if today != self.peak_day:
            self.peak, self.peak_day = 0, today
        self.peak = max(self.peak, len(self._calls))

    def peak_today(self) -> int:
        """The most calls at once today (by the local clock), counting those on now."""
        self._count_peak()
        return self.peak

    def _login_overdue(self, call: S) -> None:
        self._login_timers.pop(call.node, None)
        if not call.logged_in and self._calls.get(call.node) is call:
            log.info("node %d: not logged in within %d s", call.node, self.limits.login_timeout)
            call.end(LOGIN_TIMEOUT_MESSAGE, "not logged in in time")

    def call(self, node: int) -> S | None:
        """The call on ``node``, if any."""
        return self._calls.get(node)

    def holder(self, user_id: int, *, besides: int = 0) -> S | None:
        """The call, on a node other than ``besides``, of the user logged in as ``user_id``."""
        for call in self.calls:
            if call.user_id == user_id and call.node != besides:
                return call
        return None

    def log_in(self, node: int, user_id: int) -> None:
        """The caller on ``node`` has logged in as ``user_id``: the log-in limit is off."""
        call = self._calls.get(node)
        if call is None:
            return
        call.user_id = user_id
        timer = self._login_timers.pop(node, None)
        if timer is not None:
            timer.cancel()

    @property
    def calls(self) -> list[S]:
        """The calls in progress, by node."""
        return [self._calls[node] for node in sorted(self._calls)]

    @property
    def busy(self) -> dict[int, str]:
        """Busy nodes and who is on each: the alias once known, else the address."""
        return {call.node: call.alias or call.address for call in self.calls}


class Nodes(Table[Call]):
    """The table of nodes of a door whose visits run in this process."""

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
        """Hold a node for the current task as :meth:`hold` does, if :meth:`refusal`'s rules
        (asked without counting: the connection was counted as it arrived) let a caller from
        ``address`` have one now; else raise :class:`NoNode`."""
        refusal = self.refusal(
            address, logged_in=logged_in, count=False, rationed=rationed, board=board
        )
        if refusal is not None:
            raise NoNode(refusal)
        tag = None if board is None else board.tag
        with self.hold(way, address, terminal, user_id=user_id, node=node, board=tag) as call:
            yield call

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
        """Hold a node for the current task (``node``, as a front process gave it, or the
        lowest free one), and free it on leaving; see :meth:`Table.seat`."""
        task = asyncio.current_task()
        assert task is not None
        held = self.free_node() if node is None else node
        call = Call(held, way, address, task, terminal, user_id=user_id, board=board)
        self.seat(call)
        try:
            yield call
        finally:
            self.unseat(call)

    async def other_node(self, user_id: int, *, besides: int) -> int | None:
        """The node, other than ``besides``, the user logged in as ``user_id`` is on."""
        other = self.holder(user_id, besides=besides)
        return None if other is None else other.node

    async def take_over_node(self, node: int, *, grace: float = TAKE_OVER_GRACE) -> None:
        """:meth:`take_over` the call on ``node``, if it is still there."""
        call = self.call(node)
        if call is not None:
            await self.take_over(call, grace=grace)

    async def take_over(self, stale: Call, *, grace: float = TAKE_OVER_GRACE) -> None:
        """End ``stale`` (its game saved, as at a shutdown), and wait until it has let go."""
        log.info("node %d (%s): taken over from another node", stale.node, stale.alias)
        stale.end(TAKEN_OVER_MESSAGE, "taken over by a log-in on another node")
        if not stale.task.done():
            await asyncio.wait([stale.task], timeout=grace)
