"""ANSI escape sequences, as ``str``, for the terminals BBS callers use.

Only sequences that ANSI.SYS-era terminals (SyncTERM, NetRunner) and VT-family emulators
(xterm, PuTTY) agree on are here. Rows and columns are 1-based, as in the sequences themselves.

>>> move(3, 10)
'\\x1b[3;10H'
>>> sgr(RED, bold=True) + "7♥" + reset()
'\\x1b[0;1;31;40m7♥\\x1b[0m'

There is deliberately no delete-line helper: a bare ``ESC[M`` starts ANSI music on SyncTERM,
and no function here ever returns one.
"""

from __future__ import annotations

import re

ESC = "\x1b"
CSI = ESC + "["

BLACK, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE = range(8)
COLOUR_NAMES = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")


def _count(n: int) -> str:
    """The parameter of a relative move: omitted for 1, the default."""
    if n < 1:
        raise ValueError(f"a cursor move needs a count of at least 1, not {n}")
    return "" if n == 1 else str(n)


def move(row: int, col: int) -> str:
    """Put the cursor at ``row``, ``col`` (1-based; 1, 1 is the top left).

    >>> move(1, 1)
    '\\x1b[1;1H'
    """
    if row < 1 or col < 1:
        raise ValueError(f"rows and columns start at 1, not {row}, {col}")
    return f"{CSI}{row};{col}H"


def cursor_up(n: int = 1) -> str:
    """Move the cursor ``n`` rows up, stopping at the top.

    >>> cursor_up(), cursor_up(3)
    ('\\x1b[A', '\\x1b[3A')
    """
    return f"{CSI}{_count(n)}A"


def cursor_down(n: int = 1) -> str:
    """Move the cursor ``n`` rows down, stopping at the bottom (never scrolls)."""
    return f"{CSI}{_count(n)}B"


def cursor_forward(n: int = 1) -> str:
    """Move the cursor ``n`` columns right, stopping at the right edge.

    >>> cursor_forward(12)
    '\\x1b[12C'
    """
    return f"{CSI}{_count(n)}C"


def cursor_back(n: int = 1) -> str:
    """Move the cursor ``n`` columns left, stopping at the left edge."""
    return f"{CSI}{_count(n)}D"


def clear_screen() -> str:
    """Clear the whole screen and put the cursor at the top left.

    ANSI.SYS homes the cursor on ``ESC[2J`` but VT terminals do not, hence the explicit move.

    >>> clear_screen()
    '\\x1b[2J\\x1b[H'
    """
    return f"{CSI}2J{CSI}H"


def clear_to_end_of_line() -> str:
    """Blank from the cursor to the end of its row; the cursor stays put.

    >>> clear_to_end_of_line()
    '\\x1b[K'
    """
    return f"{CSI}K"


def clear_to_end_of_screen() -> str:
    """Blank from the cursor to the end of the screen; the cursor stays put.

    >>> clear_to_end_of_screen()
    '\\x1b[J'
    """
    return f"{CSI}J"


def hide_cursor() -> str:
    """Make the cursor invisible (while drawing, or for good).

    >>> hide_cursor()
    '\\x1b[?25l'
    """
    return f"{CSI}?25l"


def show_cursor() -> str:
    """Make the cursor visible again.

    >>> show_cursor()
    '\\x1b[?25h'
    """
    return f"{CSI}?25h"


def reset() -> str:
    """Back to the terminal's default colours.

    >>> reset()
    '\\x1b[0m'
    """
    return f"{CSI}0m"


def sgr(fg: int = WHITE, bg: int = BLACK, bold: bool = False) -> str:
    """Set all of the colours at once: foreground, background and bold.

    Colours are the eight ANSI colours (:data:`BLACK` ... :data:`WHITE`); ``bold`` makes the
    foreground the bright one of the sixteen. The sequence starts with a reset, so it does not
    depend on what was set before, and names the background too, because a caller's default
    background is not always black.

    >>> sgr()
    '\\x1b[0;37;40m'
    >>> sgr(YELLOW, BLUE, bold=True)
    '\\x1b[0;1;33;44m'
    """
    _check_colour(fg)
    _check_colour(bg)
    return f"{CSI}0;{'1;' if bold else ''}3{fg};4{bg}m"


def _check_colour(colour: int) -> None:
    if colour not in range(8):
        raise ValueError(f"colours are 0 (black) to 7 (white), not {colour!r}")


def cursor_position_request() -> str:
    """Ask the terminal where its cursor is; an ANSI terminal answers ``ESC[row;colR``.

    >>> cursor_position_request()
    '\\x1b[6n'
    """
    return f"{CSI}6n"


_POSITION_REPORT = re.compile(r"\x1b\[(\d{1,5});(\d{1,5})R")


def parse_cursor_position_report(text: str) -> tuple[int, int] | None:
    """The ``(row, col)`` of the last cursor position report in ``text``, or None.

    Anything around the report (keys typed meanwhile, other answers) is ignored. Some
    terminals answer ``0;0``; that is still an answer.

    >>> parse_cursor_position_report("xy\\x1b[24;80Rz")
    (24, 80)
    >>> parse_cursor_position_report("\\x1b[0;0R")
    (0, 0)
    >>> parse_cursor_position_report("\\x1b[24;80") is None
    True
    """
    reports = _POSITION_REPORT.findall(text)
    if not reports:
        return None
    row, col = reports[-1]
    return int(row), int(col)
