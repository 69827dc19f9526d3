"""What one caller's terminal can do, and reading lines and keys from it.

A :class:`Terminal` wraps a byte reader and a byte writer, whatever carries them: a telnet
connection (:mod:`door.net.telnet`), or the standard streams or inherited socket a BBS hands a
door with a drop file. It finds out whether the terminal speaks ANSI (:meth:`Terminal.detect`),
encodes what the door writes in the caller's charset, and reads lines and keys with the line
editing, idle checks and time limit callers expect of a BBS door.

The charset follows the terminal type; a type nobody knows gets CP437 if the terminal answered
the ANSI probe (a BBS terminal, most likely) and plain ASCII if it did not:

>>> choose_charset("SyncTERM"), choose_charset("xterm-256color"), choose_charset("vt100")
('cp437', 'utf-8', 'ascii')
>>> choose_charset("wyse60", ansi=True), choose_charset("wyse60", ansi=False)
('cp437', 'ascii')

Screens are laid out in 80x24 whatever the terminal reports; the reported size is kept only
when it is believable:

>>> screen_size((132, 50)), screen_size((1, 1)), screen_size((65535, 65535)), screen_size(None)
((132, 50), (80, 24), (80, 24), (80, 24))
"""

from __future__ import annotations

import asyncio
import math
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ansi.charset import CHARSETS, InputDecoder, encode
from ansi.sequences import (
    clear_to_end_of_line,
    clear_to_end_of_screen,
    cursor_position_request,
    move,
    parse_cursor_position_report,
    reset,
    show_cursor,
)

DEFAULT_WIDTH = 80
DEFAULT_HEIGHT = 24
DETECT_TIMEOUT = 2.0
# Seconds before the end of the caller's time at which they are warned, as OpenDoors does.
TIME_WARNINGS = (300.0, 120.0, 60.0)

# Keys as KeyParser reports them, besides printable characters.
ENTER = "\r"
ERASE = "\b"
KILL = "\x15"  # Ctrl-U
ESCAPE = "\x1b"  # the Escape key on its own
SEQUENCE = "\x1b["  # any other whole escape sequence (function keys, Home, End, keypad)
ESCAPE_WAIT = 0.4  # seconds after an ESC before it counts as the Escape key
ENTER_GRACE = 0.3  # seconds after a one-key answer in which an Enter is its line end

_READ_SIZE = 512  # bytes taken from the reader at a time: what is held stays small
_TAIL_LIMIT = 160  # longest prompt line redrawn after a warning
_DRAIN_TIMEOUT = 30.0  # a caller who takes no output for this long has gone


class VisitEnded(Exception):
    """The visit is over; :attr:`farewell` is what to tell the caller, if anything."""

    farewell = ""


class CallerGone(VisitEnded):
    """The caller hung up (end of input, or the connection broke)."""


class IdleTimeout(VisitEnded):
    """The caller typed nothing for :attr:`seconds`."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no input for {seconds:g} seconds")
        self.seconds = seconds
        self.farewell = f"No input for {describe_seconds(seconds)}. Goodbye."


class TimeUp(VisitEnded):
    """The caller's time for this call has run out."""

    farewell = "Your time is up. Your game is saved. Goodbye."


class ByteReader(Protocol):
    """Where the caller's bytes come from: ``read`` returns b"" at the end."""

    async def read(self, n: int) -> bytes: ...


class ByteWriter(Protocol):
    """Where bytes for the caller go."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class TerminalInfo:
    """What a caller's terminal is and can do.

    ``width`` and ``height`` are what the terminal reported, if believable, else 80x24; the
    door lays its screens out in 80x24 either way (SyncTERM reports 25 rows and scrolls when
    the bottom-right cell is written).
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
    width, height = size
    if 20 <= width <= 1000 and 10 <= height <= 1000:
        return width, height
    return DEFAULT_WIDTH, DEFAULT_HEIGHT


def describe_seconds(seconds: float) -> str:
    """A span of time as a caller reads it: seconds under two minutes, else minutes.

    >>> describe_seconds(1), describe_seconds(45.2), describe_seconds(60), describe_seconds(300)
    ('1 second', '46 seconds', '1 minute', '5 minutes')
    """
    whole = max(1, math.ceil(seconds - 1e-6))
    if whole >= 120 or whole % 60 == 0:
        minutes = round(whole / 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{whole} second{'s' if whole != 1 else ''}"


def _printable(char: str) -> bool:
    """Whether a typed character may go into a line: letters, digits, marks of punctuation,
    symbols and spaces; not controls, combining marks or the decoder's replacement mark."""
    if char == "\ufffd":
        return False
    category = unicodedata.category(char)
    return category[0] in "LNPS" or category == "Zs"


def _columns(char: str) -> int:
    """Screen columns a printable character takes (East Asian wide ones take two)."""
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


_TEXT, _ESC, _CSI, _SS3, _X10 = range(5)

# Arrow keys as KeyParser reports them (CSI and SS3 forms alike).
UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"
_ARROWS = {"A": UP, "B": DOWN, "C": RIGHT, "D": LEFT}

# Asking a terminal for mouse reports (xterm's press and release, SGR coordinates), and
# stopping them.
MOUSE_ON = "\x1b[?1000h\x1b[?1006h"
MOUSE_OFF = "\x1b[?1006l\x1b[?1000l"
_MOUSE_ON_BYTES, _MOUSE_OFF_BYTES = MOUSE_ON.encode("ascii"), MOUSE_OFF.encode("ascii")


@dataclass(frozen=True, slots=True)
class Mouse:
    """A mouse report: a button pressed or released at screen ``row``, ``col`` (1-based).

    ``button`` is 0, 1 or 2 (left, middle, right); a release in the old X10 form does not
    say which button, and has ``button`` -1.
    """

    row: int
    col: int
    pressed: bool
    button: int = 0


Key = str | Mouse
"""What :class:`KeyParser` reports: a one-character key (see :data:`ENTER` and the others),
an arrow (:data:`UP` ...), :data:`SEQUENCE`, :data:`ESCAPE` or a :class:`Mouse` report."""


class KeyParser:
    """Turns the caller's bytes into keys, keeping its state across packets.

    A key is a printable character, :data:`ENTER`, :data:`ERASE` (BS or DEL), :data:`KILL`
    (Ctrl-U), an arrow (:data:`UP`, :data:`DOWN`, :data:`LEFT`, :data:`RIGHT`, as ``ESC [``
    or ``ESC O``), :data:`SEQUENCE` (any other escape sequence: Home, End, the keypad in
    application mode, function keys), :data:`ESCAPE` or a :class:`Mouse` report (SGR
    ``ESC [ < b ; x ; y M``/``m``, or the old ``ESC [ M b x y`` whose coordinates may be
    bytes over 127). Escape sequences are read as bytes, before the text is decoded in the
    caller's charset. Enter is CR LF, CR NUL, a lone CR or a lone LF; the LF or NUL after a
    CR is swallowed even when it arrives in the next packet. Other control characters are
    dropped.

    >>> parser = KeyParser("utf-8")
    >>> parser.feed(b"ab\\x1b[Ac\\x1bOB\\x1b[15~\\r") == ["a", "b", UP, "c", DOWN, SEQUENCE, "\\r"]
    True
    >>> parser.feed(b"\\nd\\x00\\x07\\x7f\\n")
    ['d', '\\x08', '\\r']
    >>> parser.feed(b"\\x1b[<0;12;4M\\x1b[M#\\xe1%")
    [Mouse(row=4, col=12, pressed=True, button=0), Mouse(row=5, col=193, pressed=False, button=-1)]

    An ESC with nothing after it is held: :meth:`expire` makes it the key :data:`ESCAPE` once
    the caller's terminal has had time to send the rest of a sequence. An ESC followed by
    anything but ``[`` or ``O`` is :data:`ESCAPE`, then that key.
    """

    _LONGEST = 32  # a "sequence" longer than this is garbage, not a key

    def __init__(self, charset: str = "ascii") -> None:
        self._decoder = InputDecoder(charset)
        self._state = _TEXT
        self._after_cr = False
        self._sequence_bytes = bytearray()

    @property
    def charset(self) -> str:
        return self._decoder.charset

    @charset.setter
    def charset(self, charset: str) -> None:
        if charset != self._decoder.charset:
            self._decoder = InputDecoder(charset)

    @property
    def holding_escape(self) -> bool:
        """Whether an ESC came last, which :meth:`expire` would make a key."""
        return self._state == _ESC

    def expire(self) -> list[Key]:
        """No more bytes came in time: a held ESC is the Escape key."""
        if self._state != _ESC:
            return []
        self._state = _TEXT
        return [ESCAPE]

    def feed(self, data: bytes) -> list[Key]:
        """The keys completed by ``data``."""
        keys: list[Key] = []
        text = bytearray()
        for byte in data:
            if self._state == _TEXT:
                if byte == 0x1B:
                    self._text(text, keys)
                    self._state = _ESC
                    self._sequence_bytes.clear()
                else:
                    text.append(byte)
                continue
            belongs, key = self._sequence(byte)
            if key is not None:
                keys.append(key)
            if not belongs:
                if byte == 0x1B:
                    self._state = _ESC
                    self._sequence_bytes.clear()
                else:
                    text.append(byte)
        self._text(text, keys)
        return keys

    def _text(self, data: bytearray, keys: list[Key]) -> None:
        if not data:
            return
        for char in self._decoder.feed(bytes(data)):
            key = self._char(char)
            if key is not None:
                keys.append(key)
        data.clear()

    def _char(self, char: str) -> str | None:
        after_cr, self._after_cr = self._after_cr, char == "\r"
        if char == "\r":
            return ENTER
        if char == "\n":
            return None if after_cr else ENTER
        if char in ("\b", "\x7f"):
            return ERASE
        if char == KILL:
            return KILL
        return char if _printable(char) else None

    def _sequence(self, byte: int) -> tuple[bool, Key | None]:
        """Whether ``byte`` belongs to the escape sequence under way, and the key it ends."""
        self._after_cr = False
        if self._state == _ESC:
            if byte in b"[O":
                self._state = _CSI if byte == ord("[") else _SS3
                return True, None
            self._state = _TEXT
            return False, ESCAPE  # a lone ESC, then a key of its own
        held = self._sequence_bytes
        if self._state == _X10:
            held.append(byte)
            if len(held) < 3:
                return True, None
            self._state = _TEXT
            return True, _x10_mouse(held)
        if self._state == _CSI and not held and byte == ord("["):
            self._state = _SS3  # Linux console F1-F5: ESC [ [ A, one more byte ends it
            return True, None
        if self._state == _CSI and not held and byte == ord("M"):
            self._state = _X10  # an old-style mouse report: three bytes follow
            return True, None
        if 0x40 <= byte <= 0x7E:  # the final byte
            kind, self._state = self._state, _TEXT
            return True, _sequence_key(kind == _SS3, bytes(held), chr(byte))
        if 0x20 <= byte <= 0x3F and len(held) < self._LONGEST:  # parameters
            held.append(byte)
            return True, None
        # Not a sequence after all (a control character, or garbage): read it as typed, so
        # that ESC [ followed by Enter is still Enter.
        self._state = _TEXT
        return False, None


def _sequence_key(ss3: bool, params: bytes, final: str) -> Key:
    """The key a whole escape sequence stands for."""
    if final in _ARROWS and (ss3 or not params or params.startswith(b"1;")):
        return _ARROWS[final]
    if not ss3 and final in "Mm" and params.startswith(b"<"):
        fields = params[1:].split(b";")
        if len(fields) == 3 and all(field.isdigit() for field in fields):
            code, col, row = (int(field) for field in fields)
            if code < 32 and col >= 1 and row >= 1:  # no motion, no wheel
                return Mouse(row, col, final == "M", code & 3)
    return SEQUENCE


def _x10_mouse(data: bytearray) -> Key:
    """An old-style report: button, column and row, each plus 32, one byte each."""
    code, col, row = (byte - 32 for byte in data)
    if code < 0 or code & 96 or col < 1 or row < 1:  # motion, wheel or nonsense
        return SEQUENCE
    button = code & 3
    return Mouse(row, col, button != 3, -1 if button == 3 else button)


class Terminal:
    """One caller's terminal: output in their charset, line and key input, time checks.

    ``reader`` needs ``async read(n) -> bytes`` (b"" at the end of input) and ``writer``
    ``write(bytes)``, ``async drain()`` and ``close()``: a telnetlib3 connection in bytes mode,
    or asyncio streams on a socket or standard input and output.

    Output is buffered by :meth:`write` and sent by :meth:`flush`; waiting for input flushes
    first. ``echo`` says whether this end echoes what the caller types (telnet clients that
    agreed to WILL ECHO, and BBS doors, need it; a client echoing locally does not).

    Time: after ``idle_timeout - idle_warning`` seconds without a key the caller is asked if
    they are still there, and after ``idle_timeout`` (0: never) :class:`IdleTimeout` is
    raised. :attr:`deadline` (a :func:`time.monotonic` time, or None) ends the visit with
    :class:`TimeUp`, after warnings at :data:`TIME_WARNINGS` seconds before it. Warnings are
    given while the caller is waiting at input, or at the next :meth:`flush`. End of input
    raises :class:`CallerGone`. Set :attr:`on_notice` to show warnings some other way (for
    instance on a status line): it gets the message and returns the text to send.
    """

    def __init__(
        self,
        reader: ByteReader,
        writer: ByteWriter,
        info: TerminalInfo = UNKNOWN_TERMINAL,
        *,
        idle_timeout: float = 0.0,
        idle_warning: float = 0.0,
        deadline: float | None = None,
        echo: bool = True,
        time_warnings: Sequence[float] = TIME_WARNINGS,
        drain_timeout: float = _DRAIN_TIMEOUT,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._info = info
        self.idle_timeout = idle_timeout
        self.idle_warning = idle_warning
        self.echo = echo
        #: The caller's alias once known, for the log.
        self.alias: str | None = None
        #: What the caller is doing ("main menu", "playing level 2, move 48"), for the sysop.
        self.activity = "connecting"
        #: Each gets every chunk of output sent, and its charset: the sysop watching.
        self.watchers: list[Callable[[bytes, str], None]] = []
        #: The caller's whole screen as it stands, for a watcher who starts now; the visit
        #: sets it while a screen of its own is shown.
        self.replay: Callable[[], str] | None = None
        self.on_notice: Callable[[str], str] | None = None
        self._time_warnings = tuple(sorted(time_warnings, reverse=True))
        self._drain_timeout = drain_timeout
        self._deadline: float | None = None
        self._warned_at = math.inf  # smallest time-left threshold already warned about
        self.deadline = deadline
        self._idle_warned = False
        self._last_key = time.monotonic()
        self._parser = KeyParser(info.charset)
        self._keys: deque[tuple[Key, float]] = deque()  # each key with when it came
        self._escape_since: float | None = None  # when a held ESC came
        self._swallow_until = 0.0  # an Enter that comes by then ends a one-key answer
        self._mouse_asked = False
        self._out = bytearray()
        self._tail = ""  # the text written since the last line break: the prompt
        self._tail_lost = False
        self._editing = ""  # the line being typed, as echoed
        self._at_input = False  # waiting for the caller's keys, with all output sent
        self._closed = False

    # --- what the terminal is ------------------------------------------------------------

    @property
    def info(self) -> TerminalInfo:
        """What the terminal is and can do; setting it switches charset and ANSI."""
        return self._info

    @info.setter
    def info(self, info: TerminalInfo) -> None:
        if info.charset not in CHARSETS:
            raise ValueError(f"unknown charset {info.charset!r}; expected one of {CHARSETS}")
        self._parser.charset = info.charset
        self._info = info

    @property
    def charset(self) -> str:
        """``cp437``, ``utf-8`` or ``ascii``; the caller may switch at any time."""
        return self._info.charset

    @charset.setter
    def charset(self, charset: str) -> None:
        self.info = replace(self._info, charset=charset)

    @property
    def ansi(self) -> bool:
        """Whether to draw with ANSI escape sequences."""
        return self._info.ansi

    @ansi.setter
    def ansi(self, ansi: bool) -> None:
        self.info = replace(self._info, ansi=ansi)

    @property
    def deadline(self) -> float | None:
        """When the caller's time is up, on the :func:`time.monotonic` clock; None: never."""
        return self._deadline

    @deadline.setter
    def deadline(self, deadline: float | None) -> None:
        self._deadline = deadline
        self._warned_at = math.inf  # a new deadline earns its own warnings

    @property
    def idle_seconds(self) -> float:
        """Seconds since the caller's last key (or since the call began)."""
        return time.monotonic() - self._last_key

    def seconds_left(self) -> float | None:
        """Seconds until :attr:`deadline`, or None when there is none."""
        return None if self._deadline is None else self._deadline - time.monotonic()

    async def detect(
        self,
        *,
        term_type: str = "",
        size: tuple[int, int] | None = None,
        timeout: float = DETECT_TIMEOUT,
    ) -> TerminalInfo:
        """Find out whether the terminal speaks ANSI, and choose its charset.

        Sends ``ESC[6n`` and waits up to ``timeout`` seconds for a cursor position report
        (``0;0`` counts). ``term_type`` (telnet TTYPE) picks the charset, ``size`` (NAWS
        ``(width, height)``) the reported size. Whatever else arrives meanwhile is discarded:
        nobody types before the first prompt on purpose, and a late half of a report must not
        become a command. Sets and returns :attr:`info`.
        """
        self._out += cursor_position_request().encode("ascii")
        await self.flush(check_time=False)
        ansi = await self._await_position_report(timeout) is not None
        width, height = screen_size(size)
        self.info = TerminalInfo(
            term_type=term_type or "unknown",
            width=width,
            height=height,
            ansi=ansi,
            charset=choose_charset(term_type, ansi=ansi),
        )
        if not ansi:
            self._out += b"\r        \r"  # wipe the "^[[6n" a plain terminal may have shown
        return self._info

    async def probe_charset(self, timeout: float = DETECT_TIMEOUT) -> bool:
        """Find out which suits the caller's screen really draws, by drawing them.

        A terminal type or a drop file may not say what reaches the screen: a BBS in between
        can re-encode the door's output. So a suit is drawn after a carriage return, and the
        cursor position asked for (``ESC[6n``): CP437's ♥ first, then UTF-8's; the charset
        whose ♥ moved the cursor one column is the caller's (see :func:`charset_from_probe`),
        and with neither, suits and the rest of CP437's control range are drawn as letters.
        Each suit is drawn concealed and wiped in the same write that asks where it left the
        cursor, so it is never in view. Sets :attr:`info`; returns whether the screen
        answered at all (a screen that did not gets letters).
        """
        cp437 = await self._column_after(CP437_SUIT, timeout)
        utf8 = None
        if cp437 is not None and cp437 != 2:
            utf8 = await self._column_after(UTF8_SUIT, timeout)
        charset, letters = charset_from_probe(cp437, utf8, self.charset)
        self.info = replace(self._info, charset=charset, suit_letters=letters)
        return cp437 is not None

    async def _column_after(self, glyph: bytes, timeout: float) -> int | None:
        """The cursor's column after a carriage return and ``glyph``; None: no answer."""
        self._out += b"\r" + _HIDE + glyph + cursor_position_request().encode("ascii") + _WIPE
        await self.flush(check_time=False)
        position = await self._await_position_report(timeout)
        return None if position is None else position[1]

    async def _await_position_report(self, timeout: float) -> tuple[int, int] | None:
        loop = asyncio.get_running_loop()
        ends = loop.time() + timeout
        seen = ""
        while (left := ends - loop.time()) > 0:
            data = await self._read(left)
            if data is None:
                break
            seen = (seen + data.decode("latin-1"))[-64:]  # a report is short
            position = parse_cursor_position_report(seen)
            if position is not None:
                return position
        return None

    # --- output ----------------------------------------------------------------------------

    def write(self, text: str) -> None:
        """Queue ``text`` for the caller, encoded in their charset; :meth:`flush` sends it."""
        self._out += self._encode(text)
        self._remember_tail(text)

    async def flush(self, *, check_time: bool = True) -> None:
        """Send what was written; with ``check_time``, give due time warnings first.

        :raises TimeUp: when the deadline has passed (what was queued is dropped, so the
            farewell is not buried under a screen).
        :raises CallerGone: when the connection is broken or stops taking output.
        """
        if check_time and self._deadline is not None:
            left = self._deadline - time.monotonic()
            if left <= 0:
                self._out.clear()
                raise TimeUp()
            self._warn_time_left(left)
        if not self._out or self._closed:
            return
        data = bytes(self._out)
        self._out.clear()
        try:
            self._writer.write(data)
            self._mirror(data)
            async with asyncio.timeout(self._drain_timeout):
                await self._writer.drain()
        except (OSError, EOFError) as error:  # TimeoutError is an OSError
            raise CallerGone() from error

    async def hang_up(self, message: str = "", *, timeout: float = 5.0) -> None:
        """Say ``message`` (if any) on a line of its own, then close; never raises.

        An ANSI caller's colours are reset and the cursor shown and put on the bottom row of
        the door's screen, on a clean line, so what comes next (the BBS, or the sysop's
        shell) starts there, with no scrolling that would push the door's last screen away.
        """
        if self._closed:
            return
        if self._mouse_asked:  # however the visit ended, the terminal stops reporting clicks
            self.report_mouse(False)
        if self.ansi:
            # The caller's colours and cursor back; the message on the last rows of the
            # door's screen and the cursor on its bottom row, on a line of its own: nothing
            # scrolls the door's last screen away.
            self.write(reset() + show_cursor())
            if message:
                rows = -(-len(message) // DEFAULT_WIDTH)
                self.write(
                    move(DEFAULT_HEIGHT - rows, 1) + clear_to_end_of_screen() + message + "\r\n"
                )
            else:
                self.write(move(DEFAULT_HEIGHT, 1) + clear_to_end_of_line())
        elif message:
            self.write(f"\r\n{message}\r\n")
        try:
            async with asyncio.timeout(timeout):
                await self.flush(check_time=False)
        except (VisitEnded, TimeoutError):
            pass
        finally:
            self.close()

    def report_mouse(self, on: bool) -> None:
        """Ask an ANSI terminal for mouse reports, or tell it to stop (written, not flushed).

        Plain terminals are never asked. Once asked, :meth:`hang_up` always ends with the
        request to stop, so a caller's terminal (and the BBS they return to) is never left
        reporting clicks, whichever way the visit ends.
        """
        if on and self.ansi:
            self._mouse_asked = True
            self._out += MOUSE_ON.encode("ascii")
        elif not on and self._mouse_asked:
            self._out += MOUSE_OFF.encode("ascii")

    def close(self) -> None:
        """Close the connection; anything not flushed is lost."""
        if not self._closed:
            self._closed = True
            self._out.clear()
            self._writer.close()

    def tell(self, message: str) -> None:
        """Show ``message`` (from the sysop) as a notice, without disturbing the caller's
        typing: at once if they are waiting at a prompt, else with the door's next output."""
        self._notice(message)
        if not self._at_input or self._closed:
            return
        data = bytes(self._out)
        self._out.clear()
        try:
            self._writer.write(data)  # sent as the line allows; the visit drains later
        except (OSError, EOFError):
            return
        self._mirror(data)

    def _mirror(self, data: bytes) -> None:
        if self.watchers and self._mouse_asked:  # the caller's mouse, not the watcher's
            data = data.replace(_MOUSE_ON_BYTES, b"").replace(_MOUSE_OFF_BYTES, b"")
        for watcher in self.watchers:
            watcher(data, self.charset)

    def _emit(self, text: str) -> None:
        """Queue text that is not part of the door's page (echo, warnings)."""
        self._out += self._encode(text)

    def _encode(self, text: str) -> bytes:
        return encode(text, self.charset, low_glyphs=not self._info.suit_letters)

    def _remember_tail(self, text: str) -> None:
        """Keep the current line (the prompt) so a warning can redraw it under itself."""
        _, newline, rest = text.rpartition("\n")
        if newline:
            self._tail, self._tail_lost = rest, False
        elif not self._tail_lost:
            self._tail += text
        if len(self._tail) > _TAIL_LIMIT or "\x1b" in self._tail:
            # Too long, or drawn with escape sequences (an ANSI page moving its cursor about):
            # not a prompt that can be written again under a warning.
            self._tail, self._tail_lost = "", True

    @property
    def prompt_line(self) -> str:
        """The prompt the caller is at and what they have typed after it, to write again
        under a notice."""
        return self._tail + self._editing

    def _notice(self, message: str) -> None:
        """Show a warning on a line of its own, then the prompt and the caller's typing."""
        if self.on_notice is not None:
            self._emit(self.on_notice(message))
        else:
            self._emit(f"\r\n{message}\r\n{self.prompt_line}")

    # --- input -----------------------------------------------------------------------------

    async def read_line(
        self, max_length: int = 60, *, echo: bool = True, mask: bool = False
    ) -> str:
        """Read a line the caller types, with the editing keys of a BBS.

        Backspace and DEL erase a character, Ctrl-U the whole line; arrow and function keys
        are ignored, as are other control characters. Characters past ``max_length`` are
        dropped (with one bell). ``mask`` echoes ``*`` (passwords); ``echo=False`` echoes
        nothing. The Enter that ends the line is echoed as CR LF.
        """
        shown = echo and self.echo
        chars: list[str] = []
        rang = False
        since = time.monotonic()
        try:
            while True:
                key = await self._next_key(since)
                if key == ENTER:
                    self._active()
                    if shown:
                        self._emit("\r\n")
                    self._tail, self._tail_lost = "", False  # the caller is on a new line
                    return "".join(chars)
                if key == ERASE and chars:
                    self._active()
                    self._erase(chars.pop(), shown, mask)
                    rang = False
                elif key == KILL and chars:
                    self._active()
                    while chars:
                        self._erase(chars.pop(), shown, mask)
                    rang = False
                elif isinstance(key, str) and len(key) == 1 and _printable(key):
                    if len(chars) < max_length:
                        self._active()
                        chars.append(key)
                        if shown:
                            self._show_typed("*" if mask else key)
                    elif shown and not rang:
                        self._emit("\a")
                        rang = True  # once, not once per byte of a runaway paste
        finally:
            self._editing = ""

    async def read_key(self) -> str:
        """Wait for one key: a printable character, upper-cased, or ``"\\r"`` for Enter.

        Editing keys, arrow and function keys, Escape, mouse reports and the LF of a CR LF
        are skipped. Nothing is echoed. An Enter that follows the key at once (a caller who
        presses Enter out of habit, or a client that sends whole lines) is swallowed.
        """
        since = time.monotonic()
        while True:
            key = await self._next_key(since)
            if key == ENTER:
                self._active()
                return ENTER
            if isinstance(key, str) and len(key) == 1 and _printable(key):
                self._active()
                self.expect_enter()
                return key.upper()

    async def read_event(self, timeout: float | None = None) -> Key | None:
        """The next key of any kind (see :class:`KeyParser`); None if ``timeout`` seconds
        pass first. Nothing is echoed."""
        key = await self._next_key(time.monotonic(), timeout)
        if key is not None:
            self._active()  # on the board every key moves, picks up or plays
        return key

    def keys_waiting(self) -> bool:
        """Whether keys the caller sent are already here, unread (a line sent at once)."""
        return bool(self._keys)

    def expect_enter(self, grace: float = ENTER_GRACE) -> None:
        """A key has just done its work: an Enter right behind it (already here, or coming
        within ``grace`` seconds) is swallowed."""
        self._swallow_until = time.monotonic() + grace

    def _show_typed(self, char: str) -> None:
        self._emit(char)
        self._editing += char

    def _erase(self, char: str, shown: bool, mask: bool) -> None:
        if not shown:
            return
        width = 1 if mask else _columns(char)
        self._emit("\b \b" * width)
        self._editing = self._editing[:-1]

    async def _next_key(self, waiting_since: float, timeout: float | None = None) -> Key | None:
        """The next key, after flushing output; checks the clocks while waiting.

        The idle time runs from ``waiting_since`` (when the door began to wait) or the last
        key that changed something (:meth:`_active`), whichever is later: keys that change
        nothing (Ctrl-U on an empty line, an arrow at a prompt) do not keep a caller on.
        Returns None when ``timeout`` (None: no limit) seconds pass without a key.
        """
        started = time.monotonic()
        while True:
            while self._keys:
                key, came = self._keys.popleft()
                swallow = key == ENTER and came <= self._swallow_until
                self._swallow_until = 0.0
                if not swallow:
                    return key
            now = time.monotonic()
            if timeout is not None and now - started >= timeout:
                return None
            idle_since = max(self._last_key, waiting_since)
            self._check_clocks(idle_since)
            await self.flush(check_time=False)
            waits = [self._until_next_check(idle_since)]
            if timeout is not None:
                waits.append(timeout - (now - started))
            if self._escape_since is not None:
                waits.append(self._escape_since + ESCAPE_WAIT - now)
            known = [max(0.0, wait) for wait in waits if wait is not None]
            self._at_input = True
            try:
                data = await self._read(min(known) if known else None)
            finally:
                self._at_input = False
            now = time.monotonic()
            if data is not None:
                self._keys.extend((key, now) for key in self._parser.feed(data))
                if not self._parser.holding_escape:
                    self._escape_since = None
                elif self._escape_since is None:
                    self._escape_since = now
            elif self._escape_since is not None and now >= self._escape_since + ESCAPE_WAIT:
                self._keys.extend((key, now) for key in self._parser.expire())
                self._escape_since = None

    def _active(self) -> None:
        """The caller pressed a key that did something: the idle time starts again."""
        self._last_key = time.monotonic()
        self._idle_warned = False

    async def _read(self, timeout: float | None) -> bytes | None:
        """Some bytes from the caller, or None if ``timeout`` seconds pass first."""
        if self._closed:
            raise CallerGone()
        scope = asyncio.timeout(timeout)
        try:
            async with scope:
                data = await self._reader.read(_READ_SIZE)
        except TimeoutError as error:
            if scope.expired():
                return None
            raise CallerGone() from error
        except (OSError, EOFError) as error:
            raise CallerGone() from error
        if not data:
            raise CallerGone()
        return data

    # --- time ------------------------------------------------------------------------------

    def _check_clocks(self, idle_since: float) -> None:
        """Give the warnings that are due; raise when time or patience has run out."""
        now = time.monotonic()
        if self._deadline is not None:
            left = self._deadline - now
            if left <= 0:
                raise TimeUp()
            self._warn_time_left(left)
        if self.idle_timeout > 0:
            idle = now - idle_since
            if idle >= self.idle_timeout:
                raise IdleTimeout(self.idle_timeout)
            if self._idle_warning_due(idle):
                self._idle_warned = True
                self._notice(
                    "Are you still there? You will be disconnected in "
                    f"{describe_seconds(self.idle_timeout - idle)}."
                )

    def _idle_warning_due(self, idle: float) -> bool:
        return self.idle_warning > 0 and not self._idle_warned and idle >= self._idle_warn_at()

    def _idle_warn_at(self) -> float:
        return max(0.0, self.idle_timeout - self.idle_warning)

    def _warn_time_left(self, left: float) -> None:
        """Warn once per threshold; thresholds passed together earn one warning."""
        if self.alias is None:  # not logged in yet: the log-in limit comes first
            return
        passed = [limit for limit in self._time_warnings if left <= limit < self._warned_at]
        if passed:
            self._warned_at = min(passed)
            self._notice(f"You have {describe_seconds(left)} left.")

    def _until_next_check(self, idle_since: float) -> float | None:
        """Seconds until a warning or an ending is due, or None if none ever is."""
        now = time.monotonic()
        waits = []
        if self._deadline is not None:
            left = self._deadline - now
            waits.append(left)
            waits.extend(left - limit for limit in self._time_warnings if limit < self._warned_at)
        if self.idle_timeout > 0:
            idle = now - idle_since
            waits.append(self.idle_timeout - idle)
            if self.idle_warning > 0 and not self._idle_warned:
                waits.append(self._idle_warn_at() - idle)
        positive = [wait for wait in waits if wait > 0]
        if len(positive) < len(waits):
            return 0.0
        return min(positive) if positive else None
