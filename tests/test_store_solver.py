"""The store's part in the solver's features: schema version 2, winnable deals kept ready,
the deal of the day and its games, and hints counted on the standings."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from door.engine import Game, Variant
from door.levels import SHIPPED_LEVELS
from door.store import Store, StoreError
from door.store.schema import MIGRATIONS, SCHEMA_VERSION

LEVEL_1, LEVEL_2, _ = SHIPPED_LEVELS
DAY = date(2026, 11, 29)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


async def test_a_version_1_database_keeps_its_saved_games(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    game = Game.deal(LEVEL_2.variant, 7)
    game.play("V")
    now = "2026-11-28T12:00:00.000000+00:00"
    with sqlite3.connect(path) as db:
        for statement in MIGRATIONS[0]:
            db.execute(statement)
        db.execute("PRAGMA user_version = 1")
        db.execute(
            "INSERT INTO users (alias, alias_key, created, last_seen) VALUES (?, ?, ?, ?)",
            ("Alice", "alice", now, now),
        )
        db.execute(
            "INSERT INTO variants (level, knobs, created) VALUES (2, ?, ?)",
            (json.dumps(LEVEL_2.variant.to_dict(), sort_keys=True, separators=(",", ":")), now),
        )
        db.execute(
            "INSERT INTO games (user_id, variant_id, level, deal, deal_order, position, status, "
            "score, moves, cards_up, started) VALUES (1, 1, 2, 7, ?, ?, 'playing', 0, 1, 1, ?)",
            (" ".join(map(str, game.order)), json.dumps(game.to_dict()), now),
        )
    async with Store.open(path, clock=Clock()) as store:
        assert await store.unfinished_levels(1) == [2]
        saved = await store.resume(1, 2)
        assert saved is not None and saved[1].history == ["V"]
        old = await store.game_record(saved[0])
        # A game from before deals were sealed: scored, with no seal.
        assert old.day is None and not old.practice and old.salt is None
        with pytest.raises(StoreError, match="already has an unfinished game"):
            await store.start_game(1, LEVEL_2, Game.deal(LEVEL_2.variant, 8))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


async def test_a_version_7_database_keeps_its_game_and_gains_the_index_and_the_plays(
    tmp_path: Path,
) -> None:
    """Schema 7 to now: the games' start index (step 8), contests (step 9), plays stored
    as commands (step 10), the league (step 11) and each caller's language (step 12); a
    game played before goes on where it was, and the old database is kept beside it."""
    path = tmp_path / "door.db"
    async with Store.open(path, clock=Clock()) as store:
        user = await store.create_user("Alice", "secret")
        game = Game.deal(LEVEL_2.variant, 7)
        game_id = await store.start_game(user.id, LEVEL_2, game)
        for command in ("V", "V", "V"):
            game.play(command)
            await store.record_play(game_id, game)
    with sqlite3.connect(path) as db:  # back to version 7: the whole position in the row
        db.execute("DROP INDEX games_by_start")
        db.execute("UPDATE games SET position = ?", (json.dumps(game.to_dict()),))
        db.execute("DROP TABLE plays")
        db.execute("ALTER TABLE games DROP COLUMN plays")
        for index in ("games_unfinished", "games_contest", "games_by_contest"):
            db.execute(f"DROP INDEX {index}")
        db.execute("ALTER TABLE games DROP COLUMN contest_deal")
        db.execute("ALTER TABLE games DROP COLUMN contest_id")
        db.execute("DROP TABLE contest_deals")
        db.execute("DROP TABLE contests")
        leagues = db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'league%'")
        for (table,) in leagues.fetchall():  # step 11
            db.execute(f"DROP TABLE {table}")
        db.execute("DROP INDEX users_by_skeleton")  # step 12
        db.execute("ALTER TABLE users DROP COLUMN skeleton")
        db.execute("ALTER TABLE users DROP COLUMN language")
        db.execute(
            "CREATE UNIQUE INDEX games_unfinished ON games (user_id, level, coalesce(day, '')) "
            "WHERE status = 'playing'"
        )
        db.execute("PRAGMA user_version = 7")
    async with Store.open(path, clock=Clock()) as store:
        saved = await store.resume(user.id, 2)
        assert saved is not None and saved[0] == game_id
        assert saved[1].history == ["V", "V", "V"]
        saved[1].play("V")
        await store.record_play(game_id, saved[1])
        assert (await store.load_game(game_id)).history == ["V"] * 4
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT plays FROM games").fetchone() == (4,)
        assert db.execute(
            "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'games_by_start'"
        ).fetchone()
    assert (tmp_path / "door-schema-7.db").is_file()


async def test_the_deal_of_the_day_is_apart_from_the_saved_game_of_its_level(
    tmp_path: Path,
) -> None:
    async with Store.open(tmp_path / "door.db", clock=Clock()) as store:
        user = await store.create_user("Alice", "secret")
        saved_id = await store.start_game(user.id, LEVEL_1, Game.deal(LEVEL_1.variant, 1))
        chosen = await store.choose_daily_deal(DAY, LEVEL_1, 5)
        assert await store.choose_daily_deal(DAY, LEVEL_2, 6) == chosen  # the first stands
        daily_id = await store.start_game(
            user.id, LEVEL_1, Game.deal(LEVEL_1.variant, 5), day=DAY.isoformat()
        )
        assert await store.unfinished_levels(user.id) == [1]
        resumed = await store.resume(user.id, 1)
        assert resumed is not None and resumed[0] == saved_id
        mine = await store.daily_game(user.id, DAY)
        assert mine is not None and mine[0] == daily_id and mine[1] == "playing"
        with pytest.raises(StoreError, match="has played the deal of the day"):
            await store.start_game(
                user.id, LEVEL_1, Game.deal(LEVEL_1.variant, 5), day=DAY.isoformat()
            )
        assert await store.unfinished_daily_games(user.id, DAY + timedelta(days=1)) == [daily_id]
        assert await store.unfinished_daily_games(user.id, DAY) == []
        board = await store.daily_board(DAY)
        assert [(row.alias, row.status) for row in board] == [("Alice", "playing")]
        assert [day.day for day in await store.daily_days(DAY + timedelta(days=1))] == [
            DAY.isoformat()
        ]
        assert await store.daily_days(DAY) == []


@pytest.mark.slow
async def test_the_daily_board_puts_wins_first_then_scores(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "door.db", clock=Clock()) as store:
        await store.choose_daily_deal(DAY, LEVEL_1, 5)
        for alias, plays in (("Ann", 3), ("Ben", 0), ("Cy", 1)):
            user = await store.create_user(alias, "secret")
            game = Game.deal(LEVEL_1.variant, 5)
            game_id = await store.start_game(user.id, LEVEL_1, game, day=DAY.isoformat())
            for _ in range(plays):
                game.play("V")
                await store.record_play(game_id, game)
            if alias != "Cy":
                game.resign()
                await store.finish_game(game_id, game)
        board = await store.daily_board(DAY)
        assert [row.alias for row in board] == ["Ben", "Ann", "Cy"]  # fewer moves first
        assert [row.status for row in board] == ["resigned", "resigned", "playing"]


async def test_winnable_deals_are_kept_per_rules_and_dealt_once(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "door.db", clock=Clock()) as store:
        for deal in (30, 10, 20):
            await store.add_winnable(LEVEL_1, deal)
        await store.add_winnable(LEVEL_1, 10)  # found twice, kept once
        assert await store.winnable_deals(LEVEL_1) == [30, 10, 20]
        assert await store.winnable_deals(LEVEL_2) == []
        changed = dataclasses.replace(LEVEL_1, variant=Variant(draw=1, passes=2))
        assert await store.winnable_deals(changed) == []  # other rules, another stock
        assert await store.take_winnable(LEVEL_1) == 30
        assert await store.winnable_deals(LEVEL_1) == [10, 20]
        assert await store.take_winnable(changed) is None


async def test_the_standings_count_games_with_a_hint(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "door.db", clock=Clock()) as store:
        user = await store.create_user("Alice", "secret")
        for number, helped in ((1, True), (2, False), (3, True)):
            game = Game.deal(LEVEL_1.variant, number)
            game_id = await store.start_game(user.id, LEVEL_1, game)
            if helped:
                await store.mark_assisted(game_id)
            if number < 3:  # the third is still being played: not counted yet
                game.resign()
                await store.finish_game(game_id, game)
        (standing,) = await store.standings()
        assert (standing.games, standing.assisted, standing.unfinished) == (2, 1, True)
