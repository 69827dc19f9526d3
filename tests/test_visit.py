"""A caller's whole visit over real TCP, read through a pyte screen as the caller sees it."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from door.engine import Game
from door.engine.solver import solve
from tests.support.door_server import door_config, open_door
from tests.support.telnet_caller import Caller
from tests.support.visits import DEAL, log_in, play, scored_deal, sidebar, sign_up, start_deal


@pytest.mark.slow
async def test_sign_up_play_drop_the_line_and_resume_exactly(door):
    caller = await sign_up(door)
    assert "Hello, Alice." in caller.display()
    await start_deal(caller, DEAL)
    assert f"Practice deal {DEAL}" in caller.row(1)
    for move, command in enumerate(("V", "V", "V"), start=1):
        await play(caller, command, move)
    board = caller.display()
    assert sidebar(caller, "Moves") == "3"
    await caller.hang_up()  # the line drops in the middle of the game

    again = await log_in(door)
    assert "R  Resume your saved game (level 2)" in again.display()
    await again.key("R")
    await again.wait_for("Welcome back")
    expected = Game.deal(door.config.level(2).variant, DEAL)
    for command in ("V", "V", "V"):
        expected.play(command)
    assert sidebar(again, "Moves") == "3"
    # The board is the one the caller left: the same cards in the same places.
    assert again.display().splitlines()[2:20] == board.splitlines()[2:20]
    assert str(expected.waste[-1])[0] in again.row(4)[23:40]  # the waste's columns
    await again.type("U")
    await again.wait_for(r"Moves\s+2\b")
    assert sidebar(again, "Moves") == "2"
    await again.hang_up()


@pytest.mark.slow
async def test_a_refused_move_says_why_and_changes_nothing(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    before = caller.display().splitlines()[2:20]
    await caller.type("S 9")
    await caller.wait_for("There is no column 9: this game has 4")
    await caller.type("hello")
    await caller.wait_for('Unknown command "HELLO" - type \\? for help')
    await caller.type("D 1")
    await caller.wait_for("The waste is empty")
    assert caller.display().splitlines()[2:20] == before
    assert sidebar(caller, "Moves") == "0"
    record = (await door.store.games_of((await door.store.find_user("Alice")).id))[0]
    assert record.moves == 0 and record.history == ()
    await caller.hang_up()


@pytest.mark.slow
async def test_a_whole_game_to_a_win_reaches_the_scoreboard(door):
    level = door.config.level(1)
    verdict = solve(Game.deal(level.variant, 1), max_seconds=20)
    assert verdict.result == "won"
    caller = await sign_up(door)
    await scored_deal(door, caller, 1, 1)
    for command in verdict.line[:-1]:
        await caller.type(command)
    await caller.type(verdict.line[-1])
    await caller.wait_for("You won! Final score", timeout=30)
    assert sidebar(caller, "Up") == "52 of 52"
    shown = " ".join(caller.display().split())
    assert "Your place: 1st of 1 on the high scores of Level 1" in shown
    assert caller.row(23).strip() == "Press Enter to go on."  # one question: no command prompt
    banner = "\n".join(caller.display().splitlines()[11:16])
    assert "Y O U   W O N !" in banner and f"{len(verdict.line)} moves" in banner
    await caller.type("")
    await caller.wait_for("Well played")
    await caller.key("S")
    await caller.wait_for("Which board")
    await caller.key("1")
    await caller.wait_for("High scores - ")
    row = next(line for line in caller.display().splitlines() if "Alice" in line)
    assert "won" in row and str(len(verdict.line)) in row
    await caller.key(" ")
    await caller.wait_for("Which board")
    await caller.key("A")
    await caller.wait_for("Won %")
    standing = next(line for line in caller.display().splitlines() if "Alice" in line)
    assert standing.split()[1:3] == ["1", "1"]
    await caller.hang_up()


@pytest.mark.slow
async def test_a_plain_ascii_caller_gets_no_escape_sequences(door):
    caller = await sign_up(door, ansi=False, term="dumb", charset="ascii")
    caller.forget_text()
    received_from = len(caller.received)
    await caller.key("#")
    await caller.wait_for("Deal number", in_text=True)
    await caller.type(str(DEAL))
    await caller.wait_for("Level:", in_text=True)
    await caller.key("\r")
    await caller.wait_for("Type \\? for help\\.\r\nCommand: $", in_text=True)
    caller.forget_text()
    await caller.type("V")
    # A plain caller hears what the play changed in one line, and gets the board with R.
    await caller.wait_for(r"V\r\nDeck \d+, waste [2-9TJQKA][HDCS] .*\.\r\nCommand: $", in_text=True)
    caller.forget_text()
    await caller.type("R")
    text = await caller.wait_for(r"Moves\s+1\b", in_text=True)
    after_probe = bytes(caller.received[received_from:])
    assert b"\x1b" not in after_probe
    assert all(byte < 0x80 for byte in after_probe)
    assert "Reserve S" in text and "Foundations F" in text
    game = Game.deal(door.config.level(2).variant, DEAL)
    game.play("V")
    # Suits as letters and a ten as T: the waste's cards as ASCII shows them, fanned.
    assert "   ".join(f"{card!s:>3}" for card in game.waste[-3:]).strip() in text
    assert max(len(line) for line in text.splitlines()) <= 80
    await caller.hang_up()


@pytest.mark.slow
async def test_a_cp437_caller_sees_suit_glyphs(door):
    caller = await sign_up(door, term="syncterm", charset="cp437")
    await start_deal(caller, DEAL)
    # CP437 sends the suits as bytes 3 to 6; the screen shows them as glyphs.
    assert set(bytes(caller.received)) & {3, 4, 5, 6}
    assert any(suit in caller.row(4) for suit in "♥♦♣♠")
    await caller.type("C")
    await caller.wait_for("Suits as letters")
    assert not any(suit in caller.row(4) for suit in "♥♦♣♠")
    await caller.hang_up()


@pytest.mark.slow
async def test_switching_to_plain_text_mid_game_and_back(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    caller.forget_text()
    await caller.type("ANSI")
    await caller.wait_for("Plain text screen", in_text=True)
    await caller.type("ANSI")
    await caller.wait_for("Colour screen")
    user = await door.store.find_user("Alice")
    assert user is not None and user.ansi is True
    await caller.hang_up()


@pytest.mark.slow
async def test_help_redraw_quit_and_resign(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await caller.type("?")
    await caller.wait_for("Canfield commands")
    await caller.type("")
    await caller.wait_for("Command \\(\\? for help\\)")
    await caller.type("R")
    await caller.wait_for(f"Practice deal {DEAL}")
    await caller.type("N")
    await caller.wait_for("Resign this game")
    assert "Command (? for help)" not in caller.display()  # one question at a time
    await caller.key("Y")
    await caller.wait_for("Game resigned, score")
    await caller.type("")
    # The next deal is a random one, and scored: the title names the game, not its deal.
    await caller.wait_for("Game \\d+\\.")
    assert "deal" not in caller.row(1).lower()
    assert caller.display().count("? for help") == 1  # the prompt says it; nothing else
    assert "Resign this game" not in caller.display()
    await caller.type("Q")
    await caller.wait_for("Your game is saved")
    user = await door.store.find_user("Alice")
    statuses = sorted(record.status for record in await door.store.games_of(user.id))
    assert statuses == ["playing", "resigned"]
    await caller.hang_up()


@pytest.mark.slow
async def test_statistics_show_recent_games(door):
    caller = await sign_up(door)
    await scored_deal(door, caller, DEAL)
    await caller.type("N")
    await caller.wait_for("Resign this game")
    await caller.key("Y")
    await caller.wait_for("Game resigned, score")
    await caller.type("")
    await caller.wait_for("Game \\d+\\.")
    await caller.type("Q")
    await caller.wait_for("Your choice")
    await caller.key("M")
    await caller.wait_for("Your statistics")
    await caller.key(" ")
    await caller.wait_for("Level 2")
    screen = caller.display()
    assert "Played 1   Won 0   Lost 1" in screen
    assert "resigned" in screen
    await caller.hang_up()


@pytest.mark.slow
async def test_three_wrong_passwords_end_the_call_and_a_fourth_rests_the_alias(door):
    await (await sign_up(door)).hang_up()
    caller = await Caller.connect(door.port)
    for _ in range(3):
        await caller.wait_for("Your alias")
        await caller.type("alice")
        await caller.wait_for("Password for")
        await caller.type("wrong")
    await caller.wait_for("Too many wrong passwords. Goodbye.", in_text=True, timeout=15)
    await caller.wait_closed()
    # A new call gets one more try; after it the alias rests, even with the right password.
    again = await Caller.connect(door.port)
    await again.wait_for("Your alias")
    await again.type("alice")
    await again.wait_for("Password for")
    await again.type("wrong")
    await again.wait_for("Wrong password for alice", timeout=15)
    await again.type("alice")
    await again.wait_for("Too many wrong passwords lately. Try again in", timeout=15)
    await again.hang_up()


async def test_the_rules_and_settings_pages(door):
    caller = await sign_up(door)
    await caller.key("I")
    await caller.wait_for("The rules of Canfield \\(1/")
    assert "THE LAYOUT" in caller.display()
    await caller.key("Q")
    await caller.wait_for("Your choice")
    await caller.key("T")
    await caller.wait_for("Terminal settings")
    await caller.key("L")
    await caller.wait_for("Keep this")
    await caller.key("Y")
    await caller.wait_for("Suits drawn as: letters")
    await caller.key("Q")
    await caller.wait_for("Your choice")
    user = await door.store.find_user("Alice")
    assert user is not None and user.suit_letters
    await caller.hang_up()


async def test_all_nodes_busy(tmp_path):
    config = door_config(tmp_path, max_nodes=1)
    running = await open_door(config)
    try:
        first = await Caller.connect(running.port)
        await first.wait_for("Your alias")
        second = await Caller.connect(running.port)
        await second.wait_for("The only node is busy", in_text=True)
        await second.wait_closed()
        await first.hang_up()
    finally:
        await running.server.close("bye", grace=1.0)
        await running.store.close()


@pytest.mark.slow
async def test_shutdown_tells_callers_and_keeps_their_game(tmp_path):
    running = await open_door(door_config(tmp_path))
    caller = await sign_up(running)
    await start_deal(caller, DEAL)
    await play(caller, "V", 1)
    await running.server.close("The door is shutting down. Your game is saved.", grace=2.0)
    await caller.wait_for("shutting down", in_text=True)
    await running.store.close()
    reopened = await open_door(dataclasses.replace(running.config))
    try:
        user = await reopened.store.find_user("Alice")
        saved = await reopened.store.resume(user.id, 2)
        assert saved is not None and saved[1].history == ["V"]
    finally:
        await reopened.server.close("bye", grace=1.0)
        await reopened.store.close()
    await asyncio.sleep(0)


@pytest.mark.slow
async def test_an_idle_caller_is_warned_on_the_board_then_hung_up(tmp_path):
    running = await open_door(door_config(tmp_path, idle_timeout=3, idle_warning=2))
    try:
        caller = await sign_up(running)
        await start_deal(caller, DEAL)
        await play(caller, "V", 1)
        # The warning lands on the board's message line, not scrolling the screen.
        await caller.wait_for("still there", timeout=10)
        assert "CANFIELD" in caller.row(1)
        await caller.wait_for("No input for", in_text=True, timeout=10)
        await caller.wait_closed()
        user = await running.store.find_user("Alice")
        saved = await running.store.resume(user.id, 2)
        assert saved is not None and saved[1].history == ["V"]
    finally:
        await running.server.close("bye", grace=1.0)
        await running.store.close()


@pytest.mark.slow
async def test_an_idle_caller_at_a_prompt_is_warned_on_the_message_row(tmp_path):
    running = await open_door(door_config(tmp_path, idle_timeout=3, idle_warning=2))
    try:
        caller = await sign_up(running)
        await caller.key("#")
        await caller.wait_for("Deal number")
        await caller.type("7", enter=False)
        await caller.wait_for(r"Deal number \(Enter to go back\): 7")
        title = caller.row(1)
        # The warning lands on the page's message row; the prompt and the typing stay.
        await caller.wait_for("still there", timeout=10)
        assert caller.row(1) == title
        assert caller.row(22).startswith(" Are you still there?")
        assert caller.row(23) == " Deal number (Enter to go back): 7"
        await caller.wait_for("No input for", in_text=True, timeout=10)
        await caller.wait_closed()
    finally:
        await running.server.close("bye", grace=1.0)
        await running.store.close()


async def test_goodbye_leaves_the_last_menu_in_place(door):
    caller = await sign_up(door)
    title = caller.row(1)
    assert "Canfield - " in title
    await caller.key("G")
    await caller.wait_closed()
    # The farewell takes the prompt's row and the cursor waits on the row below it: nothing
    # scrolled, so the menu the caller left is still on their screen, title and all.
    assert caller.row(1) == title
    assert caller.row(23).strip() == "Thanks for playing Canfield. Goodbye!"
    assert (caller.screen.cursor.y, caller.screen.cursor.x) == (23, 0)


async def test_goodbye_starts_in_the_second_column_and_takes_the_old_message_away(door):
    caller = await sign_up(door)
    title = caller.row(1)
    await caller.key("Z")
    await caller.wait_for("Press one of the keys shown.")
    await caller.key("G")
    await caller.wait_closed()
    assert caller.row(1) == title
    assert caller.row(23) == " Thanks for playing Canfield. Goodbye!"  # as every line is
    assert "Press one of the keys" not in caller.display()
    assert caller.row(21) == caller.row(22) == caller.row(24) == ""


PLAIN = {"ansi": False, "term": "dumb", "charset": "ascii"}


async def goodbye_and_a_hang_up(tmp_path, options: dict, hang_up) -> tuple[Caller, Caller]:
    """Two callers at the main menu, a message of the page's on their screens: one says
    goodbye, the other is hung up by ``hang_up(door)``; both as they were left."""
    running = await open_door(door_config(tmp_path, idle_timeout=3, idle_warning=60))
    try:
        callers = [await sign_up(running, alias, **options) for alias in ("Alice", "Bob")]
        for caller in callers:
            await caller.key("Z")
            await caller.wait_for("Press one of the keys shown.", in_text=True)
        await callers[0].key("G")
        await callers[0].wait_closed()
        await hang_up(running)
        await callers[1].wait_closed()
    finally:
        await running.server.close("bye", grace=1.0)
        await running.store.close()
    return callers[0], callers[1]


async def _shut_down(running) -> None:
    await running.server.close("The door is shutting down. Your game is saved.", grace=2.0)


async def _leave_idle(running) -> None:
    """Nothing: the caller's idle time runs out."""


def _last_row(caller: Caller) -> tuple[int, str]:
    rows = caller.display().splitlines()
    number = max(n for n, row in enumerate(rows, start=1) if row.strip())
    return number, rows[number - 1]


@pytest.mark.parametrize(
    "hang_up, said",
    [
        (_shut_down, "The door is shutting down. Your game is saved."),
        pytest.param(_leave_idle, "No input for 3 seconds. Goodbye.", marks=pytest.mark.slow),
    ],
    ids=["shutdown", "idle"],
)
@pytest.mark.parametrize("options", [{}, PLAIN], ids=["ansi", "plain"])
async def test_a_hang_up_s_message_lands_where_goodbye_does(tmp_path, options, hang_up, said):
    goodbye, hung_up = await goodbye_and_a_hang_up(tmp_path, options, hang_up)
    assert _last_row(goodbye)[1] == " Thanks for playing Canfield. Goodbye!"
    assert _last_row(hung_up)[1] == f" {said}"  # in the second column, as every line is
    if options:
        return
    assert _last_row(hung_up)[0] == _last_row(goodbye)[0] == 23  # the prompt's row
    for caller in (goodbye, hung_up):
        assert "Press one of the keys" not in caller.display()  # the old message taken away
        assert caller.row(21) == caller.row(22) == caller.row(24) == ""
        assert "Canfield - " in caller.row(1)  # nothing scrolled
        assert (caller.screen.cursor.y, caller.screen.cursor.x) == (23, 0)


@pytest.mark.slow
async def test_the_keys_panel_names_hint_at_a_level_that_offers_hints(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL, "1")  # level 1 offers hints
    panel = [row[61:].strip() for row in caller.display().splitlines()[11:20]]
    assert "HINT  a hint" in panel, panel
    await caller.type("Q")
    await caller.wait_for("Your choice")
    await start_deal(caller, DEAL, "3")  # level 3 does not
    assert "HINT" not in caller.display()
    await caller.hang_up()


@pytest.mark.slow
async def test_one_card_on_the_waste_is_one_card(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL, "1")  # level 1 draws one
    assert sidebar(caller, "Waste") == "0 cards"
    await play(caller, "V", 1)
    assert sidebar(caller, "Waste") == "1 card"
    await play(caller, "V", 2)
    assert sidebar(caller, "Waste") == "2 cards"
    await caller.hang_up()
