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
SEQUENCE = "\x1b"  # a whole escape sequence (arrow or function key), already swallowed

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
    #: The screen showed no suit glyph in any charset tried: draw suits as letters.
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


def charset_from_probe(
    cp437_column: int | None, utf8_column: int | None, current: str
) -> tuple[str, bool] | None:
    """The charset a screen draws suits in, and whether it draws none (letters then), from
    where its cursor stood after a carriage return and CP437's ♥, then UTF-8's ♥; None when
    the answers tell nothing (no answer, or the same one whatever was drawn).

    Column 2 means the glyph took one column: that charset draws suits. A screen on which
    CP437's byte moved nothing and UTF-8's three bytes moved three columns reads single bytes
    but shows no suit there: a BBS between the door and the caller that re-encodes CP437 and
    drops 0x03-0x06, as ENiGMA½ does for UTF-8 callers. Suits are letters then, in CP437 if
    that is what the line carries (``current``), else in ASCII.

    >>> charset_from_probe(2, None, "cp437"), charset_from_probe(1, 2, "cp437")
    (('cp437', False), ('utf-8', False))
    >>> charset_from_probe(1, 4, "cp437"), charset_from_probe(1, 4, "utf-8")
    (('cp437', True), ('ascii', True))
    >>> charset_from_probe(None, None, "utf-8"), charset_from_probe(80, 80, "cp437")
    (None, None)
    """
    if cp437_column == 2:
        return "cp437", False
    if utf8_column == 2:
        return "utf-8", False
    if cp437_column == 1 and utf8_column == 4:
        return ("cp437" if current == "cp437" else "ascii"), True
    return None


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


_TEXT, _ESC, _CSI, _SS3 = range(4)


class KeyParser:
    """Turns decoded input into keys, keeping its state across packets.

    A key is a printable character, :data:`ENTER`, :data:`ERASE` (BS or DEL), :data:`KILL`
    (Ctrl-U) or :data:`SEQUENCE` (a whole escape sequence: an arrow or function key). Enter is
    CR LF, CR NUL, a lone CR or a lone LF; the LF or NUL after a CR is swallowed even when it
    arrives in the next packet. Other control characters are dropped.

    >>> parser = KeyParser()
    >>> parser.feed("ab\\x1b[Ac\\x1bOB\\x1b[15~\\r")
    ['a', 'b', '\\x1b', 'c', '\\x1b', '\\x1b', '\\r']
    >>> parser.feed("\\nd\\x00\\x07\\x7f\\n")
    ['d', '\\x08', '\\r']

    A lone ESC followed by anything but ``[`` or ``O`` is dropped and the next key kept, so a
    caller who presses Escape and then a menu key gets the menu key.
    """

    _LONGEST = 32  # a "sequence" longer than this is garbage, not a key

    def __init__(self) -> None:
        self._state = _TEXT
        self._after_cr = False
        self._length = 0

    def feed(self, text: str) -> list[str]:
        """The keys completed by ``text``."""
        keys = []
        for char in text:
            key = self._step(char)
            if key is not None:
                keys.append(key)
        return keys

    def _step(self, char: str) -> str | None:
        if self._state != _TEXT:
            belongs, key = self._sequence(char)
            if belongs:
                return key
        return self._text(char)

    def _text(self, char: str) -> str | None:
        after_cr, self._after_cr = self._after_cr, char == "\r"
        if char == "\r":
            return ENTER
        if char == "\n":
            return None if after_cr else ENTER
        if char == "\x1b":
            self._state, self._length = _ESC, 0
            return None
        if char in ("\b", "\x7f"):
            return ERASE
        if char == KILL:
            return KILL
        return char if _printable(char) else None

    def _sequence(self, char: str) -> tuple[bool, str | None]:
        """Whether ``char`` belongs to the escape sequence under way, and the key it ends."""
        if self._state == _ESC:
            if char in "[O":
                self._state = _CSI if char == "[" else _SS3
                return True, None
            self._state = _TEXT
            if char == "\x1b":  # the first ESC was lone; this one may start a sequence
                self._state = _ESC
                return True, None
            return False, None
        self._length += 1
        code = ord(char)
        if self._state == _CSI and self._length == 1 and char == "[":
            self._state = _SS3  # Linux console F1-F5: ESC [ [ A, one more byte ends it
            return True, None
        if 0x40 <= code <= 0x7E:  # the final byte
            self._state = _TEXT
            return True, SEQUENCE
        if 0x20 <= code <= 0x3F and self._length < self._LONGEST:  # parameters
            return True, None
        # Not a sequence after all (a control character, or garbage): read it as typed, so
        # that ESC [ followed by Enter is still Enter.
        self._state = _TEXT
        return False, None


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
        self._decoder = InputDecoder(info.charset)
        self._parser = KeyParser()
        self._keys: deque[str] = deque()
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
        if info.charset != self._info.charset:
            self._decoder = InputDecoder(info.charset)
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
        and with neither, suits are drawn as letters. What the probe drew is wiped. Sets
        :attr:`info` and returns True when the screen told; else changes nothing.
        """
        cp437 = await self._column_after(CP437_SUIT, timeout)
        utf8 = None
        if cp437 is not None and cp437 != 2:
            utf8 = await self._column_after(UTF8_SUIT, timeout)
        self._out += b"\r    \r"
        seen = charset_from_probe(cp437, utf8, self.charset)
        if seen is None:
            return False
        charset, letters = seen
        self.info = replace(self._info, charset=charset, suit_letters=letters)
        return True

    async def _column_after(self, glyph: bytes, timeout: float) -> int | None:
        """The cursor's column after a carriage return and ``glyph``; None: no answer."""
        self._out += b"\r" + glyph + cursor_position_request().encode("ascii")
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
        self._out += encode(text, self.charset)
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

        An ANSI caller's colours are reset and the cursor shown and put below the door's
        screen, so what comes next (the BBS, or the sysop's shell) starts on a clean line.
        """
        if self._closed:
            return
        if self.ansi:  # the caller's colours and cursor back, below the door's last screen
            self.write(reset() + show_cursor() + move(DEFAULT_HEIGHT, 1) + "\r\n")
        if message:
            self.write(f"{message}\r\n" if self.ansi else f"\r\n{message}\r\n")
        try:
            async with asyncio.timeout(timeout):
                await self.flush(check_time=False)
        except (VisitEnded, TimeoutError):
            pass
        finally:
            self.close()

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
        for watcher in self.watchers:
            watcher(data, self.charset)

    def _emit(self, text: str) -> None:
        """Queue text that is not part of the door's page (echo, warnings)."""
        self._out += encode(text, self.charset)

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
                elif len(key) == 1 and _printable(key):
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

        Editing keys, arrow and function keys and the LF of a CR LF are skipped. Nothing is
        echoed.
        """
        since = time.monotonic()
        while True:
            key = await self._next_key(since)
            if key == ENTER:
                self._active()
                return ENTER
            if len(key) == 1 and _printable(key):
                self._active()
                return key.upper()

    def _show_typed(self, char: str) -> None:
        self._emit(char)
        self._editing += char

    def _erase(self, char: str, shown: bool, mask: bool) -> None:
        if not shown:
            return
        width = 1 if mask else _columns(char)
        self._emit("\b \b" * width)
        self._editing = self._editing[:-1]

    async def _next_key(self, waiting_since: float) -> str:
        """The next key, after flushing output; checks the clocks while waiting.

        The idle time runs from ``waiting_since`` (when the door began to wait) or the last
        key that changed something (:meth:`_active`), whichever is later: keys that change
        nothing (Ctrl-U on an empty line, an arrow at a prompt) do not keep a caller on.
        """
        while not self._keys:
            idle_since = max(self._last_key, waiting_since)
            self._check_clocks(idle_since)
            await self.flush(check_time=False)
            self._at_input = True
            try:
                data = await self._read(self._until_next_check(idle_since))
            finally:
                self._at_input = False
            if data is not None:
                self._keys.extend(self._parser.feed(self._decoder.feed(data)))
        return self._keys.popleft()

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
