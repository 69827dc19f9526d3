"""The solver at work for the door, in worker processes, so that the event loop never waits.

A search is CPU-bound and may run for the whole budget (``[solver] seconds``); run in the
server's process it would freeze every caller's screen meanwhile. :class:`SolverPool` sends
each position (its JSON dict, which pickles cheaply) to a worker process, started the first
time it is needed and shut down with the server. It keeps two lanes of one worker each: one
for the background search (:attr:`SolverPool.background`), one for callers, so a caller
never waits behind the background (on a one-core machine the two share one worker). A
search whose caller stopped waiting (hung up, say) is stopped at once: its worker is ended
and the lane starts a fresh one, where any search queued behind it runs again.

:class:`Solving` is what the door asks: verdicts with the sysop's budget, winnable deals for
the levels that deal only those, and the deal of the day. Started with the server, it keeps
a few winnable deals ready for each such level and chooses the day's deal ahead of the first
caller, in the background (a supervised job: :class:`door.tasks.Supervised`).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from datetime import date
from typing import Any

from door.config import Config
from door.engine.solver import Result, Verdict, solve
from door.levels import Level
from door.solving.daily import Solver, choose_deal_of_the_day, close_past_days
from door.solving.winnable import find_winnable
from door.store import DailyDeal, Store
from door.tasks import Supervised

log = logging.getLogger("door")

WORKERS = 2
"""Worker processes: one for the background search, one for callers' questions."""

CALLER_WAIT = 60.0
"""Seconds a caller waits for a winnable deal at most, before being dealt any deal."""

RECHECK_SECONDS = 60.0
"""How often the background looks again without being asked (a new day, say)."""

WATCH_SECONDS = 2.0
"""How often a worker checks that the door's process is still there."""


def _end_with(door_pid: int) -> None:
    """In a worker process: exit when the door's process is gone, even killed with SIGKILL.

    Workers wait on a queue that they themselves hold open, so without this a door killed
    hard would leave them (and the forkserver) behind for good. They ignore Ctrl-C and the
    hang-up signal, which a terminal sends its whole process group: the door decides when
    its workers end, and a worker killed under it would leave the pool broken.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(WATCH_SECONDS)
            try:
                os.kill(door_pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass  # alive, under another user: keep watching

    threading.Thread(target=watch, name="door-watch", daemon=True).start()


def _solve(position: dict[str, Any], seconds: float) -> Verdict:
    """In a worker process: the solver's verdict on one position."""
    return solve(position, max_seconds=seconds)


CALLERS, BACKGROUND = "callers", "background"


class SolverPool:
    """Verdicts from worker processes, in two lanes; see the module. ``close`` ends the
    workers, a search under way too."""

    def __init__(self, workers: int = WORKERS) -> None:
        self._workers = max(1, min(workers, os.cpu_count() or 1, WORKERS))
        self._executors: dict[str, ProcessPoolExecutor] = {}
        self._stopped: set[int] = set()  # ids of executors ended because nobody waited
        self._closed = False

    @property
    def background(self) -> Solver:
        """The pool as the background search asks it: its own lane."""
        return _BackgroundLane(self)

    def _pool(self, lane: str) -> ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the solver pool is shut down")
        executor = self._executors.get(lane)
        if executor is None:
            # forkserver: workers start clean, not forked from a process with threads
            # (the store's) that might hold a lock at the fork.
            context = multiprocessing.get_context("forkserver")
            executor = ProcessPoolExecutor(
                1, mp_context=context, initializer=_end_with, initargs=(os.getpid(),)
            )
            self._executors[lane] = executor
        return executor

    async def solve(
        self, position: Mapping[str, Any], seconds: float, *, background: bool = False
    ) -> Verdict:
        """The solver's verdict on ``position`` (docs/rules.md §18) within ``seconds``, in the
        callers' lane (or the ``background``'s, where there are two workers)."""
        lane = BACKGROUND if background and self._workers > 1 else CALLERS
        while True:
            executor = self._pool(lane)
            future = executor.submit(_solve, dict(position), seconds)
            try:
                return await asyncio.wrap_future(future)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    # Nobody waits for this search any more: stop it, not just forget it.
                    if not future.cancelled():
                        self._stop(lane, executor)
                    raise
                if id(executor) not in self._stopped:
                    raise
                # Queued behind a search that was stopped: run again in a fresh worker.
            except (BrokenProcessPool, OSError):
                if id(executor) in self._stopped and not self._closed:
                    continue  # behind a search that was stopped: run again
                # A worker died (out of memory, killed, or ended by close) or could not be
                # started: answer "undecided", and start afresh next time.
                if not self._closed:
                    log.warning("a solver worker died; the solver pool is restarted")
                if self._executors.get(lane) is executor:
                    del self._executors[lane]
                    executor.shutdown(wait=False, cancel_futures=True)
                return Verdict(Result.UNKNOWN, (), 0, 0.0)

    def _stop(self, lane: str, executor: ProcessPoolExecutor) -> None:
        """End ``executor``'s worker (a search nobody waits for); the lane starts anew."""
        self._stopped.add(id(executor))
        if self._executors.get(lane) is executor:
            del self._executors[lane]
        _end(executor)

    def close(self) -> None:
        """Shut the workers down now, without waiting for a search to use up its budget."""
        self._closed = True
        executors, self._executors = list(self._executors.values()), {}
        for executor in executors:
            _end(executor)


class _BackgroundLane:
    """:class:`SolverPool` for the background search (see ``SolverPool.background``)."""

    def __init__(self, pool: SolverPool) -> None:
        self._pool = pool

    async def solve(self, position: Mapping[str, Any], seconds: float) -> Verdict:
        return await self._pool.solve(position, seconds, background=True)


def _end(executor: ProcessPoolExecutor) -> None:
    """Shut ``executor`` down now, its worker processes ended mid-search if need be."""
    # ProcessPoolExecutor has no public way to stop a task already running; its worker
    # processes are ended here so that shutdown need not wait out a long search.
    # An executor already shut down (a second search behind the same one stopped) has None.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with suppress(OSError, ValueError):
            process.terminate()


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
        """Stop the background and the workers (before the store closes)."""
        await self._job.close()
        self.pool.close()
