"""The screen buffer, checked the way a caller sees it: through a terminal emulator (pyte)."""

from __future__ import annotations

import gc
import random
import re
import tracemalloc
from collections.abc import Callable

import pyte
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansi.charset import CHARSETS, decode, encode
from ansi.screen import (
    _SHARED_ROWS,
    BLANK,
    DEFAULT_STYLE,
    ScreenBuffer,
    Style,
    _as_row,
    _cell,
    _let_go_of_unused_rows,
    shared_row,
)
from ansi.sequences import BLACK, BLUE, CYAN, GREEN, RED, WHITE, YELLOW

WIDTH, HEIGHT = 80, 24
PYTE_COLOURS = ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")


class RecordingScreen(pyte.Screen):
    """A pyte screen that remembers every cell a character was drawn in, and any scroll."""

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self.drawn_at: set[tuple[int, int]] = set()
        self.scrolled = False

    def draw(self, data: str) -> None:
        for char in data:
            row, col = self.cursor.y, self.cursor.x
            if col == self.columns:  # pending wrap: the character lands on the next row
                row, col = row + 1, 0
            self.drawn_at.add((row, col))
            super().draw(char)

    def index(self) -> None:
        if self.cursor.y == self.lines - 1:
            self.scrolled = True
        super().index()


class Terminal:
    """A caller's terminal using ``charset``: encoded bytes go in, a screen comes out."""

    def __init__(self, charset: str, width: int = WIDTH, height: int = HEIGHT) -> None:
        self.charset = charset
        self.screen = RecordingScreen(width, height)
        self._text_stream = pyte.Stream(self.screen)
        self._byte_stream = pyte.ByteStream(self.screen)
        self.sent: list[bytes] = []
        self.known_cursor: tuple[int, int] | None = None  # where the door knows the cursor is

    def receive(self, text: str) -> int:
        """Send ``text`` down the wire; return how many bytes it took."""
        data = encode(text, self.charset)
        self.sent.append(data)
        if self.charset == "cp437":
            # A CP437 terminal draws the glyphs for 0x01-0x1F; pyte would not.
            self._text_stream.feed(decode(data, "cp437", glyphs=True))
        else:
            self._byte_stream.feed(data)
        return len(data)

    def row_text(self, row: int) -> str:
        return self.screen.display[row - 1]


def shown_as(text: str, charset: str) -> str:
    """``text`` as a terminal using ``charset`` draws it."""
    if charset == "utf-8":
        return text
    return decode(encode(text, charset), charset, glyphs=True)


def assert_terminal_shows(terminal: Terminal, buffer: ScreenBuffer) -> None:
    screen = terminal.screen
    for row in range(1, buffer.height + 1):
        assert terminal.row_text(row) == shown_as(buffer.text_at(row), terminal.charset), row
        for col in range(1, buffer.width + 1):
            char, style = buffer.cell_at(row, col)
            shown = screen.buffer[row - 1][col - 1]
            bg = "black" if shown.bg == "default" else shown.bg
            assert bg == PYTE_COLOURS[style.bg], (row, col)
            if char != " ":
                assert (shown.fg, shown.bold) == (PYTE_COLOURS[style.fg], style.bold), (row, col)
    assert (screen.cursor.y + 1, screen.cursor.x + 1) == buffer.cursor
    assert (buffer.height - 1, buffer.width - 1) not in screen.drawn_at
    assert not screen.scrolled
    assert not any(b"\x1b[M" in data for data in terminal.sent)


def board() -> ScreenBuffer:
    """A screen that looks like a game in progress."""
    buffer = ScreenBuffer()
    buffer.fill(1, 1, 1, WIDTH, " ", Style(WHITE, BLUE))
    buffer.put(1, 3, "Canfield", Style(YELLOW, BLUE, bold=True))
    buffer.put(3, 2, "┌───┐ ┌───┐ ┌───┐", Style(GREEN))
    for index, card in enumerate(["7♥", "Q♠", "A♦", "T♣"]):
        colour = RED if card[1] in "♥♦" else WHITE
        buffer.put(5 + index, 10, card, Style(colour, bold=True))
    buffer.put(23, 1, "Command: ", Style(CYAN))
    buffer.set_cursor(23, 10)
    return buffer


@pytest.mark.parametrize("charset", CHARSETS)
def test_full_render_shows_the_buffer(charset: str) -> None:
    buffer, terminal = board(), Terminal(charset)
    terminal.receive(buffer.render_full())
    assert_terminal_shows(terminal, buffer)
    assert terminal.row_text(5).startswith(shown_as("         7♥", charset))
    assert terminal.screen.cursor.hidden is False


def test_full_render_hides_the_cursor_while_drawing() -> None:
    output = board().render_full()
    assert output.startswith("\x1b[?25l")
    assert output.endswith("\x1b[?25h")


def test_changing_a_card_costs_few_bytes() -> None:
    buffer, terminal = board(), Terminal("cp437")
    terminal.receive(buffer.render_full())
    buffer.put(6, 10, "K♦ ", Style(RED, bold=True))  # three cells, a colour change
    cost = terminal.receive(buffer.render_changes())
    assert cost < 40
    assert_terminal_shows(terminal, buffer)


def test_nothing_changed_sends_nothing() -> None:
    buffer = board()
    buffer.render_full()
    assert buffer.render_changes() == ""
    buffer.put(5, 10, "7♥", Style(RED, bold=True))  # the same as already shown
    assert buffer.render_changes() == ""


def test_the_cursor_alone_can_move() -> None:
    buffer, terminal = board(), Terminal("utf-8")
    terminal.receive(buffer.render_full())
    buffer.set_cursor(24, 1)
    terminal.receive(buffer.render_changes())
    assert_terminal_shows(terminal, buffer)


def test_adjacent_changes_share_one_cursor_move() -> None:
    buffer = board()
    buffer.render_full()
    buffer.put(10, 20, "a b c", Style(RED))  # changed cells with unchanged blanks between
    output = buffer.render_changes()
    moves = re.findall(r"\x1b\[\d*;?\d*[HABCD]", output)
    assert len(moves) == 2  # one to the row, one back to the prompt
    assert len(re.findall(r"\x1b\[[\d;]*m", output)) == 2  # red, then the prompt's colour


def test_bottom_right_cell_is_never_written() -> None:
    buffer, terminal = ScreenBuffer(), Terminal("cp437")
    buffer.put(1, 1, "top row")
    buffer.fill(2, 1, HEIGHT - 1, WIDTH, "▓", Style(WHITE, RED))
    buffer.put(HEIGHT, WIDTH - 2, "xyz")
    assert buffer.cell_at(HEIGHT, WIDTH) == BLANK
    assert buffer.text_at(HEIGHT).endswith("xy ")
    terminal.receive(buffer.render_full())
    buffer.put(HEIGHT, WIDTH, "!")
    terminal.receive(buffer.render_changes())
    buffer.invalidate(HEIGHT)
    terminal.receive(buffer.render_changes())
    assert_terminal_shows(terminal, buffer)
    assert terminal.row_text(1).startswith("top row")


def test_invalidate_redraws_everything() -> None:
    buffer = board()
    buffer.render_full()
    buffer.invalidate()
    assert buffer.render_changes() == buffer.render_full()
    assert "\x1b[2J" in buffer.render_full()


def test_an_invalidated_row_is_repaired() -> None:
    buffer, terminal = board(), Terminal("utf-8")
    terminal.receive(buffer.render_full())
    terminal.receive("s3 f4 and more")  # the caller typing at the prompt, echoed
    buffer.invalidate(23)
    terminal.receive(buffer.render_changes())
    assert_terminal_shows(terminal, buffer)


def test_changes_after_typing_at_the_prompt() -> None:
    # The echo moves the cursor: the next render must not assume where it is.
    buffer, terminal = board(), Terminal("utf-8")
    terminal.receive(buffer.render_full())
    terminal.receive("v")
    buffer.put(23, 10, "v")
    buffer.put(5, 10, "8♣", Style(WHITE, bold=True))
    terminal.receive(buffer.render_changes())
    assert_terminal_shows(terminal, buffer)


def test_hidden_cursor() -> None:
    buffer, terminal = board(), Terminal("utf-8")
    buffer.set_cursor(1, 1, visible=False)
    terminal.receive(buffer.render_full())
    assert terminal.screen.cursor.hidden
    buffer.set_cursor(23, 10)
    terminal.receive(buffer.render_changes())
    assert not terminal.screen.cursor.hidden
    assert_terminal_shows(terminal, buffer)


def test_put_is_one_based_and_clipped() -> None:
    buffer = ScreenBuffer(10, 3)
    assert buffer.put(1, 1, "ab") == 3
    buffer.put(1, 8, "xyzw")
    buffer.put(2, -1, "..left")
    buffer.put(0, 1, "off the top")
    buffer.put(4, 1, "off the bottom")
    assert [buffer.text_at(row) for row in (1, 2, 3)] == ["ab     xyz", "left      ", " " * 10]


def test_each_character_takes_one_cell() -> None:
    buffer = ScreenBuffer(10, 2)
    buffer.put(1, 1, "日e\u0301x\x1b[2J\ufe0f")
    assert buffer.text_at(1) == "?éx?[2J   "


def test_plain_lines() -> None:
    buffer = board()
    lines = buffer.plain_lines()
    assert len(lines) == 23
    assert lines[0] == "  Canfield"
    assert lines[1] == ""
    assert lines[4] == "         7♥"
    assert lines[22] == "Command:"


def test_clear_and_fill() -> None:
    buffer = board()
    buffer.clear()
    assert buffer.plain_lines() == []
    buffer.fill(2, 3, 2, 4, "#")
    assert buffer.plain_lines() == ["", "  ####", "  ####"]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        ScreenBuffer(0, 24)
    with pytest.raises(ValueError):
        ScreenBuffer().set_cursor(25, 1)
    with pytest.raises(ValueError):
        ScreenBuffer().invalidate(0)
    with pytest.raises(ValueError):
        Style(fg=9)


# Random edits: whatever the door draws, the caller's screen ends up equal to the buffer.

CHARS = "ab XY7 ─│┌┐└┘┼═║╔╝░▓█▀♥♦♣♠éë—“€日\u0301\x1b\t"
styles = st.builds(Style, st.integers(0, 7), st.integers(0, 7), st.booleans())
rows = st.integers(1, HEIGHT)
cols = st.integers(1, WIDTH)
edits = st.one_of(
    st.tuples(
        st.just("put"),
        st.integers(0, HEIGHT + 1),
        st.integers(-3, WIDTH + 2),
        st.text(st.sampled_from(CHARS), max_size=12),
        styles,
    ),
    st.tuples(st.just("fill"), rows, cols, st.integers(0, 4), st.integers(0, 30), styles),
    st.tuples(st.just("cursor"), rows, cols, st.booleans(), styles),
    st.tuples(st.just("echo"), st.text(st.sampled_from("abc 123"), min_size=1, max_size=5)),
    st.tuples(st.just("line"), st.text(st.sampled_from("abc 123"), max_size=5)),
    st.tuples(st.just("invalidate"), st.one_of(st.none(), rows)),
    st.tuples(st.just("clear")),
    st.tuples(st.just("render")),
)


def apply(edit: tuple, buffer: ScreenBuffer, terminal: Terminal) -> None:
    match edit:
        case ("put", row, col, text, style):
            buffer.put(row, col, text, style)
        case ("fill", row, col, height, width, style):
            buffer.fill(row, col, height, width, "▒", style)
        case ("cursor", row, col, visible, style):
            buffer.set_cursor(row, col, visible=visible, style=style)
        case ("echo", typed):
            # Typed where the terminal's cursor is (the last render left it), up to the edge.
            row, col = terminal.screen.cursor.y + 1, terminal.screen.cursor.x + 1
            terminal.receive(typed[: buffer.width - col])
            buffer.invalidate(row)
            terminal.known_cursor = None
        case ("line", typed):
            # A line typed at the cursor and its Enter echoed: the door knows where that left
            # the cursor, and that the row is lost from where the typing began.
            row, col = terminal.screen.cursor.y + 1, terminal.screen.cursor.x + 1
            if row < buffer.height and col <= buffer.width:
                terminal.receive(typed[: buffer.width - col] + "\r\n")
                buffer.invalidate(row, col)
                terminal.known_cursor = (row + 1, 1)
        case ("invalidate", row):
            buffer.invalidate(row)
        case ("clear",):
            buffer.clear()
        case ("render",):
            if terminal.known_cursor is not None:
                buffer.cursor_is_at(*terminal.known_cursor)
            terminal.receive(buffer.render_changes())
            terminal.known_cursor = None
            assert_terminal_shows(terminal, buffer)


@pytest.mark.slow
@pytest.mark.parametrize("charset", CHARSETS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_edits_reach_the_terminal(charset: str, data: st.DataObject) -> None:
    buffer, terminal = board(), Terminal(charset)
    terminal.receive(buffer.render_full())
    for edit in data.draw(st.lists(edits, max_size=20)):
        apply(edit, buffer, terminal)
    terminal.receive(buffer.render_changes())
    assert_terminal_shows(terminal, buffer)
    assert buffer.render_changes() == ""


@settings(max_examples=40, deadline=None)
@given(
    changes=st.lists(
        st.tuples(rows, st.integers(1, WIDTH - 3), st.text(st.sampled_from(CHARS), max_size=3)),
        min_size=1,
        max_size=3,
    ),
    style=styles,
)
def test_small_changes_cost_no_more_than_a_redraw(
    changes: list[tuple[int, int, str]], style: Style
) -> None:
    buffer = board()
    full = buffer.render_full()
    for row, col, text in changes:
        buffer.put(row, col, text, style)
    assert len(buffer.render_changes()) < len(full)


def test_default_style_is_white_on_black() -> None:
    assert (DEFAULT_STYLE.fg, DEFAULT_STYLE.bg, DEFAULT_STYLE.bold) == (WHITE, BLACK, False)


def test_only_the_colours_that_change_are_sent() -> None:
    buffer, terminal = board(), Terminal("utf-8")
    terminal.receive(buffer.render_full())
    buffer.put(12, 10, "x", Style(YELLOW))  # the prompt left white on black: only the yellow
    output = buffer.render_changes()
    assert "\x1b[33mx" in output and "\x1b[0;" not in output
    terminal.receive(output)
    assert_terminal_shows(terminal, buffer)


def test_bold_is_turned_off_by_a_reset() -> None:
    # ANSI.SYS knows no "not bold": going from bold to plain takes a reset, colours named.
    buffer, terminal = board(), Terminal("cp437")
    buffer.set_cursor(23, 10, style=Style(YELLOW, bold=True))  # typing is echoed bold
    terminal.receive(buffer.render_full())
    buffer.put(5, 10, "9♥", Style(RED))
    output = buffer.render_changes()
    assert "\x1b[0;31;40m9♥" in output and "22" not in output
    terminal.receive(output)
    assert_terminal_shows(terminal, buffer)


def test_a_known_cursor_is_moved_relatively() -> None:
    buffer, terminal = board(), Terminal("utf-8")
    terminal.receive(buffer.render_full())
    terminal.receive("v\r\n")  # a command typed at the prompt, and Enter
    buffer.invalidate(23, 10)
    buffer.cursor_is_at(24, 1)
    buffer.put(22, 1, "x")
    output = buffer.render_changes()
    # Up two rows for the change, then back to the prompt and clear the typing there.
    assert output == "\x1b[2Ax\r\n\x1b[9C\x1b[K"
    terminal.receive(output)
    assert_terminal_shows(terminal, buffer)


def test_a_blank_end_of_a_row_is_cleared_not_overwritten() -> None:
    buffer, terminal = board(), Terminal("utf-8")
    buffer.put(22, 2, "A long message that the next play takes away again.")
    terminal.receive(buffer.render_full())
    buffer.put(22, 2, " " * 60)
    output = buffer.render_changes()
    assert output.count(" ") == 0 and "\x1b[K" in output
    terminal.receive(output)
    assert_terminal_shows(terminal, buffer)


def test_cells_between_two_changes_are_overwritten_when_that_is_shorter() -> None:
    buffer, terminal = board(), Terminal("utf-8")
    terminal.receive(buffer.render_full())
    buffer.put(12, 10, "a", Style(RED))
    buffer.put(12, 12, "b", Style(RED))
    output = buffer.render_changes()
    assert "a b" in output  # one blank written rather than a three-byte move over it
    terminal.receive(output)
    assert_terminal_shows(terminal, buffer)


def _drawn_screen(text: str) -> ScreenBuffer:
    """A screen with twenty rows of text, rendered (as the door renders every board)."""
    screen = ScreenBuffer(80, 24)
    for row in range(2, 22):
        screen.put(row, 2, f"{text} {row}", Style(CYAN))
    screen.render_full()
    return screen


def _traced_after(make: Callable[[], object]) -> tuple[object, int]:
    gc.collect()
    tracemalloc.start()
    try:
        made = make()
        gc.collect()
        return made, tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_screens_drawn_alike_hold_their_rows_once() -> None:
    # Twenty rows of 80 cells are 4 KB a screen when each screen holds its own.
    _, traced = _traced_after(lambda: [_drawn_screen("alike") for _ in range(300)])
    assert traced / 300 < 2_000


@pytest.mark.slow
def test_rows_no_screen_holds_any_more_are_let_go() -> None:
    def one_after_another() -> ScreenBuffer:
        for n in range(1_000):
            screen = _drawn_screen(f"own {n}")
        return screen

    # 1,000 screens of rows all their own, each dropped once drawn: 5 MB if rows were kept.
    _, traced = _traced_after(one_after_another)
    assert traced < 3_500_000


def test_drawing_leaves_no_garbage_for_the_collector() -> None:
    # Cycles made by every render are left for a garbage collection, which stops every game
    # while it looks at every young object: a thousand callers' plays made those tens of ms.
    rng = random.Random(7)
    buffer = board()
    buffer.render_full()
    gc.collect()
    gc.disable()
    try:
        for _ in range(300):
            for _ in range(rng.randint(2, 6)):  # a few changes: the order is searched for
                row, col = rng.randint(1, HEIGHT - 1), rng.randint(1, WIDTH - 4)
                buffer.put(row, col, rng.choice(["7♥", "K♠", "  ", "ab"]), Style(rng.randint(0, 7)))
            buffer.render_changes()
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_drawn_screen_is_no_work_for_the_collector() -> None:
    # A thousand boards of rows the collector must visit made each of its passes tens of ms.
    screen = ScreenBuffer(80, 24)
    for row in range(2, 22):
        screen.put(row, 2, f"kept {row}", Style(CYAN))
    assert not any(gc.is_tracked(screen._cells[row]) for row in range(24))
    screen.render_full()
    assert not any(gc.is_tracked(screen._cells[row]) for row in range(24))


def test_the_row_table_sweep_lets_go_of_rows_nobody_holds_and_keeps_held_ones() -> None:
    colours = tuple(Style(YELLOW, BLUE))
    screen = ScreenBuffer(80, 24)
    screen.put(3, 1, "a row a screen shows", Style(YELLOW, BLUE))
    screen.render_full()
    held_once = [shared_row(_as_row("a row held once", colours))]  # the least a holder holds
    shared_row(_as_row("a row nobody holds", colours))
    assert _as_row("a row nobody holds", colours) in _SHARED_ROWS
    _let_go_of_unused_rows()
    assert _as_row("a row nobody holds", colours) not in _SHARED_ROWS
    assert _SHARED_ROWS.get(held_once[0]) is held_once[0]
    assert _SHARED_ROWS.get(screen._shown[2]) is screen._shown[2]


def test_a_row_s_packed_form_gives_back_every_character_in_every_colour() -> None:
    text = "A z0 ♥♠█─│é~"
    for bold in (False, True):
        for bg in range(8):
            for fg in range(8):
                row = _as_row(text, (fg, bg, bold))
                assert type(row) is str and not gc.is_tracked(row)
                assert len(row) == 2 * len(text)
                cells = [_cell(row, col) for col in range(1, len(text) + 1)]
                assert cells == [(char, (fg, bg, bold)) for char in text]
