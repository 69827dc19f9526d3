"""ANSI art as the BBS world draws it: CP437 ``.ans`` files, with or without a SAUCE record,
read into a :class:`~ansi.screen.ScreenBuffer`'s cells.

A file is read by a small interpreter of what art uses: text in CP437 (0x01-0x1F are the IBM
PC's glyphs), CR and LF, SGR colours, cursor moves (CUU, CUD, CUF, CUB, CUP), clears (ED, EL)
and saving and restoring the cursor. A line wraps at the art's width (the SAUCE record's, or
80). Everything else a terminal would act on (a query such as ``ESC[6n``, a title set by an
OSC, a DCS string, a mode change, ANSI music) is dropped and named in :attr:`Art.dropped`: the
art is cells, and what reaches a caller is drawn from them, in the caller's own charset.

>>> art = read_art(b"\\x1b[1;33mHi \\x03\\x1b[0m\\r\\n\\x1b[2C\\xdb\\x1b[6n")
>>> art.lines(), art.columns, art.height, art.dropped
(['Hi ♥', '  █'], 4, 2, ('ESC[6n',))
>>> art.cell(1, 1)
('H', Style(fg=3, bg=0, bold=True))

The door's cells hold eight backgrounds: under iCE colours (the SAUCE flag, or ``ice=True``)
blink asks for a bright background, drawn in its dim colour; without it, blink is drawn
steady. Either way the colours of the rest of the cell are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ansi.charset import CP437_GLYPHS
from ansi.screen import Row, ScreenBuffer, Style, cells
from ansi.sequences import BLACK, WHITE

EOF = 0x1A
SAUCE_SIZE = 128
COMMENT_LINE = 64
DEFAULT_WIDTH = 80
# The most rows a file is read into: reading stops past them (no screen takes as many).
MOST_ROWS = 200
# The most sequences named as dropped: a hostile file may hold any number of them.
MOST_DROPPED = 16


@dataclass(frozen=True, slots=True)
class Sauce:
    """What a SAUCE record says of a file: its title, author and group, its width in columns
    (None: not given), whether its blink means bright backgrounds (iCE colours), and the
    lines of its comment block."""

    title: str
    author: str
    group: str
    width: int | None
    ice_colours: bool
    comments: tuple[str, ...] = ()


def _field(data: bytes) -> str:
    return data.decode("cp437").rstrip(" \x00")


def split_sauce(data: bytes) -> tuple[bytes, Sauce | None]:
    """The art's own bytes (its SAUCE record, comment block and everything from the EOF
    byte on left out) and its record, if it has one.

    >>> record = (b"SAUCE00" + b"Title".ljust(35) + b"Me".ljust(20) + b"".ljust(20)
    ...     + b"20260101" + bytes(4) + bytes([1, 1]) + (132).to_bytes(2, "little")
    ...     + bytes(6) + bytes([1, 1]) + bytes(22))
    >>> comment = b"COMNT" + b"Made for the door".ljust(64)
    >>> art, sauce = split_sauce(b"\\xdb\\xdb\\r\\n\\x1a" + comment + record)
    >>> art, sauce.title, sauce.width, sauce.ice_colours, sauce.comments
    (b'\\xdb\\xdb\\r\\n', 'Title', 132, True, ('Made for the door',))
    >>> split_sauce(b"plain\\x1aanything after EOF")
    (b'plain', None)
    """
    sauce = None
    if len(data) >= SAUCE_SIZE and data[-SAUCE_SIZE:].startswith(b"SAUCE"):
        record = data[-SAUCE_SIZE:]
        data = data[:-SAUCE_SIZE]
        data_type, file_type = record[94], record[95]
        width = int.from_bytes(record[96:98], "little")
        character = data_type == 1 and file_type in (0, 1, 2)  # ASCII, ANSi, ANSiMation
        count = record[104]
        comments: tuple[str, ...] = ()
        block = 5 + count * COMMENT_LINE
        if count and len(data) >= block and data[-block:].startswith(b"COMNT"):
            text = data[-block + 5 :]
            comments = tuple(
                _field(text[at : at + COMMENT_LINE]) for at in range(0, len(text), COMMENT_LINE)
            )
            data = data[:-block]
        sauce = Sauce(
            title=_field(record[7:42]),
            author=_field(record[42:62]),
            group=_field(record[62:82]),
            width=width if character and width else None,
            ice_colours=data_type in (1, 5) and bool(record[105] & 1),
            comments=comments,
        )
    end = data.find(bytes([EOF]))
    return (data if end < 0 else data[:end]), sauce


@dataclass(frozen=True, slots=True)
class Art:
    """A piece of art read into cells: ``rows`` (each ``width`` cells, as
    :meth:`ScreenBuffer.put_cells` takes them), ``height`` the rows it takes (up to its last
    row with something to see, at most :data:`MOST_ROWS`), ``columns`` the columns it draws
    in, and the sequences it held that were ``dropped`` (each once, as ``ESC[6n``; the first
    :data:`MOST_DROPPED` of them)."""

    rows: tuple[Row, ...]
    width: int
    height: int
    columns: int
    dropped: tuple[str, ...] = ()
    sauce: Sauce | None = None

    def lines(self) -> list[str]:
        """The art's characters, row by row, without trailing spaces."""
        return [row[0::2].rstrip(" ") for row in self.rows[: self.height]]

    def cell(self, row: int, col: int) -> tuple[str, Style]:
        """The character and style at ``row``, ``col`` (1-based)."""
        screen = ScreenBuffer(self.width, 1)
        screen.put_cells(1, 1, self.rows[row - 1])
        return screen.cell_at(1, col)

    def draw(self, screen: ScreenBuffer, row: int, col: int = 1) -> None:
        """Draw the art with its top-left cell at ``row``, ``col`` of ``screen``; only its
        first :attr:`columns` columns, so that blank cells past them cover nothing."""
        for offset, cells_of_row in enumerate(self.rows[: self.height]):
            screen.put_cells(row + offset, col, cells_of_row[: 2 * self.columns])


# A CSI sequence: parameters, intermediates, a final byte (None: the file ended first).
_CSI = re.compile(rb"\x1b\[([0-?]*)([ -/]*)([@-~])?")
# Strings a terminal reads up to a terminator: OSC, DCS, SOS, PM, APC.
_STRING = re.compile(rb"\x1b[\]PX^_](.*?)(?:\x07|\x1b\\|$)", re.DOTALL)
_OTHER_ESCAPE = re.compile(rb"\x1b[ -/]*[0-~]?")
_MUSIC_END = 0x0E  # ANSI music (ESC[M on SyncTERM) runs up to SO
_TAB = 8


def _shown(sequence: bytes) -> str:
    """A sequence as check-config names it: ESC for the escape, the rest as it is."""
    text = sequence.decode("latin-1").replace("\x1b", "ESC").replace("\x07", " BEL")
    printable = "".join(char if char.isprintable() else f"\\x{ord(char):02x}" for char in text)
    return printable[:40]


class _Pen:
    """The interpreter's cursor and colours over a buffer of the art's width."""

    def __init__(self, width: int, ice: bool) -> None:
        self.width = width
        self.ice = ice
        self.screen = ScreenBuffer(width, MOST_ROWS + 1)  # its last row is never written
        self.row = self.col = 1
        self.wrap_next = False
        self.saved = (1, 1)
        self.fg, self.bg, self.bold, self.inverse = WHITE, BLACK, False, False
        self.height = 0
        self.columns = 0

    def style(self) -> Style:
        fg, bg = (self.bg, self.fg) if self.inverse else (self.fg, self.bg)
        return Style(fg, bg, self.bold)

    def text(self, chars: str) -> None:
        style = self.style()
        for char in chars:
            if self.wrap_next:
                self.row, self.col, self.wrap_next = self.row + 1, 1, False
            if self.row > MOST_ROWS:
                return
            self.screen.put_cells(self.row, self.col, cells(char, style))
            self._touched(self.col, char != " " or style.bg != BLACK)
            if self.col == self.width:
                self.wrap_next = True
            else:
                self.col += 1

    def _touched(self, col: int, visible: bool) -> None:
        """Blank cells on black take no room: art often ends in a few."""
        if visible:
            self.height = max(self.height, self.row)
            self.columns = max(self.columns, col)

    def go(self, row: int, col: int) -> None:
        self.row, self.col, self.wrap_next = max(row, 1), min(max(col, 1), self.width), False

    def clear(self, how: int, whole_screen: bool) -> None:
        style = Style(WHITE, self.style().bg)
        rows = self.screen.height - 1
        if whole_screen and how == 2:
            self.screen.fill(1, 1, rows, self.width, " ", style)
            return
        if how in (0, 1) and self.row <= rows:
            first, last = (self.col, self.width) if how == 0 else (1, self.col)
            self.screen.fill(self.row, first, 1, last - first + 1, " ", style)
        elif how == 2 and self.row <= rows:
            self.screen.fill(self.row, 1, 1, self.width, " ", style)
        if whole_screen and how == 0 and self.row < rows:
            self.screen.fill(self.row + 1, 1, rows - self.row, self.width, " ", style)
        if whole_screen and how == 1 and self.row > 1:
            self.screen.fill(1, 1, min(self.row, rows + 1) - 1, self.width, " ", style)

    def sgr(self, params: list[int]) -> None:
        for param in params or [0]:
            if param == 0:
                self.fg, self.bg, self.bold, self.inverse = WHITE, BLACK, False, False
            elif param == 1:
                self.bold = True
            elif param == 22:
                self.bold = False
            elif param == 7:
                self.inverse = True
            elif param == 27:
                self.inverse = False
            elif 30 <= param <= 37:
                self.fg = param - 30
            elif param == 39:
                self.fg = WHITE
            elif 40 <= param <= 47:
                self.bg = param - 40
            elif param == 49:
                self.bg = BLACK
            elif 90 <= param <= 97:
                self.fg, self.bold = param - 90, True
            elif 100 <= param <= 107:
                self.bg = param - 100  # a bright background, in its dim colour
            # 5 and 6 (blink, or a bright background under iCE) and 25 change nothing the
            # door's cells hold: see the module's note.


def _numbers(params: bytes) -> list[int] | None:
    """The numbers of a CSI's parameters (an empty one is 0), or None for private ones."""
    if params[:1] in (b"?", b"=", b">", b"<"):
        return None
    try:
        return [int(part) if part else 0 for part in params.split(b";")]
    except ValueError:
        return None


def _csi(pen: _Pen, params: bytes, final: str) -> bool:
    """Act on one CSI sequence the art may hold; False for one it may not."""
    numbers = _numbers(params)
    if numbers is None:
        return False
    first = numbers[0] if numbers else 0
    count = max(first, 1)
    if final == "m":
        pen.sgr(numbers if params else [])
    elif final == "A":
        pen.go(pen.row - count, pen.col)
    elif final == "B":
        pen.go(pen.row + count, pen.col)
    elif final == "C":
        pen.go(pen.row, pen.col + count)
    elif final == "D":
        pen.go(pen.row, pen.col - count)
    elif final in "Hf":
        row = numbers[0] if numbers else 1
        col = numbers[1] if len(numbers) > 1 else 1
        pen.go(row or 1, col or 1)
    elif final in "JK" and first in (0, 1, 2):
        pen.clear(first, whole_screen=final == "J")
        if final == "J" and first == 2:
            pen.go(1, 1)  # as ANSI.SYS does
    elif final == "s" and not params:
        pen.saved = (pen.row, pen.col)
    elif final == "u" and not params:
        pen.go(*pen.saved)
    else:
        return False
    return True


def read_art(data: bytes, *, width: int | None = None, ice: bool | None = None) -> Art:
    """Read a file's bytes (SAUCE and all) into cells. ``width`` and ``ice`` stand in for
    the SAUCE record's (or its absence's: 80 columns, blink as blink).

    A cursor move, a clear and a wrap act as on an 80-column ANSI-BBS terminal, within the
    art: a move up stops at its first row, one right at its width.

    >>> art = read_art(b"\\x1b[2J\\x1b[3;5H\\x1b[44m X \\x1b[s\\x1b[1;1HA\\x1b[uB\\x1b]0;t\\x07")
    >>> art.lines(), art.dropped
    (['A', '', '     X B'], ('ESC]0;t BEL',))
    >>> art.cell(3, 5)[1].bg
    4
    >>> read_art(b"abcdefgh", width=4).lines()
    ['abcd', 'efgh']
    """
    data, sauce = split_sauce(data)
    width = width or (sauce.width if sauce and sauce.width else DEFAULT_WIDTH)
    ice = ice if ice is not None else bool(sauce and sauce.ice_colours)
    pen = _Pen(width, ice)
    dropped: dict[str, None] = {}
    at, end = 0, len(data)
    while at < end and pen.row <= MOST_ROWS:
        byte = data[at]
        if byte == 0x1B:
            at = _escape(pen, data, at, dropped)
            continue
        if byte == 0x0D:
            pen.go(pen.row, 1)
        elif byte == 0x0A:
            pen.go(pen.row + 1, 1)
        elif byte == 0x09:
            pen.go(pen.row, (pen.col - 1) // _TAB * _TAB + _TAB + 1)
        elif byte == 0x08:
            pen.go(pen.row, pen.col - 1)
        elif byte in (0x00, 0x07, 0x0B, 0x0C, 0x0E, 0x0F, 0x18):
            pass  # acted on by a terminal, drawn by none
        else:
            run = at
            while at < end and data[at] not in _SPECIAL:
                at += 1
            pen.text("".join(CP437_GLYPHS[b] for b in data[run:at]))
            continue
        at += 1
    rows = tuple(pen.screen.row_cells(row) for row in range(1, pen.height + 1))
    return Art(rows, width, pen.height, pen.columns, tuple(dropped)[:MOST_DROPPED], sauce)


_SPECIAL = frozenset({0x1B, 0x0D, 0x0A, 0x09, 0x08, 0x00, 0x07, 0x0B, 0x0C, 0x0E, 0x0F, 0x18})


def _escape(pen: _Pen, data: bytes, at: int, dropped: dict[str, None]) -> int:
    """Act on the escape sequence at ``at``, or drop it; where the text goes on."""
    csi = _CSI.match(data, at)
    if csi is not None:
        params, intermediates, final = csi.groups()
        after = csi.end()
        if final is not None and not intermediates and _csi(pen, params, final.decode()):
            return after
        if final in (b"M", b"N") and not params:  # ANSI music, up to SO
            stop = data.find(bytes([_MUSIC_END]), after)
            after = len(data) if stop < 0 else stop + 1
            dropped[_shown(data[at:after])] = None
            return after
        dropped[_shown(csi.group(0))] = None
        return after
    string = _STRING.match(data, at)
    if string is not None:
        dropped[_shown(string.group(0))] = None
        return string.end()
    other = _OTHER_ESCAPE.match(data, at)
    assert other is not None  # it matches ESC alone at least
    sequence = other.group(0)
    if sequence == b"\x1b7":
        pen.saved = (pen.row, pen.col)
    elif sequence == b"\x1b8":
        pen.go(*pen.saved)
    else:
        dropped[_shown(sequence)] = None
    return max(other.end(), at + 1)


def cp437_problem(data: bytes) -> str | None:
    """Why ``data`` (a file's art, SAUCE left out) is not CP437 text, or None: UTF-8 saved
    in a .ans shows as two or three glyphs a character.

    >>> cp437_problem("═══ ♥".encode()), cp437_problem(b"\\xcd\\xcd\\x03")
    ('it is UTF-8 text (saved as UTF-8, not CP437)', None)
    """
    if data.isascii():
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return "it is UTF-8 text (saved as UTF-8, not CP437)"
