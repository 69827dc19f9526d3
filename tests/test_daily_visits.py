"""The deal of the day over real TCP: the same deal for every caller on a day, another the
next day, played once each, and a board for every day."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from door.engine import Game
from door.engine.solver import solve
from door.fairness import daily_start
from door.solving.daily import DEAL_RANGE, choose_deal_of_the_day
from door.solving.pool import SolverPool
from door.store import Store
from tests.support.daily import Clock, daily_config
from tests.support.door_server import open_door
from tests.support.telnet_caller import Caller
from tests.support.visits import log_in, play, sign_up


async def open_the_day(caller: Caller, day: date, store: Store) -> int:
    """From the main menu to the deal of the day's page; the day's deal number, which the
    page shows only to a caller who has finished their game of it."""
    await caller.key("D")
    await caller.wait_for(f"Deal of the day - {day.isoformat()}", timeout=30)
    chosen = await store.daily_deal(day)
    assert chosen is not None
    if re.search(r"Deal \d+ at Level 1", caller.display()) is None:
        assert "Today's deal at Level 1" in caller.display()
        assert str(chosen.deal) not in caller.display()
    return chosen.deal


def board_row(caller: Caller, alias: str) -> str:
    return next(line for line in caller.display().splitlines() if f" {alias} " in line)


@pytest.mark.slow
async def test_one_deal_a_day_for_everyone_played_once(tmp_path) -> None:
    clock = Clock()
    config = daily_config(tmp_path)
    door = await open_door(config, clock=clock)
    try:
        today = clock.now.date()
        alice = await sign_up(door, "Alice")
        number = await open_the_day(alice, today, door.store)
        assert solve(Game.deal(config.level(1).variant, number), max_seconds=20).result == "won"
        assert "You have not played today's deal yet." in alice.display()
        await alice.key("P")
        await alice.wait_for("Command \\(\\? for help\\)")
        assert "Game " in alice.row(1) and "Deal of the day" in alice.row(1)
        assert str(number) not in alice.display()
        await play(alice, "V", 1)
        # Its help says what N does here: the day's deal is played once, no new one is dealt.
        await alice.type("?")
        page = await alice.wait_for("Press Enter to return to the game")
        assert "resign today's deal: your result goes on today's board" in page
        assert "deal a new one" not in page
        await alice.type("")
        await alice.wait_for("Command \\(\\? for help\\)")
        await alice.type("Q")
        await alice.wait_for("Your game of today's deal is saved")
        assert "playing" in board_row(alice, "Alice")
        # A saved game of the day's deal resumes; it is not the saved game of level 1.
        await alice.key("P")
        await alice.wait_for("Welcome back")
        await alice.type("N")
        await alice.wait_for("Resign today's deal\\? Your result goes on today's board")
        await alice.key("Y")
        await alice.wait_for("Game resigned, score")
        # The game is over: the board shows its deal.
        assert f"Deal {number}  salt " in alice.row(21)
        await alice.type("")
        await alice.wait_for("Your result is on today's board")
        assert "resigned" in board_row(alice, "Alice")
        # Her game is over: now she may know the deal.
        assert f"Deal {number} at Level 1" in alice.display()
        await alice.key("P")
        await alice.wait_for("You have played today's deal already")
        await alice.key("Q")
        await alice.wait_for("Your choice")
        assert "Resume your saved game" not in alice.display()
        await alice.hang_up()

        bob = await sign_up(door, "Bob")
        assert await open_the_day(bob, today, door.store) == number
        await bob.key("P")
        await bob.wait_for("Command \\(\\? for help\\)")
        assert str(number) not in bob.display()
        assert str(number).encode() not in bytes(bob.received)  # nor anything Bob was sent
        await play(bob, "V", 1)
        await bob.type("Q")
        await bob.wait_for("Your game of today's deal is saved")
        assert "resigned" in board_row(bob, "Alice")
        assert "playing" in board_row(bob, "Bob")
        await bob.hang_up()

        clock.now += timedelta(days=1)
        tomorrow = clock.now.date()
        bob = await log_in(door, "Bob")
        # Bob's game of yesterday's deal, left unfinished, counts as resigned now.
        assert "counts as resigned" in bob.display()
        other = await open_the_day(bob, tomorrow, door.store)
        assert other != number
        assert "Nobody has played this deal yet." in bob.display()
        await bob.key("E")
        await bob.wait_for("earlier days")
        assert f"{today.isoformat()}  deal {number} at level 1, 2 players" in bob.display()
        await bob.key("1")
        await bob.wait_for(f"Deal of the day - {today.isoformat()}")
        assert "resigned" in board_row(bob, "Alice")
        assert "resigned" in board_row(bob, "Bob")
        await bob.key(" ")
        await bob.wait_for("earlier days")
        await bob.key("Q")
        await bob.wait_for(f"Deal of the day - {tomorrow.isoformat()}")
        await bob.key("Q")
        await bob.wait_for("Your choice")
        await bob.hang_up()
        assert (await door.store.daily_deal(today)).deal == number
    finally:
        await door.close()


def test_the_starting_number_is_a_hash_of_the_doors_secret_and_the_date() -> None:
    import hashlib

    day = date(2027, 1, 31)
    digest = hashlib.sha256(b"s3cret 2027-01-31").digest()
    assert daily_start(day, "s3cret") == int.from_bytes(digest[:8], "big") % DEAL_RANGE
    assert daily_start(day, "s3cret") != daily_start(day + timedelta(days=1), "s3cret")
    assert daily_start(day, "s3cret") != daily_start(day, "another")


@pytest.mark.slow
@pytest.mark.parametrize("day", [date(2026, 11, 29), date(2027, 2, 1)])
async def test_the_days_deal_is_the_first_winnable_from_its_start(tmp_path, day) -> None:
    config = daily_config(tmp_path)
    variant = config.level(1).variant
    pool = SolverPool()
    try:
        async with Store.open(tmp_path / "daily.db") as store:
            chosen = await choose_deal_of_the_day(pool, store, config, day)
            assert chosen.day == day.isoformat() and chosen.level == 1
            start = daily_start(day, await store.daily_secret())
            assert start <= chosen.deal < start + 50
            assert solve(Game.deal(variant, chosen.deal), max_seconds=20).result == "won"
            # Chosen once: asked again, the stored deal stands.
            assert await choose_deal_of_the_day(pool, store, config, day) == chosen
    finally:
        pool.close()
        await pool.wait_closed()
