"""A user's record at a level, worked out from their finished games in the order they ended.

>>> won, stuck, resigned = Status.WON, Status.STUCK, Status.RESIGNED
>>> streaks([won, won, stuck, won, won, won, resigned, won])
(1, 3)
>>> summarize(2, [(won, 40), (stuck, 10), (resigned, 0), (won, 50)], None, False)
Statistics(level=2, played=4, won=2, lost=2, win_percentage=50.0, best_score=50, \
average_score=25.0, current_streak=1, longest_streak=1, balance=None, unfinished=False, \
practice_played=0, practice_won=0)
"""

from __future__ import annotations

from collections.abc import Sequence

from door.engine.status import Status
from door.store.records import Statistics


def streaks(statuses: Sequence[Status]) -> tuple[int, int]:
    """(current, longest) run of won games; a stuck or resigned game ends a run."""
    current = longest = 0
    for status in statuses:
        current = current + 1 if status == Status.WON else 0
        longest = max(longest, current)
    return current, longest


def summarize(
    level: int,
    finished: Sequence[tuple[Status, int]],
    balance: int | None,
    unfinished: bool,
) -> Statistics:
    """Statistics from (status, score) of each finished game, oldest first."""
    played = len(finished)
    won = sum(1 for status, _ in finished if status == Status.WON)
    scores = [score for _, score in finished]
    current, longest = streaks([status for status, _ in finished])
    return Statistics(
        level=level,
        played=played,
        won=won,
        lost=played - won,
        win_percentage=100.0 * won / played if played else 0.0,
        best_score=max(scores) if scores else None,
        average_score=sum(scores) / played if played else None,
        current_streak=current,
        longest_streak=longest,
        balance=balance,
        unfinished=unfinished,
    )
