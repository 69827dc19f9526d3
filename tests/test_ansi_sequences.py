"""Escape sequences, read back by a terminal emulator where it matters."""

from __future__ import annotations

import itertools

import pyte
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansi import sequences
from ansi.sequences import (
    BLUE,
    RED,
    WHITE,
    YELLOW,
    clear_screen,
    cursor_position_request,
    move,
    parse_cursor_position_report,
    sgr,
)


def every_sequence() -> list[str]:
    """What each public function of the module returns, over a spread of arguments."""
    produced = [
        sequences.clear_screen(),
        sequences.clear_to_end_of_line(),
        sequences.hide_cursor(),
        sequences.show_cursor(),
        sequences.reset(),
        sequences.cursor_position_request(),
    ]
    for count in (1, 2, 9, 10, 80):
        produced += [
            sequences.cursor_up(count),
            sequences.cursor_down(count),
            sequences.cursor_forward(count),
            sequences.cursor_back(count),
        ]
    produced += [move(row, col) for row, col in itertools.product(range(1, 26), (1, 9, 10, 80))]
    produced += [
        sgr(fg, bg, bold) for fg, bg, bold in itertools.product(range(8), range(8), (False, True))
    ]
    return produced


def test_no_sequence_is_a_bare_delete_line() -> None:
    # ESC[M starts ANSI music on SyncTERM.
    for sequence in every_sequence():
        assert "\x1b[M" not in sequence, repr(sequence)


def test_move_is_one_based_and_lands_there() -> None:
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    stream.feed(move(5, 12))
    assert (screen.cursor.y, screen.cursor.x) == (4, 11)
    stream.feed(move(24, 80))
    assert (screen.cursor.y, screen.cursor.x) == (23, 79)
    with pytest.raises(ValueError):
        move(0, 1)


def test_clear_screen_blanks_and_homes() -> None:
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    stream.feed(move(10, 10) + "junk" + clear_screen())
    assert all(not line.strip() for line in screen.display)
    assert (screen.cursor.y, screen.cursor.x) == (0, 0)


def test_sgr_sets_colours_regardless_of_what_came_before() -> None:
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    stream.feed(sgr(RED, BLUE, bold=True) + "A" + sgr(YELLOW) + "B")
    first, second = screen.buffer[0][0], screen.buffer[0][1]
    assert (first.fg, first.bg, first.bold) == ("red", "blue", True)
    assert (second.fg, second.bg, second.bold) == ("brown", "black", False)  # pyte's yellow
    assert sgr() == sgr(WHITE)
    with pytest.raises(ValueError):
        sgr(8)


def test_cursor_position_request() -> None:
    assert cursor_position_request() == "\x1b[6n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[24;80R", (24, 80)),
        ("\x1b[1;1R", (1, 1)),
        ("\x1b[0;0R", (0, 0)),  # some clients answer this; still an answer
        ("abc\x1b[25;80Rdef", (25, 80)),
        ("\x1b[5;5R\x1b[24;80R", (24, 80)),
        ("", None),
        ("\x1b[24;80", None),
        ("\x1b[24R", None),
        ("24;80R", None),
        ("\x1b[A\x1b[B", None),
    ],
)
def test_parse_cursor_position_report(text: str, expected: tuple[int, int] | None) -> None:
    assert parse_cursor_position_report(text) == expected


@settings(max_examples=100)
@given(
    before=st.text(st.characters(blacklist_characters="\x1b")),
    after=st.text(st.characters(blacklist_characters="\x1b")),
    row=st.integers(0, 999),
    col=st.integers(0, 999),
)
def test_report_found_amid_noise(before: str, after: str, row: int, col: int) -> None:
    assert parse_cursor_position_report(f"{before}\x1b[{row};{col}R{after}") == (row, col)
