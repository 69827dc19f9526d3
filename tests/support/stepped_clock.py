"""A clock for a call that stands still until the test moves it on.

Give it to a :class:`~door.net.terminal.Terminal` (``clock=``) and minutes of idling or of a
time limit pass in one :meth:`SteppedClock.advance`: the terminal's waits wake as the clock
passes their deadlines, not when real time does.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

# Turns of the event loop given to the tasks a timer woke, each time the clock stops: enough
# for a wait to see its deadline, say so and begin its next wait.
_TURNS = 20
# Timers gone off at one time after which the waits are taken to spin, never moving on.
_SPIN = 1000


@dataclass(order=True)
class _Timer:
    when: float
    order: int
    callback: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class SteppedClock:
    """Seconds from ``start`` that move only by :meth:`advance`, and timers on them."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._timers: list[_Timer] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(when, next(self._order), callback)
        heapq.heappush(self._timers, timer)
        return timer

    async def advance(self, seconds: float) -> None:
        """Move on ``seconds``, stopping at each timer due on the way: it goes off at its
        time, and the tasks it wakes run (and may set timers of their own) before the clock
        goes on."""
        until = self._now + seconds
        await _turns()
        at_once = 0
        while self._timers and self._timers[0].when <= until:
            timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            at_once = at_once + 1 if timer.when <= self._now else 0
            if at_once > _SPIN:
                raise AssertionError(f"waits set for {self._now} keep going off: they spin")
            self._now = max(self._now, timer.when)
            timer.callback()
            await _turns()
        self._now = until
        await _turns()


async def _turns() -> None:
    for _ in range(_TURNS):
        await asyncio.sleep(0)
