"""Honest scoreboards over real TCP: a scored game's deal is secret until it ends (every screen
read through pyte, every byte the caller was sent), its seal matches the deal revealed at the
end, a chosen deal is practice, and the deal of the day comes from the door's own secret."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import shutil
import sqlite3
import stat
from datetime import date, timedelta

import pytest

from door.engine import Game
from door.engine.shuffle import MAX_DEAL_NUMBER
from door.engine.solver import solve
from door.fairness import daily_start, seal, secret_deal_number
from door.levels import SHIPPED_LEVELS
from door.store import Store
from tests.support.daily import Clock, daily_config
from tests.support.door_server import RunningDoor, door_config, open_door
from tests.support.telnet_caller import Caller
from tests.support.visits import log_in, scored_deal, sign_up, start_deal

SEAL = re.compile(r"Seal ([0-9a-f]{32}) ")
REVEAL = re.compile(r"Deal (\d+)  salt ([0-9a-f]{32})")


class Secret:
    """A game's deal and salt, and every way the caller could have seen them."""

    def __init__(self, deal: int, salt: str) -> None:
        self.words = (str(deal), salt)

    def check_screen(self, caller: Caller) -> None:
        shown = caller.display()
        for word in self.words:
            assert word not in shown, shown

    def check_bytes(self, sent: bytes) -> None:
        for word in self.words:
            assert word.encode() not in sent


async def game_on_board(door: RunningDoor, caller: Caller) -> tuple[int, int, str]:
    """(game id, deal, salt) of the scored game on the caller's board, from the store."""
    await caller.wait_for("Command \\(\\? for help\\)", timeout=30)
    found = re.search(r"Game (\d+)", caller.row(1))
    assert found is not None, caller.row(1)
    record = await door.store.game_record(int(found.group(1)))
    assert record.deal is not None and record.salt is not None and not record.practice
    return record.id, record.deal, record.salt


async def see(
    caller: Caller, secret: Secret, keys: str, pattern: str, *, enter: bool = False
) -> None:
    """Type or press ``keys``, wait for ``pattern``, and check the screen shows no secret."""
    caller.forget_text()
    if enter:
        await caller.type(keys)
    else:
        await caller.key(keys)
    await caller.wait_for(pattern, timeout=20, in_text=not caller.ansi)
    secret.check_screen(caller)


@pytest.mark.slow
@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "plain-lines"])
async def test_a_scored_games_deal_is_never_sent_before_it_ends(
    door: RunningDoor, ansi: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="door")
    options = {} if ansi else {"ansi": False, "term": "dumb", "charset": "ascii"}
    caller = await sign_up(door, **options)
    in_text = not ansi
    await caller.key("P")
    await caller.wait_for("Level:", in_text=in_text)
    await caller.key("1")  # visible hints
    if ansi:
        game_id, deal, salt = await game_on_board(door, caller)
    else:  # a plain caller plays a line per play
        await caller.wait_for("Command: ", in_text=True)
        found = re.search(r"Game (\d+)\.", caller.text)
        assert found is not None
        record = await door.store.game_record(int(found.group(1)))
        game_id, deal, salt = record.id, record.deal, record.salt
    secret = Secret(deal, salt)
    shown_seal = SEAL.search(caller.text)
    assert shown_seal is not None and shown_seal.group(1) == seal(deal, salt)
    assert f"Game {game_id}" in caller.text
    # Every screen of the game and around it: plays, refusals, help, a hint, a redraw.
    steps = [
        ("V", r"Moves\s+1\b" if ansi else "Command: "),
        ("S 9", "There is no column 9"),
        ("HINT", "Hint: |No play to suggest"),
        ("?", "Press Enter to return"),
        ("", "Command"),
        ("R", "Command"),
        ("C", "Suits as"),
        ("Q", "Your choice"),
    ]
    for keys, pattern in steps:
        await see(caller, secret, keys, pattern, enter=True)
    # Around the board: statistics, scoreboards, the resume offer, then back to the game.
    await see(caller, secret, "M", "Your statistics")
    for _ in door.config.levels[1:]:
        await see(caller, secret, " ", "Your statistics")
    await see(caller, secret, " ", "Your choice")
    await see(caller, secret, "S", "Which board")
    await see(caller, secret, "1", "High scores")
    await see(caller, secret, " ", "Which board")
    await see(caller, secret, "A", "Won %")
    await see(caller, secret, " ", "Which board")
    await see(caller, secret, "Q", "Resume your saved game")
    await see(caller, secret, "R", "Welcome back")
    secret.check_bytes(bytes(caller.received))
    door_log = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("door"))
    assert "logged in" in door_log
    assert str(deal) not in door_log and salt not in door_log
    # The end: the deal and the salt, and they match the seal shown at the start.
    await caller.type("N")
    await caller.wait_for("Resign this game", in_text=in_text)
    await caller.key("Y")
    await caller.wait_for("Game resigned, score", in_text=in_text)
    revealed = REVEAL.search(caller.text if not ansi else caller.display())
    assert revealed is not None
    assert (int(revealed.group(1)), revealed.group(2)) == (deal, salt)
    assert seal(int(revealed.group(1)), revealed.group(2)) == shown_seal.group(1)
    await caller.hang_up()


@pytest.mark.slow
async def test_a_won_games_seal_matches_the_deal_revealed_at_the_end(door: RunningDoor) -> None:
    level = door.config.level(1)
    verdict = solve(Game.deal(level.variant, 1), max_seconds=20)
    assert verdict.result == "won"
    caller = await sign_up(door)
    game_id = await scored_deal(door, caller, 1, 1)
    # A resumed game shows its seal too; the test knows the deal, the caller does not.
    assert f"Game {game_id}" in caller.row(1)
    shown = SEAL.search(caller.row(21))
    assert shown is not None, caller.row(21)
    for command in verdict.line:
        await caller.type(command)
    await caller.wait_for("You won! Final score", timeout=30)
    revealed = REVEAL.search(caller.display())
    assert revealed is not None and int(revealed.group(1)) == 1
    assert seal(1, revealed.group(2)) == shown.group(1)
    await caller.hang_up()


@pytest.mark.slow
async def test_a_numbered_deal_is_practice_and_its_win_is_on_no_list(door: RunningDoor) -> None:
    level = door.config.level(1)
    verdict = solve(Game.deal(level.variant, 1), max_seconds=20)
    assert verdict.result == "won"
    caller = await sign_up(door)
    await caller.key("#")
    await caller.wait_for("Deal number")
    assert "practice" in caller.display()
    await caller.type("1")
    await caller.wait_for("Choose a level")
    await caller.key("1")
    await caller.wait_for("Command \\(\\? for help\\)")
    # Practice, said before the first play: in the title, above the message and in it.
    assert "Practice deal 1" in caller.row(1)
    assert "Practice: this game never reaches the scoreboards." in caller.row(21)
    assert "Practice deal 1." in caller.row(22)
    for command in verdict.line:
        await caller.type(command)
    await caller.wait_for("You won! Final score", timeout=30)
    await caller.type("")
    await caller.wait_for("That was practice: it is not on the scoreboards.")
    record = (await door.store.games_of((await door.store.find_user("Alice")).id))[0]
    assert record.status == "won" and record.practice and record.salt is None
    assert await door.store.high_scores(level) == []
    await caller.key("S")
    await caller.wait_for("Which board")
    await caller.key("1")
    await caller.wait_for("No finished games at this level yet.")
    await caller.key(" ")
    await caller.wait_for("Which board")
    await caller.key("A")
    await caller.wait_for("Nobody has finished a game yet.")
    await caller.key(" ")
    await caller.wait_for("Which board")
    await caller.key("Q")
    await caller.wait_for("Your choice")
    await caller.key("M")
    await caller.wait_for("Your statistics")
    assert "Played 0   Won 0" in caller.display()
    assert "Practice, not counted above: played 1   won 1" in caller.display()
    await caller.hang_up()


@pytest.mark.slow
async def test_a_replay_of_a_finished_scored_game_is_practice(door: RunningDoor) -> None:
    caller = await sign_up(door)
    await scored_deal(door, caller, 48213)
    await caller.type("N")
    await caller.wait_for("Resign this game")
    await caller.key("Y")
    await caller.wait_for("Game resigned, score")
    assert REVEAL.search(caller.display()).group(1) == "48213"
    await caller.type("")
    await caller.wait_for(r"Game \d+\.")  # the next deal, scored
    await caller.type("Q")
    await caller.wait_for("Your choice")
    await caller.key("#")
    await caller.wait_for("Deal number")
    await caller.type("48213")
    await caller.wait_for("Choose a level")
    await caller.key("\r")
    # The saved game is resigned first: it too is shown as it ends, deal and all.
    await caller.wait_for("You have a saved game at this level")
    await caller.key("N")
    await caller.type("")
    await caller.wait_for("Game resigned, score")
    assert REVEAL.search(caller.display()) is not None
    await caller.type("")
    await caller.wait_for("Practice deal 48213")
    user = await door.store.find_user("Alice")
    replay = (await door.store.games_of(user.id))[-1]
    assert replay.deal == 48213 and replay.practice and replay.status == "playing"
    await caller.hang_up()


async def test_secret_deal_numbers_span_the_whole_range() -> None:
    numbers = {secret_deal_number() for _ in range(64)}
    assert len(numbers) == 64
    # Drawn from all 2**63 numbers, not a range small enough to try against the cards in view.
    assert max(numbers) > 2**62 and all(0 <= n <= MAX_DEAL_NUMBER for n in numbers)


async def test_two_doors_deal_different_deals_of_the_day(tmp_path) -> None:
    day = Clock().now.date()
    async with Store.open(tmp_path / "one.db") as one, Store.open(tmp_path / "two.db") as two:
        first, second = await one.daily_secret(), await two.daily_secret()
        assert len(first) == 64 and first != second
        assert daily_start(day, first) != daily_start(day, second)
    async with Store.open(tmp_path / "one.db") as again:
        assert await again.daily_secret() == first  # kept for good


async def open_the_daily_door(tmp_path, clock: Clock, **options) -> RunningDoor:
    return await open_door(daily_config(tmp_path), clock=clock, **options)


@pytest.mark.slow
async def test_the_deal_of_the_day_is_practice_only_once_its_day_is_over(tmp_path) -> None:
    clock = Clock()
    door = await open_the_daily_door(tmp_path, clock)
    try:
        number = (await door.solving.deal_of_the_day()).deal
        caller = await sign_up(door)
        await caller.key("#")
        await caller.wait_for("Deal number")
        await caller.type(str(number))
        await caller.wait_for("today's deal of the day: practise it from tomorrow")
        assert await door.store.games_of((await door.store.find_user("Alice")).id) == []
        await caller.hang_up()
        clock.now += timedelta(days=1)
        caller = await log_in(door)
        await start_deal(caller, number, "1")
        assert f"Practice deal {number}" in caller.row(1)
        await caller.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_unfinished_daily_games_close_at_the_days_end(tmp_path) -> None:
    clock = Clock()
    door = await open_the_daily_door(tmp_path, clock)
    try:
        today = clock.now.date()
        await door.solving.deal_of_the_day()
        alice, bob = await sign_up(door, "Alice"), await sign_up(door, "Bob")
        for caller in (alice, bob):
            await caller.key("D")
            await caller.wait_for(f"Deal of the day - {today.isoformat()}", timeout=30)
            await caller.key("P")
            await caller.wait_for("Command \\(\\? for help\\)")
        await alice.type("Q")
        await alice.wait_for("Your game of today's deal is saved")
        await alice.hang_up()
        clock.now += timedelta(days=1)
        # Bob plays on past midnight: his next command finds the day over, and the deal.
        await bob.type("V")
        await bob.wait_for("The day is over: this game counts as resigned")
        assert REVEAL.search(bob.display()) is not None
        # Alice's saved game closes without her: the door does it (here: its background).
        door.solving.start()
        for _ in range(200):
            statuses = [game.status for game in await door.store.games_of(1)]
            if statuses == ["resigned"]:
                break
            await asyncio.sleep(0.05)
        assert statuses == ["resigned"]
        await bob.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_a_day_closes_at_anyones_next_visit_without_the_background(tmp_path) -> None:
    clock = Clock()
    config = daily_config(tmp_path)
    door = await open_door(config, clock=clock)
    try:
        await door.solving.deal_of_the_day()
        alice = await sign_up(door, "Alice")
        await alice.key("D")
        await alice.wait_for("Deal of the day - ", timeout=30)
        await alice.key("P")
        await alice.wait_for("Command \\(\\? for help\\)")
        await alice.type("Q")
        await alice.wait_for("saved")
        await alice.hang_up()
        clock.now += timedelta(days=1)
        bob = await sign_up(door, "Bob")  # anyone's visit closes the day, not only Alice's D
        assert [game.status for game in await door.store.games_of(1)] == ["resigned"]
        await bob.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_a_winnable_levels_stock_stays_out_of_sight(tmp_path) -> None:
    config = door_config(tmp_path)
    levels = list(config.levels)
    levels[0] = dataclasses.replace(levels[0], winnable_only=True)
    config = dataclasses.replace(config, levels=tuple(levels))
    door = await open_door(config)
    try:
        level = config.level(1)
        for deal in (secret_deal_number(), secret_deal_number()):
            await door.store.add_winnable(level, deal)
        stock = await door.store.winnable_deals(level)
        caller = await sign_up(door)
        await caller.key("P")
        await caller.wait_for("Level:")
        await caller.key("1")
        _, deal, _ = await game_on_board(door, caller)
        assert deal == stock[0]
        sent = bytes(caller.received)
        assert all(str(number).encode() not in sent for number in stock)
        await caller.hang_up()
    finally:
        await door.close()


async def test_an_older_database_keeps_its_games_and_drops_guessable_deals(tmp_path) -> None:
    """The step that seals deals keeps every game (scored, unsealed) and forgets the deals
    chosen before deals were secret: the winnable stock and a day's deal nobody has played
    yet."""
    import json
    import sqlite3

    from door.store.schema import MIGRATIONS

    level = door_config(tmp_path).level(1)
    game = Game.deal(level.variant, 7)
    now = "2026-11-28T12:00:00.000000+00:00"
    knobs = json.dumps(level.variant.to_dict(), sort_keys=True, separators=(",", ":"))
    with sqlite3.connect(tmp_path / "old.db") as db:
        for statement in (*MIGRATIONS[0], *MIGRATIONS[1]):
            db.execute(statement)
        db.execute("PRAGMA user_version = 2")
        db.execute(
            "INSERT INTO users (alias, alias_key, created, last_seen) VALUES ('Al', 'al', ?, ?)",
            (now, now),
        )
        db.execute("INSERT INTO variants (level, knobs, created) VALUES (1, ?, ?)", (knobs, now))
        db.execute(
            "INSERT INTO games (user_id, variant_id, level, deal, deal_order, position, status, "
            "score, moves, cards_up, started, finished, day) "
            "VALUES (1, 1, 1, 7, ?, ?, 'stuck', 40, 0, 1, ?, ?, '2026-11-27')",
            (" ".join(map(str, game.order)), json.dumps(game.to_dict()), now, now),
        )
        db.executemany(
            "INSERT INTO daily_deals VALUES (?, 1, 1, ?, ?)",
            [("2026-11-27", 7, now), ("2026-11-28", 8, now)],
        )
        db.execute("INSERT INTO winnable_deals VALUES (1, 5, ?)", (now,))
    async with Store.open(tmp_path / "old.db", clock=Clock()) as store:
        (old,) = await store.games_of(1)
        assert (old.deal, old.status, old.practice, old.salt) == (7, "stuck", False, None)
        assert await store.winnable_deals(level) == []
        assert (await store.daily_deal(date(2026, 11, 27))).deal == 7  # played: it stands
        assert await store.daily_deal(date(2026, 11, 28)) is None  # chosen again when asked
        assert len(await store.daily_secret()) == 64


async def test_the_daily_secret_is_kept_out_of_the_database_and_its_backups(tmp_path) -> None:
    """Whoever holds a backup can't work out the days to come: the secret is in an
    owner-only file of its own beside the database, never in it."""
    database = tmp_path / "door.db"
    async with Store.open(database) as store:
        secret = await store.daily_secret()
        await store.backup(tmp_path / "backup.db")
    kept = tmp_path / "door.db.secret"
    assert kept.read_text().strip() == secret
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    for copy in (database, tmp_path / "backup.db"):
        with sqlite3.connect(copy) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert secret.encode() not in copy.read_bytes()


async def test_a_secret_an_older_door_kept_in_the_database_moves_to_its_file(tmp_path) -> None:
    database = tmp_path / "door.db"
    async with Store.open(database):
        pass
    (tmp_path / "door.db.secret").unlink()
    older = "ab" * 32
    with sqlite3.connect(database) as db:
        db.execute("INSERT INTO door_secrets VALUES ('daily', ?, '2026-01-01')", (older,))
    async with Store.open(database) as store:
        assert await store.daily_secret() == older  # the days to come stay as they were
    assert (tmp_path / "door.db.secret").read_text().strip() == older
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM door_secrets").fetchone()[0] == 0


async def test_a_backup_restored_without_the_secret_keeps_the_days_chosen(
    tmp_path, caplog
) -> None:
    """The sysop restores a backup elsewhere: the days already chosen keep their deals, the
    log says a new secret was made, and later days are drawn from it."""
    day = Clock().now.date()
    level = SHIPPED_LEVELS[1]
    async with Store.open(tmp_path / "door.db") as store:
        first = await store.daily_secret()
        await store.choose_daily_deal(day, level, 1234)
        await store.backup(tmp_path / "backup.db")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(tmp_path / "backup.db", elsewhere / "door.db")
    caplog.set_level(logging.INFO, logger="door")
    async with Store.open(elsewhere / "door.db") as restored:
        assert (await restored.daily_deal(day)).deal == 1234
        assert await restored.daily_secret() != first
    assert "the deal of the day's secret was made anew" in caplog.text
