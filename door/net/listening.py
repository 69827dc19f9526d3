"""What every way in shares: its settings, how a call is held, detected, run and ended, and
how a listener closes.

Each listener (:mod:`door.net.telnet`, :mod:`door.net.ssh`, :mod:`door.net.rlogin`) does
only what its protocol needs: it accepts a connection, finds the caller's address, makes
their :class:`~door.net.terminal.Terminal` (:func:`call_terminal`), holds a node, detects the
terminal, and hands the rest to these:

- :func:`settle_call` logs how a detected caller came, asks their screen which suits it
  draws, and starts the call's clock;
- :func:`guard_call` (:func:`guard_visit` for a caller without a node, as in door mode) runs
  the visit so that whatever happens in it the caller hears how it ended, the node is freed,
  and the listener goes on serving;
- :class:`Listening` keeps a listener's port and whether it is closing, admits a connection
  the moment it arrives or refuses it by the node table's rules (:meth:`Listening.admit`),
  the same for every way in, and ends the calls that came its way when it closes;
- :class:`AddressLog` logs what one address keeps doing (refused connections, wrong
  passwords) a line a minute, then counts it: a flood fills no disk.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from gettext import NullTranslations
from typing import Any, Protocol

from ansi.text import sanitize
from door.net.clocks import IdleTimeout, TimeUp, VisitEnded
from door.net.nodes import Call, NodeLimits, Nodes, Way
from door.net.presence import Presence
from door.net.terminal import ByteReader, ByteWriter, CallerGone, LineNoise, Terminal
from door.words import N_
from door.words.told import told

log = logging.getLogger("door")

SHUTDOWN_MESSAGE = N_("The door is shutting down. Your game is saved.")
SORRY_MESSAGE = N_("Sorry, something went wrong. Your game is saved.")
# Each farewell that says the caller's game is saved, as said to a caller who has none (not
# logged in): whole sentences, so that each language words them itself.
NOTHING_SAVED = {
    SHUTDOWN_MESSAGE: N_("The door is shutting down."),
    SORRY_MESSAGE: N_("Sorry, something went wrong."),
    TimeUp.farewell: N_("Your time is up. Goodbye."),
}
CLOSE_GRACE = 10.0  # seconds visits get to save and say goodbye at shutdown


class ServerSettings(NodeLimits, Protocol):
    """The fields of :class:`door.config.ServerConfig` the server reads: with the node
    table's, since a server makes its own table when it is given none."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def max_nodes(self) -> int: ...
    @property
    def max_per_address(self) -> int: ...
    @property
    def idle_timeout(self) -> float: ...
    @property
    def idle_warning(self) -> float: ...
    @property
    def time_limit(self) -> int: ...


class HasPeer(Protocol):
    """A connection that names the address it came from (asyncio, telnetlib3, asyncssh)."""

    def get_extra_info(self, name: str, default: Any = None) -> Any: ...


def peer_address(connection: HasPeer) -> str:
    """The caller's IP address, or ``unknown``."""
    peer = connection.get_extra_info("peername")
    return str(peer[0]) if peer else "unknown"


def call_terminal(
    settings: ServerSettings,
    reader: ByteReader,
    writer: ByteWriter,
    words: NullTranslations,
    *,
    echo: bool = True,
) -> Terminal:
    """A caller's terminal, with the idle time the settings give, speaking ``words`` (the
    board's language) until the caller's visit speaks theirs."""
    terminal = Terminal(
        reader,
        writer,
        idle_timeout=settings.idle_timeout,
        idle_warning=settings.idle_warning,
        echo=echo,
    )
    terminal.words = words
    return terminal


class AddressLog:
    """Lines about one address, logged one a minute per address, the rest counted; at
    ``level`` (INFO unless said).

    The count for an address is logged with its next line after the minute, or never if
    it keeps quiet (the table forgets it).
    """

    WINDOW = 60.0

    def __init__(self, level: int = logging.INFO) -> None:
        self._since: dict[str, tuple[float, int]] = {}  # address: (first logged, unlogged)
        self._notes = 0
        self._level = level

    def note(self, address: str, line: str) -> None:
        """Log ``line`` (about ``address``) unless a line about it was logged this minute."""
        now = time.monotonic()
        first, unlogged = self._since.get(address, (-self.WINDOW, 0))
        if now - first < self.WINDOW:
            self._since[address] = (first, unlogged + 1)
            return
        more = f" ({unlogged} more in the minute before)" if unlogged else ""
        log.log(self._level, "%s%s", line, more)
        self._since[address] = (now, 0)
        self._notes += 1
        if self._notes >= 1024:  # forget addresses that have kept quiet
            self._notes = 0
            for stale in [a for a, (t, _) in self._since.items() if now - t >= self.WINDOW]:
                del self._since[stale]


@dataclass
class Listening:
    """What a listener keeps of itself: the ``way`` its calls are marked with in the table of
    ``nodes``, the port it listens on, and why it is closing once it is.

    A listener's ``close`` begins with :meth:`begin_close` (only the first goes on), stops
    taking connections, calls :meth:`end_calls`, then :meth:`finish_close`.
    """

    way: Way
    nodes: Nodes
    port: int = 0
    #: The reason, once closing has begun.
    closing: str | None = None
    #: Refusals, a line a minute per address.
    refusals: AddressLog = field(default_factory=AddressLog, repr=False)
    _closed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    def admit(self, address: str, *, logged_in: bool = False, count: bool = True) -> str | None:
        """Why a connection from ``address`` may not come in, logged (a line a minute per
        address), or None if it may: :meth:`Nodes.refusal <door.net.nodes.Nodes.refusal>`'s
        rules, asked as the connection arrives, before it costs the door anything more."""
        refusal = self.nodes.refusal(address, logged_in=logged_in, count=count)
        if refusal is not None:
            self.note_refusal(address, refusal)
        return refusal

    def note_refusal(self, address: str, why: str) -> None:
        """Log that a connection from ``address`` was refused, a line a minute per address."""
        way = "" if self.way == Way.TELNET else f"{self.way.upper()} from "
        self.refusals.note(address, f"refused {way}{address}: {why}")

    async def begin_close(self, reason: str) -> bool:
        """Whether this is the first close; a later one waits for the first to finish."""
        if self.closing is not None:
            await self._closed.wait()
            return False
        self.closing = reason
        return True

    async def end_calls(self, grace: float) -> None:
        """Cancel the visits of the callers who came this way, and give them ``grace``
        seconds to save and say goodbye (they save in ``finally`` or on cancellation)."""
        tasks = [call.task for call in self.nodes.calls if call.way == self.way]
        log.info("closing %s with %d caller(s) on: %s", self.way, len(tasks), self.closing)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=grace)

    def finish_close(self) -> None:
        """The listener has closed: a close waiting in :meth:`begin_close` returns."""
        self._closed.set()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def guard(self, call: Call, visit: Callable[[], Awaitable[None]]) -> str:
        """:func:`guard_call`, a caller cancelled by this listener's close told why."""
        return await guard_call(call, visit, lambda: self.closing)


async def guard_call(
    call: Call, visit: Callable[[], Awaitable[None]], closing: Callable[[], str | None]
) -> str:
    """:func:`guard_visit` for a caller holding a node: cancelled, they are told why, the
    sysop's words if the sysop ended the call (:meth:`Call.end`), else ``closing()``, the
    door's as it shuts down; the log gives the call's own ending (the sysop, the log-in
    limit, a take-over) or "shut down". Every way in that holds nodes runs its visits
    through this."""
    return await guard_visit(
        call.node,
        call.terminal,
        call.presence,
        visit,
        on_cancel=lambda: call.farewell or closing() or "",
        cancelled=lambda: call.ending or "shut down",
    )


async def guard_visit(
    node: int,
    terminal: Terminal,
    presence: Presence,
    visit: Callable[[], Awaitable[None]],
    *,
    on_cancel: Callable[[], str] = lambda: "",
    cancelled: Callable[[], str] = lambda: "shut down",
) -> str:
    """Run one visit, then hang up telling the caller how it ended; return the ending.

    The ending, also logged, is "goodbye" (the visit ended by itself: the caller chose
    Goodbye, or the door said goodbye, as after too many wrong passwords, each with a line
    of its own before), "idle", "time up", "caller gone" or "error" (a fault: logged with
    its traceback, and the caller gets an apology). A cancelled visit
    (a shutdown, or the sysop ending the call) is told ``on_cancel()``, its ending is
    ``cancelled()``, and the cancellation goes on. Used for each telnet
    caller, and for the one caller of a door run by a BBS. The log names the caller by
    ``presence``.
    """
    started = time.monotonic()
    farewell, ending = "", "goodbye"
    try:
        await visit()
    except asyncio.CancelledError:
        farewell, ending = on_cancel(), cancelled()
        raise
    except VisitEnded as ended:
        farewell, ending = ended.farewell, _ending(ended)
    except Exception:
        log.exception("%s: the visit failed", _who(node, presence))
        farewell, ending = SORRY_MESSAGE, "error"
    finally:
        if not terminal.logged_in:  # no game of theirs to keep
            farewell = NOTHING_SAVED.get(farewell, farewell)
        # Said in the caller's language, wherever the farewell was made (the sysop's kick).
        await terminal.hang_up(told(farewell, terminal.words))
        log.info(
            "%s: hang-up (%s) after %d s",
            _who(node, presence),
            ending,
            time.monotonic() - started,
        )
    return ending


async def settle_call(
    node: int, came: str, terminal: Terminal, probe_timeout: float, time_limit: int, started: float
) -> None:
    """Log how a detected caller came and what their terminal is, ask their screen which suits
    it draws (a BBS or client between us may re-encode), and start the call's clock."""
    info = terminal.info
    log.info(
        "node %d: %s, %s %dx%d, %s, %s",
        node,
        came,
        info.term_type,
        info.width,
        info.height,
        "ANSI" if info.ansi else "no ANSI",
        info.charset,
    )
    if info.ansi:
        await probe_and_log(node, terminal, probe_timeout)
    if time_limit > 0:
        terminal.clocks.deadline = started + 60 * time_limit


async def probe_and_log(node: int, terminal: Terminal, timeout: float) -> None:
    """Ask the caller's screen which suits it draws (see ``Terminal.probe_charset``)."""
    answered = await terminal.probe_charset(timeout)
    info = terminal.info
    if answered and not info.suit_letters:
        log.info("node %d: the screen draws %s", node, info.charset)
    elif answered:
        # Not "draws cp437": what the line carries is not what the screen shows.
        log.info(
            "node %d: the screen shows neither CP437's suits nor UTF-8's (a BBS between may "
            "re-encode the line): suits and other glyphs as letters, sent in %s",
            node,
            info.charset,
        )
    else:
        log.info(
            "node %d: the screen did not answer: suits and other glyphs as letters, in %s",
            node,
            info.charset,
        )


def _ending(ended: VisitEnded) -> str:
    if isinstance(ended, IdleTimeout):
        return "idle"
    if isinstance(ended, TimeUp):
        return "time up"
    if isinstance(ended, CallerGone):
        return "caller gone"
    if isinstance(ended, LineNoise):
        return "line noise"
    return type(ended).__name__


def _who(node: int, presence: Presence) -> str:
    """``node 3`` or ``node 3 (Alias)`` for the log."""
    alias = sanitize(presence.alias or "", 40)
    return f"node {node} ({alias})" if alias else f"node {node}"
