"""A contest opens and closes on its own: while ``canfield-door serve`` runs (a contest
declared meanwhile is taken up at a reload), on time even while the solver searches, across
a restart (one that closed while the door was stopped closes when it starts), and in door
mode at the next call."""

from __future__ import annotations

import asyncio
import os
import signal
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from door.config import load_config
from door.engine import Game
from door.engine.status import Status
from door.levels import SHIPPED_LEVELS
from door.store import Store
from door.store.contests import Contest
from tests.support.door_caller import DoorCall, door32, door_args, write_dropfile
from tests.support.door_caller import write_config as write_door_config
from tests.support.live_door import BULLETIN, start_live, wait_until, write_config
from tests.support.served_door import serve

SECOND = timedelta(seconds=1)
LATE = 5 * SECOND  # how late a contest may open or close on a busy machine, at most
# A search that uses its whole budget (as in test_solver_lanes), and a budget far longer
# than the test.
LONG = Game.deal(SHIPPED_LEVELS[0].variant, 3).to_dict()
BUDGET = 120.0


async def declare(database: Path, config: Path, name: str, opens: datetime, closes: datetime):
    """A contest of three deals at level 1, declared as the sysop's command does (on a
    clock that stands at its opening, however slow a busy machine makes the test)."""
    async with Store.open(database, clock=lambda: opens) as store:
        level = load_config(config).level(1)
        return await store.declare_contest(name, level, 3, opens, closes)


async def begin_a_deal(database: Path, contest: Contest, alias: str) -> int:
    """A caller's game of the contest's first deal, begun (at its opening, by the clock of
    this store) and left unfinished; its id."""
    async with Store.open(database, clock=lambda: contest.opens) as store:
        user = await store.create_user(alias, "secret-one1")
        level = load_config(database.parent / "sysop.toml").level(1)
        game_id, game = await store.start_contest_game(user.id, contest, 1, level)
        game.play(game.legal()[0])
        await store.record_play(game_id, game)
        return game_id


async def past(moment: datetime) -> None:
    """Until the clock has passed ``moment``."""
    while datetime.now(UTC) <= moment:
        await asyncio.sleep(0.05)


async def stored(database: Path, name: str, game_id: int | None = None):
    async with Store.open(database) as store:
        contest = await store.contest(name)
        game = None if game_id is None else await store.game_record(game_id)
        return contest, game


@pytest.mark.slow
async def test_contests_open_and_close_while_serving_across_reload_and_restart(tmp_path):
    config = write_config(tmp_path)
    database = tmp_path / "door.db"
    serving = await serve(config)
    try:
        await serving.wait_logged("serving 3 levels")
        # Declared while the door runs: the reload has the door look at once.
        now = datetime.now(UTC)
        await declare(database, config, "Flash", now + SECOND, now + 3 * SECOND)
        mark = serving.signal(signal.SIGHUP)
        await serving.wait_logged("settings reloaded", after=mark)
        # Then it opens and closes on its own: nobody calls.
        await serving.wait_logged("contest Flash is open until", after=mark)
        await serving.wait_logged(r"contest Flash has closed \(0 unfinished", after=mark)
        flash, _ = await stored(database, "Flash")
        assert flash.opened is not None and flash.closed is not None
        serving.signal(signal.SIGTERM)
        await asyncio.to_thread(serving.process.wait, 30)
    finally:
        if serving.process.poll() is None:
            serving.process.kill()
            serving.process.wait(30)

    # While the door is stopped, a contest opens, a game of it begins, and it closes.
    now = datetime.now(UTC)
    second = await declare(database, config, "Second", now, now + SECOND)
    game_id = await begin_a_deal(database, second, "Ann")
    await past(second.closes)
    contest, game = await stored(database, "Second", game_id)
    assert contest.closed is None and game.status == Status.PLAYING
    serving = await serve(config)
    try:
        await serving.wait_logged(r"contest Second has closed \(1 unfinished")
        contest, game = await stored(database, "Second", game_id)
        assert contest.closed is not None and game.status == "resigned"
    finally:
        serving.signal(signal.SIGTERM)
        await asyncio.to_thread(serving.process.wait, 30)


async def when(store: Store, name: str, what: str, by: datetime) -> datetime:
    """When the door recorded the contest's ``what`` ("opened" or "closed"), waited for
    until ``by`` at most."""
    while (moment := getattr(await store.contest(name), what)) is None:
        assert datetime.now(UTC) < by, f"contest {name} not {what} by {by:%H:%M:%S}"
        await asyncio.sleep(0.05)
    return moment


@pytest.mark.slow
async def test_a_contest_opens_and_closes_on_time_while_the_solver_searches(tmp_path):
    # Level 1 deals only winnable deals: the solver's background round has a stock to fill.
    winnable = {'hints = "visible"\n': 'hints = "visible"\nwinnable_only = true\n'}
    door = await start_live(tmp_path, edits=winnable)
    solving = door.service._solving
    # A long search holds the background lane, so the round's own searches wait behind it.
    search = asyncio.create_task(solving.pool.background.solve(LONG, BUDGET))
    try:
        now = datetime.now(UTC)
        contest = await door.store.declare_contest(
            "Flash", door.config.level(1), 3, now + SECOND, now + 3 * SECOND
        )
        door.service.reload()  # the door looks again at once
        opened = await when(door.store, "Flash", "opened", contest.opens + LATE)
        closed = await when(door.store, "Flash", "closed", contest.closes + LATE)
        assert contest.opens <= opened and contest.closes <= closed
        assert not search.done()  # the solver was busy all along
        # ... and the round, behind it, has yet to find a winnable deal.
        assert len(await door.store.winnable_deals(door.config.level(1))) == 0
    finally:
        search.cancel()
        with suppress(asyncio.CancelledError):
            await search
        await door.service.stop()
        async with asyncio.timeout(30):
            await door.task


@pytest.mark.slow
async def test_in_door_mode_a_contest_closes_at_the_next_call(tmp_path):
    config = write_door_config(tmp_path)
    database = tmp_path / "door.db"
    now = datetime.now(UTC)
    contest = await declare(database, config, "Weekly", now, now + SECOND)
    game_id = await begin_a_deal(database, contest, "Ann")
    await past(contest.closes)
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    call, slave = DoorCall.on_pty(door_args(dropfile, config))
    try:
        await asyncio.to_thread(call.wait_for, "Hello, Joe.")
        # The call closed it before the menu: Ann's game counts as resigned.
        contest, game = await stored(database, "Weekly", game_id)
        assert contest.closed is not None and game.status == "resigned"
        call.send("C")
        await asyncio.to_thread(call.wait_for, "Contest - Weekly")
        assert "Closed" in call.display()
        call.send("S")
        await asyncio.to_thread(call.wait_for, r"deal \d+ salt [0-9a-f]{32}")
        call.send(" ")
        await asyncio.to_thread(call.wait_for, "Your choice")
        call.send("Q")
        await asyncio.to_thread(call.wait_for, "Contests")
        call.send("G")
        assert await asyncio.to_thread(call.wait_exit) == 0
    finally:
        call.close()
        os.close(slave)


@pytest.mark.slow
async def test_the_bulletins_follow_a_contest_that_opens_and_closes_with_nobody_on(tmp_path):
    (tmp_path / "bulletins").mkdir()
    door = await start_live(tmp_path, bulletin_interval=0.05, edits=BULLETIN)
    text_file = tmp_path / "bulletins" / "canfield.txt"
    try:
        await wait_until(text_file.exists, "the bulletin")
        now = datetime.now(UTC)
        contest = await door.store.declare_contest(
            "Flash", door.config.level(1), 3, now + SECOND, now + 2 * SECOND
        )
        door.service.reload()  # the door looks again at once
        await wait_until(lambda: "Contest: Flash" in text_file.read_text(), "it opens")
        # The title says "closed" once the clock passes the close; the deals are shown once
        # the door has closed the contest, a moment later.
        await wait_until(lambda: "Deals revealed" in text_file.read_text(), "it closes")
        deals = await door.store.contest_deals(contest.id)
        text = text_file.read_text()
        assert "closed" in text
        assert all(f"{deal.deal} salt {deal.salt}" in text for deal in deals)
    finally:
        await door.service.stop()
        async with asyncio.timeout(30):
            await door.task
