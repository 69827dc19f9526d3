"""Every text the door shows, laid out at its screen's width: words are never cut.

The texts are written as paragraphs, one line each; :func:`wrap` breaks them between words at
the width they are drawn in, and :func:`paginate` breaks a long text into pages between its
paragraphs, so that a paragraph (a level's description, say) stays on one page when it can.

>>> wrap("Build all four foundations up in suit from the base rank.", 24)
['Build all four', 'foundations up in suit', 'from the base rank.']
>>> wrap("   Turns 3 cards at a time.", 16)
['   Turns 3 cards', '   at a time.']
>>> wrap("", 10), wrap("a-very-long-word", 6)
([''], ['a-very', '-long-', 'word'])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TypeVar

from door.words import _, ngettext

Row = TypeVar("Row")

# The windows screens are drawn for: a larger one gets a screen of the largest size, drawn in
# its top-left corner; a smaller one is told what it needs (:func:`too_small`).
MIN_WIDTH, MIN_HEIGHT = 40, 20
MAX_WIDTH, MAX_HEIGHT = 132, 60


def fitted(width: int, height: int) -> tuple[int, int] | None:
    """The size screens are drawn in for a window of ``width`` x ``height``; None when it is
    too small for any.

    >>> fitted(80, 24), fitted(200, 70), fitted(40, 20), fitted(39, 50), fitted(100, 19)
    ((80, 24), (132, 60), (40, 20), None, None)
    """
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        return None
    return min(width, MAX_WIDTH), min(height, MAX_HEIGHT)


def too_small(width: int, columns: int | None = None) -> list[str]:
    """What a window too small for the door is told, in lines that fit its ``width`` with
    its last column free (a terminal may wrap after it); given ``columns``, that a game's
    board needs that many.

    >>> too_small(30)
    ['This door needs a window of', 'at least 40 columns and 20', 'rows.']
    >>> too_small(60, 64)
    ['This game needs a window of at least 64 columns.']
    """
    if columns is not None:
        text = _("This game needs a window of at least {columns} columns.").format(columns=columns)
    else:
        text = _("This door needs a window of at least {columns} columns and {rows} rows.")
        text = text.format(columns=MIN_WIDTH, rows=MIN_HEIGHT)
    return wrap(text, max(1, width - 1))


def local_time(moment: datetime) -> str:
    """A time as callers and sysops read it: the door's local date and time to the minute,
    and its zone (whoever reads it may be elsewhere).

    >>> from datetime import UTC
    >>> local_time(datetime(2026, 12, 7, 18, 5, tzinfo=UTC))[:10]
    '2026-12-07'
    """
    return moment.astimezone().strftime("%Y-%m-%d %H:%M %Z").rstrip()


def counted(count: int, thing: str, things: str | None = None) -> str:
    """``count`` of ``thing``, in the singular for one.

    >>> counted(1, "move"), counted(3, "move"), counted(1, "unfinished game")
    ('1 move', '3 moves', '1 unfinished game')
    """
    return f"{count} {thing if count == 1 else things or thing + 's'}"


def time_left(seconds: float) -> str:
    """A stretch of time to come, in its two largest units, as a caller reads it.

    >>> time_left(3 * 86400 + 4 * 3600 + 59), time_left(3700), time_left(59), time_left(0)
    ('3 days 4 hours', '1 hour 1 minute', 'under a minute', 'under a minute')
    """
    minutes = int(seconds // 60)
    if minutes < 1:
        return _("under a minute")
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    units = [
        ngettext("{count} day", "{count} days", days).format(count=days) if days else "",
        ngettext("{count} hour", "{count} hours", hours).format(count=hours) if hours else "",
        ngettext("{count} minute", "{count} minutes", minutes).format(count=minutes)
        if minutes
        else "",
    ]
    first = next(index for index, unit in enumerate(units) if unit)
    return " ".join(unit for unit in units[first : first + 2] if unit)


def heading(cells: Sequence[tuple[str, int, bool]]) -> str:
    """A table's row of column heads: each ``(text, width, right)`` laid out as an f-string
    lays it (``f"{text:>{width}}"`` when ``right``), except that a head longer than its
    column (a language's longer word) takes the room from the blanks before the next head,
    a blank kept between heads, so that the columns after it stay over their values.

    >>> heading([("#", 3, True), ("  ", 2, False), ("Alias", 8, False), ("Score", 6, True)])
    '  #  Alias    Score'
    >>> heading([("#", 3, True), ("  ", 2, False), ("Name", 8, False), ("Punktzahl", 6, True)])
    '  #  Name Punktzahl'
    >>> heading([("Spiele", 6, True), ("Siege", 5, True), ("Quote", 7, True)])
    'Spiele Siege Quote'
    """
    line, over = "", 0  # over: how far the heads so far run past their columns
    for text, width, right in cells:
        cell = text.rjust(width) if right else text.ljust(width)
        if line and text.strip() and not line[-1].isspace() and not cell[0].isspace():
            cell = " " + cell  # a head that fills its column still stands a blank apart
        over += len(cell) - width
        if over and (right or not text.strip()):
            head = cell.lstrip(" ")
            before = line + cell[: len(cell) - len(head)]
            blanks = len(before) - len(before.rstrip(" "))
            given = max(0, min(over, blanks - (1 if before.strip() else 0)))
            line, over = before[: len(before) - given] + head, over - given
        else:
            line += cell
    return line


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between words.

    Leading spaces indent every line of the paragraph, and spaces inside a line are kept (a
    table's columns stay aligned); a break swallows the spaces it falls on. Only a word
    longer than a whole line (nothing the door writes; perhaps a long name) is broken inside.

    >>> wrap("#  Alias    Score", 40), wrap("one  two   three", 9)
    (['#  Alias    Score'], ['one  two', 'three'])
    """
    text = text.rstrip()
    stripped = text.lstrip(" ")
    indent = " " * min(len(text) - len(stripped), max(0, width - 1))
    room = width - len(indent)
    lines: list[str] = []
    line = ""
    for gap, word in re.findall(r"(\s*)(\S+)", stripped):
        while len(word) > room:  # a word wider than the screen: the only cut there is
            if line:
                lines.append(line)
                line, gap = "", ""
            lines.append(word[:room])
            word = word[room:]
        if not line:
            line = word
        elif len(line) + len(gap) + len(word) <= room:
            line += gap + word
        else:
            lines.append(line)
            line = word
    if line or not lines:
        lines.append(line)
    return [indent + line for line in lines]


def paginate(rows: Sequence[Row], page_rows: int, blank: Row) -> list[list[Row]]:
    """``rows`` in pages of at most ``page_rows``, broken at blank rows where possible.

    A paragraph (a run of rows between ``blank`` ones) starts a new page rather than being
    split, unless it is longer than a whole page. No page starts with a blank row.

    >>> paginate(["a", "b", "", "c", "d", "", "e"], 4, "")
    [['a', 'b'], ['c', 'd', '', 'e']]
    >>> paginate(["a", "", "b", "c", "d", "e", "f"], 4, "")
    [['a'], ['b', 'c', 'd', 'e'], ['f']]
    """
    paragraphs: list[list[Row]] = [[]]
    for row in rows:
        if row == blank:
            if paragraphs[-1]:
                paragraphs.append([])
        else:
            paragraphs[-1].append(row)
    pages: list[list[Row]] = [[]]
    for paragraph in (p for p in paragraphs if p):
        page = pages[-1]
        gap = [blank] if page else []
        if page and len(page) + len(gap) + len(paragraph) > page_rows:
            pages.append([])
            page, gap = pages[-1], []
        page.extend(gap)
        for row in paragraph:
            if len(page) == page_rows:
                pages.append([])
                page = pages[-1]
            page.append(row)
    return pages
