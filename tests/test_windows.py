"""Every window, from a phone's to a wall's: screens drawn for the size the caller has, and
drawn again when it changes."""

from __future__ import annotations

import asyncio
import re

import pytest

from door.engine import Game
from door.views.board import geometry
from tests.support.keyplay import Player, key_bytes
from tests.support.telnet_caller import Caller
from tests.support.tour import Tour, tour
from tests.support.visits import DEAL, sign_up, start_deal
from tests.support.winning import WON_DEAL, WON_LEVEL, saved_one_play_from_a_win, winning_line

WELCOME_END = "Type your alias to log in, or NEW to sign up."


def words_of(caller: Caller) -> str:
    """The screen's text as one line of words, as a reader follows it across rows."""
    return " ".join(caller.display().split())


@pytest.mark.parametrize("size", [(40, 25), (132, 43)])
async def test_a_page_is_drawn_for_the_window(door, size):
    columns, rows = size
    caller = await Caller.connect(door.port, size=size)
    await caller.wait_for("Your alias")
    shown = caller.screen.display
    assert caller.row(rows - 1).startswith(" Your alias")  # the prompt on the last row but one
    assert all(row[-1] == " " for row in shown)  # the last column is never written
    assert WELCOME_END in words_of(caller)  # every word whole, wrapped at the width
    widest = max(len(row.rstrip()) for row in shown)
    assert widest > 80 if columns > 80 else widest <= columns - 1
    await caller.hang_up()


async def test_a_change_of_size_draws_the_page_again_keeping_what_was_typed(door):
    caller = await Caller.connect(door.port, size=(80, 24))
    await caller.wait_for("Your alias")
    await caller.type("Ali", enter=False)
    await caller.wait_for("Your alias \\(or NEW\\): Ali")
    caller.stream.feed("\x1b[2J")  # what a terminal showed may be lost as its window changes
    await caller.resize(44, 30)
    await caller.wait_for(WELCOME_END.split()[-1])
    assert caller.row(29) == " Your alias (or NEW): Ali"
    assert WELCOME_END in words_of(caller)
    assert all(row[-1] == " " for row in caller.screen.display)
    await caller.type("ce")
    await caller.wait_for("Sign up\\?")  # the alias is the whole of what was typed: Alice
    assert "Alice" in caller.display()
    await caller.hang_up()


async def test_a_window_too_small_is_told_what_it_needs_until_it_grows(door):
    caller = await Caller.connect(door.port, size=(30, 15))
    await caller.wait_for("needs a window")
    assert words_of(caller) == "This door needs a window of at least 40 columns and 20 rows."
    assert all(len(row.rstrip()) < 30 for row in caller.screen.display)
    await caller.resize(40, 20)  # the smallest window: the welcome takes two pages there
    await caller.wait_for(r"Canfield \(1/2\)")
    await caller.key(" ")
    await caller.wait_for("Your alias")
    assert "needs a window" not in caller.display()
    await caller.hang_up()


async def test_a_change_of_size_draws_the_board_again(door):
    caller = await sign_up(door, size=(199, 56))
    await start_deal(caller, DEAL)
    await caller.type("S", enter=False)  # half a command
    await caller.wait_for(r"Command \(\? for help\): S")
    for size in ((100, 30), (60, 20), (40, 25), (80, 24)):
        caller.stream.feed("\x1b[2J")  # what a terminal showed may be lost as it resizes
        await caller.resize(*size)
        await caller.wait_for(r"Command \(\? for help\): S")
        assert "Level 2" in caller.row(1) and "Reserve S" in caller.display()
        assert re.search(r"Moves\s+0", caller.display())
        assert all(len(row) == size[0] and row[-1] == " " for row in caller.screen.display)
    await caller.resize(30, 15)
    await caller.wait_for("needs a window")
    await caller.resize(80, 24)
    await caller.wait_for(r"Command \(\? for help\): S")
    await caller.type("\x1b", enter=False)
    await caller.hang_up()


# -- every screen of a visit, in every window ---------------------------------------------------

# The callers: terminal type and charset.
CHARSETS = {"utf-8": "xterm", "cp437": "syncterm", "ascii": "vt100"}
# The windows: a phone's, the classic, a wide one; the classic's words are the reference.
SIZES = ((40, 25), (80, 24), (132, 43))
# What a page's title says of its number, which the windows differ in.
PAGE_NUMBER = re.compile(r"^\(\d+/\d+\)$")


CARD = re.compile(r"(?<!\w)(?:10|[2-9TAJQK])[♠♥♦♣HDCS](?!\w)")
BOARD = re.compile(r"Command \(\? for help\)|You won")


def is_board(screen: list[str]) -> bool:
    return bool(BOARD.search("\n".join(screen)))


def screen_words(visit: Tour) -> set[str]:
    """Every word on the pages the caller kept (not the boards, whose sidebar has a short
    form in a narrow window); each caller's alias as "Caller"."""
    text = "\n".join(
        row for screen in visit.screens.values() if not is_board(screen) for row in screen
    )
    return set(re.sub(r"Caller\d", "Caller", text).split())


def board_cards(visit: Tour) -> dict[str, list[str]]:
    """The cards each board the caller kept shows, in order, row by row."""
    return {
        name: sorted(CARD.findall("\n".join(screen)))
        for name, screen in visit.screens.items()
        if is_board(screen)
    }


def overflowing(visit: Tour, size: tuple[int, int]) -> list[str]:
    """The rows of the screens kept that reach the window's last column or past it: the
    door never writes there (a terminal may wrap)."""
    columns = size[0]
    return [
        f"{name}: {row!r}"
        for name, screen in visit.screens.items()
        for row in screen
        if len(row) != columns or row[-1] != " "
    ]


@pytest.mark.slow
@pytest.mark.parametrize("charset", CHARSETS)
async def test_every_screen_of_a_visit_fits_the_window_and_cuts_no_word(door, charset):
    async def visit_in(size: tuple[int, int], alias: str) -> Tour:
        caller = await Caller.connect(door.port, term=CHARSETS[charset], charset=charset, size=size)
        return await tour(door, caller, alias)

    tours = await asyncio.gather(
        *(visit_in(size, f"Caller{index}") for index, size in enumerate(SIZES, start=1))
    )
    by_size = dict(zip(SIZES, tours, strict=True))
    reference = by_size[80, 24]
    words, cards = screen_words(reference), board_cards(reference)
    assert len(cards) > 10 and all(cards.values())
    for size, visit in by_size.items():
        assert not overflowing(visit, size), (size, overflowing(visit, size)[:5])
        cut = {word for word in screen_words(visit) - words if not PAGE_NUMBER.match(word)}
        assert not cut, (size, sorted(cut)[:20])  # a word cut would be two new ones
        assert board_cards(visit) == cards, size  # every card on every board, in any window
    wide = by_size[132, 43]
    rules = [row for name, rows in wide.screens.items() if name.startswith("rules") for row in rows]
    assert max(len(row.rstrip()) for row in rules) > 100  # laid out in the whole width


# -- the narrow board, played -------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "size"),
    [
        ("lines", (40, 25)),
        ("pointer", (40, 25)),
        ("clicks", (40, 20)),
        ("drag", (64, 22)),
    ],
)
async def test_a_whole_game_won_on_the_narrow_board(door, method, size):
    caller = await sign_up(door, size=size)
    await start_deal(caller, WON_DEAL, str(WON_LEVEL))
    game = Game.deal(door.config.level(WON_LEVEL).variant, WON_DEAL)
    player = Player(method, game, geometry=geometry(*size, len(game.tableau)))
    line = winning_line(door)
    for move, command in enumerate(line, start=1):
        caller.writer.write(b"".join(key_bytes(key) for key in player.keys_for(command)))
        game.play(command)
        if game.status == "won":
            break
        await caller.wait_for(rf"Moves\s+{move}\b")
    await caller.wait_for("You won!", timeout=30)
    assert re.search(r"Up\s+52/52", caller.display())
    assert player.commands == line
    assert all(len(row) == size[0] and row[-1] == " " for row in caller.screen.display)
    await caller.hang_up()


def test_the_scoreboards_keep_a_row_a_player_on_a_narrow_screen():
    from datetime import datetime

    from door.levels import SHIPPED_LEVELS
    from door.store.records import HighScore, Standing
    from door.views.board import Look
    from door.views.pages import high_score_lines, lay_out, standing_lines

    look = Look(width=40, height=25)
    scores = [
        HighScore("A" * 20, "The Lost Cavern", 1234, True, 140, datetime(2026, 12, 7), True, 1),
        HighScore("Bob", None, -52, False, 12, datetime(2026, 12, 6), False, 2),
    ]
    standings = [Standing("B" * 20, "Elsewhere", 999, 999, 100.0, 1234, True, 12)]
    for lines in (
        high_score_lines(SHIPPED_LEVELS[1], scores, look.width)[2:4],
        standing_lines(standings, look.width)[:2],
    ):
        assert len(lay_out(lines, look)) == len(lines)  # a row each, none wrapped


async def test_a_won_games_long_message_on_the_narrow_board_keeps_its_rows_whole(door):
    """At 40x25 the win's message takes three rows and the footnote goes up above them: the
    message's first row is not drawn over the footnote's (its end showed after the message)."""
    caller = await sign_up(door, size=(40, 25))
    game, last = await saved_one_play_from_a_win(door, "Alice")
    await caller.key("X")
    await caller.wait_for("Resume your saved game")
    await caller.key("R")
    await caller.wait_for(r"Command \(\? for help\)")
    await caller.type(last)
    await caller.wait_for("Press Enter to go on")
    game.play(last)
    rows = [row.rstrip() for row in caller.screen.display]
    at = next(number for number, row in enumerate(rows) if "You won!" in row)
    assert rows[at - 1] == " Practice: this game never reaches the"
    said = " ".join(row.strip() for row in rows[at : at + 3])
    assert said == (
        f"You won! Final score {game.score} in {game.moves} moves. "
        "Practice: it is not on the high scores."
    ), rows
    await caller.hang_up()
