"""A board kept from play to play (``BoardPainter``) draws again only the parts a play
changed, and is, cell for cell, the board drawn whole: whatever the play, the message, the
footnote, the caption or the look, and whatever was drawn over it since."""

from __future__ import annotations

import copy
from contextlib import suppress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansi.screen import ScreenBuffer, Style
from door.engine import Game, IllegalMove, Variant
from door.engine.status import Status
from door.views.board import (
    FOOTNOTE_ROW,
    LAST_COLUMN_ROW,
    MESSAGE,
    PROMPT,
    REFUSAL,
    BoardPainter,
    Look,
    draw_board,
)
from door.views.pointer import reminder_lines
from tests.support.strategies import variants

LEVEL = "Level 3: Draw three"
MESSAGES = (
    "",
    "Move 4: sent up A♥",
    "9♦ can't go on 8♠: column 2 needs a red 10",
    # Two rows: the footnote goes up a row if the columns leave it free.
    "A message long enough to take two rows of the board, so that the footnote has to move "
    "up a row when the columns leave the row above it free, and back down after.",
)
FOOTNOTES = ("", "Practice: this game never reaches the scoreboards.", "Deal 48213, salt 77")
CAPTIONS = ("Game 12", "Deal 48213")
PROMPTS = (PROMPT, "Resign this game and deal a new one? (Y/N) ")


def cells(screen: ScreenBuffer) -> list[list[tuple[str, Style]]]:
    """Every cell of ``screen``, its character and style."""
    return [
        [screen.cell_at(row, col) for col in range(1, screen.width + 1)]
        for row in range(1, screen.height + 1)
    ]


def whole(game: Game, look: Look, **drawn) -> ScreenBuffer:
    """The board drawn whole, on a screen of its own."""
    screen = ScreenBuffer(80, 24)
    draw_board(screen, game, LEVEL, look, **drawn)
    return screen


@settings(max_examples=80, deadline=None)
@given(
    variant=variants,
    deal=st.integers(0, 10_000),
    ansi=st.booleans(),
    steps=st.lists(
        st.tuples(
            st.integers(-1, 40),  # a legal play by its index, or -1 for a refused one
            st.integers(0, len(MESSAGES) - 1),
            st.integers(0, len(FOOTNOTES) - 1),
            st.integers(0, 1),  # caption, prompt, style and the keys' reminder
            st.booleans(),  # suits as letters
            st.booleans(),  # something drawn over the board since the last draw
        ),
        min_size=1,
        max_size=40,
    ),
)
@pytest.mark.slow
def test_a_kept_board_is_the_board_drawn_whole(
    variant: Variant, deal: int, ansi: bool, steps: list
) -> None:
    game = Game.deal(variant, deal)
    painter, screen = BoardPainter(), ScreenBuffer(80, 24)
    for choice, message, footnote, other, letters, scribbled in steps:
        if game.status == Status.PLAYING:
            legal = game.legal()
            with suppress(IllegalMove):  # a refused play changes nothing
                game.play(legal[choice % len(legal)] if choice >= 0 and legal else "S 9")
        if scribbled:  # the pointer, a held card, the caller's typing: the screen's own
            screen.put(4, 1, "►", REFUSAL)
            screen.put(12, 30, "YOU WON!", MESSAGE)
            screen.put(23, 24, "S 3")
        look = Look(ansi=ansi, suit_letters=letters)
        drawn = dict(
            message=MESSAGES[message],
            message_style=(MESSAGE, REFUSAL)[other],
            prompt=PROMPTS[other],
            caption=CAPTIONS[other],
            footnote=FOOTNOTES[footnote],
            reminder=reminder_lines(len(game.tableau), hot=bool(other), hints=False),
        )
        painter.draw(screen, game, LEVEL, look, **drawn)
        expected = whole(game, look, **drawn)
        assert cells(screen) == cells(expected)
        assert screen.cursor == expected.cursor


def test_the_footnote_moves_up_past_the_columns_and_back() -> None:
    """A two-row message takes the footnote's row; the footnote goes up into the columns'
    last row only while no column reaches it, and comes back down under a short message."""
    game = Game.deal(Variant(columns=4), 5)
    tall = copy.copy(game)
    tall.tableau = [list(pile) for pile in game.tableau]
    tall.tableau[0] = tall.tableau[0] + list(game.deck[:13])  # a column down to the last row
    look, footnote, long = Look(), FOOTNOTES[1], MESSAGES[3]
    painter, screen = BoardPainter(), ScreenBuffer(80, 24)
    shown = []
    for position, message in ((game, long), (tall, long), (game, long), (game, ""), (tall, "")):
        painter.draw(screen, position, LEVEL, look, message, footnote=footnote)
        assert cells(screen) == cells(whole(position, look, message=message, footnote=footnote))
        shown.append(
            tuple(
                row
                for row in (LAST_COLUMN_ROW, FOOTNOTE_ROW)
                if screen.text_at(row).strip().startswith("Practice")
            )
        )
    assert shown == [(LAST_COLUMN_ROW,), (), (LAST_COLUMN_ROW,), (FOOTNOTE_ROW,), (FOOTNOTE_ROW,)]
