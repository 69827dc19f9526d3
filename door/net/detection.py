"""What a caller's terminal is: ANSI or not, its charset, its size, the suits it draws.

A terminal type (telnet TTYPE, SSH's ``TERM``, RLOGIN's) picks the charset; a type nobody
knows gets CP437 if the terminal answered the ANSI probe (a BBS terminal, most likely) and
plain ASCII if it did not:

>>> choose_charset("SyncTERM"), choose_charset("xterm-256color"), choose_charset("vt100")
('cp437', 'utf-8', 'ascii')
>>> choose_charset("wyse60", ansi=True), choose_charset("wyse60", ansi=False)
('cp437', 'ascii')

The reported size is kept only when it is believable (screens are drawn for it: see
:func:`door.views.layout.fitted`):

>>> screen_size((132, 50)), screen_size((1, 1)), screen_size((65535, 65535)), screen_size(None)
((132, 50), (80, 24), (80, 24), (80, 24))

The probes (:func:`answers_ansi`, :func:`probe_suits`) talk to the terminal through two
functions, one that sends bytes at once and one that reads what came back, so they serve
:class:`~door.net.terminal.Terminal` whatever carries it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ansi.sequences import cursor_position_request, parse_cursor_position_report

DEFAULT_WIDTH = 80
DEFAULT_HEIGHT = 24
DETECT_TIMEOUT = 2.0

Send = Callable[[bytes], Awaitable[None]]
"""Sends bytes to the terminal at once."""
Receive = Callable[[float], Awaitable["bytes | None"]]
"""Some bytes from the terminal, or None when the given seconds pass first."""


@dataclass(frozen=True, slots=True)
class TerminalInfo:
    """What a caller's terminal is and can do.

    ``width`` and ``height`` are what the terminal reported, if believable, else 80x24; the
    door draws its screens for that size, never writing the bottom-right cell (SyncTERM
    scrolls when it is written).
    """

    term_type: str
    width: int
    height: int
    ansi: bool
    charset: str
    #: The screen was not seen drawing CP437's glyphs for 0x01-0x1F (the suits, ►, ▲ ...), or
    #: the caller chose suits as letters: each of those glyphs is sent as an ASCII stand-in.
    suit_letters: bool = False


UNKNOWN_TERMINAL = TerminalInfo("unknown", DEFAULT_WIDTH, DEFAULT_HEIGHT, False, "ascii")

# Terminal types, lower case, and the charset they draw best. An entry ending in "*" is a
# prefix. BBS terminals draw the IBM PC glyphs (CP437); the Unix consoles and emulators UTF-8;
# the VT family neither, so it gets plain ASCII glyphs (its ANSI cursor control still works).
_CHARSET_BY_TERM = (
    ("syncterm*", "cp437"),
    ("ansi", "cp437"),
    ("ansi-*", "cp437"),  # ansi-bbs, ansi-256color (NetRunner), ansi-color
    ("pcansi*", "cp437"),
    ("cp437*", "cp437"),
    ("xterm*", "utf-8"),
    ("linux", "utf-8"),
    ("screen*", "utf-8"),
    ("tmux*", "utf-8"),
    ("rxvt*", "utf-8"),
    ("putty*", "utf-8"),
    ("vt*", "ascii"),
    ("dumb", "ascii"),
)


def known_charset(term_type: str) -> str | None:
    """The charset for a terminal type this module knows, else None; any letter case.

    >>> known_charset("ANSI-BBS"), known_charset("screen.xterm-256color"), known_charset("x")
    ('cp437', 'utf-8', None)
    """
    name = term_type.strip().lower()
    for pattern, charset in _CHARSET_BY_TERM:
        if name == pattern or (pattern.endswith("*") and name.startswith(pattern[:-1])):
            return charset
    return None


def choose_charset(term_type: str, *, ansi: bool = True) -> str:
    """The charset to start a caller on: by terminal type, else by whether ANSI answered."""
    return known_charset(term_type) or ("cp437" if ansi else "ascii")


# What the charset probe sends before each cursor position request: a suit in one charset.
CP437_SUIT = b"\x03"  # ♥ on a BBS terminal; a control code that draws nothing elsewhere
UTF8_SUIT = "♥".encode()
# Around the suit, in the same write: concealed, then wiped before the terminal shows the
# write (the request is answered in the middle of it, with the column the suit moved to).
# Three cells are wiped: a UTF-8 suit read as CP437 takes three.
_HIDE, _WIPE = b"\x1b[8m", b"\r   \r\x1b[0m"


def charset_from_probe(
    cp437_column: int | None, utf8_column: int | None, current: str
) -> tuple[str, bool]:
    """The charset a screen draws suits in, and whether suits (and every other glyph of
    CP437's control range) are to be letters, from where its cursor stood after a carriage
    return and CP437's ♥, then UTF-8's ♥ (None: no answer).

    Column 2 means the glyph took one column: that charset draws suits. A screen on which
    CP437's byte moved nothing and UTF-8's three bytes moved three columns reads single bytes
    but shows no suit there: a BBS between the door and the caller that re-encodes CP437 and
    passes 0x03-0x06 on as control bytes, as ENiGMA½ does for UTF-8 callers. Suits are
    letters then, in CP437 if that is what the line carries (``current``), else in ASCII.
    A screen that answered nothing, or the same whatever was drawn, has not been seen drawing
    a suit: letters, in ``current``, so the worst case is a letter, never a blank.

    >>> charset_from_probe(2, None, "cp437"), charset_from_probe(1, 2, "cp437")
    (('cp437', False), ('utf-8', False))
    >>> charset_from_probe(1, 4, "cp437"), charset_from_probe(1, 4, "utf-8")
    (('cp437', True), ('ascii', True))
    >>> charset_from_probe(None, None, "cp437"), charset_from_probe(80, 80, "utf-8")
    (('cp437', True), ('utf-8', True))
    """
    if cp437_column == 2:
        return "cp437", False
    if utf8_column == 2:
        return "utf-8", False
    if cp437_column == 1 and utf8_column == 4:
        return ("cp437" if current == "cp437" else "ascii"), True
    return current, True


def screen_size(size: tuple[int, int] | None) -> tuple[int, int]:
    """``(width, height)`` as reported (NAWS), or 80x24 when unknown or not believable.

    NetRunner reports 1x1, some clients 0x0 or 65535x65535: anything under 20x10 or over
    1000x1000 is ignored.
    """
    if size is None:
        return DEFAULT_WIDTH, DEFAULT_HEIGHT
    return size_believable(*size) or (DEFAULT_WIDTH, DEFAULT_HEIGHT)


def size_believable(width: int, height: int) -> tuple[int, int] | None:
    """``(width, height)`` if a window could be that size, else None (see
    :func:`screen_size`).

    >>> size_believable(40, 20), size_believable(1, 1), size_believable(0, 0)
    ((40, 20), None, None)
    """
    if 20 <= width <= 1000 and 10 <= height <= 1000:
        return width, height
    return None


async def answers_ansi(send: Send, receive: Receive, timeout: float = DETECT_TIMEOUT) -> bool:
    """Whether the terminal answers a cursor position request (``ESC[6n``) within ``timeout``
    seconds (``0;0`` counts). Whatever else arrives meanwhile is discarded: nobody types
    before the first prompt on purpose, and a late half of a report must not become a
    command."""
    await send(cursor_position_request().encode("ascii"))
    return await _position_report(receive, timeout) is not None


async def probe_suits(
    send: Send, receive: Receive, current: str, timeout: float = DETECT_TIMEOUT
) -> tuple[str, bool, bool]:
    """Which suits the terminal's screen really draws, by drawing them: the charset, whether
    suits are to be letters, and whether the screen answered at all.

    A terminal type or a drop file may not say what reaches the screen: a BBS in between can
    re-encode the door's output. So a suit is drawn after a carriage return, and the cursor
    position asked for: CP437's ♥ first, then UTF-8's; see :func:`charset_from_probe`, which
    gives the answer (``current`` is the charset the line carries now). Each suit is drawn
    concealed and wiped in the same write that asks where it left the cursor, so that it is
    never in view, behind a BBS that re-encodes it too.
    """
    cp437 = await _column_after(send, receive, CP437_SUIT, timeout)
    utf8 = None
    if cp437 is not None and cp437 != 2:
        utf8 = await _column_after(send, receive, UTF8_SUIT, timeout)
    return (*charset_from_probe(cp437, utf8, current), cp437 is not None)


async def _column_after(send: Send, receive: Receive, glyph: bytes, timeout: float) -> int | None:
    """The cursor's column after a carriage return and ``glyph``; None: no answer."""
    await send(b"\r" + _HIDE + glyph + cursor_position_request().encode("ascii") + _WIPE)
    position = await _position_report(receive, timeout)
    return None if position is None else position[1]


async def _position_report(receive: Receive, timeout: float) -> tuple[int, int] | None:
    loop = asyncio.get_running_loop()
    ends = loop.time() + timeout
    seen = ""
    while (left := ends - loop.time()) > 0:
        data = await receive(left)
        if data is None:
            break
        seen = (seen + data.decode("latin-1"))[-64:]  # a report is short
        position = parse_cursor_position_report(seen)
        if position is not None:
            return position
    return None
