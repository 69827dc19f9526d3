"""Every screen the door draws fits its width with no word cut, and shows every word.

The texts (rules, help, welcome, menus, scoreboards, statistics, the deal of the day,
bulletins) are laid out by one function; these tests draw each of them, at their longest,
and read the screen back.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from ansi.screen import ScreenBuffer
from door.bulletin import Bulletin, LevelBoard, render_ansi, render_ascii
from door.engine import Game, Variant
from door.levels import Level
from door.store.records import DailyDay, DailyResult, HighScore, Standing, Statistics
from door.views.board import Look, draw_board
from door.views.daily import board_lines, day_list_lines
from door.views.layout import paginate, wrap
from door.views.pages import (
    FIRST_ROW,
    Entry,
    PageLine,
    draw_rows,
    high_score_lines,
    level_line,
    page_rows,
    pages_of,
    standing_lines,
    statistics_lines,
    welcome_lines,
)
from door.views.texts import help_lines, rules_lines
from tests.support.screens import words_of

RIGHT_EDGE = 79  # the last column text may use on an 80-column screen
LOOKS = (Look(ansi=True), Look(ansi=False))
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LONG_NAME = "The Very Long Name Of A Bulletin Board System That Goes On And On"[:60]
ALIAS = "A" * 20


def shown_pages(lines: list[PageLine], look: Look) -> list[list[str]]:
    """Each page of ``lines`` as the caller's screen shows its text rows."""
    shown = []
    for rows in pages_of(lines, look):
        screen = ScreenBuffer(80, 24)
        draw_rows(screen, "Title", rows, look, "Your choice: ")
        rows = range(FIRST_ROW, FIRST_ROW + page_rows(look))
        shown.append([screen.text_at(row) for row in rows])
    return shown


def assert_laid_out(lines: list[PageLine]) -> int:
    """No row past the right edge, every word of ``lines`` shown whole and in order; the
    number of pages."""
    for look in LOOKS:
        pages = shown_pages(lines, look)
        for page in pages:
            for row in page:
                assert len(row.rstrip()) <= RIGHT_EDGE, row
        words = [word for page in pages for row in page for word in row.split()]
        assert words == words_of(lines)
    return len(pages)


def level(number: int = 1, **knobs) -> Level:
    return Level(
        number, f"Level {number} - A name of forty characters for you"[:40], Variant(**knobs)
    )


LEVELS = (
    level(1, draw=1),
    level(2, draw=3, passes=3, scoring="vegas", spaces="manual", wrap="full"),
    level(3, draw=3, passes=1, moves="partial", spaces_after_reserve="king", scoring="cards"),
    Level(
        4, "Hinted", Variant(base="choose", undo="unlimited"), hints="solver", winnable_only=True
    ),
)


def test_the_welcome_screen_shows_every_word():
    assert assert_laid_out(welcome_lines(LONG_NAME, "S" * 40, 12)) == 1


def test_every_rules_page_shows_every_word_and_no_level_is_split():
    lines = rules_lines(LEVELS)
    assert_laid_out(lines)
    for look in LOOKS:
        for page in shown_pages(lines, look):
            text = "\n".join(row.rstrip() for row in page).strip("\n")
            # A page ends at the end of a paragraph: the next page never starts inside a
            # level's description (its lines are indented under the level's name).
            assert not text.startswith("   ")
    shown = " ".join(" ".join(page) for page in shown_pages(lines, LOOKS[0])).split()
    assert "the BASE RANK, and" in " ".join(shown)


def test_the_help_fits_one_page_at_every_hint_setting():
    for hints in ("off", "visible", "solver"):
        assert assert_laid_out(help_lines(hints)) == 1


def test_menus_scoreboards_statistics_and_the_deal_of_the_day_show_every_word():
    scores = [
        HighScore(ALIAS, None, 99999, place % 2 == 0, 999, NOW, place % 3 == 0, place)
        for place in range(1, 11)
    ]
    standings = [Standing(ALIAS, None, 9999, 999, 99.9, 99999, True, 99) for _ in range(20)]
    stats = Statistics(
        level=3,
        played=999,
        won=500,
        lost=499,
        win_percentage=50.1,
        best_score=9999,
        average_score=123.4,
        current_streak=12,
        longest_streak=40,
        balance=-1234,
        unfinished=True,
    )
    daily = [DailyResult(ALIAS, None, "won", 99999, 999, True, NOW) for _ in range(12)]
    days = [DailyDay("2026-11-29", 12, 9223372036854775807, 999) for _ in range(9)]
    for lines in (
        [Entry(str(lv.number), level_line(lv)) for lv in LEVELS],
        high_score_lines(LEVELS[1], scores),
        high_score_lines(LEVELS[1], []),
        standing_lines(standings),  # longer than a page: shown in two
        statistics_lines(LEVELS[2], stats, [(52, "won"), (1, "resigned")] * 5),
        [*board_lines(daily, 9), "", Entry("P", "Play today's deal")],
        day_list_lines(days),
    ):
        assert_laid_out(lines)


def test_the_board_message_wraps_onto_two_rows():
    game = Game.deal(Variant(), 48213)
    message = "Hint: " + " ".join(["a-long-explanation"] * 7)
    for look in LOOKS:
        screen = ScreenBuffer(80, 24)
        draw_board(screen, game, "Level 2", look, message, prompt="Press Enter to go on. ")
        rows = screen.text_at(21) + " " + screen.text_at(22)
        assert rows.split() == message.split()
        assert screen.text_at(23).strip() == "Press Enter to go on."


def test_bulletins_never_cut_the_board_name():
    bulletin = Bulletin(
        LONG_NAME,
        NOW,
        (LevelBoard(1, "Level 1 - " + "x" * 30, {}, None, ()),),
        (),
    )
    text = render_ascii(bulletin)
    assert all(len(line) <= RIGHT_EDGE for line in text.split("\r\n"))
    assert " ".join(text.split()).startswith(f"{LONG_NAME} - Canfield scoreboards")
    ansi = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", render_ansi(bulletin).decode("cp437"))
    ansi = re.sub("[║╔╗╚╝═]", " ", ansi)
    assert all(len(line) <= RIGHT_EDGE for line in ansi.split("\r\n"))
    assert " ".join(ansi.split()).startswith(f"{LONG_NAME} - Canfield scoreboards")


@given(
    st.lists(st.text(st.characters(codec="ascii", categories=["L", "N", "P"]), min_size=1)),
    st.integers(1, 78),
    st.integers(0, 6),
)
def test_wrap_keeps_every_word_within_the_width(words, width, indent):
    text = " " * indent + " ".join(words)
    lines = wrap(text, width)
    assert all(len(line) <= max(width, 1) for line in lines)
    if all(len(word) <= width - min(indent, width - 1) for word in words):
        assert " ".join(lines).split() == " ".join(words).split()
    else:
        assert "".join("".join(lines).split()) == "".join(words)


@given(st.lists(st.sampled_from(["a", "b", ""]), max_size=60), st.integers(1, 20))
def test_pages_hold_every_row_in_order_and_never_overflow(rows, size):
    pages = paginate(rows, size, "")
    assert all(len(page) <= size and (not page or page[0] != "") for page in pages)
    assert [row for page in pages for row in page if row] == [row for row in rows if row]


def test_a_page_holds_eighteen_rows():
    assert page_rows(Look()) == 18  # rows 3 to 20; 21 and 22 for a message, 23 for the prompt


def test_a_plain_screen_writes_a_ten_as_t_throughout():
    game = Game.deal(Variant(), 48213)
    message = "T♥ can't go on 8♠: column 2 needs a red 10"
    screen = ScreenBuffer(80, 24)
    draw_board(screen, game, "Level 2", Look(ansi=False), message)
    assert "TH can't go on 8S: column 2 needs a red T" in screen.text_at(22)
    screen = ScreenBuffer(80, 24)
    draw_board(screen, game, "Level 2", Look(), message)
    assert "10♥ can't go on 8♠: column 2 needs a red 10" in screen.text_at(22)
