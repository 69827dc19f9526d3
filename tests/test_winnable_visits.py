"""Winnable deals over real TCP: levels that deal only deals the solver has proved winnable,
from a stock kept in the database; and, after a stuck game, whether it could have been won."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections.abc import Awaitable, Callable

import pytest

from door.config import Config
from door.engine import Game, Variant
from door.engine.solver import solve
from tests.support.door_server import RunningDoor, door_config, open_door, with_level
from tests.support.visits import sign_up, start_deal


def winnable_config(tmp_path, ready: int) -> Config:
    config = with_level(door_config(tmp_path), 1, winnable_only=True)
    # The background chooses the day's deal first: at draw one that is quick.
    solver = dataclasses.replace(config.solver, ready=ready, seconds=3.0, daily_level=1)
    return dataclasses.replace(config, solver=solver)


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.05)


async def dealt_number(caller, door: RunningDoor) -> int:
    """The deal of the game on the caller's board, from the store: the board shows only the
    game's number while it is played."""
    await caller.wait_for("Command \\(\\? for help\\)", timeout=30)
    found = re.search(r"Game (\d+)", caller.row(1))
    assert found is not None, caller.row(1)
    deal = (await door.store.game_record(int(found.group(1)))).deal
    assert deal is not None and str(deal) not in caller.display()
    return deal


@pytest.mark.slow
async def test_a_winnable_only_level_deals_from_a_stock_that_refills_and_survives(
    tmp_path,
) -> None:
    config = winnable_config(tmp_path, ready=2)
    level = config.level(1)
    door = await open_door(config, background=True)
    try:

        async def stocked() -> bool:
            return len(await door.store.winnable_deals(level)) == 2

        await eventually(stocked)
        stock = await door.store.winnable_deals(level)
        caller = await sign_up(door)
        await caller.key("P")
        await caller.wait_for("Choose a level")
        await caller.key("1")
        number = await dealt_number(caller, door)
        assert number == stock[0]
        assert solve(Game.deal(level.variant, number), max_seconds=20).result == "won"

        async def refilled() -> bool:
            deals = await door.store.winnable_deals(level)
            return len(deals) == 2 and number not in deals

        await eventually(refilled)
        kept = await door.store.winnable_deals(level)
        assert kept[0] == stock[1]
        await caller.hang_up()
    finally:
        await door.close()

    again = await open_door(config)
    try:
        assert await again.store.winnable_deals(level) == kept
        for deal in kept:
            assert solve(Game.deal(level.variant, deal), max_seconds=20).result == "won"
    finally:
        await again.close()


@pytest.mark.slow
async def test_with_no_deal_ready_the_caller_waits_for_one(tmp_path) -> None:
    config = winnable_config(tmp_path, ready=0)
    door = await open_door(config)
    try:
        caller = await sign_up(door)
        await caller.key("P")
        await caller.wait_for("Choose a level")
        await caller.key("1")
        await caller.wait_for("Finding a winnable deal", in_text=True)
        number = await dealt_number(caller, door)
        level = config.level(1)
        assert solve(Game.deal(level.variant, number), max_seconds=20).result == "won"
        await caller.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "plain"])
async def test_the_wait_for_a_winnable_deal_is_told_on_the_message_row(tmp_path, ansi) -> None:
    door = await open_door(winnable_config(tmp_path, ready=0))
    try:
        plain = {} if ansi else {"ansi": False, "term": "dumb", "charset": "ascii"}
        caller = await sign_up(door, **plain)
        await caller.key("P")
        await caller.wait_for("Choose a level", in_text=True)
        await caller.key("Z")  # a message of the page's, which the line takes the place of
        await caller.wait_for("Press the number of a level", in_text=True)
        await caller.key("1")
        shown = await caller.wait_for("Finding a winnable deal")
        rows = shown.splitlines()
        if ansi:  # the page's message row, in the second column; the page stays
            assert rows[21] == " Finding a winnable deal...", rows[19:]
            assert "Choose a level" in shown and "Press the number" not in shown
            assert rows[22].startswith(" Level:")
        else:  # a line of its own, in the second column as every line is
            assert " Finding a winnable deal..." in rows, rows[-4:]
        await caller.hang_up()
    finally:
        await door.close()


async def stuck_by_turning(door: RunningDoor, deal: int, level_key: str) -> str:
    """Deal ``deal`` and turn the deck until the game is stuck; the game-over line."""
    level = door.config.level(int(level_key))
    game = Game.deal(level.variant, deal)
    caller = await sign_up(door)
    await start_deal(caller, deal, level_key)
    while game.status == "playing":
        game.play("V")
        await caller.type("V")
    await caller.wait_for("Press Enter to go on", timeout=30)
    line = caller.row(22)
    assert "Command" not in caller.display()  # one question at a time
    await caller.type("")
    await caller.wait_for("That was practice")
    await caller.hang_up()
    return line


@pytest.mark.slow
async def test_after_a_stuck_game_the_caller_learns_no_line_wins(door: RunningDoor) -> None:
    # Level 3 (one pass): deal 19 is stuck after seven turns, and the solver proves it lost.
    assert solve(Game.deal(door.config.level(3).variant, 19), max_seconds=10).result == "lost"
    line = await stuck_by_turning(door, 19, "3")
    assert "No line wins this deal." in line
    assert line.strip().startswith("Game over, score")


@pytest.mark.slow
async def test_after_a_stuck_game_the_caller_learns_it_could_have_been_won(tmp_path) -> None:
    two_passes = Variant(draw=3, passes=2, multiplier=3)
    config = with_level(door_config(tmp_path), 3, variant=two_passes)
    assert solve(Game.deal(two_passes, 1034), max_seconds=10).result == "won"
    door = await open_door(config)
    try:
        line = await stuck_by_turning(door, 1034, "3")
        assert "This deal could have been won." in line
    finally:
        await door.close()


@pytest.mark.slow
async def test_the_sysop_may_keep_the_answer_to_himself(tmp_path) -> None:
    config = door_config(tmp_path)
    config = dataclasses.replace(
        config, solver=dataclasses.replace(config.solver, tell_winnable=False)
    )
    door = await open_door(config)
    try:
        line = await stuck_by_turning(door, 19, "3")
        assert "No play can change anything any more: the game is over." in line
        assert "won" not in line
    finally:
        await door.close()
