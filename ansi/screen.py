"""A screen buffer that sends a caller's terminal only the cells that changed.

Draw into a :class:`ScreenBuffer` with :meth:`~ScreenBuffer.put`, then send
:meth:`~ScreenBuffer.render_full` once and :meth:`~ScreenBuffer.render_changes` after each
change. Rows and columns are 1-based, as in ANSI cursor moves.

>>> from ansi.sequences import RED
>>> screen = ScreenBuffer(20, 3)
>>> _ = screen.put(2, 3, "7♥", Style(RED))
>>> screen.set_cursor(3, 1)
>>> screen.render_full()
'\\x1b[?25l\\x1b[0;37;40m\\x1b[2J\\x1b[H\\r\\n  \\x1b[31m7♥\\r\\n\\x1b[37m\\x1b[?25h'
>>> _ = screen.put(2, 3, "8♠")
>>> screen.render_changes()
'\\x1b[2;3H8♠\\r\\n'
>>> screen.render_changes()
''
"""

from __future__ import annotations

import copy
import functools
import operator
import sys
import unicodedata
from collections.abc import Iterable
from itertools import compress, count
from typing import Final, NamedTuple

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


class _StyleFields(NamedTuple):
    fg: int = WHITE
    bg: int = BLACK
    bold: bool = False


class Style(_StyleFields):
    """How a cell is coloured: one of the eight ANSI colours each side, and bold (bright).

    A named tuple, so that the buffer can hold it as the plain tuple of its three numbers
    (:data:`Colours`), compared and hashed in C.

    >>> Style(), Style(7, 4, True).sgr()
    (Style(fg=7, bg=0, bold=False), '\\x1b[0;1;37;44m')
    >>> Style(9)
    Traceback (most recent call last):
    ...
    ValueError: colours are 0 (black) to 7 (white), not 9
    """

    __slots__ = ()

    def __new__(cls, fg: int = WHITE, bg: int = BLACK, bold: bool = False) -> Style:
        sgr(fg, bg, bold)  # refuses colours out of range
        return super().__new__(cls, fg, bg, bool(bold))

    def sgr(self) -> str:
        """The sequence that sets exactly this style, whatever was set before."""
        return sgr(self.fg, self.bg, self.bold)


DEFAULT_STYLE = Style()

Colours = tuple[int, int, bool]
"""A style as the renderer reads it: a plain tuple of foreground, background and bold."""
_FG: Final = 0
_BG: Final = 1
_BOLD: Final = 2

Cell = tuple[str, Colours]
"""One character cell: the character shown and its colours."""

Row = str
"""A row as the buffer holds it: one string, each cell's character followed by a character
whose code names its colours (:func:`_code`). It takes half the memory of a tuple of 80
cells or less, is no work for the garbage collector, is written by slicing and compared in C
when a board is drawn again alike; cells are made only for those a render draws. A change
must keep a row a ``str`` (the collector then never looks at it) and its packing lossless for
every character and all 128 colours: tests/test_ansi_screen.py checks both."""

BLANK: Cell = (" ", (DEFAULT_STYLE.fg, DEFAULT_STYLE.bg, DEFAULT_STYLE.bold))

_BG_SHIFT = 3
_BG_BITS = 7 << _BG_SHIFT  # of a colour code's number


def _code(colours: Colours) -> str:
    """The character that stands for ``colours`` in a :data:`Row`."""
    return chr(colours[_FG] | colours[_BG] << _BG_SHIFT | bool(colours[_BOLD]) << 6)


_COLOURS_OF: dict[str, Colours] = {
    _code(colours): colours
    for colours in ((fg, bg, bold) for bold in (False, True) for bg in range(8) for fg in range(8))
}
"""The colours each code in a :data:`Row` stands for."""

# A space looks the same whatever its foreground: compare spaces by background only.
_SPACES: tuple[Cell, ...] = tuple((" ", (WHITE, bg, False)) for bg in range(8))


def _look(cell: Cell) -> Cell:
    """What a caller sees of ``cell``."""
    return _SPACES[cell[1][_BG]] if cell[0] == " " else cell


def _as_row(chars: str, colours: Colours) -> Row:
    """``chars`` in ``colours`` as the part of a :data:`Row` they take."""
    code = _code(colours)
    return code.join(chars) + code if chars else ""


def _cell(row: Row, col: int) -> Cell:
    """The cell of ``row`` at column ``col``: a render reads only the cells it may draw.

    >>> _cell(_as_row("abc", (1, 0, False)), 2)
    ('b', (1, 0, False))
    """
    return row[2 * col - 2], _COLOURS_OF[row[2 * col - 1]]


@functools.cache
def _blank_row(width: int) -> Row:
    """A row of ``width`` blank cells, one copy for every screen."""
    return _as_row(BLANK[0] * width, BLANK[1])


# Most rows of a board are drawn alike on many callers' screens (the title, the keys' panel,
# rows the columns don't reach), so a row is looked up here once it is drawn and a thousand
# boards hold one copy. Rows no screen holds any more are let go when the table has grown by
# half since the last sweep. The sweep counts each row's references (sys.getrefcount): a
# change must not keep the table's rows anywhere but on screens (a list of every row drawn,
# say) nor have the sweep hold more references than _HELD_BY_THE_TABLE_ALONE counts, or no
# row is ever let go; a Python that counts references otherwise breaks it too.
# tests/test_ansi_screen.py checks that a sweep lets go of a row nobody holds and keeps one
# a screen holds.
_SHARED_ROWS: dict[Row, Row] = {}
_SWEEP_AT_LEAST = 4096
_sweep_at = _SWEEP_AT_LEAST


def shared_row(row: Row) -> Row:
    """The one copy of ``row`` every screen holds.

    >>> first, second = _as_row("a row", (7, 0, False)), _as_row("a row", (7, 0, False))
    >>> first is second, shared_row(first) is shared_row(second) is first
    (False, True)
    """
    global _sweep_at
    known = _SHARED_ROWS.get(row)
    if known is not None:
        return known
    if len(_SHARED_ROWS) >= _sweep_at:
        _let_go_of_unused_rows()
        _sweep_at = max(_SWEEP_AT_LEAST, len(_SHARED_ROWS) * 3 // 2)
    _SHARED_ROWS[row] = row
    return row


# References to a row held by nobody but the table: its key and value, the loop's variable,
# and getrefcount's own argument.
_HELD_BY_THE_TABLE_ALONE = 4


def _let_go_of_unused_rows() -> None:
    unused = [row for row in _SHARED_ROWS if sys.getrefcount(row) <= _HELD_BY_THE_TABLE_ALONE]
    for row in unused:
        del _SHARED_ROWS[row]


def cells(text: str, style: Style = DEFAULT_STYLE) -> Row:
    """``text`` in ``style`` as a screen holds it, a column a character (as
    :meth:`ScreenBuffer.put` writes it): made once and put many times
    (:meth:`ScreenBuffer.put_cells`), or joined with others into a longer stretch, as a
    board's cards are.

    >>> from ansi.sequences import RED
    >>> screen = ScreenBuffer(8, 1)
    >>> screen.put_cells(1, 2, cells("7♥", Style(RED)) + cells(" ok"))
    7
    >>> screen.text_at(1), screen.cell_at(1, 3)
    (' 7♥ ok  ', ('♥', Style(fg=1, bg=0, bold=False)))
    """
    return _as_row(_cell_chars(text), style)


@functools.lru_cache(maxsize=4096)
def _text_row(text: str, style: Style) -> Row:
    """``text`` in ``style`` as the part of a row it takes, a column a character. Boards draw
    the same labels and cards over and over: remembered."""
    return cells(text, style)


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


@functools.lru_cache(maxsize=1024)
def _style_change(old: Colours | None, new: Colours) -> str:
    """The shortest sequence that turns style ``old`` (None: unknown) into ``new``."""
    if old is None or (old[_BOLD] and not new[_BOLD]):
        return sgr(*new)  # bold can only be turned off by a reset on ANSI.SYS terminals
    params = []
    if new[_BOLD] and not old[_BOLD]:
        params.append("1")
    if new[_FG] != old[_FG]:
        params.append(f"3{new[_FG]}")
    if new[_BG] != old[_BG]:
        params.append(f"4{new[_BG]}")
    return f"{CSI}{';'.join(params)}m" if params else ""


def _style_for(current: Colours | None, cell: Cell, following: Cell | None = None) -> Colours:
    """The style to draw ``cell`` in after ``current``: a space needs only its background,
    and takes the style of the character drawn just after it when that one has the same."""
    char, style = cell
    if char != " ":
        return style
    if current is not None and current[_BG] == style[_BG]:
        return current
    if following is not None and following[0] != " " and following[1][_BG] == style[_BG]:
        return following[1]
    if current is None:
        return style
    return (current[_FG], style[_BG], current[_BOLD])


def _horizontal(from_col: int, col: int) -> str:
    """The shortest move along a row; backspaces for a step or two to the left."""
    if col > from_col:
        return cursor_forward(col - from_col)
    if col < from_col:
        steps = from_col - col
        return "\b" * steps if steps < 4 else cursor_back(steps)
    return ""


@functools.lru_cache(maxsize=8192)
def _cheapest_move(from_row: int | None, from_col: int | None, row: int, col: int) -> str:
    """The shortest sequence taking the cursor from where it is (None: unknown) to row, col.

    Besides the absolute move: CR, CR LF (a line down, never from the bottom row, so it cannot
    scroll), backspaces and the relative moves, whichever is shortest.
    """
    if (from_row, from_col) == (row, col):
        return ""
    best = move(row, col) if col > 1 else f"{CSI}{row}H"  # a column of 1 can go unsaid
    if from_row is None or from_col is None:
        return best
    to_column = "" if col == 1 else cursor_forward(col - 1)
    if from_row == row:
        candidates = [_horizontal(from_col, col), "\r" + to_column]
    else:
        vertical = cursor_down(row - from_row) if row > from_row else cursor_up(from_row - row)
        candidates = [vertical + _horizontal(from_col, col), vertical + "\r" + to_column]
        if row == from_row + 1:
            candidates.append("\r\n" + to_column)
    return min([best, *candidates], key=len)


# Pieces of rows drawn after a style, remembered: callers' boards change in the same few
# pieces (a card, a count, a sidebar value), so a render mostly looks them up rather than
# working out each cell's colours again.
@functools.lru_cache(maxsize=1024)
def _drawn(style: Colours | None, cells: Row, following: Row) -> tuple[str, Colours | None]:
    """What drawing ``cells`` (a piece of a row) sends after ``style``, and the style it
    leaves; ``following``: the cell drawn just after them ("": none).

    >>> red, white = (1, 0, False), (7, 0, False)
    >>> _drawn(white, _as_row("7", red) + _as_row(" ", white), "")
    ('\\x1b[31m7 ', (1, 0, False))
    """
    out: list[str] = []
    for at in range(0, len(cells), 2):
        cell = (cells[at], _COLOURS_OF[cells[at + 1]])
        after = cells[at + 2 : at + 4] or following
        wanted = _style_for(style, cell, (after[0], _COLOURS_OF[after[1]]) if after else None)
        if wanted != style:
            out.append(_style_change(style, wanted))
            style = wanted
        out.append(cell[0])
    return "".join(out), style


class _Pen:
    """The terminal's cursor and colours while one render is written."""

    def __init__(self, width: int, style: Colours | None, at: tuple[int, int] | None) -> None:
        self.width = width
        self.style = style
        self.row: int | None
        self.col: int | None
        self.row, self.col = at if at else (None, None)
        self.out: list[str] = []

    def move(self, row: int, col: int) -> None:
        if (row, col) != (self.row, self.col):
            self.out.append(_cheapest_move(self.row, self.col, row, col))
            self.row, self.col = row, col

    def set_style(self, style: Colours) -> None:
        if style != self.style:
            self.out.append(_style_change(self.style, style))
            self.style = style

    def write(self, cells: Row, following: Row = "") -> None:
        """Draw ``cells`` (a piece of a row) where the cursor is and step right past them;
        ``following``, the cell drawn just after them, if any."""
        text, self.style = _drawn(self.style, cells, following)
        self.out.append(text)
        if self.col is not None:
            self.col += len(cells) // 2
            if self.col > self.width:
                # Wrapped (ANSI.SYS) or waiting to wrap (VT): either way, move absolutely next.
                self.row = self.col = None

    def clear_line(self) -> None:
        """Blank from the cursor to the end of its row, in the blank cells' background."""
        if self.style is None or self.style[_BG] != BLANK[1][_BG]:
            self.set_style(_style_for(self.style, BLANK))  # erasing paints the background
        self.out.append(clear_to_end_of_line())

    def cost(self, cells: Row, following: Row = "") -> int:
        """Bytes to draw ``cells`` (a piece of a row) from here in one go, as :meth:`write`
        would."""
        return len(_drawn(self.style, cells, following)[0].encode())


class _Run(NamedTuple):
    """Cells of one row to draw left to right in one visit: ``cols`` (1-based), after
    blanking the row from ``clear_from`` on when that is not None."""

    row: int
    cols: tuple[int, ...]
    clear_from: int | None


def _changed_cols(line: Row, shown: Row, last_col: int) -> list[int]:
    """The columns, up to ``last_col``, where ``line`` looks other than ``shown``: a blank
    differs from another only in its background.

    The differing cells are found in C: the two rows as integers (four bytes a character,
    two characters a cell), XORed, then read back as one 8-byte number a cell, nonzero
    where the cell differs. Only those cells are looked at one by one: a play changes a
    few cells of a row, often far apart (a pile and a sidebar value).

    >>> line = _as_row("ab cd", (7, 0, False))
    >>> _changed_cols(line, _as_row("ab xd", (7, 0, False)), 5), _changed_cols(line, line, 5)
    ([4], [])
    """
    now = line.encode("utf-32-le")
    difference = int.from_bytes(now, "little") ^ int.from_bytes(shown.encode("utf-32-le"), "little")
    if not difference:
        return []
    cells = memoryview(difference.to_bytes(len(now), "little")).cast("Q")
    return [
        col
        for col in compress(count(1), cells[:last_col])
        if line[2 * col - 2] != " "
        or shown[2 * col - 2] != " "
        or (ord(line[2 * col - 1]) ^ ord(shown[2 * col - 1])) & _BG_BITS
    ]


# Changed blanks at the end of a row cleared rather than written, when there are this many.
_CLEAR_FOR_AT_LEAST = 4
_BLANK_BG = ord(_code(BLANK[1])) & _BG_BITS


def _blank_tail(line: Row, changed: list[int]) -> int | None:
    """Where to clear the rest of the row instead of writing blanks over it: the first
    changed cell of the blank end of ``line``, when blanking by hand would cost more."""
    if len(changed) < _CLEAR_FOR_AT_LEAST:
        return None
    col = len(line) // 2
    while col > 0 and line[2 * col - 2] == " " and ord(line[2 * col - 1]) & _BG_BITS == _BLANK_BG:
        col -= 1
    tail = [changed_col for changed_col in changed if changed_col > col]
    if len(tail) < _CLEAR_FOR_AT_LEAST:
        return None
    return tail[0]


class ScreenBuffer:
    """A ``width`` x ``height`` grid of cells, and what the caller's terminal shows of it.

    Rows and columns are 1-based. Text that runs off the screen is clipped. The bottom-right
    cell (row ``height``, column ``width``) is never written: on SyncTERM and other ANSI-BBS
    terminals drawing there scrolls the whole screen up a line, so the buffer keeps it blank.

    Between renders the buffer assumes that the cursor may have moved (the door echoes what
    the caller types at the prompt) but that the colours are still those the last render left,
    the cursor's style. Anything else written to the terminal should be followed by
    :meth:`invalidate`; :meth:`cursor_is_at` says where the cursor went when that is known,
    which lets the next render reach its first change with a shorter move.
    """

    def __init__(self, width: int = 80, height: int = 24) -> None:
        if width < 1 or height < 1:
            raise ValueError(f"a screen needs at least one cell, not {width}x{height}")
        self.width = width
        self.height = height
        # A row the terminal shows as it is held is the same object in both grids (and blank
        # rows are one object for every screen): a board costs about one grid.
        self._blank_row = _blank_row(width)
        self._cells: list[Row] = [self._blank_row] * height
        # The rows the terminal shows; None: its contents are unknown.
        self._shown: list[Row] | None = None
        self._stale: dict[int, int] = {}  # row: the first column of it the terminal lost
        self._at: tuple[int, int] | None = None  # the terminal's cursor, when known
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
        return self.put_cells(row, col, _text_row(text, style))

    def put_cells(self, row: int, col: int, cells: Row) -> int:
        """Write ``cells`` (made by :func:`cells`) from ``row``, ``col`` on, clipped; return
        the column just after them. Cells already as they are leave the row's copy alone."""
        end = col + len(cells) // 2
        if not 1 <= row <= self.height:
            return end
        first = max(col, 1)
        last = min(end - 1, self.width - 1 if row == self.height else self.width)
        if first <= last:
            if first != col or last != end - 1:
                cells = cells[2 * (first - col) : 2 * (last - col + 1)]
            line = self._cells[row - 1]
            if not line.startswith(cells, 2 * first - 2):  # a board redrawn is mostly alike
                self._cells[row - 1] = line[: 2 * first - 2] + cells + line[2 * last :]
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

    def clear(self, like: ScreenBuffer | None = None) -> None:
        """Blank every cell, or give every cell what ``like`` (a screen of the same size)
        holds: what a screen shows every time, drawn once. The terminal follows at the next
        render.

        >>> frame, screen = ScreenBuffer(6, 2), ScreenBuffer(6, 2)
        >>> _ = frame.put(1, 1, "Score"), screen.put(2, 1, "3")
        >>> screen.clear(frame)
        >>> screen.plain_lines()
        ['Score']
        """
        # The rows change in place: a list made for every board would be one more object
        # for the garbage collector to look at, for every caller.
        if like is None:
            self._cells[:] = [self._blank_row] * self.height
        else:
            self._cells[:] = self._rows_of(like)

    def _rows_of(self, like: ScreenBuffer) -> list[Row]:
        """The rows of ``like``, a screen of this one's size (ValueError for another)."""
        if (like.width, like.height) != (self.width, self.height):
            raise ValueError(f"a {like.width}x{like.height} screen can't fill this one")
        return like._cells

    def copy_area(self, like: ScreenBuffer, rows: range, first_col: int, last_col: int) -> None:
        """Give the cells of ``rows`` from column ``first_col`` to ``last_col`` what ``like``
        (a screen of the same size) holds there: a part of a screen drawn again from its
        frame.

        >>> frame, screen = ScreenBuffer(6, 3), ScreenBuffer(6, 3)
        >>> _ = frame.put(1, 1, "Score"), screen.put(1, 1, "abcdef"), screen.put(2, 1, "ghijkl")
        >>> screen.copy_area(frame, range(1, 3), 2, 4)
        >>> screen.plain_lines()
        ['acoref', 'g   kl']
        """
        given = self._rows_of(like)
        if (first_col, last_col, rows.step) == (1, self.width, 1):
            whole = slice(rows.start - 1, rows.stop - 1)  # whole rows: the very rows of ``like``
            self._cells[whole] = given[whole]
            return
        for row in rows:
            cells = given[row - 1][2 * first_col - 2 : 2 * last_col]
            self.put_cells(row, first_col, cells)

    def share_rows(self, rows: range) -> None:
        """Hold each of ``rows`` as the one copy every screen holds (:func:`shared_row`): a
        screen whose rows another is given (:meth:`clear`) then keeps no second copy of a
        row it drew again alike."""
        cells = self._cells
        for row in rows:
            cells[row - 1] = shared_row(cells[row - 1])

    def set_cursor(
        self, row: int, col: int, *, visible: bool = True, style: Style = DEFAULT_STYLE
    ) -> None:
        """Where every render leaves the cursor (say, on the command prompt), and how.

        ``style`` is the colour the caller's typing is echoed in there.
        """
        if not (1 <= row <= self.height and 1 <= col <= self.width):
            raise ValueError(f"cursor {row}, {col} is off a {self.width}x{self.height} screen")
        if (row, col) != self._cursor:  # kept otherwise, as the rows are: see clear()
            self._cursor = (row, col)
        self._cursor_visible = visible
        self._cursor_style = style

    @property
    def cursor(self) -> tuple[int, int]:
        return self._cursor

    # Reading the buffer.

    def cell_at(self, row: int, col: int) -> tuple[str, Style]:
        """The character and style at ``row``, ``col``."""
        line = self._cells[row - 1]
        return line[2 * col - 2], Style(*_COLOURS_OF[line[2 * col - 1]])

    def text_at(self, row: int) -> str:
        """The characters of a whole row, ``width`` of them."""
        return self._cells[row - 1][0::2]

    def row_cells(self, row: int) -> Row:
        """The cells of a whole row, as :meth:`put_cells` takes them (a screen drawn into
        by one reader and shown on another).

        >>> screen = ScreenBuffer(4, 1)
        >>> _ = screen.put(1, 1, "ab")
        >>> ScreenBuffer(4, 1).put_cells(1, 1, screen.row_cells(1))
        5
        """
        return self._cells[row - 1]

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

    def invalidate(self, row: int | None = None, col: int = 1) -> None:
        """Forget what the terminal shows: the next :meth:`render_changes` redraws it all.

        With ``row``, only that row is forgotten from column ``col`` on (say, after the caller
        typed over it); that part is cleared and redrawn.
        """
        if row is None:
            self._shown = None
        elif 1 <= row <= self.height and 1 <= col <= self.width:
            self._stale[row] = min(col, self._stale.get(row, col))
        else:
            raise ValueError(f"{row}, {col} is off a {self.width}x{self.height} screen")

    def cursor_is_at(self, row: int, col: int) -> None:
        """The terminal's cursor is at ``row``, ``col`` now, in the colours the last render
        left (say, after the caller's Enter was echoed as CR LF). The next render starts
        from there; without this it assumes nothing about where the cursor is."""
        if not (1 <= row <= self.height and 1 <= col <= self.width):
            raise ValueError(f"cursor {row}, {col} is off a {self.width}x{self.height} screen")
        self._at = (row, col)

    def render_full(self) -> str:
        """Clear the terminal and draw the whole buffer on it."""
        pen = _Pen(self.width, DEFAULT_STYLE, (1, 1))
        pen.out += [hide_cursor(), DEFAULT_STYLE.sgr(), clear_screen()]
        self._shown = [self._blank_row] * self.height
        self._stale.clear()
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
        twin._stale, twin._at = {}, None
        return twin.render_full()

    def render_rows(self, rows: range) -> str:
        """``rows`` drawn again whole over whatever the terminal shows there, from wherever
        its cursor is and in whatever colours, then the cursor left where, how and in the
        colours the door asked: to put a row back (a prompt) after something else was
        written on the terminal (a notice). What the terminal is believed to show is kept.

        >>> screen = ScreenBuffer(20, 3)
        >>> _ = screen.put(3, 2, "Name: ")
        >>> screen.set_cursor(3, 8)
        >>> _ = screen.render_full()
        >>> screen.render_rows(range(3, 4))
        '\\x1b[3H\\x1b[0;37;40m\\x1b[K Name:\\x1b[C'
        >>> screen.render_changes()
        ''
        """
        twin = copy.copy(self)
        twin._shown, twin._cells = list(self._cells), list(self._cells)
        twin._stale, twin._at = dict.fromkeys(rows, 1), None
        pen = _Pen(self.width, None, None)
        clear = twin._draw_changes(pen)
        shown_cursor = self._shown_cursor
        twin._finish(pen, cursor_hidden=not (shown_cursor and shown_cursor[1]), clear=clear)
        return "".join(pen.out)

    def render_changes(self) -> str:
        """Draw only what changed since the last render; '' when nothing did."""
        if self._shown is None:
            return self.render_full()
        left_style = self._shown_cursor[2] if self._shown_cursor else None
        pen = _Pen(self.width, left_style, self._at)
        clear = self._draw_changes(pen)
        unmoved = pen.row is None or (pen.row, pen.col) == self._cursor
        if not (pen.out or clear) and unmoved and self._shown_cursor == self._cursor_spec():
            return ""
        hidden = not (self._shown_cursor and self._shown_cursor[1])
        self._finish(pen, cursor_hidden=hidden, clear=clear)
        return "".join(pen.out)

    def _cursor_spec(self) -> tuple[tuple[int, int], bool, Style]:
        return self._cursor, self._cursor_visible, self._cursor_style

    def _draw_changes(self, pen: _Pen) -> bool:
        """Draw every changed cell, row by row from the top.

        Searching for the cheapest order of the changes saved 1.7 bytes a command (57.7
        against 59.4 in benchmarks/bytes.py) for a third of the render's time
        (benchmarks/drawing.py), so the changes are drawn in the order they are found.

        True when what is left is to clear the row from the cursor on: typing at the prompt
        is best cleared once the cursor is back there.
        """
        runs = self._changed_runs()
        clear_at_cursor = False
        for run in runs:
            if (
                (run.row, run.clear_from) == self._cursor
                and not run.cols
                and self._cursor_style.bg == BLANK[1][_BG]
            ):
                clear_at_cursor = True
            else:
                self._draw_run(pen, run, self._cells[run.row - 1])
        return clear_at_cursor

    def _changed_runs(self) -> list[_Run]:
        """The runs of cells that differ from what the terminal shows, top to bottom; the
        terminal is taken to show them from here on."""
        assert self._shown is not None
        runs: list[_Run] = []
        stale, self._stale = self._stale, {}
        # Most rows are as shown, or drawn again alike (a board is redrawn whole for each
        # play): the rows that differ are found in C.
        indexes: Iterable[int] = compress(
            range(self.height), map(operator.ne, self._cells, self._shown)
        )
        if stale:
            indexes = sorted({*indexes, *(row - 1 for row in stale)})
        last_col = self.width
        for index in indexes:
            row = index + 1
            shown = self._shown[index]
            clear_from = stale.get(row)
            line = self._shown[index] = shared_row(self._cells[index])
            if clear_from is not None:
                shown = shown[: 2 * clear_from - 2] + self._blank_row[2 * clear_from - 2 :]
            if row == self.height:
                last_col = self.width - 1  # the bottom-right cell is never written
            changed = _changed_cols(line, shown, last_col)
            if clear_from is None:
                clear_from = _blank_tail(line, changed)
            runs += self._row_runs(row, line, changed, clear_from)
        # Every row is now as shown: keep one copy of each, the one the terminal shows.
        self._cells[:] = self._shown
        return runs

    def _row_runs(
        self, row: int, line: Row, changed: list[int], clear_from: int | None
    ) -> list[_Run]:
        """A row's changes as one run (:meth:`_draw_run` jumps or overwrites between
        them), then the clearing of its end, if any."""
        drawn = tuple(col for col in changed if clear_from is None or col < clear_from)
        runs = [_Run(row, drawn, None)] if drawn else []
        if clear_from is not None:
            blank = _look(BLANK)  # what clearing leaves needs no drawing
            cleared = tuple(
                col for col in changed if col >= clear_from and _look(_cell(line, col)) != blank
            )
            runs.append(_Run(row, cleared, clear_from))
        return runs

    def _draw_run(self, pen: _Pen, run: _Run, line: Row) -> None:
        """Draw one run of ``line``, each stretch of adjacent changed cells in one go;
        overwrite the unchanged cells before a stretch when that is shorter than moving over
        them."""
        row = run.row
        if run.clear_from is not None:
            pen.move(row, run.clear_from)
            pen.clear_line()
        cols, index = run.cols, 0
        while index < len(cols):
            first = last = cols[index]
            index += 1
            while index < len(cols) and cols[index] == last + 1:
                last = cols[index]
                index += 1
            start = pen.col
            if pen.row == row and start is not None and start < first:
                # Moving there, then drawing the stretch's first cell, against overwriting.
                following = line[2 * first : 2 * first + 2] if last > first else ""
                jump = len(_cheapest_move(row, start, row, first)) + pen.cost(
                    line[2 * first - 2 : 2 * first], following
                )
                # Every cell written costs a byte at least: a wide gap is always jumped.
                if first - start + 1 <= jump and pen.cost(line[2 * start - 2 : 2 * first]) <= jump:
                    pen.write(line[2 * start - 2 : 2 * first - 2], line[2 * first - 2 : 2 * first])
            elif pen.row is not None and pen.row != row and first > 1:
                # From another row: to the row's start (CR LF, from the row above) and over
                # the cells before the stretch, when that is shorter than moving there.
                following = line[2 * first : 2 * first + 2] if last > first else ""
                jump = len(_cheapest_move(pen.row, pen.col, row, first)) + pen.cost(
                    line[2 * first - 2 : 2 * first], following
                )
                to_start = _cheapest_move(pen.row, pen.col, row, 1)
                if first + len(to_start) < jump and (
                    len(to_start) + pen.cost(line[: 2 * first]) < jump
                ):
                    pen.move(row, 1)
                    pen.write(line[: 2 * first - 2], line[2 * first - 2 : 2 * first])
            pen.move(row, first)
            pen.write(line[2 * first - 2 : 2 * last])

    def _finish(self, pen: _Pen, *, cursor_hidden: bool, clear: bool = False) -> None:
        """Leave the cursor where, how and in the colours the door asked for; ``clear``
        blanks its row from there on."""
        pen.move(*self._cursor)
        pen.set_style(self._cursor_style)
        if clear:
            pen.out.append(clear_to_end_of_line())
        if self._cursor_visible and cursor_hidden:
            pen.out.append(show_cursor())
        elif not self._cursor_visible and not cursor_hidden:
            pen.out.append(hide_cursor())
        spec = self._cursor_spec()
        if self._shown_cursor != spec:
            self._shown_cursor = spec
        self._at = None
