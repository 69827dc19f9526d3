"""Reading lines and keys from one caller's terminal, and writing to it.

A :class:`Terminal` wraps a byte reader and a byte writer, whatever carries them: a telnet
connection (:mod:`door.net.telnet`), an SSH or RLOGIN one, or the standard streams or inherited
socket a BBS hands a door with a drop file. It finds out what the terminal is
(:meth:`Terminal.detect`, by :mod:`door.net.detection`), encodes what the door writes in the
caller's charset, and reads lines and keys (parsed by :mod:`ansi.keys`) with the line editing
a BBS door's callers expect, minding the idle and time-left clocks (:mod:`door.net.clocks`).

Reading and writing share one state (the output queue, the prompt line a notice redraws, the
line being typed, whether the caller waits at a prompt), so both are here. What the sysop
sees of a call is not: that is :mod:`door.net.presence`, fed through :attr:`Terminal.on_output`.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from gettext import NullTranslations
from itertools import repeat
from typing import Protocol

from ansi.charset import CHARSETS, encode
from ansi.keys import ENTER, ERASE, KILL, MOUSE_OFF, MOUSE_ON, Key, KeyParser, printable
from ansi.sequences import (
    clear_to_end_of_line,
    clear_to_end_of_screen,
    move,
    reset,
    show_cursor,
)
from door.net.alarm import Alarm
from door.net.clocks import MONOTONIC, TIME_WARNINGS, Clock, Clocks, TimeUp, VisitEnded
from door.net.detection import (
    DETECT_TIMEOUT,
    UNKNOWN_TERMINAL,
    TerminalInfo,
    answers_ansi,
    choose_charset,
    probe_suits,
    screen_size,
    size_believable,
)
from door.net.pace import CommandPace
from door.words import N_
from door.words.speaking import ENGLISH_WORDS, speaking

ESCAPE_WAIT = 0.4  # seconds after an ESC before it counts as the Escape key
ENTER_GRACE = 0.3  # seconds after a one-key answer in which an Enter is its line end

# The column every line of the door's screens starts in (door/views/pages.py's TEXT_COL):
# the goodbye's, and a hang-up's message.
MESSAGE_COLUMN = 2
_READ_SIZE = 512  # bytes taken from the reader at a time: what is held stays small
_TAIL_LIMIT = 160  # longest prompt line redrawn after a warning
_DRAIN_TIMEOUT = 30.0  # a caller who takes no output for this long has gone
# Bytes of input in a row that do nothing (no key the door acts on) after which the call is
# only noise: more than any paste into the door's longest field.
NOISE_LIMIT = 4096


class CallerGone(VisitEnded):
    """The caller hung up (end of input, or the connection broke)."""


class LineNoise(VisitEnded):
    """Nothing but noise came from the caller for :data:`NOISE_LIMIT` bytes."""

    farewell = N_("Only noise came down the line. Goodbye.")

    def __init__(self) -> None:
        super().__init__(f"{NOISE_LIMIT} bytes of input that did nothing")


class ByteReader(Protocol):
    """Where the caller's bytes come from: ``read`` returns b"" at the end."""

    async def read(self, n: int) -> bytes: ...


class ByteWriter(Protocol):
    """Where bytes for the caller go."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


def last_words(lines: Sequence[str], width: int, height: int) -> str:
    """What puts a hang-up's ``lines`` on an ANSI screen ``width`` by ``height`` as the
    goodbye is put: from :data:`MESSAGE_COLUMN`, the last ending on the prompt's row (the last
    but one), the rows from the old message's down cleared first; then the cursor on the
    bottom row, clean.

    >>> last_words(["No input for 5 minutes. Goodbye."], 80, 24)
    '\\x1b[21;1H\\x1b[J\\x1b[23;2HNo input for 5 minutes. Goodbye.\\x1b[24;1H'
    >>> last_words(["Two lines", "of words."], 80, 24)
    '\\x1b[21;1H\\x1b[J\\x1b[22;2HTwo lines\\x1b[23;2Hof words.\\x1b[24;1H'
    """
    room = max(1, width - MESSAGE_COLUMN + 1)  # a longer line goes on, wrapped, below
    taken = [-(-len(line) // room) or 1 for line in lines]
    prompt = height - 1
    row = max(1, prompt - sum(taken) + 1)
    text = move(max(1, min(row, prompt - 2)), 1) + clear_to_end_of_screen()
    for line, rows in zip(lines, taken, strict=True):
        text += move(row, MESSAGE_COLUMN) + line
        row += rows
    return text + move(height, 1)


def _soonest(*waits: float | None) -> float | None:
    """The shortest of the waits that are set (none below 0), or None if none is: a
    function, so that no list of them lives on in a caller's waiting coroutine.

    >>> _soonest(30.0, None, -0.1), _soonest(None, None)
    (0.0, None)
    """
    known = [max(0.0, wait) for wait in waits if wait is not None]
    return min(known) if known else None


def _columns(char: str) -> int:
    """Screen columns a printable character takes (East Asian wide ones take two)."""
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


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
    raised. ``deadline`` (a time on ``clock``, or None) ends the visit with
    :class:`TimeUp`, after warnings at :data:`TIME_WARNINGS` seconds before it, once the
    caller has :attr:`logged_in`. Both are :attr:`clocks`, whose limits may change as the
    call goes on, on ``clock`` (a test's, moved on by hand, for the real one). Warnings are
    given while the caller is waiting at input, or at the next :meth:`flush`. End of input
    raises :class:`CallerGone`. Set :attr:`on_notice` to show warnings some other way (on
    a screen's message row, nothing scrolled): it gets the message and returns the text to
    send, which leaves the cursor at the end of the prompt, in the colours of the caller's
    typing; what they have typed is written again after it.
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
        clock: Clock = MONOTONIC,
    ) -> None:
        self._clock = clock
        self._reader = reader
        self._writer = writer
        self._info = info
        #: The idle and time-left clocks: the sysop's reload may change their limits.
        self.clocks = Clocks(
            idle_timeout=idle_timeout,
            idle_warning=idle_warning,
            deadline=deadline,
            time_warnings=time_warnings,
            clock=clock,
        )
        self.echo = echo
        #: Whether the caller has logged in: time-left warnings are given from then on
        #: (before, the log-in limit comes first).
        self.logged_in = False
        #: The catalog the caller reads the door in (:mod:`door.words`): what is written to
        #: them from another task than their visit's (the sysop's message, the door going
        #: down) is said in it, with :func:`~door.words.speaking`.
        self.words: NullTranslations = ENGLISH_WORDS
        #: Gets every chunk of output sent, and its charset (a sysop watching), when set.
        self.on_output: Callable[[bytes, str], None] | None = None
        self.on_notice: Callable[[str], str] | None = None
        #: Called when the window's size changes, to draw the screen shown again for it
        #: (writing it with :meth:`write`); what the caller has typed is written after.
        self.on_resize: Callable[[], None] | None = None
        self._drain_timeout = drain_timeout
        # One timer each for the waits for keys and for the line to take output, kept
        # from wait to wait (see door.net.alarm).
        self._input_alarm = Alarm(clock)
        self._output_alarm = Alarm(clock)
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
        self._noise = 0  # bytes read since the last key that did something
        self._answered = False
        #: Called once, when the caller first answers (a worker tells its front).
        self.on_answer: Callable[[], None] | None = None
        #: Whether the door may act on one more of the caller's commands now.
        self.pace = CommandPace(clock.now)

    @property
    def answered(self) -> bool:
        """Whether the caller has answered anything yet (a line, or a key asked for)."""
        return self._answered

    @answered.setter
    def answered(self, value: bool) -> None:
        if value and not self._answered and self.on_answer is not None:
            self.on_answer()
        self._answered = value

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

    async def detect(
        self,
        *,
        term_type: str = "",
        size: tuple[int, int] | None = None,
        timeout: float = DETECT_TIMEOUT,
    ) -> TerminalInfo:
        """Find out whether the terminal speaks ANSI, and choose its charset.

        Sends ``ESC[6n`` and waits up to ``timeout`` seconds for a cursor position report
        (see :func:`~door.net.detection.answers_ansi`). ``term_type`` (telnet TTYPE) picks the
        charset, ``size`` (NAWS ``(width, height)``) the reported size. Sets and returns
        :attr:`info`.
        """
        ansi = await answers_ansi(self._send_now, self._read, timeout)
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
        """Find out which suits the caller's screen really draws, by drawing them, never in
        view (see :func:`~door.net.detection.probe_suits`). Sets :attr:`info`; returns
        whether the screen answered at all (one that did not gets suits as letters).
        """
        charset, letters, answered = await probe_suits(
            self._send_now, self._read, self.charset, timeout
        )
        self.info = replace(self._info, charset=charset, suit_letters=letters)
        return answered

    def resize(self, width: int, height: int) -> None:
        """The window is ``width`` x ``height`` now (NAWS, SSH's window change, RLOGIN's
        message): the screen shown is drawn again for it (:attr:`on_resize`), at once if the
        caller waits at a prompt, else with the door's next output. A size not believable
        (see :func:`~door.net.detection.screen_size`) leaves the size as it was."""
        if size_believable(width, height) is None:
            return
        if (width, height) == (self._info.width, self._info.height):
            return
        self._info = replace(self._info, width=width, height=height)
        if self.on_resize is None or self._closed:
            return
        self.on_resize()
        self._emit(self._editing)
        self._send_while_waiting()

    async def _send_now(self, data: bytes) -> None:
        self._out += data
        await self.flush(check_time=False)

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
        if check_time:
            try:
                with speaking(self.words):
                    warning = self.clocks.time_left_warning(logged_in=self.logged_in)
            except TimeUp:
                self._out.clear()
                raise
            if warning is not None:
                self._notice(warning)
        if not self._out or self._closed:
            return
        data = bytes(self._out)
        self._out.clear()
        try:
            self._writer.write(data)
            self._mirror(data)
            with self._output_alarm.until(self._clock.now() + self._drain_timeout):
                await self._writer.drain()
        except (OSError, EOFError) as error:  # TimeoutError is an OSError
            raise CallerGone() from error

    async def hang_up(self, message: str = "", *, timeout: float = 5.0) -> None:
        """Say ``message`` (if any) where the door's goodbye goes, then close; never raises.

        Its lines start in the column every line of the door's screens starts in
        (:data:`MESSAGE_COLUMN`). On an ANSI screen the last ends on the prompt's row, the
        old message above it taken away; the caller's colours are reset and the cursor shown
        and put on the bottom row, on a clean line, so what comes next (the BBS, or the
        sysop's shell) starts there, with no scrolling that would push the door's last
        screen away. A plain caller gets them on lines of their own.
        """
        if self._closed:
            return
        if self._mouse_asked:  # however the visit ended, the terminal stops reporting clicks
            self.report_mouse(False)
        lines = message.split("\r\n") if message else []
        indent = " " * (MESSAGE_COLUMN - 1)
        if self.ansi:
            self.write(reset() + show_cursor())
            if lines:
                self.write(last_words(lines, self._info.width, self._info.height))
            else:
                self.write(move(self._info.height, 1) + clear_to_end_of_line())
        elif lines:
            self.write("\r\n" + "".join(f"{indent}{line}\r\n" for line in lines))
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
            self.on_resize = None  # it holds the visit, which holds this terminal
            self._out.clear()
            self._input_alarm.cancel()
            self._output_alarm.cancel()
            self._writer.close()

    def tell(self, message: str) -> None:
        """Show ``message`` (from the sysop) as a notice, without disturbing the caller's
        typing: at once if they are waiting at a prompt, else with the door's next output."""
        self._notice(message)
        self._send_while_waiting()

    def _send_while_waiting(self) -> None:
        """Send what is queued now if the caller waits at input (nothing else would), else
        leave it to the visit's next flush."""
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
        if self.on_output is not None:
            self.on_output(data, self.charset)

    def _emit(self, text: str) -> None:
        """Queue text that is not part of the door's page (echo, warnings)."""
        self._out += self._encode(text)

    def _encode(self, text: str) -> bytes:
        """``text`` in the caller's charset; CP437's control-range glyphs (the suits, ►) as
        ASCII stand-ins unless the screen was seen drawing them."""
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
    def prompt(self) -> str:
        """The prompt the caller is at, as written since the last line break ('' when it was
        drawn with escape sequences), to write again under a notice."""
        return self._tail

    def _notice(self, message: str) -> None:
        """Show a notice: by :attr:`on_notice`, or on a line of its own under which the
        prompt is written again; then what the caller has typed, again after the prompt."""
        if self.on_notice is not None:
            shown = self.on_notice(message)
        else:
            shown = f"\r\n{message}\r\n{self._tail}"
        self._emit(shown + self._editing)

    # --- input -----------------------------------------------------------------------------

    async def read_line(
        self,
        max_length: int = 60,
        *,
        echo: bool = True,
        mask: bool = False,
        skip_blank: bool = False,
    ) -> str:
        """Read a line the caller types, with the editing keys of a BBS.

        Backspace and DEL erase a character, Ctrl-U the whole line; arrow and function keys
        are ignored, as are other control characters. Characters past ``max_length`` are
        dropped (with one bell). ``mask`` echoes ``*`` (passwords); ``echo=False`` echoes
        nothing. The Enter that ends the line is echoed as CR LF. With ``skip_blank``, an
        Enter on a line of nothing but spaces is no answer: the spaces are wiped and the
        caller stays at the prompt, at no cost of asking again.
        """
        shown = echo and self.echo
        chars: list[str] = []
        rang = False
        since = self._clock.now()
        try:
            while True:
                key = await self._next_key(since)
                if key == ENTER and skip_blank and not "".join(chars).strip():
                    while chars:  # spaces alone: wiped, and the caller is asked on
                        self._erase(chars.pop(), shown, mask)
                    continue  # an Enter alone answers nothing: noise, if it goes on
                if key == ENTER:
                    self._active()
                    self.answered = True
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
                elif isinstance(key, str) and len(key) == 1 and printable(key):
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
        since = self._clock.now()
        while True:
            key = await self._next_key(since)
            if key == ENTER:
                self._active()
                self.answered = True
                return ENTER
            if isinstance(key, str) and len(key) == 1 and printable(key):
                self._active()
                self.answered = True
                self.expect_enter()
                return key.upper()

    def read_event(self, timeout: float | None = None) -> Awaitable[Key | None]:
        """The next key of any kind (see :class:`KeyParser`); None if ``timeout`` seconds
        pass first. Nothing is echoed.

        On the board every key moves, picks up or plays, so each restarts the idle clock.
        (Not a coroutine of its own: one less object alive per caller waiting at the board,
        for every young collection to look at.)
        """
        return self._next_key(self._clock.now(), timeout, any_key_counts=True)

    def keys_waiting(self) -> bool:
        """Whether keys the caller sent are already here, unread (a line sent at once)."""
        return bool(self._keys)

    def expect_enter(self, grace: float = ENTER_GRACE) -> None:
        """A key has just done its work: an Enter right behind it (already here, or coming
        within ``grace`` seconds) is swallowed."""
        self._swallow_until = self._clock.now() + grace

    def _show_typed(self, char: str) -> None:
        self._emit(char)
        self._editing += char

    def _erase(self, char: str, shown: bool, mask: bool) -> None:
        if not shown:
            return
        width = 1 if mask else _columns(char)
        self._emit("\b \b" * width)
        self._editing = self._editing[:-1]

    async def _next_key(
        self, waiting_since: float, timeout: float | None = None, *, any_key_counts: bool = False
    ) -> Key | None:
        """The next key, after flushing output; checks the clocks while waiting.

        The idle time runs from ``waiting_since`` (when the door began to wait) or the last
        key that changed something (:meth:`_active`), whichever is later: keys that change
        nothing (Ctrl-U on an empty line, an arrow at a prompt) do not keep a caller on,
        unless ``any_key_counts``. Returns None when ``timeout`` (None: no limit) seconds
        pass without a key.
        """
        started = self._clock.now()
        while True:
            while self._keys:
                key, came = self._keys.popleft()
                swallow = key == ENTER and came <= self._swallow_until
                self._swallow_until = 0.0
                if not swallow:
                    if any_key_counts:
                        self._active()
                    return key
            now = self._clock.now()
            if timeout is not None and now - started >= timeout:
                return None
            idle_since = max(self.clocks.last_key, waiting_since)
            self._check_clocks(idle_since)
            await self.flush(check_time=False)
            wait = _soonest(
                self.clocks.until_next_check(idle_since, logged_in=self.logged_in),
                None if timeout is None else timeout - (now - started),
                None if self._escape_since is None else self._escape_since + ESCAPE_WAIT - now,
            )
            self._at_input = True
            try:
                data = await self._read_until(None if wait is None else now + wait)
            finally:
                self._at_input = False
            now = self._clock.now()
            if data is not None:
                self._noise += len(data)
                if self._noise > NOISE_LIMIT:
                    raise LineNoise()
                self._keys.extend(zip(self._parser.feed(data), repeat(now)))
                if not self._parser.holding_escape:
                    self._escape_since = None
                elif self._escape_since is None:
                    self._escape_since = now
            elif self._escape_since is not None and now >= self._escape_since + ESCAPE_WAIT:
                self._keys.extend(zip(self._parser.expire(), repeat(now)))
                self._escape_since = None

    def _active(self) -> None:
        """The caller pressed a key that did something: the idle time starts again, and
        what came before was not noise."""
        self.clocks.key_pressed()
        self._noise = 0

    def _read(self, timeout: float | None) -> Awaitable[bytes | None]:
        """Some bytes from the caller, or None if ``timeout`` seconds pass first."""
        return self._read_until(None if timeout is None else self._clock.now() + timeout)

    async def _read_until(self, deadline: float | None) -> bytes | None:
        """Some bytes from the caller, or None if the ``deadline`` on the clock
        (None: none) comes first."""
        if self._closed:
            raise CallerGone()
        try:
            with self._input_alarm.until(deadline):
                data = await self._reader.read(_READ_SIZE)
        except TimeoutError as error:
            if self._input_alarm.rang:
                return None
            raise CallerGone() from error
        except (OSError, EOFError) as error:
            raise CallerGone() from error
        if not data:
            raise CallerGone()
        return data

    # --- time ------------------------------------------------------------------------------

    def _check_clocks(self, idle_since: float) -> None:
        """Give the warnings that are due, in the caller's language; raise when time or
        patience has run out."""
        with speaking(self.words):
            warning = self.clocks.time_left_warning(logged_in=self.logged_in)
            if warning is not None:
                self._notice(warning)
            warning = self.clocks.idle_warning_due(idle_since)  # raises IdleTimeout when due
            if warning is not None:
                self._notice(warning)
