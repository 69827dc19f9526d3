"""A telnet caller's steps through a visit: signing up, logging in, dealing, playing."""

from __future__ import annotations

from door.engine import Game
from tests.support.telnet_caller import Caller

DEAL = 48213


async def sign_up(door, alias="Alice", password="secret-one1", **options) -> Caller:
    caller = await Caller.connect(door.port, **options)
    await sign_up_on(caller, alias, password)
    return caller


async def sign_up_on(caller: Caller, alias="Alice", password="secret-one1") -> None:
    """Sign up as a new user on a caller's line that has just connected."""
    in_text = not caller.ansi
    shown = await caller.wait_for("Your alias|Any key for more", in_text=in_text)
    if "Your alias" not in shown:  # a window too short for the welcome on one page
        await caller.key(" ")
        await caller.wait_for("Your alias", in_text=in_text)
    await caller.type(alias)
    await caller.wait_for(r"Sign\s+up\?", in_text=in_text)  # wrapped in a narrow window
    await caller.type("Y")
    await caller.wait_for("Password:", in_text=in_text)
    await caller.type(password)
    await caller.wait_for(r"Password\s+again", in_text=in_text)
    await caller.type(password)
    await caller.wait_for("Your choice", in_text=in_text)


async def log_in(door, alias="Alice", password="secret-one1", **options) -> Caller:
    caller = await Caller.connect(door.port, **options)
    await caller.wait_for("Your alias")
    await caller.type(alias)
    await caller.wait_for("Password for")
    await caller.type(password)
    await caller.wait_for("Your choice")
    return caller


async def start_deal(
    caller: Caller, number: int, level_key: str = "\r", then: str = "Command \\(\\? for help\\)"
) -> None:
    """Deal ``number`` at a level from the main menu, and wait for ``then`` (the board)."""
    await caller.key("#")
    await caller.wait_for("Deal number")
    await caller.type(str(number))
    await caller.wait_for("Choose a level")
    await caller.key(level_key)
    await caller.wait_for(then)


async def scored_deal(
    door, caller: Caller, number: int, level_number: int = 2, alias: str = "Alice"
) -> int:
    """A scored game of deal ``number`` for the caller, resumed from the main menu: the test
    knows the deal, which no caller can choose. The game's id."""
    level = door.config.level(level_number)
    user = await door.store.find_user(alias)
    game_id = await door.store.start_game(user.id, level, Game.deal(level.variant, number))
    await caller.key("X")  # the menu again, now with the saved game
    await caller.wait_for("Resume your saved game")
    await caller.key("R")
    await caller.wait_for("Command \\(\\? for help\\)")
    return game_id


async def play(caller: Caller, command: str, move: int) -> None:
    await caller.type(command)
    await caller.wait_for(rf"Moves\s+{move}\b")


def sidebar(caller: Caller, name: str) -> str:
    row = next(line for line in caller.display().splitlines() if line[61:].startswith(name))
    return row[71:].strip()
