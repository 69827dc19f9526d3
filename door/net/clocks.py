"""The two clocks of a call: how long the caller has typed nothing, and how long they have left.

:class:`Clocks` says which warning is due and raises :class:`IdleTimeout` or :class:`TimeUp`
when patience or time has run out; :class:`~door.net.terminal.Terminal` shows the warnings
and waits no longer than :meth:`Clocks.until_next_check` between looks. Both run on a
:class:`Clock`, the time a call's waits are measured by: :data:`MONOTONIC`, or one a test
moves on by hand, so that minutes of idling take no time.

>>> clocks = Clocks(idle_timeout=300, idle_warning=60)
>>> clocks.idle_warning_due(clocks.last_key - 250)
'Are you still there? You will be disconnected in 50 seconds.'
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol

from door.words import N_, ngettext
from door.words.told import Said

# Seconds before the end of the caller's time at which they are warned, as OpenDoors does.
TIME_WARNINGS = (300.0, 120.0, 60.0)


class Timer(Protocol):
    """A callback set to run at a time, until cancelled."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Seconds that only go forward, and callbacks at a time on them."""

    def now(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer: ...


class MonotonicClock:
    """The real clock: :func:`time.monotonic`, and the running event loop's timers."""

    def now(self) -> float:
        return time.monotonic()

    def call_at(self, when: float, callback: Callable[[], None]) -> asyncio.TimerHandle:
        delay = max(0.0, when - time.monotonic())
        return asyncio.get_running_loop().call_later(delay, callback)


MONOTONIC = MonotonicClock()


class VisitEnded(Exception):
    """The visit is over; :attr:`farewell` is what to tell the caller, if anything."""

    farewell = ""


class IdleTimeout(VisitEnded):
    """The caller typed nothing for :attr:`seconds`."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no input for {seconds:g} seconds")
        self.seconds = seconds
        self.farewell = Said(partial(_no_input, seconds))


class TimeUp(VisitEnded):
    """The caller's time for this call has run out."""

    farewell = N_("Your time is up. Your game is saved. Goodbye.")


def span(seconds: float) -> tuple[int, bool]:
    """A span of time as a caller reads it, as a count and whether it counts minutes:
    seconds under two minutes, else minutes.

    >>> span(1), span(45.2), span(60), span(300)
    ((1, False), (46, False), (1, True), (5, True))
    """
    whole = max(1, math.ceil(seconds - 1e-6))
    if whole >= 120 or whole % 60 == 0:
        return round(whole / 60), True
    return whole, False


def describe_seconds(seconds: float) -> str:
    """A span of time in English, for the sysop (a caller reads it in a whole sentence).

    >>> describe_seconds(1), describe_seconds(45.2), describe_seconds(60), describe_seconds(300)
    ('1 second', '46 seconds', '1 minute', '5 minutes')
    """
    count, in_minutes = span(seconds)
    unit = "minute" if in_minutes else "second"
    return f"{count} {unit}{'s' if count != 1 else ''}"


# What the clocks tell a caller, in the language spoken in their visit, each sentence whole
# for a span in seconds and one in minutes.


def _no_input(seconds: float) -> str:
    count, in_minutes = span(seconds)
    if in_minutes:
        text = ngettext(
            "No input for {count} minute. Goodbye.", "No input for {count} minutes. Goodbye.", count
        )
    else:
        text = ngettext(
            "No input for {count} second. Goodbye.", "No input for {count} seconds. Goodbye.", count
        )
    return text.format(count=count)


def _time_left(seconds: float) -> str:
    count, in_minutes = span(seconds)
    if in_minutes:
        text = ngettext("You have {count} minute left.", "You have {count} minutes left.", count)
    else:
        text = ngettext("You have {count} second left.", "You have {count} seconds left.", count)
    return text.format(count=count)


def _still_there(seconds: float) -> str:
    count, in_minutes = span(seconds)
    if in_minutes:
        text = ngettext(
            "Are you still there? You will be disconnected in {count} minute.",
            "Are you still there? You will be disconnected in {count} minutes.",
            count,
        )
    else:
        text = ngettext(
            "Are you still there? You will be disconnected in {count} second.",
            "Are you still there? You will be disconnected in {count} seconds.",
            count,
        )
    return text.format(count=count)


class Clocks:
    """The idle clock and the time-left clock of one call, on ``clock``.

    After ``idle_timeout - idle_warning`` seconds without a key the caller is asked if they
    are still there, and after ``idle_timeout`` (0: never) :class:`IdleTimeout` is raised.
    :attr:`deadline` (None: never) ends the call with :class:`TimeUp`, after a warning at
    each of ``time_warnings`` seconds before it; thresholds passed together earn one warning,
    and none is given before the caller has logged in (the log-in limit comes first).
    """

    def __init__(
        self,
        *,
        idle_timeout: float = 0.0,
        idle_warning: float = 0.0,
        deadline: float | None = None,
        time_warnings: Sequence[float] = TIME_WARNINGS,
        clock: Clock = MONOTONIC,
    ) -> None:
        self.clock = clock
        self.idle_timeout = idle_timeout
        self.idle_warning = idle_warning
        self._time_warnings = tuple(sorted(time_warnings, reverse=True))
        self._deadline: float | None = None
        self._warned_at = math.inf  # smallest time-left threshold already warned about
        self.deadline = deadline
        self._idle_warned = False
        #: When the caller last pressed a key that did something (or the call began).
        self.last_key = self.clock.now()

    @property
    def deadline(self) -> float | None:
        """When the caller's time is up, on the clock; None: never."""
        return self._deadline

    @deadline.setter
    def deadline(self, deadline: float | None) -> None:
        self._deadline = deadline
        self._warned_at = math.inf  # a new deadline earns its own warnings

    @property
    def idle_seconds(self) -> float:
        """Seconds since the caller's last key (or since the call began)."""
        return self.clock.now() - self.last_key

    def seconds_left(self) -> float | None:
        """Seconds until :attr:`deadline`, or None when there is none."""
        return None if self._deadline is None else self._deadline - self.clock.now()

    def key_pressed(self) -> None:
        """The caller pressed a key that did something: the idle time starts again."""
        self.last_key = self.clock.now()
        self._idle_warned = False

    def time_left_warning(self, *, logged_in: bool) -> str | None:
        """The time-left warning now due, if any; raises :class:`TimeUp` once time is up."""
        if self._deadline is None:
            return None
        left = self._deadline - self.clock.now()
        if left <= 0:
            raise TimeUp()
        if not logged_in:
            return None
        passed = [limit for limit in self._time_warnings if left <= limit < self._warned_at]
        if not passed:
            return None
        self._warned_at = min(passed)
        return _time_left(left)

    def idle_warning_due(self, idle_since: float) -> str | None:
        """The are-you-there warning now due, if any, the caller idle since ``idle_since``;
        raises :class:`IdleTimeout` once patience has run out."""
        if self.idle_timeout <= 0:
            return None
        idle = self.clock.now() - idle_since
        if idle >= self.idle_timeout:
            raise IdleTimeout(self.idle_timeout)
        if not self._idle_warning_due(idle):
            return None
        self._idle_warned = True
        return _still_there(self.idle_timeout - idle)

    def until_next_check(self, idle_since: float, *, logged_in: bool) -> float | None:
        """Seconds until a warning or an ending is due, or None if none ever is (a caller
        not ``logged_in`` is given no time-left warnings, so none is waited for)."""
        now = self.clock.now()
        waits = []
        if self._deadline is not None:
            left = self._deadline - now
            waits.append(left)
            if logged_in:
                waits.extend(
                    left - limit for limit in self._time_warnings if limit < self._warned_at
                )
        if self.idle_timeout > 0:
            idle = now - idle_since
            waits.append(self.idle_timeout - idle)
            if self.idle_warning > 0 and not self._idle_warned:
                waits.append(self._idle_warn_at() - idle)
        positive = [wait for wait in waits if wait > 0]
        if len(positive) < len(waits):
            return 0.0
        return min(positive) if positive else None

    def _idle_warning_due(self, idle: float) -> bool:
        return self.idle_warning > 0 and not self._idle_warned and idle >= self._idle_warn_at()

    def _idle_warn_at(self) -> float:
        return max(0.0, self.idle_timeout - self.idle_warning)
