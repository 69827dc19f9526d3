"""Where the door's password hashes run, and in what order: a burst of guesses neither gets a
guess per connection nor holds up an honest caller.

- :class:`OneCheckAtATime`: a password check holds its alias and its address while it runs,
  so that twenty connections guessing at once are checked one after another, each one
  seeing the back-off the last one left (:mod:`door.store.logins`), as twenty guesses
  made in turn would.
- :class:`HashingLine`: hashes run one per spare core of the machine; those waiting are
  served in order of how many wrong passwords their address has given lately, then of
  arrival. A caller from an address with a clean record waits for no more than the hashes
  already running, however many guesses from other addresses wait; and an address guessing
  has one check in the line at a time (it waits for its address first).
- With ``serve``'s workers, the front holds both for every worker, and a worker takes its
  turns from it (:func:`arbitrate`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import os
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol, TypeVar

from door.store.accounts import return_large_blocks

T = TypeVar("T")


class OneCheckAtATime:
    """Locks by name, made when first asked for and forgotten when nobody holds or waits."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def holding(self, *names: str) -> AsyncIterator[None]:
        """Hold each of ``names`` (empty ones skipped), taken always in the order given, so
        that two checks can't each hold what the other waits for when every caller gives
        them in one order (the alias, then the address)."""
        taken: list[str] = []  # counted as users of their lock
        held: list[asyncio.Lock] = []
        try:
            for name in names:
                if not name:
                    continue
                lock, users = self._locks.get(name) or (asyncio.Lock(), 0)
                self._locks[name] = (lock, users + 1)
                taken.append(name)
                await lock.acquire()
                held.append(lock)
            yield
        finally:
            for lock in reversed(held):
                lock.release()
            for name in taken:
                lock, users = self._locks[name]
                if users == 1:
                    del self._locks[name]
                else:
                    self._locks[name] = (lock, users - 1)


class HashingLine:
    """At most ``workers`` hashes at once in ``executor``; the rest wait, fewest recent wrong
    passwords first, then first come."""

    def __init__(self, executor: ThreadPoolExecutor, workers: int) -> None:
        self.executor = executor
        self._workers = workers
        self._running = 0
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()

    @property
    def waiting(self) -> int:
        """Hashes waiting for a thread."""
        return sum(1 for _, _, turn in self._waiting if not turn.done())

    async def run(self, standing: int, function: Callable[..., T], *args: object) -> T:
        """``function(*args)`` in a hashing thread, once its turn comes; ``standing`` is how
        many wrong passwords the caller's address gave lately (0 for a clean record)."""
        async with self.turn(standing):
            return await asyncio.get_running_loop().run_in_executor(
                self.executor, function, *args
            )

    @asynccontextmanager
    async def turn(self, standing: int) -> AsyncIterator[None]:
        """Wait for a hash's turn (see :meth:`run`), and hold it until leaving."""
        loop = asyncio.get_running_loop()
        if self._running < self._workers and not self.waiting:
            self._running += 1
        else:
            turn: asyncio.Future[None] = loop.create_future()
            heapq.heappush(self._waiting, (standing, next(self._arrivals), turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._done()  # given a thread just as the caller went
                raise
        try:
            yield
        finally:
            self._done()

    def _done(self) -> None:
        self._running -= 1
        while self._waiting and self._running < self._workers:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():  # not given up while waiting
                self._running += 1
                turn.set_result(None)


# scrypt takes 64 MiB and a good part of a second of CPU per hash. Hashes run one per spare
# core at a time, not one per thread of asyncio's default pool: a crowd logging in at once then
# leaves the event loop a core for the games, and holds one hash's memory per thread at most.
_WORKERS = max(1, (os.cpu_count() or 1) - 1)
HASHING = HashingLine(
    ThreadPoolExecutor(
        max_workers=_WORKERS, thread_name_prefix="door-scrypt", initializer=return_large_blocks
    ),
    _WORKERS,
)
CHECKS = OneCheckAtATime()


class Checks(Protocol):
    """What a password check holds while it runs: :class:`OneCheckAtATime`'s ``holding``."""

    def holding(self, *names: str) -> AbstractAsyncContextManager[None]: ...


class Hashing(Protocol):
    """Where a hash runs: :class:`HashingLine`'s ``run``."""

    async def run(self, standing: int, function: Callable[..., T], *args: object) -> T: ...


def checks() -> Checks:
    """Where password checks take their turns in this process (:func:`arbitrate`)."""
    return _arbiter[0]


def hashing() -> Hashing:
    """Where hashes take their turns in this process (:func:`arbitrate`)."""
    return _arbiter[1]


def arbitrate(checks: Checks, hashing: Hashing) -> None:
    """Take password checks' and hashes' turns from ``checks`` and ``hashing`` from now on:
    a worker of ``serve``'s front process asks the front, which holds :data:`CHECKS` and
    :data:`HASHING` for every worker (:mod:`door.running.worker`)."""
    _arbiter[:] = [checks, hashing]


_arbiter: list[Any] = [CHECKS, HASHING]
