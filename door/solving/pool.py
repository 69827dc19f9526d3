"""The solver at work for the door, in processes of its own, so that the event loop never waits.

A search is CPU-bound and may run for the whole budget (``[solver] seconds``); run in the
server's process it would freeze every caller's screen meanwhile. :class:`SolverPool` sends
each position to a solver process (:mod:`door.solving.child`: the position as a JSON line on
its stdin, the verdict back as one on its stdout), started when there is a search to do and
ended once it has had none for :data:`IDLE_SECONDS`: most of the time nothing is solved, and
then the solver costs no memory. It keeps two lanes of one process each: one for the
background search (:attr:`SolverPool.background`), one for callers, so a caller never waits
behind the background (on a one-core machine the two share one lane). A search whose caller
stopped waiting (hung up, say) is stopped at once: its process is killed, and any search
queued behind it runs in a fresh one. A process that dies (out of memory, killed) answers
"undecided" and its lane starts afresh. A solver process ends by itself when its stdin
closes, so the door's end (even by SIGKILL) is its end too.

:class:`Solving` is what the door asks: verdicts with the sysop's budget, winnable deals for
the levels that deal only those, and the deal of the day. Started with the server, it keeps
a few winnable deals ready for each such level and chooses the day's deal ahead of the first
caller, in the background (a supervised job: :class:`door.tasks.Supervised`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from datetime import date
from pathlib import Path
from typing import Any, cast

import door
from door.config import Config
from door.engine.solver import Result, Verdict
from door.levels import Level
from door.solving.child import question_line, read_verdict
from door.solving.daily import Solver, choose_deal_of_the_day, close_past_days
from door.solving.winnable import find_winnable
from door.store import DailyDeal, Store
from door.tasks import Supervised

log = logging.getLogger("door")

WORKERS = 2
"""Solver processes at most: one for the background search, one for callers' questions."""

IDLE_SECONDS = 30.0
"""A lane's process ends after so long without a search (the next search starts another)."""

END_SECONDS = 5.0
"""How long a process let go (its stdin closed) may take to end before it is killed."""

CALLER_WAIT = 60.0
"""Seconds a caller waits for a winnable deal at most, before being dealt any deal."""

RECHECK_SECONDS = 60.0
"""How often the background looks again without being asked (a new day, say)."""

CHILD_MODULE = "door.solving.child"
# Where `python -m` finds the door package the door itself runs (a checkout or site-packages),
# whatever directory the door was started in.
PACKAGE_ROOT = Path(door.__file__).resolve().parent.parent

UNDECIDED = Verdict(Result.UNKNOWN, (), 0, 0.0)

CALLERS, BACKGROUND = "callers", "background"


class _Child(asyncio.SubprocessProtocol):
    """A solver process as the door sees it: its answers, line by line, and its end."""

    def __init__(self) -> None:
        self.transport: asyncio.SubprocessTransport | None = None
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._read = bytearray()
        self._answer: asyncio.Future[bytes] | None = None
        self._silent = False  # its stdout closed: no more answers

    async def ask(self, question: bytes) -> bytes:
        """Send ``question``; the line it answers with (empty if the process ended first)."""
        assert self.transport is not None
        self._answer = asyncio.get_running_loop().create_future()
        stdin = cast(asyncio.WriteTransport | None, self.transport.get_pipe_transport(0))
        if stdin is None or stdin.is_closing():
            return b""
        stdin.write(question)  # a broken pipe closes it, and its stdout ends too
        self._hand_over()
        return await self._answer

    def let_go(self) -> None:
        """Close its stdin, which ends it; kill it if it lingers."""
        if self.transport is not None and not self.transport.is_closing():
            stdin = self.transport.get_pipe_transport(0)
            if stdin is not None:
                stdin.close()
            asyncio.get_running_loop().call_later(END_SECONDS, self.transport.close)

    def kill(self) -> None:
        """End it now, a search under way too (asyncio's child watcher reaps it)."""
        if self.transport is not None:
            self.transport.close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A subprocess transport (uvloop's is not a subclass of asyncio's: no isinstance).
        self.transport = cast(asyncio.SubprocessTransport, transport)

    @property
    def gone(self) -> bool:
        """Whether it can answer no more (it died, or is ending)."""
        return self._silent or self.transport is None or self.transport.is_closing()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._read += data
        self._hand_over()

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self._silent = True
            self._hand_over()

    def connection_lost(self, exc: Exception | None) -> None:
        """The process has ended and its pipes are closed."""
        self._silent = True
        self._hand_over()
        if self.transport is not None:
            self.transport.close()
        if not self.ended.done():
            self.ended.set_result(None)

    def _hand_over(self) -> None:
        if self._answer is None or self._answer.done():
            return
        end = self._read.find(b"\n") + 1
        if end:
            self._answer.set_result(bytes(self._read[:end]))
            del self._read[:end]
        elif self._silent:
            self._answer.set_result(b"")


class _Lane:
    """One lane's solver process (while it has one) and the searches waiting for it."""

    def __init__(self) -> None:
        self.turn = asyncio.Lock()  # one search at a time; the others wait here
        self.child: _Child | None = None
        self.idle: asyncio.TimerHandle | None = None  # lets the process go unless a search comes

    def forget(self) -> _Child | None:
        """The lane's process, which the next search will not use: it starts another."""
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        child, self.child = self.child, None
        return child


class SolverPool:
    """Verdicts from solver processes, in two lanes; see the module. ``close`` ends the
    processes, a search under way too. ``idle_seconds``: see :data:`IDLE_SECONDS`."""

    def __init__(self, workers: int = WORKERS, *, idle_seconds: float = IDLE_SECONDS) -> None:
        self._workers = max(1, min(workers, os.cpu_count() or 1, WORKERS))
        self._idle_seconds = idle_seconds
        self._lanes = {CALLERS: _Lane(), BACKGROUND: _Lane()}
        self._children: set[_Child] = set()  # every process not yet ended
        self._closed = False

    @property
    def background(self) -> Solver:
        """The pool as the background search asks it: its own lane."""
        return _BackgroundLane(self)

    async def solve(
        self, position: Mapping[str, Any], seconds: float, *, background: bool = False
    ) -> Verdict:
        """The solver's verdict on ``position`` (docs/rules.md §18) within ``seconds``, in the
        callers' lane (or the ``background``'s, where there are two lanes)."""
        if self._closed:
            raise RuntimeError("the solver pool is shut down")
        lane = self._lanes[BACKGROUND if background and self._workers > 1 else CALLERS]
        async with lane.turn:
            if self._closed:  # shut down while this search waited its turn
                return UNDECIDED
            if lane.idle is not None:
                lane.idle.cancel()
                lane.idle = None
            if lane.child is not None and lane.child.gone:  # died while idle
                log.warning("a solver process died; its lane starts afresh")
                _kill(lane.forget())
            try:
                child = lane.child or await self._start(lane)
                verdict = read_verdict(await child.ask(question_line(position, seconds)))
            except asyncio.CancelledError:
                # Nobody waits for this search any more: stop it, not just forget it.
                _kill(lane.forget())
                raise
            except (OSError, TypeError, ValueError):
                # The process died (out of memory, killed, or ended by close), answered
                # what is no verdict, or could not be started.
                if not self._closed:
                    log.warning("a solver process died; its lane starts afresh")
                _kill(lane.forget())
                return UNDECIDED
            lane.idle = asyncio.get_running_loop().call_later(self._idle_seconds, _let_go, lane)
            return verdict

    async def _start(self, lane: _Lane) -> _Child:
        # Its stderr is the door's (a crash shows in the door's log), unless that is a
        # terminal: in door mode, most likely the caller's screen.
        _, child = await asyncio.get_running_loop().subprocess_exec(
            _Child,
            sys.executable,
            "-m",
            CHILD_MODULE,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if os.isatty(2) else None,
            cwd=PACKAGE_ROOT,
        )
        self._children.add(child)
        child.ended.add_done_callback(lambda _: self._children.discard(child))
        lane.child = child
        return child

    def close(self) -> None:
        """End the solver processes now, without waiting for a search to use up its budget."""
        self._closed = True
        for lane in self._lanes.values():
            lane.forget()
        for child in self._children:
            child.kill()

    async def wait_closed(self) -> None:
        """Wait until the processes :meth:`close` ended are gone, reaped and their pipes
        closed (before the event loop closes)."""
        ending = [child.ended for child in self._children]
        if ending:
            await asyncio.wait(ending, timeout=END_SECONDS)


def _let_go(lane: _Lane) -> None:
    """``lane`` has been idle long enough: its process ends."""
    child = lane.forget()
    if child is not None:
        child.let_go()


def _kill(child: _Child | None) -> None:
    if child is not None:
        child.kill()


class _BackgroundLane:
    """:class:`SolverPool` for the background search (see ``SolverPool.background``)."""

    def __init__(self, pool: SolverPool) -> None:
        self._pool = pool

    async def solve(self, position: Mapping[str, Any], seconds: float) -> Verdict:
        return await self._pool.solve(position, seconds, background=True)


class Solving:
    """The door's questions for the solver, with the sysop's budget; see the module."""

    def __init__(self, store: Store, config: Config, pool: SolverPool | None = None) -> None:
        self.store = store
        self.config = config
        self.pool = pool or SolverPool()
        self._daily_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._job = Supervised("solving", self._background)
        #: Where a wake is sent besides (see :meth:`wake`).
        self.woken: Callable[[], None] | None = None

    @property
    def seconds(self) -> float:
        return self.config.solver.seconds

    def reconfigure(self, config: Config) -> None:
        """New settings (sysop.toml read again): the budget counts from the next question,
        the levels and the stock of winnable deals from the background's next round, now."""
        self.config = config
        self._wake.set()

    async def verdict(self, position: Mapping[str, Any]) -> Verdict:
        """Can ``position`` be won? Within the configured budget."""
        return await self.pool.solve(position, self.seconds)

    # -- winnable deals ------------------------------------------------------------------

    async def winnable_deal(
        self, level: Level, waiting: Callable[[], Awaitable[None]]
    ) -> int | None:
        """A deal proved winnable under the level's rules: one kept ready, or else one
        searched for now (``waiting`` is awaited first, to tell the caller). None if the
        search finds none in :data:`CALLER_WAIT` seconds (rules under which hardly any deal
        can be won)."""
        number = await self.store.take_winnable(level)
        self.wake()  # the background tops the stock up again
        if number is not None:
            return number
        await waiting()
        found = await find_winnable(
            self.pool, level, self.seconds, give_up_after=max(CALLER_WAIT, self.seconds)
        )
        if found is None:
            log.warning("no winnable deal found in time for level %d", level.number)
        return found

    async def _keep_winnable_ready(self, level: Level) -> None:
        while len(await self.store.winnable_deals(level)) < self.config.solver.ready:
            number = await find_winnable(self.pool.background, level, self.seconds)
            if number is None:
                log.warning("no winnable deal found for level %d this round", level.number)
                return
            await self.store.add_winnable(level, number)

    # -- the deal of the day -------------------------------------------------------------

    async def deal_of_the_day(
        self, day: date | None = None, *, background: bool = False
    ) -> DailyDeal:
        """The deal of ``day`` (today by the store's clock), chosen the first time asked
        (by the ``background`` search, in its lane, or by a caller, in theirs)."""
        day = day or self.store.today()
        solver = self.pool.background if background else self.pool
        async with self._daily_lock:
            return await choose_deal_of_the_day(solver, self.store, self.config, day)

    # -- the background ------------------------------------------------------------------

    def start(self) -> None:
        """Begin keeping winnable deals ready and choosing each day's deal ahead of time."""
        self._job.start()

    def wake(self) -> None:
        """Have the background look again now (a winnable deal was taken): here, or where
        :attr:`woken` sends it (a worker of ``serve``'s front whose background runs in
        another worker)."""
        if self.woken is not None:
            self.woken()
        self._wake.set()

    async def _background(self) -> None:
        while True:
            self._wake.clear()
            try:
                # A day's unfinished games of its deal are closed as soon as it is over.
                # (Contests keep time on a clock of their own: door.contests.ContestClock.)
                await close_past_days(self.store, self.store.today())
                await self.deal_of_the_day(background=True)
                for level in self.config.levels:
                    if level.winnable_only:
                        await self._keep_winnable_ready(level)
            except Exception:
                log.exception("the background search failed; it tries again later")
            with suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), RECHECK_SECONDS)

    async def close(self) -> None:
        """Stop the background and the solver processes (before the store closes)."""
        await self._job.close()
        self.pool.close()
        await self.pool.wait_closed()
