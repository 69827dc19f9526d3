"""HINT in the game over real TCP: from the cards in view, from the solver, or off; and the
mark a hint leaves on the scoreboards."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from door.engine import Game
from door.engine.solver import solve
from door.solving.pool import Solving
from door.store import Store
from door.visit.advice import Hinter
from tests.support.door_server import RunningDoor, door_config, open_door, with_level
from tests.support.telnet_caller import Caller
from tests.support.visits import play, scored_deal, sign_up, start_deal

DEAL = 48213
HINT = re.compile(r"Hint: (\S+(?: \S+)?) \(")
LINE_HINT = re.compile(r"Hint: (\S+(?: \S+)?) \(a winning line, (\d+) plays? to go\)")


async def hint(caller: Caller, pattern: re.Pattern[str] = HINT) -> re.Match[str]:
    await caller.type("HINT")
    await caller.wait_for(pattern.pattern, timeout=20)
    found = pattern.search(caller.row(22))
    assert found is not None, caller.row(22)
    return found


async def test_a_visible_hint_is_a_legal_play_and_marks_the_game(door: RunningDoor) -> None:
    level = door.config.level(1)
    assert level.hints == "visible"
    caller = await sign_up(door)
    await scored_deal(door, caller, DEAL, 1)
    await caller.type("?")
    await caller.wait_for("Canfield commands")
    assert "HINT      a hint: the best play judged from the cards in view" in caller.display()
    await caller.type("")
    await caller.wait_for("Command \\(\\? for help\\)")

    game = Game.deal(level.variant, DEAL)
    suggested = (await hint(caller)).group(1)
    assert suggested in game.legal()
    user = await door.store.find_user("Alice")
    assert user is not None
    record = (await door.store.games_of(user.id))[0]
    assert record.assisted
    await play(caller, suggested, 1)

    # Resign: the finished game reaches the high scores, marked as helped.
    await caller.type("N")
    await caller.wait_for("Resign this game")
    await caller.key("Y")
    await caller.wait_for("Game resigned, score")
    await caller.type("")
    await caller.wait_for("Game \\d+\\.")
    await caller.type("Q")
    await caller.wait_for("Your choice")
    await caller.key("S")
    await caller.wait_for("Which board")
    await caller.key("1")
    await caller.wait_for("High scores - ")
    row = next(line for line in caller.display().splitlines() if "Alice" in line)
    assert "lost" in row and row.endswith("(hint)")
    await caller.key(" ")
    await caller.wait_for("Which board")
    await caller.key("A")
    await caller.wait_for("Won %")
    assert "Hints" in caller.display()
    standing = next(line for line in caller.display().splitlines() if "Alice" in line)
    assert standing.split()[-1] == "1"  # one finished game with a hint taken
    await caller.hang_up()


async def test_hints_are_off_at_a_level_without_them(door: RunningDoor) -> None:
    assert door.config.level(2).hints == "off"
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await caller.type("HINT")
    await caller.wait_for("Hints are off at this level")
    await caller.type("?")
    await caller.wait_for("Canfield commands")
    assert "HINT" not in caller.display()
    await caller.type("")
    await caller.wait_for("Command \\(\\? for help\\)")
    user = await door.store.find_user("Alice")
    assert user is not None
    assert not (await door.store.games_of(user.id))[0].assisted
    await caller.hang_up()


@pytest.fixture
async def solver_door(tmp_path) -> AsyncIterator[RunningDoor]:
    config = door_config(tmp_path)
    config = with_level(config, 1, hints="solver")
    config = with_level(config, 3, hints="solver")
    running = await open_door(config)
    yield running
    await running.close()


async def test_solver_hints_follow_a_winning_line(solver_door: RunningDoor) -> None:
    door = solver_door
    level = door.config.level(1)
    game = Game.deal(level.variant, 1)
    caller = await sign_up(door)
    await start_deal(caller, 1, "1")
    await caller.type("?")
    await caller.wait_for("Canfield commands")
    assert "the next play of a line the solver has proved wins" in caller.display()
    await caller.type("")
    await caller.wait_for("Command \\(\\? for help\\)")
    to_go = None
    for move in range(1, 13):
        found = await hint(caller, LINE_HINT)
        suggested, left = found.group(1), int(found.group(2))
        assert suggested in game.legal()
        if to_go is not None:
            assert left == to_go - 1  # the same line, one play further on
        to_go = left
        game.play(suggested)
        await play(caller, suggested, move)
    # The hinted plays keep the deal winnable, and the rest of the line is that long at most.
    verdict = solve(game, max_seconds=20)
    assert verdict.result == "won"
    user = await door.store.find_user("Alice")
    assert user is not None
    record = (await door.store.games_of(user.id))[0]
    assert record.assisted and list(record.history) == game.history
    await caller.hang_up()


async def test_a_solver_hint_on_a_lost_deal(solver_door: RunningDoor) -> None:
    level = solver_door.config.level(3)
    assert solve(Game.deal(level.variant, 1), max_seconds=10).result == "lost"
    caller = await sign_up(solver_door)
    await start_deal(caller, 1, "3")
    await caller.type("HINT")
    await caller.wait_for("No winning line from here", timeout=20)
    await caller.hang_up()


async def test_following_the_solver_hints_wins_the_game(tmp_path) -> None:
    config = with_level(door_config(tmp_path), 1, hints="solver")
    level = config.level(1)
    async with Store.open(tmp_path / "hints.db") as store:
        solving = Solving(store, config)
        try:
            hinter = Hinter(level, solving)
            game = Game.deal(level.variant, 2)
            while game.status == "playing":
                given = await hinter.hint(game)
                assert given.assisted
                found = HINT.search(given.text)
                assert found is not None, given.text
                game.play(found.group(1))
            assert game.status == "won"
        finally:
            await solving.close()
