"""A store fault under a caller's visit is called by its name: another program holding the
database's write lock (the sysop's command line, a door-mode process) is "busy", not a disk
fault, and not "played on meanwhile on another line"; the game stays as stored, the visit
goes on, and the sysop's log names the fault. Over real TCP, on a real SQLite file whose
write lock a second connection holds."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.database import write_lock_held
from tests.support.door_server import RunningDoor, door_config, open_door
from tests.support.visits import sign_up, start_deal

BUSY = "the database is busy with another program"
ELSEWHERE = "played on meanwhile"


@pytest.fixture
async def door(tmp_path) -> AsyncIterator[RunningDoor]:
    running = await open_door(door_config(tmp_path), busy_timeout_ms=100)
    yield running
    await running.close()


async def statuses(door: RunningDoor) -> list[str]:
    user = await door.store.find_user("Alice")
    assert user is not None
    return sorted(record.status for record in await door.store.games_of(user.id))


@pytest.mark.slow
async def test_resigning_while_the_database_is_busy(door: RunningDoor, caplog) -> None:
    caller = await sign_up(door)
    await start_deal(caller, 7)
    with write_lock_held(door.store.path):
        await caller.type("N")
        await caller.wait_for("Resign this game")
        await caller.key("Y")
        await caller.wait_for(f"Not resigned \\({BUSY}\\): you play on")
    assert ELSEWHERE not in caller.display()
    assert await statuses(door) == ["playing"]
    assert "StoreBusy" in caplog.text and "resigning game" in caplog.text
    await caller.type("N")
    await caller.wait_for("Resign this game")
    await caller.key("Y")
    await caller.wait_for("Game resigned")
    assert await statuses(door) == ["resigned"]
    await caller.hang_up()


@pytest.mark.slow
async def test_a_new_deal_while_the_database_is_busy(door: RunningDoor) -> None:
    caller = await sign_up(door)
    with write_lock_held(door.store.path):
        await start_deal(caller, 7, then=f"The new game could not be stored \\({BUSY}\\)")
    assert "saved game" not in caller.display()
    assert await statuses(door) == []
    await start_deal(caller, 7)
    assert await statuses(door) == ["playing"]
    await caller.hang_up()


@pytest.mark.slow
async def test_resigning_a_saved_game_from_the_chooser_while_the_database_is_busy(
    door: RunningDoor,
) -> None:
    caller = await sign_up(door)
    await start_deal(caller, 7, "2")
    await caller.type("Q")
    await caller.wait_for("Your game is saved")
    with write_lock_held(door.store.path):
        await start_deal(caller, 8, "2", then="You have a saved game at this level")
        await caller.type("N")
        await caller.wait_for("Your saved game was not resigned")
    assert "busy with another program" in caller.display()
    assert ELSEWHERE not in caller.display()
    assert await statuses(door) == ["playing"]
    await caller.hang_up()


@pytest.mark.slow
async def test_a_hint_while_the_database_is_busy_is_not_given_and_the_visit_goes_on(
    door: RunningDoor,
) -> None:
    caller = await sign_up(door)
    await start_deal(caller, 7, "1")  # level 1 gives hints from the cards in view
    with write_lock_held(door.store.path):
        await caller.type("HINT")
        await caller.wait_for(f"No hint now \\({BUSY}\\)")
    assert "Hint:" not in caller.display()
    user = await door.store.find_user("Alice")
    assert user is not None
    assert not (await door.store.games_of(user.id))[0].assisted
    await caller.type("HINT")
    await caller.wait_for("Hint:")
    assert (await door.store.games_of(user.id))[0].assisted
    await caller.hang_up()
