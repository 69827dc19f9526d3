"""The store on real SQLite files: users, variants, games played through the engine,
statistics, both scoreboards, resume, the daily count, resets, backups and migrations."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import stat
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from benchmarks.callers import empty_the_wal, pages_in_wal
from door.engine import Game, Variant
from door.levels import SHIPPED_LEVELS, Level
from door.store import (
    SCHEMA_VERSION,
    AliasRefused,
    AliasTaken,
    NotFound,
    PasswordRefused,
    SchemaMoved,
    SchemaTooNew,
    Store,
    StoreError,
    check_alias,
    schema,
)
from door.store.games import FULL_COPY_EVERY
from door.store.users import LOOK_ALIKE

LEVEL_1, LEVEL_2, LEVEL_3 = SHIPPED_LEVELS
VEGAS = Level(4, "Vegas", Variant(draw=3, passes=3, scoring="vegas"))


class Clock:
    """A clock that moves one second on each reading, so that every event has its own time."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def greedy(game: Game) -> str | None:
    """A simple player: send up, then reserve plays, column moves, waste plays, turn."""
    legal = game.legal()
    if "F" in legal:
        return "F"
    for wanted in (
        lambda p: p.startswith("S "),
        lambda p: p[0].isdigit() and p[2].isdigit(),
        lambda p: p.startswith("D "),
        lambda p: p == "V",
    ):
        for play in legal:
            if wanted(play):
                return play
    return None


async def play_out(store: Store, game_id: int, game: Game, plays: int | None = None) -> Game:
    """Play greedily (``plays`` times, or to the end), recording each play as the door does."""
    done = 0
    while game.status == "playing" and (plays is None or done < plays):
        play = greedy(game)
        assert play is not None
        game.play(play)
        await store.record_play(game_id, game)
        done += 1
    return game


async def deal_and_play(
    store: Store, user_id: int, level: Level, number: int, plays: int | None = None
) -> tuple[int, Game]:
    game = Game.deal(level.variant, number)
    game_id = await store.start_game(user_id, level, game)
    return game_id, await play_out(store, game_id, game, plays)


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 14, 9, 0, tzinfo=UTC))


@pytest.fixture
async def store(tmp_path: Path, clock: Clock) -> AsyncIterator[Store]:
    async with Store.open(tmp_path / "door.db", clock=clock) as opened:
        yield opened


# -- opening and the schema ----------------------------------------------------------------


async def test_a_new_database_is_at_the_latest_version_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "door.db"
    async with Store.open(path):
        pass
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_a_later_migration_step_runs_once_at_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "door.db"
    async with Store.open(path) as store:
        await store.create_user("Bob", "secret")
    step = ("ALTER TABLE users ADD COLUMN motto TEXT NOT NULL DEFAULT 'hi'",)
    monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS, step))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    for _ in range(2):
        async with Store.open(path) as store:
            assert (await store.find_user("bob")) is not None
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert db.execute("SELECT motto FROM users").fetchall() == [("hi",)]


@pytest.mark.slow
async def test_a_migration_copies_the_database_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "door.db"
    async with Store.open(path) as store:
        await store.create_user("Bob", "secret")
    assert not (tmp_path / f"door-schema-{SCHEMA_VERSION}.db").exists()  # none to migrate
    step = ("ALTER TABLE users ADD COLUMN motto TEXT NOT NULL DEFAULT 'hi'",)
    monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS, step))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    async with Store.open(path) as store:
        await store.create_user("Ann", "secret")
    copy = tmp_path / f"door-schema-{SCHEMA_VERSION}.db"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT alias FROM users").fetchall() == [("Bob",)]


@pytest.mark.slow
@pytest.mark.expected_log_errors(r"CRITICAL the database was moved to schema version \d+ under")
async def test_a_database_moved_to_a_newer_schema_under_the_door_takes_no_more_writes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A newer door (a door-mode process, say) migrated the database while this one runs:
    this one says so and writes nothing into a schema it does not know; reads go on."""
    path = tmp_path / "door.db"
    async with Store.open(path) as store:
        bob = await store.create_user("Bob", "secret")
        with sqlite3.connect(path) as db:
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        for _ in range(2):
            with pytest.raises(SchemaMoved, match="moved to schema version"):
                await store.create_user("Ann", "secret")
        with pytest.raises(SchemaMoved):
            await store.rename_user(bob.id, "Robert")
        assert "moved to schema version" in caplog.text
        assert (await store.find_user("bob")) is not None
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT alias FROM users").fetchall() == [("Bob",)]


async def test_a_database_from_a_newer_door_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "door.db"
    async with Store.open(path):
        pass
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNew, match="newer"):
        await Store.open(path)


async def test_a_missing_or_foreign_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="no such database"):
        await Store.open(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database, just some words " * 100)
    with pytest.raises(StoreError, match="not a Canfield door database"):
        await Store.open(junk)


# -- users ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("alias", "problem"),
    [
        ("Bob", None),
        ("Zoë", None),
        ("Lady  Luck", None),
        ("B", "at least 2"),
        (" B ", "at least 2"),
        ("x" * 21, "at most 20"),
        ("", "only spaces"),
        ("    ", "only spaces"),
        ("Bob\x1b[2J", "control characters"),
        ("Bo\tb", "control characters"),
        ("Bob\x07", "control characters"),
    ],
)
def test_alias_rules(alias: str, problem: str | None) -> None:
    found = check_alias(alias)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


@pytest.mark.slow
async def test_aliases_are_unique_whatever_their_case(store: Store) -> None:
    bob = await store.create_user("  Bob  ", "secret")
    assert bob.alias == "Bob" and bob.bbs is None
    with pytest.raises(AliasTaken, match="Bob is taken"):
        await store.create_user("BOB", "other")
    with pytest.raises(AliasTaken):
        await store.create_user("bob", "other")
    zoe = await store.create_user("ZOË", "secret")
    with pytest.raises(AliasTaken):
        await store.create_user("zoë", "secret")
    assert (await store.find_user("Zoë")) == zoe


async def test_bad_aliases_and_passwords_are_refused(store: Store) -> None:
    with pytest.raises(AliasRefused, match="control characters"):
        await store.create_user("Evil\x1b[31m", "secret")
    with pytest.raises(PasswordRefused, match="at least 4"):
        await store.create_user("Bob", "abc")
    assert await store.counts() == (0, 0)


@pytest.mark.slow
async def test_passwords(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    assert await store.authenticate("bob", "secret") == bob
    assert await store.authenticate("Bob", "Secret") is None
    assert await store.authenticate("Nobody", "secret") is None
    await store.set_password(bob.id, "new one")
    assert await store.authenticate("BOB", "secret") is None
    assert (await store.authenticate("BOB", "new one")) == bob


@pytest.mark.slow
async def test_two_bbses_bob_and_the_telnet_bob_are_three_users(store: Store) -> None:
    telnet = await store.create_user("Bob", "secret")
    realm = await store.drop_file_user("Bob", "Dark Realm", "Bob Smith")
    other = await store.drop_file_user("BOB", "The Other Place")
    assert len({telnet.id, realm.id, other.id}) == 3
    assert (realm.bbs, realm.real_name) == ("Dark Realm", "Bob Smith")
    # The same caller from the same BBS is found again, whatever the case.
    again = await store.drop_file_user("bob", "DARK REALM", "Robert Smith")
    assert again.id == realm.id and again.real_name == "Robert Smith"
    # Drop-file callers have no password to log in with over telnet.
    assert await store.authenticate("Bob", "secret") == telnet
    assert [user.id for user in await store.users_named("bob")] == [
        telnet.id,
        realm.id,
        other.id,
    ]
    found = await store.find_user("bob", "dark realm")
    assert found is not None and found.id == realm.id
    with pytest.raises(StoreError, match="logs in there"):
        await store.set_password(realm.id, "secret")


async def test_drop_file_aliases_are_cleaned(store: Store) -> None:
    user = await store.drop_file_user("\x1b[5mX\x07", "Board\x1b[2J", "")
    assert (user.alias, user.bbs, user.real_name) == ("X", "Board", None)
    with pytest.raises(AliasRefused):
        await store.drop_file_user("\x1b[2J", "Board")


@pytest.mark.slow
async def test_rename_and_delete(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    alice = await store.create_user("Alice", "secret")
    game_id, _ = await deal_and_play(store, bob.id, LEVEL_1, 1, plays=3)
    with pytest.raises(AliasTaken):
        await store.rename_user(bob.id, "ALICE")
    with pytest.raises(AliasRefused):
        await store.rename_user(bob.id, "B")
    assert (await store.rename_user(bob.id, "BOB")).alias == "BOB"
    robert = await store.rename_user(bob.id, "Robert")
    assert robert.alias == "Robert" and await store.authenticate("robert", "secret") == robert
    assert await store.delete_user(bob.id) == 1
    with pytest.raises(NotFound):
        await store.game_record(game_id)
    with pytest.raises(NotFound):
        await store.user(bob.id)
    with pytest.raises(NotFound):
        await store.delete_user(bob.id)
    assert await store.counts() == (1, 0)
    assert (await store.user(alice.id)).alias == "Alice"


@pytest.mark.slow
async def test_preferences_and_last_seen(store: Store, clock: Clock) -> None:
    bob = await store.create_user("Bob", "secret")
    assert (bob.ansi, bob.charset, bob.suit_letters) == (None, None, False)
    saved = await store.save_preferences(bob.id, True, "cp437", True)
    assert (saved.ansi, saved.charset, saved.suit_letters) == (True, "cp437", True)
    assert (await store.user(bob.id)) == saved
    with pytest.raises(ValueError, match="charset"):
        await store.save_preferences(bob.id, True, "ebcdic", False)
    clock.now += timedelta(days=3)
    await store.touch(bob.id)
    touched = await store.user(bob.id)
    assert touched.last_seen - bob.last_seen > timedelta(days=3)
    assert touched.created == bob.created


# -- variants -------------------------------------------------------------------------------


@pytest.mark.slow
async def test_a_changed_level_gets_a_new_variant_row_and_old_games_keep_theirs(
    store: Store,
) -> None:
    bob = await store.create_user("Bob", "secret")
    old_id, _ = await deal_and_play(store, bob.id, LEVEL_1, 17)
    first = await store.variant_id(LEVEL_1)
    assert await store.variant_id(LEVEL_1) == first
    changed = replace(LEVEL_1, variant=replace(LEVEL_1.variant, multiplier=5))
    second = await store.variant_id(changed)
    assert second != first
    new_id, new_game = await deal_and_play(store, bob.id, changed, 18)
    assert (await store.game_record(old_id)).variant_id == first
    assert (await store.game_record(new_id)).variant_id == second
    assert [(row.level, row.knobs["multiplier"]) for row in await store.variants()] == [
        (1, 1),
        (1, 5),
    ]
    # Each high-score list holds the games played under its own rules.
    assert [row.game_id for row in await store.high_scores(LEVEL_1)] == [old_id]
    assert [(row.game_id, row.score) for row in await store.high_scores(changed)] == [
        (new_id, 1300)
    ]
    assert new_game.score == 1300
    # A new Store sees the same rows (nothing depends on its cache).
    async with Store.open(store.path) as again:
        assert await again.variant_id(changed) == second


@pytest.mark.slow
async def test_a_game_must_be_dealt_under_its_levels_rules(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    with pytest.raises(ValueError, match="rules of level 2"):
        await store.start_game(bob.id, LEVEL_2, Game.deal(LEVEL_1.variant, 1))


# -- games ----------------------------------------------------------------------------------


@pytest.mark.slow
async def test_every_play_is_stored_and_the_finish_is_timed(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    game = Game.deal(LEVEL_1.variant, 17)
    game_id = await store.start_game(bob.id, LEVEL_1, game)
    record = await store.game_record(game_id)
    assert (record.deal, record.status, record.moves, record.history) == (17, "playing", 0, ())
    assert record.finished is None
    await play_out(store, game_id, game, plays=5)
    record = await store.game_record(game_id)
    assert record.moves == 5 and record.history == tuple(game.history)
    await play_out(store, game_id, game)
    record = await store.game_record(game_id)
    assert (record.status, record.score, record.moves, record.cards_up) == ("won", 260, 107, 52)
    assert record.finished is not None and record.finished > record.started
    assert (await store.load_game(game_id)).to_dict() == game.to_dict()
    with pytest.raises(StoreError, match="over"):
        await store.record_play(game_id, game)
    await store.finish_game(game_id, game)  # a second call changes nothing
    assert await store.game_record(game_id) == record


async def test_a_deal_stuck_from_the_start_is_stored_finished(store: Store) -> None:
    carol = await store.create_user("Carol", "secret")
    game = Game.deal(LEVEL_2.variant, 8)
    assert game.status == "stuck"
    record = await store.game_record(await store.start_game(carol.id, LEVEL_2, game))
    assert (record.status, record.moves, record.score) == ("stuck", 0, 0)
    assert record.finished == record.started
    assert await store.unfinished_levels(carol.id) == []


async def test_resign_finishes_the_game(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    game_id, game = await deal_and_play(store, bob.id, LEVEL_1, 3, plays=4)
    with pytest.raises(ValueError, match="over"):
        await store.finish_game(game_id, game)
    game.resign()
    await store.finish_game(game_id, game)
    record = await store.game_record(game_id)
    assert (record.status, record.moves) == ("resigned", 4)
    assert await store.resume(bob.id, 1) is None


async def test_one_unfinished_game_per_user_and_level(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    await deal_and_play(store, bob.id, LEVEL_1, 2, plays=2)
    with pytest.raises(StoreError, match="unfinished game at level 1"):
        await store.start_game(bob.id, LEVEL_1, Game.deal(LEVEL_1.variant, 3))
    await deal_and_play(store, bob.id, LEVEL_3, 2, plays=2)
    assert await store.unfinished_levels(bob.id) == [1, 3]


@pytest.mark.slow
async def test_a_play_for_another_deal_is_refused(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    game_id, _ = await deal_and_play(store, bob.id, LEVEL_1, 2, plays=2)
    stranger = Game.deal(LEVEL_1.variant, 5)
    stranger.play("V")
    with pytest.raises(StoreError, match="dealt differently"):
        await store.record_play(game_id, stranger)
    with pytest.raises(NotFound):
        await store.record_play(game_id + 100, stranger)


async def test_a_copy_that_fell_behind_can_not_overwrite_the_game(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    game_id, game = await deal_and_play(store, bob.id, LEVEL_1, 4, plays=3)
    resumed = await store.resume(bob.id, 1)  # a second session opens the same game
    assert resumed is not None
    stale = resumed[1]
    await play_out(store, game_id, game, plays=2)
    stale.play(stale.legal()[0])
    with pytest.raises(StoreError, match="two sessions"):
        await store.record_play(game_id, stale)
    stale.resign()
    with pytest.raises(StoreError, match="two sessions"):
        await store.finish_game(game_id, stale)
    assert (await store.load_game(game_id)).to_dict() == game.to_dict()


async def test_resume_gives_back_the_exact_position_and_undo_still_works(
    tmp_path: Path, clock: Clock
) -> None:
    path = tmp_path / "door.db"
    async with Store.open(path, clock=clock) as store:
        bob = await store.create_user("Bob", "secret")
        game_id, game = await deal_and_play(store, bob.id, LEVEL_1, 4, plays=30)
        game.play("U")  # an undo is recorded like a play
        await store.record_play(game_id, game)
        await play_out(store, game_id, game, plays=3)
    async with Store.open(path, clock=clock) as store:
        resumed = await store.resume(bob.id, 1)
        assert await store.resume(bob.id, 2) is None
    assert resumed is not None
    resumed_id, copy = resumed
    assert resumed_id == game_id
    assert copy.to_dict() == game.to_dict()
    assert copy.play("U") == game.play("U")
    assert copy.to_dict() == game.to_dict()


async def test_a_play_is_stored_as_its_command_and_the_whole_position_now_and_then(
    store: Store,
) -> None:
    """Between full copies of the position a play costs a row with its command; every
    play is in the file, and the game comes back exactly after any of them."""
    bob = await store.create_user("Bob", "secret")
    game = Game.deal(LEVEL_1.variant, 4)
    game_id = await store.start_game(bob.id, LEVEL_1, game)
    copies: set[int] = set()
    for number in range(1, 2 * FULL_COPY_EVERY + 6):
        game.play("U" if number % 7 == 0 else greedy(game) or "U")
        await store.record_play(game_id, game)
        with sqlite3.connect(store.path) as db:
            (copied,) = db.execute(
                "SELECT json_array_length(position, '$.history') FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
            (rows,) = db.execute(
                "SELECT count(*) FROM plays WHERE game_id = ?", (game_id,)
            ).fetchone()
        copies.add(copied)
        assert copied + rows == number and rows < FULL_COPY_EVERY
        assert (await store.game_record(game_id)).history == tuple(game.history)
        assert (await store.load_game(game_id)).to_dict() == game.to_dict()
    assert copies == {0, FULL_COPY_EVERY, 2 * FULL_COPY_EVERY}
    game.resign()
    await store.finish_game(game_id, game)  # a game over is kept whole, in one copy
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT count(*) FROM plays").fetchone() == (0,)
    assert (await store.load_game(game_id)).to_dict() == game.to_dict()


async def test_a_play_writes_its_row_and_its_games_not_every_index(store: Store) -> None:
    """A play that doesn't end its game writes two pages to the disk (its own row, its
    game's) and a third when the score moved (the scoreboard's index): the indexes that
    find unfinished games, by user and by deal, stay as they were. Every page costs the
    disk at each commit, and again at the checkpoint."""
    bob = await store.create_user("Bob", "secret")
    game = Game.deal(LEVEL_1.variant, 17)
    game_id = await store.start_game(bob.id, LEVEL_1, game)
    pages_by_kind: dict[str, set[int]] = {"same score": set(), "new score": set()}
    while len(game.history) < FULL_COPY_EVERY - 1:
        page_size = empty_the_wal(store.path)
        score = game.score
        play = greedy(game)
        assert play is not None
        game.play(play)
        await store.record_play(game_id, game)
        kind = "same score" if game.score == score else "new score"
        pages_by_kind[kind].add(pages_in_wal(store.path, page_size))
    assert pages_by_kind == {"same score": {2}, "new score": {3}}


async def test_an_explicit_order_is_kept(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    order = [str(card) for card in Game.deal(LEVEL_2.variant, 99).order][::-1]
    game = Game.from_order(LEVEL_2.variant, order)
    game_id = await store.start_game(bob.id, LEVEL_2, game)
    await play_out(store, game_id, game, plays=3)
    record = await store.game_record(game_id)
    assert record.deal is None
    resumed = await store.resume(bob.id, 2)
    assert resumed is not None and resumed[1].to_dict() == game.to_dict()


@pytest.mark.slow
async def test_concurrent_sessions_do_not_mix_their_transactions(store: Store) -> None:
    users = [await store.create_user(f"Player {n}", "secret") for n in range(4)]

    async def session(user_id: int, deal: int) -> Game:
        return (await deal_and_play(store, user_id, LEVEL_3, deal))[1]

    games = await asyncio.gather(*(session(u.id, n + 1) for n, u in enumerate(users)))
    for user, game in zip(users, games, strict=True):
        (record,) = await store.games_of(user.id)
        assert (record.status, record.moves, record.score) == (game.status, game.moves, game.score)


async def test_games_started_today(store: Store, clock: Clock) -> None:
    bob = await store.create_user("Bob", "secret")
    midnight = datetime(2026, 3, 14).astimezone()  # the server's local midnight
    clock.now = midnight - timedelta(minutes=10)
    for number in (1, 3):
        await deal_and_play(store, bob.id, LEVEL_3, number)
    assert await store.games_started_today(bob.id) == 2
    clock.now = midnight + timedelta(hours=1)
    assert await store.games_started_today(bob.id) == 0
    for number in (4, 5, 6):
        await deal_and_play(store, bob.id, LEVEL_3, number)
    assert await store.games_started_today(bob.id) == 3


@pytest.fixture
def london() -> Iterator[None]:
    """The server's clock on London time, which moves to summer time on 29 March 2026."""
    was = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/London"
    time.tzset()
    yield
    if was is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = was
    time.tzset()


async def test_the_day_the_clocks_go_forward_starts_at_its_own_midnight(
    store: Store, clock: Clock, london: None
) -> None:
    """On 29 March 2026 London's midnight is 00:00 GMT; by noon the clock reads BST (UTC+1):
    a game at 23:30 on the 28th is yesterday's, not today's."""
    bob = await store.create_user("Bob", "secret")
    clock.now = datetime(2026, 3, 28, 23, 30, tzinfo=UTC)
    await deal_and_play(store, bob.id, LEVEL_3, 1)
    clock.now = datetime(2026, 3, 29, 0, 30, tzinfo=UTC)
    await deal_and_play(store, bob.id, LEVEL_3, 2)
    clock.now = datetime(2026, 3, 29, 11, 0, tzinfo=UTC)
    assert await store.games_started_today(bob.id) == 1
    assert await store.games_today() == 1


async def test_games_today_reads_an_index_not_every_game(store: Store) -> None:
    """`sysop status` asks for today's games: SQLite finds them by the start time's index."""
    with sqlite3.connect(store.path) as db:
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT count(*) FROM games WHERE started >= ?", ("2026",)
        ).fetchall()
    assert any("USING COVERING INDEX games_by_start" in row[-1] for row in plan), plan


async def test_mark_assisted(store: Store) -> None:
    bob = await store.create_user("Bob", "secret")
    game_id, game = await deal_and_play(store, bob.id, LEVEL_1, 17, plays=10)
    assert not (await store.game_record(game_id)).assisted
    await store.mark_assisted(game_id)
    await play_out(store, game_id, game)
    assert (await store.game_record(game_id)).assisted
    (row,) = await store.high_scores(LEVEL_1)
    assert row.assisted and row.won


# -- statistics and scoreboards from a set of real games -----------------------------------


async def play_the_season(store: Store) -> dict[str, int]:
    """Alice, Bob (telnet) and Carol (from a BBS) play real deals; their user ids."""
    alice = await store.create_user("Alice", "secret")
    bob = await store.create_user("Bob", "secret")
    carol = await store.drop_file_user("Carol", "Dark Realm")
    for number in (17, 18, 1, 120):  # won, won, stuck, won
        await deal_and_play(store, alice.id, LEVEL_1, number)
    game_id, game = await deal_and_play(store, alice.id, LEVEL_1, 3, plays=12)
    game.resign()
    await store.finish_game(game_id, game)
    for number in (13, 146):  # stuck, won
        await deal_and_play(store, bob.id, LEVEL_1, number)
    await deal_and_play(store, bob.id, LEVEL_1, 4, plays=5)  # left unfinished
    for number in (8, 15):  # stuck at the deal, stuck
        await deal_and_play(store, carol.id, LEVEL_2, number)
    await deal_and_play(store, carol.id, LEVEL_1, 9)  # stuck
    return {"Alice": alice.id, "Bob": bob.id, "Carol": carol.id}


@pytest.fixture(scope="module")
def season_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """The season played once for this module, in a closed database file."""
    path = tmp_path_factory.mktemp("season") / "season.db"

    async def play() -> dict[str, int]:
        async with Store.open(path, clock=Clock(datetime(2026, 3, 1, tzinfo=UTC))) as store:
            return await play_the_season(store)

    return path, asyncio.run(play())


@pytest.fixture
async def season(
    season_file: tuple[Path, dict[str, int]], tmp_path: Path, clock: Clock
) -> AsyncIterator[tuple[Store, dict[str, int]]]:
    """A fresh copy of the season's database, open, and the players' user ids."""
    path, ids = season_file
    copy = tmp_path / "season.db"
    shutil.copyfile(path, copy)
    clock.now = datetime(2026, 3, 2, tzinfo=UTC)
    async with Store.open(copy, clock=clock) as store:
        yield store, ids


@pytest.mark.slow
async def test_the_games_of_the_season(season: tuple[Store, dict[str, int]]) -> None:
    store, ids = season
    games = await store.games_of(ids["Alice"])
    assert [(g.deal, g.status, g.score, g.moves, g.cards_up) for g in games] == [
        (17, "won", 260, 107, 52),
        (18, "won", 260, 104, 52),
        (1, "stuck", 65, 76, 10),
        (120, "won", 258, 131, 52),
        (3, "resigned", 4, 12, 1),
    ]


async def test_statistics(season: tuple[Store, dict[str, int]]) -> None:
    store, ids = season
    alice = await store.statistics(ids["Alice"], LEVEL_1)
    assert (alice.played, alice.won, alice.lost, alice.win_percentage) == (5, 3, 2, 60.0)
    assert (alice.best_score, alice.average_score) == (260, (260 + 260 + 65 + 258 + 4) / 5)
    assert (alice.current_streak, alice.longest_streak) == (0, 2)
    assert (alice.balance, alice.unfinished) == (None, False)
    bob = await store.statistics(ids["Bob"], LEVEL_1)
    assert (bob.played, bob.won, bob.lost, bob.win_percentage) == (2, 1, 1, 50.0)
    assert (bob.best_score, bob.average_score) == (260, 205.0)
    assert (bob.current_streak, bob.longest_streak, bob.unfinished) == (1, 1, True)
    carol = await store.statistics(ids["Carol"], LEVEL_2)
    assert (carol.played, carol.won, carol.win_percentage, carol.best_score) == (2, 0, 0.0, 216)
    assert (carol.average_score, carol.current_streak, carol.longest_streak) == (108.0, 0, 0)
    nobody = await store.statistics(ids["Alice"], LEVEL_3)
    assert (nobody.played, nobody.best_score, nobody.average_score) == (0, None, None)
    assert await store.recent_results(ids["Alice"], 3) == [
        (10, "stuck"),
        (52, "won"),
        (1, "resigned"),
    ]
    assert await store.recent_results(ids["Carol"], 10, level_number=2) == [
        (1, "stuck"),
        (19, "stuck"),
    ]


async def test_the_vegas_balance_runs_across_games(store: Store) -> None:
    dan = await store.create_user("Dan", "secret")
    _, first = await deal_and_play(store, dan.id, VEGAS, 5)
    _, second = await deal_and_play(store, dan.id, VEGAS, 7, plays=6)
    assert first.status == "stuck" and second.status == "playing"
    assert first.score == -52 + 5 * first.cards_on_foundations
    stats = await store.statistics(dan.id, VEGAS)
    assert stats.balance == first.score + second.score
    assert stats.played == 1 and stats.unfinished
    assert (await store.statistics(dan.id, LEVEL_1)).balance is None


async def test_high_scores(season: tuple[Store, dict[str, int]]) -> None:
    store, _ = season
    rows = await store.high_scores(LEVEL_1, 10)
    assert [(r.alias, r.score, r.won, r.moves) for r in rows] == [
        ("Bob", 260, True, 103),
        ("Alice", 260, True, 104),
        ("Alice", 260, True, 107),
        ("Alice", 258, True, 131),
        ("Bob", 150, False, 117),
        ("Carol", 80, False, 81),
        ("Alice", 65, False, 76),
        ("Alice", 4, False, 12),
    ]
    assert rows[5].bbs == "Dark Realm"
    assert [r.score for r in await store.high_scores(LEVEL_1, 3)] == [260, 260, 260]
    assert [(r.alias, r.score) for r in await store.high_scores(LEVEL_2)] == [
        ("Carol", 216),
        ("Carol", 0),
    ]
    assert await store.high_scores(LEVEL_3) == []


@pytest.mark.slow
async def test_standings(season: tuple[Store, dict[str, int]]) -> None:
    store, _ = season
    rows = await store.standings(10)
    assert [(r.alias, r.games, r.wins, r.percentage, r.best, r.unfinished) for r in rows] == [
        ("Alice", 5, 3, 60.0, 260, False),
        ("Bob", 2, 1, 50.0, 260, True),
        ("Carol", 3, 0, 0.0, 216, False),
    ]
    assert [r.alias for r in await store.standings(2)] == ["Alice", "Bob"]


async def test_reset_scores_hides_games_from_the_lists_only(
    season: tuple[Store, dict[str, int]], clock: Clock
) -> None:
    store, ids = season
    before = await store.statistics(ids["Alice"], LEVEL_1)
    standings = await store.standings()
    assert await store.scores_reset_at(1) is None
    assert await store.reset_scores(1) == 8
    assert await store.high_scores(LEVEL_1) == []
    assert len(await store.high_scores(LEVEL_2)) == 2
    assert await store.scores_reset_at(1) == clock.now
    assert await store.scores_reset_at(2) is None
    assert await store.statistics(ids["Alice"], LEVEL_1) == before
    assert await store.standings() == standings
    # Games finished after the reset make the new list.
    await deal_and_play(store, ids["Alice"], LEVEL_1, 10)
    assert [r.score for r in await store.high_scores(LEVEL_1)] == [79]
    assert await store.reset_scores(1) == 1
    assert await store.reset_scores(None) == 2
    assert await store.high_scores(LEVEL_2) == []
    assert await store.reset_scores(None) == 0


# -- backup --------------------------------------------------------------------------------


@pytest.mark.slow
async def test_backup_is_a_database_holding_the_data(
    season: tuple[Store, dict[str, int]], tmp_path: Path
) -> None:
    store, _ = season
    target = tmp_path / "copies" / "backup.db"
    target.parent.mkdir()
    assert await store.backup(target) == target
    assert sorted(p.name for p in target.parent.iterdir()) == ["backup.db"]
    async with Store.open(target, create=False) as copy:
        assert await copy.integrity_check() == ["ok"]
        assert await copy.counts() == await store.counts() == (3, 11)
        assert await copy.high_scores(LEVEL_1) == await store.high_scores(LEVEL_1)
        assert await copy.standings() == await store.standings()
        assert (await copy.authenticate("alice", "secret")) is not None
    # A second backup over the first replaces it whole.
    await store.create_user("Erin", "secret")
    await store.backup(target)
    async with Store.open(target, create=False) as copy:
        assert (await copy.counts())[0] == 4
    with pytest.raises(StoreError, match="live database"):
        await store.backup(store.path)


async def test_a_look_alike_is_found_by_the_index_in_a_database_of_before(tmp_path: Path) -> None:
    """Each alias's skeleton is kept (schema 12): a new alias's look-alike is found by an
    index, not by working every user's skeleton out again, in a database made before too."""
    path = tmp_path / "door.db"
    async with Store.open(path) as store:
        await store.create_user("Bob", "a long secret phrase")
        await store.drop_file_user("Zed", "Dark Realm")
    with sqlite3.connect(path) as db:  # back to version 11, before the skeletons were kept
        db.execute("DROP INDEX users_by_skeleton")
        db.execute("ALTER TABLE users DROP COLUMN skeleton")
        db.execute("ALTER TABLE users DROP COLUMN language")
        db.execute("PRAGMA user_version = 11")
    async with Store.open(path) as store:
        assert await store.look_alike("B0b") == "Bob"
        with pytest.raises(AliasTaken, match="looks like it"):
            await store.create_user("B0b", "a long secret phrase")
        assert await store.look_alike("Zed") is None  # a BBS's users choose no alias here
        await store.create_user("Alice", "a long secret phrase")
        await store.rename_user((await store.find_user("Alice")).id, "Carol")
        assert await store.look_alike("Car0l") == "Carol"
    with sqlite3.connect(path) as db:
        plan = db.execute(f"EXPLAIN QUERY PLAN {LOOK_ALIKE}", ("bob",)).fetchall()
        assert any("USING INDEX users_by_skeleton" in row[-1] for row in plan), plan
