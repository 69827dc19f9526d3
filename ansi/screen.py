"""A screen buffer that sends a caller's terminal only the cells that changed.

Draw into a :class:`ScreenBuffer` with :meth:`~ScreenBuffer.put`, then send
:meth:`~ScreenBuffer.render_full` once and :meth:`~ScreenBuffer.render_changes` after each
change. Rows and columns are 1-based, as in ANSI cursor moves.

>>> from ansi.sequences import RED
>>> screen = ScreenBuffer(20, 3)
>>> _ = screen.put(2, 3, "7♥", Style(RED))
>>> screen.set_cursor(3, 1)
>>> screen.render_full()
'\\x1b[?25l\\x1b[0;37;40m\\x1b[2J\\x1b[H\\x1b[2;3H\\x1b[31m7♥\\x1b[3;1H\\x1b[37m\\x1b[?25h'
>>> _ = screen.put(2, 3, "8♠")
>>> screen.render_changes()
'\\x1b[2;3H8♠\\x1b[3;1H'
>>> screen.render_changes()
''
"""

from __future__ import annotations

import copy
import functools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ansi.sequences import (
    BLACK,
    CSI,
    WHITE,
    clear_screen,
    clear_to_end_of_line,
    cursor_back,
    cursor_down,
    cursor_forward,
    cursor_up,
    hide_cursor,
    move,
    sgr,
    show_cursor,
)


@dataclass(frozen=True, slots=True)
class Style:
    """How a cell is coloured: one of the eight ANSI colours each side, and bold (bright).

    >>> Style(), Style(7, 4, True).sgr()
    (Style(fg=7, bg=0, bold=False), '\\x1b[0;1;37;44m')
    """

    fg: int = WHITE
    bg: int = BLACK
    bold: bool = False

    def __post_init__(self) -> None:
        sgr(self.fg, self.bg, self.bold)  # refuses colours out of range

    def sgr(self) -> str:
        """The sequence that sets exactly this style, whatever was set before."""
        return sgr(self.fg, self.bg, self.bold)


DEFAULT_STYLE = Style()

Cell = tuple[str, Style]
"""One character cell: the character shown and its style."""

BLANK: Cell = (" ", DEFAULT_STYLE)

# A space looks the same whatever its foreground: compare spaces by background only.
_SPACES: tuple[Cell, ...] = tuple((" ", Style(WHITE, bg)) for bg in range(8))


def _look(cell: Cell) -> Cell:
    """What a caller sees of ``cell``."""
    return _SPACES[cell[1].bg] if cell[0] == " " else cell


# Cells are shared between buffers: a thousand callers' boards then hold pointers to a few
# hundred cells instead of a tuple per character each, which saves memory and keeps the
# garbage collector's full passes short. Characters from callers' text could be anything,
# so each style keeps only so many.
_SHARED_CELLS: dict[Style, dict[str, Cell]] = {}
_SHARED_PER_STYLE = 2048


@functools.lru_cache(maxsize=4096)
def _text_cells(text: str, style: Style) -> tuple[Cell, ...]:
    """``text`` in ``style`` as the cells it takes, one column each. Boards draw the same
    labels and cards over and over: remembering them saves most of the work of a redraw."""
    return _cells_of(_cell_chars(text), style)


def _cells_of(chars: str, style: Style) -> tuple[Cell, ...]:
    """``chars`` as cells in ``style``, shared ones where possible."""
    known = _SHARED_CELLS.get(style)
    if known is None:
        known = _SHARED_CELLS.setdefault(style, {})
    cells = []
    for char in chars:
        cell = known.get(char)
        if cell is None:
            cell = (char, style)
            if len(known) < _SHARED_PER_STYLE:
                known[char] = cell
        cells.append(cell)
    return tuple(cells)


def _cell_chars(text: str) -> str:
    """``text`` as characters that each take exactly one column.

    Zero-width characters (combining marks left over after NFC, format characters) are
    dropped, and anything else that would not take one column (wide CJK, control characters)
    becomes ``?``, so that what the buffer holds is where the terminal draws it.
    """
    if text.isascii() and text.isprintable():
        return text
    chars = []
    for char in unicodedata.normalize("NFC", text):
        category = unicodedata.category(char)
        if category in ("Mn", "Me", "Cf"):
            continue
        if (
            category[0] == "C"
            or category in ("Mc", "Zl", "Zp")
            or unicodedata.east_asian_width(char) in ("W", "F")
        ):
            chars.append("?")
        else:
            chars.append(char)
    return "".join(chars)


def _style_change(old: Style | None, new: Style) -> str:
    """The shortest sequence that turns style ``old`` (None: unknown) into ``new``."""
    if old is None or (old.bold and not new.bold):
        return new.sgr()  # bold can only be turned off by a reset on ANSI.SYS terminals
    params = []
    if new.bold and not old.bold:
        params.append("1")
    if new.fg != old.fg:
        params.append(f"3{new.fg}")
    if new.bg != old.bg:
        params.append(f"4{new.bg}")
    return f"{CSI}{';'.join(params)}m" if params else ""


def _cheapest_move(from_row: int | None, from_col: int | None, row: int, col: int) -> str:
    """The shortest sequence taking the cursor from where it is (None: unknown) to row, col."""
    best = move(row, col)
    if from_row is None or from_col is None:
        return best
    candidates = []
    if from_row == row:
        if col > from_col:
            candidates.append(cursor_forward(col - from_col))
        elif col < from_col:
            candidates.append(cursor_back(from_col - col))
    elif from_col == col:
        if row > from_row:
            candidates.append(cursor_down(row - from_row))
        else:
            candidates.append(cursor_up(from_row - row))
    return min([best, *candidates], key=len)


class _Pen:
    """The terminal's cursor and colours while one render is written."""

    def __init__(self, width: int, style: Style | None, at: tuple[int, int] | None) -> None:
        self.width = width
        self.style = style
        self.row, self.col = at if at else (None, None)
        self.out: list[str] = []

    def move(self, row: int, col: int) -> None:
        if (row, col) != (self.row, self.col):
            self.out.append(_cheapest_move(self.row, self.col, row, col))
            self.row, self.col = row, col

    def set_style(self, style: Style) -> None:
        if style != self.style:
            self.out.append(_style_change(self.style, style))
            self.style = style

    def write(self, cell: Cell) -> None:
        """Draw ``cell`` where the cursor is and step right."""
        char, style = cell
        # A space needs only the right background.
        if not (char == " " and self.style is not None and self.style.bg == style.bg):
            self.set_style(style)
        self.out.append(char)
        if self.col is not None:
            self.col += 1
            if self.col > self.width:
                # Wrapped (ANSI.SYS) or waiting to wrap (VT): either way, move absolutely next.
                self.row = self.col = None

    def gap_cost(self, cells: Sequence[Cell], limit: int) -> int:
        """Bytes to redraw ``cells`` from here instead of jumping over them; stops past limit."""
        style, cost = self.style, 0
        for char, cell_style in cells:
            if not (char == " " and style is not None and style.bg == cell_style.bg):
                cost += len(_style_change(style, cell_style))
                style = cell_style
            cost += len(char.encode())
            if cost > limit:
                break
        return cost


class ScreenBuffer:
    """A ``width`` x ``height`` grid of cells, and what the caller's terminal shows of it.

    Rows and columns are 1-based. Text that runs off the screen is clipped. The bottom-right
    cell (row ``height``, column ``width``) is never written: on SyncTERM and other ANSI-BBS
    terminals drawing there scrolls the whole screen up a line, so the buffer keeps it blank.

    Between renders the buffer assumes that the cursor may have moved (the door echoes what
    the caller types at the prompt) but that the colours are still those the last render left,
    the cursor's style. Anything else written to the terminal should be followed by
    :meth:`invalidate`.
    """

    def __init__(self, width: int = 80, height: int = 24) -> None:
        if width < 1 or height < 1:
            raise ValueError(f"a screen needs at least one cell, not {width}x{height}")
        self.width = width
        self.height = height
        # Rows are tuples, so that a row the terminal shows as it is held is the same object
        # in both grids (and blank rows are one object): a board costs about one grid.
        self._blank_row: tuple[Cell, ...] = (BLANK,) * width
        self._cells: list[tuple[Cell, ...]] = [self._blank_row] * height
        # The cells the terminal shows; None: its contents are unknown.
        self._shown: list[tuple[Cell, ...]] | None = None
        self._stale_rows: set[int] = set()
        self._cursor = (1, 1)
        self._cursor_visible = True
        self._cursor_style = DEFAULT_STYLE
        self._shown_cursor: tuple[tuple[int, int], bool, Style] | None = None

    # Drawing into the buffer.

    def put(self, row: int, col: int, text: str, style: Style = DEFAULT_STYLE) -> int:
        """Write ``text`` from ``row``, ``col`` on; return the column just after it.

        Each character takes one cell; one that would not take exactly one column on a
        terminal (a wide or zero-width or control character) is shown as ``?`` or dropped.

        >>> screen = ScreenBuffer(8, 2)
        >>> screen.put(1, 6, "Canfield")
        14
        >>> screen.text_at(1)
        '     Can'
        """
        cells = _text_cells(text, style)
        end = col + len(cells)
        if not 1 <= row <= self.height:
            return end
        first = max(col, 1)
        last = min(end - 1, self.width - 1 if row == self.height else self.width)
        if first <= last:
            line = self._cells[row - 1]
            if first != col or last != end - 1:
                cells = cells[first - col : last - col + 1]
            self._cells[row - 1] = line[: first - 1] + cells + line[last:]
        return end

    def fill(
        self,
        row: int,
        col: int,
        rows: int,
        cols: int,
        char: str = " ",
        style: Style = DEFAULT_STYLE,
    ) -> None:
        """Fill a ``rows`` x ``cols`` rectangle whose top-left cell is ``row``, ``col``.

        >>> screen = ScreenBuffer(6, 3)
        >>> screen.fill(1, 2, 2, 3, "░")
        >>> screen.plain_lines()
        [' ░░░', ' ░░░']
        """
        for line in range(row, row + rows):
            self.put(line, col, char * cols, style)

    def clear(self) -> None:
        """Blank every cell (the terminal follows at the next render)."""
        self._cells = [self._blank_row] * self.height

    def set_cursor(
        self, row: int, col: int, *, visible: bool = True, style: Style = DEFAULT_STYLE
    ) -> None:
        """Where every render leaves the cursor (say, on the command prompt), and how.

        ``style`` is the colour the caller's typing is echoed in there.
        """
        if not (1 <= row <= self.height and 1 <= col <= self.width):
            raise ValueError(f"cursor {row}, {col} is off a {self.width}x{self.height} screen")
        self._cursor = (row, col)
        self._cursor_visible = visible
        self._cursor_style = style

    @property
    def cursor(self) -> tuple[int, int]:
        return self._cursor

    # Reading the buffer.

    def cell_at(self, row: int, col: int) -> Cell:
        """The character and style at ``row``, ``col``."""
        return self._cells[row - 1][col - 1]

    def text_at(self, row: int) -> str:
        """The characters of a whole row, ``width`` of them."""
        return "".join(char for char, _ in self._cells[row - 1])

    def plain_lines(self) -> list[str]:
        """The screen as plain text: trailing spaces and trailing empty lines left out.

        >>> screen = ScreenBuffer(10, 4)
        >>> _ = screen.put(2, 1, "Stock  7♥")
        >>> screen.plain_lines()
        ['', 'Stock  7♥']
        """
        lines = [self.text_at(row).rstrip(" ") for row in range(1, self.height + 1)]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    # Rendering.

    def invalidate(self, row: int | None = None) -> None:
        """Forget what the terminal shows: the next :meth:`render_changes` redraws it all.

        With ``row``, only that row is forgotten (say, after the caller typed over it); it is
        cleared and redrawn.
        """
        if row is None:
            self._shown = None
        elif 1 <= row <= self.height:
            self._stale_rows.add(row)
        else:
            raise ValueError(f"row {row} is off a screen of {self.height} rows")

    def render_full(self) -> str:
        """Clear the terminal and draw the whole buffer on it."""
        pen = _Pen(self.width, DEFAULT_STYLE, (1, 1))
        pen.out += [hide_cursor(), DEFAULT_STYLE.sgr(), clear_screen()]
        self._shown = [self._blank_row] * self.height
        self._stale_rows.clear()
        self._draw_changes(pen)
        self._finish(pen, cursor_hidden=True)
        return "".join(pen.out)

    def render_copy(self) -> str:
        """The whole buffer drawn on a cleared terminal, as :meth:`render_full` draws it, for
        a second terminal (someone watching): what the first is believed to show is kept.

        >>> screen = ScreenBuffer(8, 2)
        >>> _ = screen.put(1, 1, "Hi")
        >>> screen.render_copy() == screen.render_full()
        True
        >>> screen.render_changes(), "Hi" in screen.render_copy()
        ('', True)
        """
        twin = copy.copy(self)
        twin._stale_rows = set()
        return twin.render_full()

    def render_changes(self) -> str:
        """Draw only what changed since the last render; '' when nothing did."""
        if self._shown is None:
            return self.render_full()
        left_style = self._shown_cursor[2] if self._shown_cursor else None
        pen = _Pen(self.width, left_style, None)
        for row in sorted(self._stale_rows):
            self._clear_row(pen, row)
        self._stale_rows.clear()
        self._draw_changes(pen)
        if not pen.out and self._shown_cursor == self._cursor_spec():
            return ""
        self._finish(pen, cursor_hidden=not (self._shown_cursor and self._shown_cursor[1]))
        return "".join(pen.out)

    def _cursor_spec(self) -> tuple[tuple[int, int], bool, Style]:
        return self._cursor, self._cursor_visible, self._cursor_style

    def _clear_row(self, pen: _Pen, row: int) -> None:
        assert self._shown is not None
        pen.move(row, 1)
        if pen.style is None or pen.style.bg != BLANK[1].bg:
            pen.set_style(DEFAULT_STYLE)  # erasing paints the current background
        pen.out.append(clear_to_end_of_line())
        self._shown[row - 1] = self._blank_row

    def _draw_changes(self, pen: _Pen) -> None:
        assert self._shown is not None
        for index, line in enumerate(self._cells):
            shown = self._shown[index]
            if line is shown or line == shown:
                continue
            looks = [_look(cell) for cell in line]
            was = [_look(cell) for cell in shown]
            if looks != was:
                self._draw_row(pen, index + 1, line, was, looks)
            self._shown[index] = line

    def _draw_row(
        self, pen: _Pen, row: int, line: tuple[Cell, ...], shown: list[Cell], looks: list[Cell]
    ) -> None:
        """Draw the cells of one row that differ from what is shown, joining near runs."""
        for index, (look, was) in enumerate(zip(looks, shown, strict=True)):
            col = index + 1
            if look == was or (row == self.height and col == self.width):
                continue
            if pen.row == row and pen.col is not None and pen.col < col:
                jump = len(_cheapest_move(pen.row, pen.col, row, col))
                gap = line[pen.col - 1 : index]
                if pen.gap_cost(gap, jump) <= jump:
                    for cell in gap:
                        pen.write(cell)
            pen.move(row, col)
            pen.write(line[index])

    def _finish(self, pen: _Pen, *, cursor_hidden: bool) -> None:
        """Leave the cursor where, how and in the colours the door asked for."""
        pen.move(*self._cursor)
        pen.set_style(self._cursor_style)
        if self._cursor_visible and cursor_hidden:
            pen.out.append(show_cursor())
        elif not self._cursor_visible and not cursor_hidden:
            pen.out.append(hide_cursor())
        self._shown_cursor = self._cursor_spec()
