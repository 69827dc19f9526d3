"""How fast the door acts on one caller's commands.

Keys sent faster than the door can answer them cost it one answer each only up to what a
person could ask: past :data:`ACTION_RATE` commands a second (after :data:`ACTION_BURST`),
a command is dropped and counted, for the caller to be told.

>>> pace = CommandPace(lambda: 0.0)
>>> sum(pace.may_act() for _ in range(ACTION_BURST + 3)), pace.take_dropped(), pace.take_dropped()
(500, 3, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from door.net.telnet_guard import TokenBucket

# Commands a second the door acts on, after a first burst: more than anyone types or clicks,
# and a whole game's commands pasted at once.
ACTION_RATE = 50
ACTION_BURST = 500


class CommandPace:
    """The pace of one caller's commands, on the clock ``now`` (seconds)."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._budget = TokenBucket(ACTION_RATE, ACTION_BURST, now())
        self._dropped = 0  # commands dropped as too many, not told yet

    def may_act(self) -> bool:
        """Whether the door may act on one more of the caller's commands now; if not, the
        command is dropped, and counted for :meth:`take_dropped`."""
        if self._budget.take(1, self._now()):
            return True
        self._dropped += 1
        return False

    def take_dropped(self) -> int:
        """How many commands :meth:`may_act` refused since last asked."""
        dropped, self._dropped = self._dropped, 0
        return dropped
