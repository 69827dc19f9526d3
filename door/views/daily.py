"""The deal of the day's pages: the day's board and the list of earlier days."""

from __future__ import annotations

from collections.abc import Sequence

from ansi.text import sanitize
from door.store.records import DailyDay, DailyResult
from door.views.board import LABEL
from door.views.layout import heading
from door.views.pages import Entry, PageLine, Text, status_word
from door.words import _, ngettext


def board_lines(results: Sequence[DailyResult], limit: int) -> list[PageLine]:
    """A day's results, best first, at most ``limit`` rows; (hint) marks a hint taken."""
    head = heading(
        [
            ("#", 3, True),
            ("  ", 2, False),
            # TRANSLATORS: a column head of the scoreboards, at most 16 characters
            (_("Alias"), 22, False),
            # TRANSLATORS: a column head of the scoreboards, at most 9 characters
            (_("Result"), 10, False),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Score"), 7, True),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Moves"), 7, True),
        ]
    )
    lines: list[PageLine] = [Text(head, LABEL)]
    hint = " " + _("(hint)")
    for place, row in enumerate(results[:limit], start=1):
        mark = hint if row.assisted else ""
        lines.append(
            f"{place:>3}  {sanitize(row.alias, 20):<22}{status_word(row.status):<10}"
            f"{row.score:>7}{row.moves:>7}{mark}"
        )
    if len(results) > limit:
        lines.append("     " + _("... and {count} more").format(count=len(results) - limit))
    if not results:
        lines.append(_("Nobody has played this deal yet."))
    return lines


def day_list_lines(days: Sequence[DailyDay]) -> list[PageLine]:
    """Earlier days, latest first, each under the digit that shows its board."""
    if not days:
        return [_("There are no earlier deals of the day yet.")]
    return [
        Entry(
            str(key),
            ngettext(
                "{day}  deal {deal} at level {level}, {count} player",
                "{day}  deal {deal} at level {level}, {count} players",
                day.players,
            ).format(day=day.day, deal=day.deal, level=day.level, count=day.players),
        )
        for key, day in enumerate(days, start=1)
    ]
