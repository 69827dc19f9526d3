"""A deadline for one caller's waits that keeps one timer, not one a wait.

``async with asyncio.timeout(t)`` around every read makes a timer, its context and a
timeout object each time, and the timer stays in the event loop's queue until it would
have gone off: at a thousand callers, a few objects a play that every collection of young
objects looks at. A caller's deadlines mostly move later (the idle clock restarts at each
key), so an :class:`Alarm` keeps its timer while the deadline it is armed for comes no
later than the one asked for: the timer goes off early, sees that the deadline has moved,
and sets itself again once. Going off, it cancels the task that waits (as
``asyncio.timeout`` does), and the wait ends in :class:`TimeoutError`.

>>> async def wait(alarm: Alarm, seconds: float) -> str:
...     try:
...         with alarm.until(MONOTONIC.now() + seconds):
...             await asyncio.sleep(1)
...     except TimeoutError:
...         return "timed out"
...     return "woke"
>>> alarm = Alarm()
>>> asyncio.run(wait(alarm, 0.01)), asyncio.run(wait(alarm, 5))
('timed out', 'woke')
"""

from __future__ import annotations

import asyncio
from types import TracebackType

from door.net.clocks import MONOTONIC, Clock, Timer

# How much later than a wait's deadline a timer set for an earlier one may go off: spares
# setting a new timer when a deadline comes back a hair sooner, worked out again.
_LATE_AT_MOST = 0.005  # seconds


class Alarm:
    """Ends one wait at a time at its deadline (a time on ``clock``; None: none).

    Used as ``with alarm.until(deadline): await ...``; only one wait may be inside at a
    time. The timer is the clock's: a test's clock, moved on by hand, rings it at once.
    """

    def __init__(self, clock: Clock = MONOTONIC) -> None:
        self._clock = clock
        self._timer: Timer | None = None
        self._timer_at = 0.0  # when the timer goes off
        self._deadline: float | None = None  # the wait inside's, while there is one
        self._task: asyncio.Task[object] | None = None  # the task waiting inside
        self._cancelling = 0  # its cancel requests from elsewhere when it came in
        self._rang = False

    def until(self, deadline: float | None) -> Alarm:
        """Set the deadline of the next wait (entered with ``with``)."""
        if self._task is not None:
            raise RuntimeError("the alarm already ends another wait")
        self._deadline = deadline
        return self

    def __enter__(self) -> Alarm:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("an alarm ends a task's wait: use it inside a task")
        self._task, self._cancelling, self._rang = task, task.cancelling(), False
        deadline = self._deadline
        if deadline is not None and (
            self._timer is None or self._timer_at > deadline + _LATE_AT_MOST
        ):
            self._set_timer(deadline)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        task, self._task, self._deadline = self._task, None, None
        # The cancellation the alarm asked for is taken back whatever ended the wait.
        if (
            self._rang
            and task is not None
            and task.uncancel() <= self._cancelling
            and kind is asyncio.CancelledError
        ):
            raise TimeoutError from error

    @property
    def rang(self) -> bool:
        """Whether the last wait ended at its deadline (its TimeoutError is the alarm's)."""
        return self._rang

    def cancel(self) -> None:
        """Drop the timer (the caller has gone)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _set_timer(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._clock.call_at(when, self._go_off)
        self._timer_at = when

    def _go_off(self) -> None:
        self._timer = None
        deadline, task = self._deadline, self._task
        if task is None or deadline is None or self._rang:
            return  # nobody waits with a deadline: the next wait sets a timer of its own
        if self._clock.now() < deadline:
            self._set_timer(deadline)  # the deadline moved on since the timer was set
            return
        self._rang = True
        task.cancel()
