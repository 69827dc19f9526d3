"""A contest's pages: where it stands, its deals (by their place, 1 to N; by seal while it is
open; by number and salt once it has closed), the caller's games of them, and its table.

>>> from datetime import datetime, UTC
>>> from door.store.contests import ContestStanding
>>> row = ContestStanding("Bob", "Another Board", 2, 240, 180, datetime.now(UTC), False, 1)
>>> [str(line) if isinstance(line, str) else line.text for line in table_lines([row], 5)][1]
'  1  Bob                 Another Board 2 +1        240    180'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from ansi.text import sanitize
from door.engine.status import Status
from door.store.contests import ContestPlay, ContestStanding, ContestState
from door.views.board import LABEL, VALUE
from door.views.layout import heading, local_time, time_left
from door.views.pages import BOARD_WIDTH, Entry, PageLine, Text, board_cell, status_word
from door.words import _, ngettext


def table_lines(
    rows: Sequence[ContestStanding], limit: int, me: str | None = None
) -> list[PageLine]:
    """A contest's table, best first, at most ``limit`` rows: deals finished (+ those
    begun and not finished), total score and moves; a Board column when any player calls
    from another board. The row of the caller ``me`` (an alias of the door's own) is
    marked."""
    boards = any(row.bbs for row in rows)
    head = heading(
        [
            ("#", 3, True),
            ("  ", 2, False),
            # TRANSLATORS: a column head of the scoreboards, at most 16 characters
            (_("Alias"), 20, False),
            # TRANSLATORS: a column head of the scoreboards, at most 13 characters
            *([(_("Board"), BOARD_WIDTH + 1, False)] if boards else []),
            # TRANSLATORS: a column head of the scoreboards, at most 7 characters
            (_("Deals"), 8, False),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Score"), 7, True),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Moves"), 7, True),
        ]
    )
    lines: list[PageLine] = [Text(head, LABEL)]
    hint, you = " " + _("(hint)"), " " + _("(you)")
    for place, row in enumerate(rows[:limit], start=1):
        board = f"{board_cell(row.bbs):<{BOARD_WIDTH + 1}}" if boards else ""
        deals = f"{row.played}" + (f" +{row.playing}" if row.playing else "")
        mark = hint if row.assisted else ""
        mine = me is not None and row.bbs is None and row.alias == me
        text = (
            f"{place:>3}  {sanitize(row.alias, 18):<20}{board}{deals:<8}"
            f"{row.score:>7}{row.moves:>7}{mark}"
        )
        lines.append(Text(text + you, VALUE) if mine else text)
    if len(rows) > limit:
        lines.append("     " + _("... and {count} more").format(count=len(rows) - limit))
    if not rows:
        lines.append(_("Nobody has played a deal of this contest yet."))
    return lines


def play_text(play: ContestPlay | None, state: ContestState = ContestState.OPEN) -> str:
    """What the caller has made of one deal (``state``: the contest's)."""
    if play is None:
        return _("not played") if state == ContestState.CLOSED else _("not played yet")
    moves = play.moves
    if play.status == Status.PLAYING:
        return ngettext(
            "your game is saved (score {score}, {count} move)",
            "your game is saved (score {score}, {count} moves)",
            moves,
        ).format(score=play.score, count=moves)
    text = ngettext(
        "{status}, score {score} in {count} move", "{status}, score {score} in {count} moves", moves
    ).format(status=status_word(play.status), score=play.score, count=moves)
    return text + " " + _("(hint)") if play.assisted else text


def deal_key(number: int) -> str:
    """The key that plays deal ``number``: its digit, and 0 for deal 10 (as for column 10).

    >>> deal_key(3), deal_key(10)
    ('3', '0')
    """
    return str(number % 10)


def deal_lines(state: ContestState, plays: Mapping[int, ContestPlay], count: int) -> list[PageLine]:
    """The contest's deals by their place and what the caller made of each: while it is
    open, each under the key that plays it."""
    if state == ContestState.COMING:
        return [
            Text(
                ngettext(
                    "{count} deal, dealt when the contest opens.",
                    "{count} deals, dealt when the contest opens.",
                    count,
                ).format(count=count)
            )
        ]
    texts = [
        _("Deal {number}: {play}").format(number=number, play=play_text(plays.get(number), state))
        for number in range(1, count + 1)
    ]
    if state == ContestState.OPEN:
        return [Entry(deal_key(number), text) for number, text in enumerate(texts, start=1)]
    return [Text(text) for text in texts]


def seal_lines(seals: Sequence[str], revealed: Sequence[tuple[int, int, str]]) -> list[PageLine]:
    """The seals of the deals (from the opening), and each deal's number and salt once the
    contest has closed, so that anyone can check any game of it."""
    if not seals:
        return [Text(_("The seals of the deals are shown when the contest opens."))]
    if not revealed:
        lines: list[PageLine] = [
            _(
                "Each deal was drawn and sealed when the contest was made. Its number and salt "
                "are shown here when the contest closes: the seal is the start of the SHA-256 "
                "of DEAL:SALT."
            ),
            "",
        ]
        return lines + [
            Text(_("Deal {number}  seal {seal}").format(number=f"{number:>2}", seal=sealed))
            for number, sealed in enumerate(seals, 1)
        ]
    lines = [
        _(
            "The seal is the start (32 hex digits) of the SHA-256 of DEAL:SALT; # at the menu "
            "replays a deal."
        ),
        "",
    ]
    for number, deal, salt in revealed:
        lines.append(
            Text(
                _("Deal {number}  deal {deal} salt {salt}").format(
                    number=f"{number:>2}", deal=deal, salt=salt
                )
            )
        )
        # TRANSLATORS: under "Deal {number}  deal {deal} salt {salt}": the seal under the deal
        seal = _("seal {seal}").format(seal=seals[number - 1])
        lines.append(Text(f"          {seal}", LABEL))
    return lines


def state_line(
    state: ContestState,
    opens: datetime,
    closes: datetime,
    level_name: str,
    count: int,
    now: datetime,
) -> str:
    """Where the contest stands, in one sentence, with the time to its next change."""
    what = ngettext("{count} deal at {level}", "{count} deals at {level}", count).format(
        count=count, level=level_name
    )
    if state == ContestState.COMING:
        soon = time_left((opens - now).total_seconds())
        return _("Opens {opens} (in {soon}), until {closes}: {what}.").format(
            opens=local_time(opens), soon=soon, closes=local_time(closes), what=what
        )
    if state == ContestState.OPEN:
        left = time_left((closes - now).total_seconds())
        return _("Open until {closes} ({left} left): {what}, the same for every caller.").format(
            closes=local_time(closes), left=left, what=what
        )
    assert state == ContestState.CLOSED
    return _("Closed {closes}: {what}. Check any game with its deal, salt and seal.").format(
        closes=local_time(closes), what=what
    )
