"""The deal of the day's pages: the day's board and the list of earlier days."""

from __future__ import annotations

from collections.abc import Sequence

from ansi.text import sanitize
from door.store.records import DailyDay, DailyResult
from door.views.board import LABEL
from door.views.pages import Entry, PageLine, Text


def board_lines(results: Sequence[DailyResult], limit: int) -> list[PageLine]:
    """A day's results, best first, at most ``limit`` rows; (hint) marks a hint taken."""
    lines: list[PageLine] = [
        Text(f"{'#':>3}  {'Alias':<22}{'Result':<10}{'Score':>7}{'Moves':>7}", LABEL)
    ]
    for place, row in enumerate(results[:limit], start=1):
        mark = " (hint)" if row.assisted else ""
        lines.append(
            f"{place:>3}  {sanitize(row.alias, 20):<22}{row.status:<10}"
            f"{row.score:>7}{row.moves:>7}{mark}"
        )
    if len(results) > limit:
        lines.append(f"     ... and {len(results) - limit} more")
    if not results:
        lines.append("Nobody has played this deal yet.")
    return lines


def day_list_lines(days: Sequence[DailyDay]) -> list[PageLine]:
    """Earlier days, latest first, each under the digit that shows its board."""
    if not days:
        return ["There are no earlier deals of the day yet."]
    return [
        Entry(
            str(key),
            f"{day.day}  deal {day.deal} at level {day.level}, "
            f"{day.players} player{'s' if day.players != 1 else ''}",
        )
        for key, day in enumerate(days, start=1)
    ]
