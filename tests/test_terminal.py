"""The terminal: charset choice, detection, the line editor, keys, time and idle checks.

A Terminal takes any byte reader and writer; here the reader is an ``asyncio.StreamReader``
fed by the test (each ``type`` is one packet) and the writer keeps what was sent.
"""

from __future__ import annotations

import asyncio
import time

import pyte
import pytest

from door.net.clocks import IdleTimeout, TimeUp, describe_seconds
from door.net.detection import UNKNOWN_TERMINAL, TerminalInfo, choose_charset, screen_size
from door.net.terminal import NOISE_LIMIT, CallerGone, LineNoise, Terminal
from tests.support.stepped_clock import SteppedClock

WAIT = 5.0


class Line:
    """Both ends of a caller's connection, in memory."""

    def __init__(self) -> None:
        self.reader = asyncio.StreamReader()
        self.sent = bytearray()
        self.closed = False

    # the writer's side
    def write(self, data: bytes) -> None:
        self.sent += data

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    # the caller's side
    def type(self, data: bytes) -> None:
        self.reader.feed_data(data)

    def hang_up(self) -> None:
        self.reader.feed_eof()

    def screen(self) -> list[str]:
        screen = pyte.Screen(80, 24)
        pyte.ByteStream(screen).feed(bytes(self.sent))
        return [line.rstrip() for line in screen.display if line.strip()]


ANSI_UTF8 = TerminalInfo("xterm", 80, 24, True, "utf-8")


def make(
    info: TerminalInfo = ANSI_UTF8, logged_in: bool = True, **options: object
) -> tuple[Terminal, Line]:
    """A terminal on a fake line; its caller has logged in, unless not ``logged_in``."""
    line = Line()
    terminal = Terminal(line.reader, line, info, **options)  # type: ignore[arg-type]
    terminal.logged_in = logged_in
    return terminal, line


async def read_line(terminal: Terminal, **options: object) -> str:
    return await asyncio.wait_for(terminal.read_line(**options), WAIT)  # type: ignore[arg-type]


# --- what the terminal is ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("term_type", "charset"),
    [
        ("syncterm", "cp437"),
        ("SyncTERM", "cp437"),
        ("ANSI", "cp437"),
        ("ansi-bbs", "cp437"),
        ("PCANSI", "cp437"),
        ("ansi-256color", "cp437"),
        ("cp437", "cp437"),
        ("xterm", "utf-8"),
        ("XTERM-256COLOR", "utf-8"),
        ("linux", "utf-8"),
        ("screen.xterm-256color", "utf-8"),
        ("tmux-256color", "utf-8"),
        ("rxvt-unicode", "utf-8"),
        ("vt100", "ascii"),
        ("VT220", "ascii"),
    ],
)
def test_charset_by_terminal_type(term_type: str, charset: str) -> None:
    assert choose_charset(term_type, ansi=True) == charset
    assert choose_charset(term_type, ansi=False) == charset


def test_charset_of_an_unknown_terminal_follows_ansi() -> None:
    assert choose_charset("", ansi=True) == "cp437"
    assert choose_charset("unknown", ansi=False) == "ascii"


@pytest.mark.parametrize(
    ("size", "kept"),
    [
        ((80, 25), (80, 25)),
        ((132, 50), (132, 50)),
        ((0, 0), (80, 24)),
        ((1, 1), (80, 24)),
        ((65535, 65535), (80, 24)),
        ((80, 0), (80, 24)),
        (None, (80, 24)),
    ],
)
def test_screen_size(size: tuple[int, int] | None, kept: tuple[int, int]) -> None:
    assert screen_size(size) == kept


def test_describe_seconds() -> None:
    assert [describe_seconds(s) for s in (0.2, 2, 59.5, 90, 120, 299.9)] == [
        "1 second",
        "2 seconds",
        "1 minute",
        "90 seconds",
        "2 minutes",
        "5 minutes",
    ]


# --- detection -----------------------------------------------------------------------------


async def test_detect_ansi_from_the_position_report() -> None:
    terminal, line = make(UNKNOWN_TERMINAL)
    line.type(b"\x1b[12;40R")
    info = await terminal.detect(term_type="syncterm", size=(80, 25), timeout=WAIT)
    assert info == TerminalInfo("syncterm", 80, 25, True, "cp437")
    assert terminal.info == info
    assert line.sent == b"\x1b[6n"


async def test_detect_accepts_zero_zero_and_a_report_in_pieces() -> None:
    terminal, line = make(UNKNOWN_TERMINAL)
    line.type(b"x\x1b[0")
    asyncio.get_running_loop().call_later(0.05, line.type, b";0Ry\r\n")
    info = await terminal.detect(timeout=WAIT)
    assert (info.term_type, info.ansi, info.charset) == ("unknown", True, "cp437")
    line.type(b"ok\r")
    assert await read_line(terminal) == "ok"  # nothing from detection became a line


async def test_detect_without_an_answer_is_plain_ascii() -> None:
    terminal, line = make(UNKNOWN_TERMINAL)
    started = time.monotonic()
    info = await terminal.detect(term_type="", size=(0, 0), timeout=0.2)
    assert time.monotonic() - started >= 0.2
    assert info == TerminalInfo("unknown", 80, 24, False, "ascii")
    await terminal.flush()
    assert line.sent == b"\x1b[6n\r        \r"


async def test_detect_keeps_the_charset_of_a_known_type_without_ansi() -> None:
    terminal, _ = make(UNKNOWN_TERMINAL)
    info = await terminal.detect(term_type="xterm", timeout=0.05)
    assert (info.ansi, info.charset) == (False, "utf-8")


async def test_hang_up_during_detection() -> None:
    terminal, line = make(UNKNOWN_TERMINAL)
    line.hang_up()
    with pytest.raises(CallerGone):
        await terminal.detect(timeout=WAIT)


# --- output --------------------------------------------------------------------------------


async def test_write_encodes_in_the_current_charset() -> None:
    terminal, line = make()
    terminal.write("7♥")
    terminal.charset = "cp437"
    terminal.write("7♥")
    terminal.charset = "ascii"
    terminal.write("7♥")
    await terminal.flush()
    assert line.sent == b"7\xe2\x99\xa5" + b"7\x03" + b"7H"
    assert terminal.info.charset == "ascii"
    with pytest.raises(ValueError, match="charset"):
        terminal.charset = "latin-1"


async def test_output_waits_for_flush() -> None:
    terminal, line = make()
    terminal.write("hello")
    assert line.sent == b""
    await terminal.flush()
    assert line.sent == b"hello"


async def test_hang_up_says_goodbye_and_closes() -> None:
    terminal, line = make()
    await terminal.hang_up("Goodbye.")
    # Where the door's goodbye goes: on its last row but one, from the second column, the
    # old message's rows cleared; the cursor then on its last row: nothing scrolls.
    assert line.sent == b"\x1b[0m\x1b[?25h\x1b[21;1H\x1b[J\x1b[23;2HGoodbye.\x1b[24;1H"
    assert line.closed
    terminal.ansi = False
    await terminal.hang_up("again")  # a second hang-up does nothing
    assert line.sent.count(b"Goodbye.") == 1 and b"again" not in line.sent


# --- the line editor -----------------------------------------------------------------------


async def test_line_with_echo() -> None:
    terminal, line = make()
    terminal.write("Name: ")
    line.type(b"Bob\r\n")
    assert await read_line(terminal) == "Bob"
    await terminal.flush()
    assert line.sent == b"Name: Bob\r\n"


@pytest.mark.parametrize(
    ("typed", "result"),
    [
        (b"abc\x08d\r", "abd"),
        (b"abc\x7f\x7f\x7f\x7fd\r", "d"),  # erasing past the start does nothing
        (b"abc\x15de\r", "de"),
        (b"a\x1b[Ab\x1b[1;5Cc\x1bOBd\x1b[15~e\x1b[[Af\x1b[200~g\r", "abcdefg"),
        (b"ab\x1b\r", "ab"),  # ESC then Enter: still Enter
        (b"\x1bq\r", "q"),  # a lone ESC does not eat the next key
        (b"\x00a\x01\x02b\x07\x09c\x1f\r", "abc"),
        (b"a\xffb\xc3(c\r", "ab(c"),  # invalid UTF-8 is dropped
    ],
)
async def test_editing_keys(typed: bytes, result: str) -> None:
    terminal, line = make()
    line.type(typed)
    assert await read_line(terminal) == result


async def test_erasing_shows_on_the_screen() -> None:
    terminal, line = make()
    terminal.write("> ")
    line.type(b"hello\x08\x08\x08i\r")
    assert await read_line(terminal) == "hei"
    await terminal.flush()
    assert line.screen() == ["> hei"]


@pytest.mark.parametrize("ending", [b"\r\n", b"\r\x00", b"\r", b"\n"])
async def test_line_endings(ending: bytes) -> None:
    terminal, line = make()
    line.type(b"one" + ending + b"two" + ending)
    assert await read_line(terminal) == "one"
    assert await read_line(terminal) == "two"


async def test_cr_lf_split_across_packets_is_one_line_end() -> None:
    terminal, line = make()
    line.type(b"one\r")
    assert await read_line(terminal) == "one"
    line.type(b"\ntwo\r")
    assert await read_line(terminal) == "two"
    line.type(b"\x00three\r")
    assert await read_line(terminal) == "three"
    line.type(b"\n\n")  # the first LF ends the CR LF; the second is a line of its own
    assert await read_line(terminal) == ""


async def test_utf8_split_across_packets() -> None:
    terminal, line = make()
    line.type(b"caf\xc3")
    reading = asyncio.create_task(terminal.read_line())
    await asyncio.sleep(0)
    line.type(b"\xa9\r")
    assert await asyncio.wait_for(reading, WAIT) == "café"


async def test_cp437_input() -> None:
    terminal, line = make(TerminalInfo("syncterm", 80, 24, True, "cp437"))
    line.type(b"caf\x82\r")
    assert await read_line(terminal) == "café"
    await terminal.flush()
    assert line.sent == b"caf\x82\r\n"


async def test_over_long_line_is_cut_and_rings_once() -> None:
    terminal, line = make()
    line.type(b"x" * 3000)  # a runaway paste, short of noise
    line.type(b"\r")
    assert await read_line(terminal, max_length=20) == "x" * 20
    await terminal.flush()
    assert line.sent == b"x" * 20 + b"\a\r\n"


async def test_a_line_of_nothing_but_noise_ends_the_call() -> None:
    # Whatever way the caller came (SSH, a BBS's door): characters past the field, and no
    # Enter, for longer than any paste.
    terminal, line = make()
    line.type(b"x" * (2 * NOISE_LIMIT))
    with pytest.raises(LineNoise):
        await read_line(terminal, max_length=20)


async def test_erasing_a_full_line_lets_typing_resume() -> None:
    terminal, line = make()
    line.type(b"abcdef\x08gh\r")
    assert await read_line(terminal, max_length=4) == "abcg"


async def test_masked_line() -> None:
    terminal, line = make()
    line.type(b"secret\x08\r")
    assert await read_line(terminal, mask=True) == "secre"
    await terminal.flush()
    assert line.sent == b"******\x08 \x08\r\n"


async def test_no_echo() -> None:
    terminal, line = make()
    line.type(b"quiet\r")
    assert await read_line(terminal, echo=False) == "quiet"
    terminal.echo = False  # the client echoes for itself
    line.type(b"loud\r")
    assert await read_line(terminal) == "loud"
    await terminal.flush()
    assert line.sent == b""


async def test_wide_characters_erase_two_columns() -> None:
    terminal, line = make()
    line.type("漢\x08\r".encode())
    assert await read_line(terminal) == ""
    await terminal.flush()
    assert line.sent == "漢".encode() + b"\x08 \x08\x08 \x08\r\n"


async def test_hang_up_mid_line() -> None:
    terminal, line = make()
    line.type(b"half a li")
    line.hang_up()
    with pytest.raises(CallerGone):
        await read_line(terminal)


async def test_broken_connection_is_caller_gone() -> None:
    terminal, line = make()
    line.reader.set_exception(ConnectionResetError("reset by peer"))
    with pytest.raises(CallerGone):
        await read_line(terminal)


# --- keys ----------------------------------------------------------------------------------


async def test_read_key() -> None:
    terminal, line = make()
    line.type(b"q\x1b[A\x1bOP\x08z\r\n\x00x\n\r\r")
    keys = [await asyncio.wait_for(terminal.read_key(), WAIT) for _ in range(4)]
    # The Enter right behind a key is that key's line end, swallowed; later ones count.
    assert keys == ["Q", "Z", "X", "\r"]
    await terminal.flush()
    assert line.sent == b""  # keys are not echoed


# --- idle and time -------------------------------------------------------------------------


async def test_idle_warning_then_timeout() -> None:
    clock = SteppedClock()
    terminal, line = make(idle_timeout=300, idle_warning=60, clock=clock)
    terminal.write("Name: ")
    line.type(b"Jo")
    reading = asyncio.ensure_future(terminal.read_line())
    await clock.advance(239)
    assert line.sent == b"Name: Jo"
    await clock.advance(1)
    assert line.sent == (
        b"Name: Jo\r\nAre you still there? You will be disconnected in 1 minute.\r\nName: Jo"
    )
    await clock.advance(59)
    assert not reading.done()
    await clock.advance(1)
    with pytest.raises(IdleTimeout) as ended:
        await asyncio.wait_for(reading, WAIT)
    assert ended.value.farewell == "No input for 5 minutes. Goodbye."


async def test_typing_keeps_the_caller_from_idling_out() -> None:
    clock = SteppedClock()
    terminal, line = make(idle_timeout=100, idle_warning=50, clock=clock)
    reading = asyncio.ensure_future(terminal.read_line())
    for key in (b"a", b"b", b"c", b"\r"):
        await clock.advance(40)
        line.type(key)
    assert await asyncio.wait_for(reading, WAIT) == "abc"
    await terminal.flush()
    assert b"still there" not in line.sent


async def test_the_idle_clock_still_runs_out_after_many_keys() -> None:
    # The wait's timer, set at the first key for the first deadline, goes off early once
    # the keys have moved the deadline on, and is set again for the new one.
    clock = SteppedClock()
    terminal, line = make(idle_timeout=60, idle_warning=30, clock=clock)

    async def read_events() -> None:
        while True:
            await terminal.read_event()

    reading = asyncio.ensure_future(read_events())
    for _ in range(8):
        await clock.advance(10)
        line.type(b"x")
    await clock.advance(59)  # 60 seconds after the last key, not the first
    assert not reading.done()
    await clock.advance(1)
    with pytest.raises(IdleTimeout):
        await asyncio.wait_for(reading, WAIT)
    assert line.sent.count(b"still there") == 1


def _timers() -> int:
    """Timers in this test's event loop's queue, cancelled ones too (those of other tests'
    loops, still running in threads of their own, are not this terminal's)."""
    return len(asyncio.get_running_loop()._scheduled)  # type: ignore[attr-defined]


async def test_waiting_for_keys_keeps_one_timer() -> None:
    # A timer a wait, cancelled, stays in the event loop's queue until its time comes or
    # the queue is mostly such timers: with an idle limit of minutes and other callers'
    # timers due sooner, about a thousand of them at a thousand callers.
    terminal, line = make(idle_timeout=600, idle_warning=60)
    another_callers_clock = asyncio.get_running_loop().call_later(300, lambda: None)
    await terminal.read_event(timeout=0)
    before = _timers()
    for _ in range(50):
        line.type(b"x")
        await terminal.read_event()
        terminal.write("board")
        await terminal.flush()
        await asyncio.sleep(0)
    assert _timers() - before <= 2
    terminal.close()
    another_callers_clock.cancel()


class _StuckLine(Line):
    """A line that takes no more output: the caller's client stopped reading."""

    async def drain(self) -> None:
        await asyncio.Event().wait()


async def test_a_caller_who_takes_no_output_is_gone() -> None:
    line, clock = _StuckLine(), SteppedClock()
    terminal = Terminal(line.reader, line, ANSI_UTF8, clock=clock)  # type: ignore[arg-type]
    terminal.write("a board")
    flushing = asyncio.ensure_future(terminal.flush())
    await clock.advance(29)
    assert not flushing.done()
    await clock.advance(1)
    with pytest.raises(CallerGone):
        await asyncio.wait_for(flushing, WAIT)


async def test_a_cancelled_wait_for_a_key_stays_cancelled() -> None:
    # The door shutting down cancels each visit: a wait with a deadline must not take the
    # cancellation for its own time running out.
    terminal, _ = make(idle_timeout=600, idle_warning=60)
    waiting = asyncio.create_task(terminal.read_event(timeout=0.05))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert await terminal.read_event(timeout=0.05) is None


async def test_time_warnings_then_time_up() -> None:
    clock = SteppedClock()
    terminal, line = make(clock=clock)
    terminal.clocks.deadline = clock.now() + 400
    terminal.write("> ")
    reading = asyncio.ensure_future(terminal.read_line())
    await clock.advance(99)
    assert line.sent == b"> "
    await clock.advance(1)
    assert line.sent == b"> \r\nYou have 5 minutes left.\r\n> "
    await clock.advance(180)
    assert line.sent.endswith(b"> \r\nYou have 2 minutes left.\r\n> ")
    await clock.advance(119)
    assert not reading.done()
    await clock.advance(1)
    with pytest.raises(TimeUp) as ended:
        await asyncio.wait_for(reading, WAIT)
    assert ended.value.farewell == "Your time is up. Your game is saved. Goodbye."
    await terminal.flush(check_time=False)
    assert line.sent.count(b"left.") == 3


async def test_no_time_warnings_before_logging_in() -> None:
    clock = SteppedClock()
    terminal, line = make(logged_in=False, clock=clock)
    terminal.clocks.deadline = clock.now() + 400
    reading = asyncio.ensure_future(terminal.read_line())
    await clock.advance(400)
    with pytest.raises(TimeUp):
        await asyncio.wait_for(reading, WAIT)
    assert b"left." not in line.sent


async def test_a_short_deadline_gets_one_warning_not_three() -> None:
    terminal, line = make()
    terminal.clocks.deadline = time.monotonic() + 100
    terminal.write("Board\r\n")
    await terminal.flush()
    assert line.sent == b"Board\r\n\r\nYou have 100 seconds left.\r\n"
    await terminal.flush()
    assert line.sent.count(b"left.") == 1


async def test_flush_after_the_deadline_is_time_up() -> None:
    terminal, line = make()
    terminal.clocks.deadline = time.monotonic() - 1
    terminal.write("too late")
    with pytest.raises(TimeUp):
        await terminal.flush()
    await terminal.hang_up(TimeUp.farewell)
    assert b"too late" not in line.sent
    assert line.sent.endswith(b"\x1b[23;2HYour time is up. Your game is saved. Goodbye.\x1b[24;1H")


async def test_notices_can_be_drawn_elsewhere() -> None:
    clock = SteppedClock()
    terminal, line = make(idle_timeout=300, idle_warning=60, clock=clock)
    terminal.on_notice = lambda message: f"\x1b7\x1b[24;1H{message}\x1b8"
    reading = asyncio.ensure_future(terminal.read_line())
    await clock.advance(300)
    with pytest.raises(IdleTimeout):
        await asyncio.wait_for(reading, WAIT)
    assert line.sent == (
        b"\x1b7\x1b[24;1HAre you still there? You will be disconnected in 1 minute.\x1b8"
    )
