"""What a caller meets on an ordinary visit: no dropped line, one question at a time, every
number checked, every word of the long texts on the screen."""

from __future__ import annotations

import re

import pytest

from door.engine import Game, IllegalMove, Variant
from door.views.texts import help_lines, rules_lines
from tests.support.screens import words_of
from tests.support.telnet_caller import Caller
from tests.support.visits import DEAL, log_in, sign_up, start_deal

SUPERSCRIPT_TWO = b"\xfd"  # '²' in CP437: str.isdigit() says yes, int() says no


def page_words(caller: Caller) -> list[str]:
    """The words between the title and the message rows: the page's text."""
    return [word for row in range(3, 21) for word in caller.row(row).split()]


async def read_pages(caller: Caller, title: str) -> list[str]:
    """Every page of a paged text, by pressing a key for each; all their words."""
    words: list[str] = []
    screen = await caller.wait_for(rf"{title} \(1/(\d+)\)")
    pages = int(screen.split(f"{title} (1/", 1)[1].split(")", 1)[0])
    for page in range(1, pages + 1):
        await caller.wait_for(rf"{title} \({page}/{pages}\)")
        words += page_words(caller)
        if page < pages:
            await caller.key(" ")
    return words


async def test_the_rules_and_the_help_show_every_word_on_the_screen(door):
    caller = await sign_up(door)
    await caller.key("I")
    assert await read_pages(caller, "The rules of Canfield") == words_of(
        rules_lines(door.config.levels)
    )
    await caller.key(" ")
    await caller.wait_for("Your choice")
    await start_deal(caller, DEAL)
    await caller.type("?")
    await caller.wait_for("Canfield commands")
    hints = door.config.level(2).hints
    assert page_words(caller) == words_of(help_lines(hints))
    await caller.hang_up()


async def test_a_numbered_deal_at_a_level_with_a_saved_game_offers_resume_or_resign(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await caller.type("V")
    await caller.wait_for(r"Moves\s+1\b")
    await caller.type("Q")
    await caller.wait_for("Your game is saved")
    await caller.key("#")
    await caller.wait_for("Deal number")
    await caller.type("7")
    await caller.wait_for("Choose a level")
    await caller.key("2")  # the level of the saved game
    await caller.wait_for("You have a saved game at this level")
    assert "Resign it (it counts as lost) and play deal 7" in caller.display()
    await caller.type("N")
    await caller.wait_for("Command \\(\\? for help\\)")
    assert "Practice deal 7" in caller.row(1)
    user = await door.store.find_user("Alice")
    statuses = sorted(record.status for record in await door.store.games_of(user.id))
    assert statuses == ["playing", "resigned"]
    await caller.type("Q")
    await caller.wait_for("Your game is saved")
    # The same again, resuming this time: the line stays up, the game is the one saved.
    await caller.key("#")
    await caller.wait_for("Deal number")
    await caller.type("8")
    await caller.wait_for("Choose a level")
    await caller.key("2")
    await caller.wait_for("You have a saved game at this level")
    await caller.type("R")
    await caller.wait_for("Command \\(\\? for help\\)")
    assert "Practice deal 7" in caller.row(1)
    await caller.hang_up()


async def test_a_superscript_two_gets_a_message_at_every_number_a_caller_types(door):
    caller = await sign_up(door, term="syncterm", charset="cp437")
    await caller.key("P")
    await caller.wait_for("Choose a level")
    caller.writer.write(SUPERSCRIPT_TWO)
    await caller.wait_for("Press the number of a level")
    await caller.key("Q")
    await caller.wait_for("Your choice")
    await caller.key("S")
    await caller.wait_for("Which board")
    caller.writer.write(SUPERSCRIPT_TWO)
    await caller.wait_for("Press a level's number, A, C or Q")
    await caller.key("Q")
    await caller.wait_for("Your choice")
    await caller.key("#")
    await caller.wait_for("Deal number")
    caller.writer.write(SUPERSCRIPT_TWO + b"\r\n")
    await caller.wait_for('"²" is not a deal number')
    await caller.type(str(DEAL))
    await caller.wait_for("Choose a level")
    caller.writer.write(SUPERSCRIPT_TWO)
    await caller.wait_for("Press the number of a level")
    await caller.key("1")
    await caller.wait_for("Command \\(\\? for help\\)")
    assert f"Practice deal {DEAL}" in caller.row(1)
    await caller.hang_up()


async def test_a_bad_deal_number_is_asked_for_again_in_a_callers_words(door):
    caller = await sign_up(door)
    await caller.key("#")
    await caller.wait_for("Deal number")
    await caller.type("99999999999999999999")
    await caller.wait_for("is not a deal number")
    shown = " ".join(caller.display().split())
    assert "like 48213" in shown and "9223372036854775807" not in shown
    assert "Deal number (Enter to go back):" in shown  # asked again, not sent to the menu
    await caller.type("forty")
    await caller.wait_for('"forty" is not a deal number')
    await caller.type("")
    await caller.wait_for("Hello, Alice")
    await caller.hang_up()


async def test_the_resume_chooser_lists_only_the_saved_games(door):
    caller = await sign_up(door)
    for level in ("1", "3"):
        await start_deal(caller, DEAL, level)
        await caller.type("Q")
        await caller.wait_for("Your game is saved")
    assert "Resume one of your saved games (levels 1 and 3)" in caller.display()
    await caller.key("R")
    await caller.wait_for("Which saved game will you resume")
    menu = [line.strip() for line in caller.display().splitlines()]
    assert [line[:1] for line in menu if line[:3] in ("1  ", "2  ", "3  ")] == ["1", "3"]
    await caller.key("2")
    await caller.wait_for("Press the number of a level")
    await caller.key("3")
    await caller.wait_for("Command \\(\\? for help\\)")
    assert f"Practice deal {DEAL}" in caller.row(1) and "Level 3" in caller.row(1)
    await caller.hang_up()


@pytest.mark.slow
async def test_a_wrong_password_stays_in_view_and_a_refused_alias_goes(door):
    caller = await sign_up(door)
    await caller.hang_up()
    again = await Caller.connect(door.port)
    await again.wait_for("Your alias")
    await again.type("Alice")
    await again.wait_for("Password for")
    await again.type("not it")
    await again.wait_for("Wrong password for Alice. Try again.")
    assert "Your alias (or NEW):" in again.row(23)
    await again.type("NEW")
    await again.wait_for("Alias:")
    await again.type("X")
    await again.wait_for("An alias needs at least 2 characters.")
    assert "won't do" not in again.display()
    await again.type("Bobby")
    await again.wait_for("Password:")
    assert "An alias needs" not in again.display()  # gone once answered
    await again.hang_up()


async def test_goodbye_gives_the_caller_their_own_colours_back(door):
    caller = await sign_up(door)
    await caller.key("G")
    await caller.wait_closed()
    goodbye = bytes(caller.received).rsplit(b"Thanks for playing", 1)
    assert goodbye[0].endswith(b"\x1b[0m\x1b[?25h\x1b[21;1H\x1b[J\x1b[23;2H")
    assert b"\x1b[0m" in goodbye[1] and b"\x1b[0;" not in goodbye[1]


def ten_refused(variant: Variant) -> tuple[int, str, str]:
    """A deal, a column move refused in it, and the refusal, which names a ten first."""
    for deal in range(1, 1000):
        for source in range(1, 5):
            for target in range(1, 5):
                command = f"{source} {target}"
                try:
                    Game.deal(variant, deal).play(command)
                except IllegalMove as refusal:
                    ten = re.search("T[♣♦♥♠]", str(refusal))
                    if ten:
                        return deal, command, ten[0]
    raise AssertionError("no such deal")


async def test_a_refusal_writes_a_ten_as_the_board_does(door):
    deal, command, ten = ten_refused(door.config.level(2).variant)
    caller = await sign_up(door)
    await start_deal(caller, deal)
    await caller.type(command)
    await caller.wait_for("can't go on")
    message = caller.row(22)
    assert "10" + ten[1] in message and ten not in message, message
    await caller.hang_up()


async def test_in_draw_three_the_playable_waste_card_is_marked(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await caller.type("V")
    await caller.wait_for(r"Moves\s+1\b")
    # Three cards fanned at columns 25, 31 and 37: the mark is under the third, the top.
    assert caller.row(5)[36:39] == "^^^" and "^" not in caller.row(5)[:36]
    await caller.hang_up()


async def test_at_draw_one_the_waste_shows_its_top_card_alone(door):
    # A squared pile, as on a table: a turn then redraws one card, not a fan of three.
    level = door.config.level(1)
    assert level.variant.draw == 1
    caller = await sign_up(door)
    await start_deal(caller, DEAL, level_key="1")
    game = Game.deal(level.variant, DEAL)
    for turns in range(1, 4):
        game.play("V")
        await caller.type("V")
        await caller.wait_for(rf"Moves\s+{turns}\b")
        top = game.waste[-1].symbol.replace("T", "10")
        waste = caller.row(4)[23:40]  # from the waste's column to the foundations'
        assert waste.split() == [top], (turns, waste)
        assert "^" not in caller.row(5)
    await caller.hang_up()


async def test_the_last_statistics_page_asks_for_no_next_level(door):
    caller = await sign_up(door)
    await caller.key("M")
    pages = len(door.config.levels)
    for page in range(1, pages):
        await caller.wait_for(rf"\({page}/{pages}\)")
        assert "next level" in caller.row(23)
        await caller.key(" ")
    await caller.wait_for(rf"\({pages}/{pages}\)")
    assert "next level" not in caller.display() and "Press any key" in caller.row(23)
    await caller.key(" ")
    await caller.wait_for("Your choice")
    await caller.hang_up()


async def test_log_in_after_sign_up_still_works(door):
    caller = await sign_up(door)
    await caller.hang_up()
    again = await log_in(door)
    assert "Hello, Alice." in again.display()
    await again.hang_up()


async def test_the_settings_page_previews_the_cards_as_the_board_draws_them(door):
    caller = await sign_up(door)  # a UTF-8 terminal
    await caller.key("T")
    await caller.wait_for("Character set: automatic \\(this call: utf-8\\)")
    assert " 10♥    K♠    A♦    7♣" in caller.display()
    await caller.key("S")  # on to ASCII: no suit symbols there, and the page says so
    await caller.key("P")
    await caller.wait_for("Keep this")
    await caller.key("Y")
    await caller.wait_for("Character set: ascii")
    shown = caller.display()
    assert " 10H    KS    AD    7C" in shown
    assert "Suits drawn as: symbols (letters in plain text and ASCII)" in shown
    await caller.key("S")  # on to CP437, which this UTF-8 screen can't show: 10 and nothing
    await caller.key("C")
    await caller.wait_for("Keep this")
    await caller.key("Y")
    await caller.wait_for("Character set: cp437")
    assert "10♥" not in caller.display() and "If a suit is missing" in caller.display()
    await caller.key("S")
    await caller.key("U")
    await caller.wait_for("Keep this")
    await caller.key("Y")
    await caller.wait_for("Character set: utf-8")
    await caller.key("L")
    await caller.wait_for("Keep this")
    await caller.key("Y")
    await caller.wait_for("Suits drawn as: letters")
    assert " 10H    KS    AD    7C" in caller.display()
    await caller.hang_up()


async def test_a_game_played_on_from_a_second_line_takes_the_first_over(door):
    # Two lines on one game used to race; now the second log-in takes the first call over
    # (door.net.nodes), the first told so, its game saved.
    first = await sign_up(door)
    await start_deal(first, DEAL)
    await first.type("V")
    await first.wait_for(r"Moves\s+1\b")
    second = await Caller.connect(door.port)
    await second.wait_for("Your alias")
    await second.type("Alice")
    await second.wait_for("Password")
    await second.type("secret-one1")
    await second.wait_for("Take over your call on node 1")
    await second.type("Y")
    await first.wait_closed()
    assert "You logged in on another node" in first.text
    await second.key("R")
    await second.wait_for("Welcome back")
    await second.type("V")
    await second.wait_for(r"Moves\s+2\b")
    user = await door.store.find_user("Alice")
    saved = await door.store.resume(user.id, 2)
    assert saved is not None and saved[1].history == ["V", "V"]
    await second.hang_up()
