"""Whole games over real TCP played without Enter: by hot keys, by the arrows, by the mouse
(SGR and the old X10 reports), with escape sequences split byte by byte; and the mouse
reports switched off however the caller leaves the board."""

from __future__ import annotations

import asyncio
import re

import pytest

from ansi.keys import MOUSE_OFF, MOUSE_ON
from door.engine import Game
from tests.support.door_server import door_config, open_door
from tests.support.keyplay import Player, key_bytes
from tests.support.telnet_caller import Caller
from tests.support.visits import DEAL, sidebar, sign_up, start_deal
from tests.support.winning import WON_DEAL, WON_LEVEL, winning_line

MOUSE_ON_BYTES, MOUSE_OFF_BYTES = MOUSE_ON.encode(), MOUSE_OFF.encode()


async def send(caller: Caller, data: bytes, *, bytewise: bool = False) -> None:
    chunks = [data[i : i + 1] for i in range(len(data))] if bytewise else [data]
    for chunk in chunks:
        caller.writer.write(chunk)
        await caller.writer.drain()


async def play_by(
    caller: Caller, door, method: str, *, old_mouse: bool = False, bytewise: bool = False
) -> Game:
    """Win the deal by ``method``, checking each play lands before the next."""
    line = winning_line(door)
    game = Game.deal(door.config.level(WON_LEVEL).variant, WON_DEAL)
    player = Player(method, game)
    for move, command in enumerate(line, start=1):
        keys = player.keys_for(command)
        await send(
            caller, b"".join(key_bytes(k, old_mouse=old_mouse) for k in keys), bytewise=bytewise
        )
        game.play(command)
        if game.status == "won":
            break
        await caller.wait_for(rf"Moves\s+{move}\b")
    await caller.wait_for("You won! Final score", timeout=30)
    assert sidebar(caller, "Up") == "52 of 52"
    assert player.commands == line
    return game


async def stored_history(door, alias: str = "Alice") -> tuple[str, ...]:
    user = await door.store.find_user(alias)
    return (await door.store.games_of(user.id))[0].history


@pytest.mark.parametrize(
    ("method", "old_mouse"),
    [("hot", False), ("pointer", False), ("drag", False), ("clicks", True)],
)
@pytest.mark.slow
async def test_a_whole_game_won_without_enter(door, method, old_mouse):
    caller = await sign_up(door)
    await start_deal(caller, WON_DEAL, str(WON_LEVEL))
    assert MOUSE_ON_BYTES in caller.received  # an ANSI caller's terminal is asked for clicks
    game = await play_by(caller, door, method, old_mouse=old_mouse)
    assert await stored_history(door) == tuple(game.history)
    await caller.key("\r")
    await caller.wait_for("Well played")
    # Off the board, the terminal no longer reports clicks.
    assert caller.received.rfind(MOUSE_OFF_BYTES) > caller.received.rfind(MOUSE_ON_BYTES)
    await caller.hang_up()


@pytest.mark.slow
async def test_escape_sequences_split_byte_by_byte(door):
    caller = await sign_up(door)
    await start_deal(caller, WON_DEAL, str(WON_LEVEL))
    game = await play_by(caller, door, "pointer", bytewise=True)
    assert await stored_history(door) == tuple(game.history)
    await caller.hang_up()


async def test_the_pointer_shows_the_play_it_made_and_a_lone_escape_puts_back(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await send(caller, b"\x1b[C")  # the pointer appears on the reserve
    await caller.wait_for("►")
    assert caller.row(4)[0] == "►"
    await send(caller, b" ")  # picked up
    await asyncio.sleep(0.1)
    await send(caller, b"\x1b")  # Escape, alone: put back after a short wait
    await send(caller, b"\x1b[C ")  # to the deck, Space: turn
    await caller.wait_for(r"Moves\s+1\b")
    assert caller.row(22).strip() == "V"
    assert await stored_history(door) == ("V",)
    await caller.hang_up()


@pytest.mark.slow
async def test_hot_keys_show_a_half_typed_command_and_enter_out_of_habit_is_swallowed(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await caller.key("s")
    await caller.wait_for("S → \\?")
    await caller.key("\x1b")
    await caller.wait_for(r"Command \(\? for help\): *\n")
    await caller.type("v")  # V and Enter: one turn, the Enter swallowed
    await caller.wait_for(r"Moves\s+1\b")
    await caller.type("UNDO")  # a whole word sent as a line, as before
    await caller.wait_for(r"Moves\s+0\b")
    await caller.key("v")
    await caller.wait_for(r"Moves\s+1\b")
    await caller.key("u")  # U alone: undo, once the door has waited for a longer word
    await caller.wait_for(r"Moves\s+0\b")
    assert await stored_history(door) == ("V", "U", "V", "U")
    await caller.hang_up()


async def test_escape_then_a_letter_within_the_wait_cancels_and_is_that_letter(door):
    """SyncTERM sends Escape and the next key together when they come fast: ESC O is the
    start of a key code, but one that does not finish in time is the keys it was."""
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await caller.key("s")
    await caller.wait_for("S → \\?")
    await send(caller, b"\x1bO")  # Escape, then O, within the Escape wait
    await caller.wait_for(r"Command \(\? for help\): *\n")  # S cancelled
    assert "S →" not in caller.display()
    await caller.key("2")
    await caller.wait_for("2 → \\?")  # a command of its own, not S 2
    assert await stored_history(door) == ()
    await caller.hang_up()


async def test_lines_kept_with_the_caller(door):
    caller = await sign_up(door)
    await caller.key("T")
    await caller.wait_for("Keys on the board: hot keys")
    await caller.key("H")
    await caller.wait_for("Keys on the board: lines")
    await caller.key("Q")
    await start_deal(caller, DEAL)
    await caller.key("v")
    await caller.wait_for(r"Command \(\? for help\): V")
    assert sidebar(caller, "Moves") == "0"
    await caller.key("\r")
    await caller.wait_for(r"Moves\s+1\b")
    user = await door.store.find_user("Alice")
    assert user.hot_keys is False
    await caller.hang_up()


async def test_a_menu_key_and_its_enter_show_the_first_page(door):
    caller = await sign_up(door)
    await caller.type("I")  # I and Enter: page 1 of the rules, not page 2
    await caller.wait_for(r"The rules of Canfield \(1/")
    await asyncio.sleep(0.5)
    assert "(1/" in caller.display()
    await caller.hang_up()


async def test_mouse_reports_off_after_goodbye(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await caller.key("q")
    await caller.wait_for("Your choice")
    await caller.key("G")
    await caller.wait_for("Goodbye", in_text=True)
    await caller.wait_closed()
    received = caller.received
    assert received.count(MOUSE_ON_BYTES) >= 1
    assert received.rfind(MOUSE_OFF_BYTES) > received.rfind(MOUSE_ON_BYTES)


@pytest.mark.slow
async def test_mouse_reports_off_after_an_idle_hang_up(tmp_path):
    running = await open_door(door_config(tmp_path, idle_timeout=3, idle_warning=2))
    try:
        caller = await sign_up(running)
        await start_deal(caller, DEAL)
        await caller.wait_for("No input for", in_text=True, timeout=10)
        await caller.wait_closed()
        received = caller.received
        assert received.rfind(MOUSE_OFF_BYTES) > received.rfind(MOUSE_ON_BYTES) >= 0
    finally:
        await running.server.close("bye", grace=1.0)
        await running.store.close()


async def test_mouse_reports_off_after_a_shutdown(tmp_path):
    running = await open_door(door_config(tmp_path))
    caller = await sign_up(running)
    await start_deal(caller, DEAL)
    await running.server.close("The door is shutting down.", grace=2.0)
    await caller.wait_for("shutting down", in_text=True)
    await running.store.close()
    received = caller.received
    assert received.rfind(MOUSE_OFF_BYTES) > received.rfind(MOUSE_ON_BYTES) >= 0


@pytest.mark.slow
async def test_plain_callers_are_never_asked_for_the_mouse(door):
    caller = await sign_up(door, ansi=False, term="dumb", charset="ascii")
    await caller.key("#")
    await caller.wait_for("Deal number", in_text=True)
    await caller.type(str(DEAL))
    await caller.wait_for("Level:", in_text=True)
    await caller.key("\r")
    await caller.wait_for("Command", in_text=True)
    caller.forget_text()
    await caller.type("V")  # a line per play by default: Enter ends the command
    await caller.wait_for(r"Deck \d+, waste", in_text=True)
    await caller.type("Q")
    await caller.wait_for("Your choice", in_text=True)
    assert b"\x1b[?1000" not in caller.received
    await caller.hang_up()


@pytest.mark.slow
@pytest.mark.parametrize("key", ["\x1b[H", "\x1b[F", "\x1b[5~", "\x1bOP"])
async def test_a_key_that_makes_no_step_right_after_esc_leaves_no_half_command(door, key):
    caller = await sign_up(door, term="syncterm", charset="cp437")
    await start_deal(caller, DEAL)
    await caller.key("S")
    await caller.wait_for(r"Command \(\? for help\): S > \?")
    # SyncTERM's curses mode sends a lone Esc late, in one packet with the next key (Home,
    # End, PgUp, F1): the Esc cancels the command, and the prompt shows it cancelled.
    await caller.key("\x1b" + key)
    await caller.wait_for(r"Command \(\? for help\):$")
    assert caller.row(23).strip() == "Command (? for help):"
    await caller.key("V")  # and the next command starts afresh
    await caller.wait_for(r"Moves\s+1\b")
    await caller.hang_up()


async def test_a_refusal_goes_from_the_message_line_as_the_next_step_begins(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await send(caller, b"\x1b[C \x1b[B ")  # the reserve's 4♦ picked up, dropped on column 1
    await caller.wait_for("4♦ can't go on 7♦: column 1 needs a black 6")
    await send(caller, b"\x1b[C")  # the pointer moves on, to column 2
    await caller.wait_for(gone("needs a black 6"))
    await send(caller, b"\x1b[A\x1b[C\x1b[C\x1b[C ")  # up to the top row, right to F: Space
    await caller.wait_for("Cards on the foundations stay there.")
    await send(caller, b"\x1b[D")  # the pointer moves on, to the waste
    await caller.wait_for(gone("stay there"))
    await send(caller, b" ")  # Space on the empty waste
    await caller.wait_for("The waste is empty.")
    await caller.key("s")  # typing begins a step as well
    await caller.wait_for("S → \\?")
    assert "The waste is empty." not in caller.display()
    assert caller.row(22) == ""
    assert await stored_history(door) == ()
    await caller.hang_up()


def gone(text: str) -> str:
    """A pattern the screen matches once ``text`` is no longer on it."""
    return rf"^(?![\s\S]*{re.escape(text)})"


async def test_the_pointer_on_a_ten_leaves_a_blank_before_it(door):
    caller = await sign_up(door)
    await start_deal(caller, 21)  # the reserve's top card is the ten of clubs
    assert "10♣" in caller.row(4)
    await send(caller, b"\x1b[C")  # the pointer appears on the reserve
    await caller.wait_for("►")
    assert caller.row(4).startswith("► 10♣ ")
    await caller.hang_up()
