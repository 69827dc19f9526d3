"""Group commit: writes that arrive together share one commit, each is answered only once
that commit is done, a write that fails fails alone, and reads don't wait for the writer."""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from door.engine import Game
from door.levels import SHIPPED_LEVELS
from door.store import (
    AliasTaken,
    DiskFault,
    NotFound,
    Store,
    StoreBusy,
    StoreError,
    WriterFailed,
)
from door.store.group_commit import Writer
from tests.support.database import write_lock_held

ROOT = Path(__file__).resolve().parent.parent
LEVEL = SHIPPED_LEVELS[2]
CALLERS = 20


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    async with Store.open(tmp_path / "door.db") as opened:
        yield opened


async def dealt(store: Store, count: int) -> list[tuple[int, int, Game]]:
    """(user id, game id, game) for ``count`` new users, each with a fresh deal."""
    tables = []
    for number in range(count):
        user = await store.drop_file_user(f"Caller {number}", "Test BBS")
        game = Game.deal(LEVEL.variant, 1000 + number)
        tables.append((user.id, await store.start_game(user.id, LEVEL, game), game))
    return tables


def stored_moves(path: Path) -> dict[int, int]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT id, moves FROM games").fetchall())


async def test_plays_that_arrive_together_share_one_commit(store: Store) -> None:
    tables = await dealt(store, CALLERS)
    before = store.commit_counts
    for _, _, game in tables:
        game.play(game.legal()[0])
    await asyncio.gather(*(store.record_play(game_id, game) for _, game_id, game in tables))
    after = store.commit_counts
    assert (after.writes - before.writes, after.commits - before.commits) == (CALLERS, 1)
    # Each caller was answered after the commit: every play is in the file.
    assert stored_moves(store.path) == {game_id: 1 for _, game_id, _ in tables}


async def test_a_writes_wait_behind_the_rest_of_its_group_is_counted(store: Store) -> None:
    """The sysop's counts show how long answered plays wait for the event loop to get back
    to their callers, each of whom draws a board in turn."""
    tables = await dealt(store, CALLERS)
    for _, _, game in tables:
        game.play(game.legal()[0])
    draw_seconds = 0.005
    before = store.commit_counts

    async def play_and_draw(game_id: int, game: Game) -> None:
        await store.record_play(game_id, game)
        time.sleep(draw_seconds)  # a board drawn: the event loop does nothing else meanwhile

    await asyncio.gather(*(play_and_draw(game_id, game) for _, game_id, game in tables))
    after = store.commit_counts
    assert after.commits - before.commits == 1
    # The last caller answered ran once the other 19 had drawn: on average, half of them.
    waited = (after.to_caller - before.to_caller) / CALLERS
    assert waited >= draw_seconds * (CALLERS - 1) / 2


async def test_the_writer_lets_go_of_a_group_once_it_is_committed(tmp_path: Path) -> None:
    # The last group's writes (each holding its game's plays, or its whole position) stayed
    # alive while the writer waited for the next: after a burst, up to 200 of them.
    writer = Writer("test")
    await writer.open(str(tmp_path / "door.db"), lambda db: None)
    try:

        class Work:
            def __call__(self, db: sqlite3.Connection) -> None:
                db.execute("CREATE TABLE IF NOT EXISTS t (x)")

        works = [Work() for _ in range(CALLERS)]
        held = [weakref.ref(work) for work in works]
        await asyncio.gather(*(writer.run(work) for work in works))
        del works
        for _ in range(100):  # the writer, its group answered, goes back to waiting
            await asyncio.sleep(0.01)
            if all(ref() is None for ref in held):
                break
        assert [ref for ref in held if ref() is not None] == []
    finally:
        await writer.close()


async def test_a_write_that_fails_fails_alone(store: Store) -> None:
    tables = await dealt(store, 4)
    (_, first_id, first_game), *good = tables
    first_game.resign()
    await store.finish_game(first_id, first_game)
    over = Game.deal(LEVEL.variant, 1000)
    over.play(over.legal()[0])
    for _, _, game in good:
        game.play(game.legal()[0])
    before = store.commit_counts
    results = await asyncio.gather(
        store.record_play(first_id, over),  # the game is over
        *(store.record_play(game_id, game) for _, game_id, game in good),
        store.rename_user(good[0][0], "Caller 3"),  # the alias is taken at this BBS
        store.delete_user(9999),  # no such user
        return_exceptions=True,
    )
    assert store.commit_counts.commits - before.commits == 1
    assert isinstance(results[0], StoreError) and "is over" in str(results[0])
    assert results[1 : 1 + len(good)] == [None] * len(good)
    assert isinstance(results[-2], AliasTaken)
    assert isinstance(results[-1], NotFound)
    moves = stored_moves(store.path)
    assert [moves[game_id] for _, game_id, _ in good] == [1] * len(good)
    assert (await store.user(good[0][0])).alias == "Caller 1"


async def test_a_write_that_breaks_its_group_leaves_the_others_to_commit_alone(
    store: Store,
) -> None:
    """A failure may take the whole transaction with it (SQLite rolls back on a full disk):
    the group is then tried again one write at a time, each learning its own fate."""
    tables = await dealt(store, 3)
    for _, _, game in tables:
        game.play(game.legal()[0])

    def breaks_the_transaction(db: sqlite3.Connection) -> None:
        db.execute("ROLLBACK")

    results = await asyncio.gather(
        store.record_play(tables[0][1], tables[0][2]),
        store._write(breaks_the_transaction),
        *(store.record_play(game_id, game) for _, game_id, game in tables[1:]),
        return_exceptions=True,
    )
    assert results[0] is None and results[2:] == [None, None]
    assert isinstance(results[1], StoreError)
    assert stored_moves(store.path) == {game_id: 1 for _, game_id, _ in tables}


async def test_reads_go_on_while_the_writer_waits(store: Store) -> None:
    ((user_id, game_id, game),) = await dealt(store, 1)
    game.play(game.legal()[0])
    # Another program holds the database's write lock: the play must wait for it.
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        play = asyncio.create_task(store.record_play(game_id, game))
        await asyncio.sleep(0.05)
        assert (await store.user(user_id)).alias == "Caller 0"
        assert (await store.game_record(game_id)).moves == 0  # the last commit
        assert await store.standings() != []
        assert await store.high_scores(LEVEL) == []
        assert not play.done()
    finally:
        other.execute("ROLLBACK")
        other.close()
    await asyncio.wait_for(play, 10)
    assert (await store.game_record(game_id)).moves == 1


async def test_closing_commits_what_is_queued(tmp_path: Path) -> None:
    path = tmp_path / "door.db"
    store = await Store.open(path)
    tables = await dealt(store, 5)
    for _, _, game in tables:
        game.play(game.legal()[0])
    plays = [asyncio.create_task(store.record_play(g, game)) for _, g, game in tables]
    await asyncio.sleep(0)
    await store.close()
    await asyncio.gather(*plays)
    assert stored_moves(path) == {game_id: 1 for _, game_id, _ in tables}
    with pytest.raises(StoreError, match="closed"):
        await store.record_play(tables[0][1], tables[0][2])


async def test_each_commit_is_logged_with_its_writes_and_duration(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    tables = await dealt(store, CALLERS)
    for _, _, game in tables:
        game.play(game.legal()[0])
    with caplog.at_level(logging.DEBUG, logger="door.store.group_commit"):
        await asyncio.gather(*(store.record_play(game_id, game) for _, game_id, game in tables))
    lines = [r.getMessage() for r in caplog.records if r.name == "door.store.group_commit"]
    assert len(lines) == 1 and re.fullmatch(rf"commit: {CALLERS} writes in \d+\.\d\d ms", lines[0])
    counts = store.commit_counts
    assert 0 < counts.longest <= counts.seconds


async def test_a_read_after_a_commit_sees_it_while_other_reads_are_under_way(
    store: Store,
) -> None:
    """Reads that must agree are one statement each: no read transaction is held open
    across other callers' reads, which would then miss what their caller was just told is
    stored."""
    user = await store.drop_file_user("Caller", "Test BBS")
    others = [
        asyncio.create_task(read)
        for _ in range(20)
        for read in (store.statistics(user.id, LEVEL), store.look_alike("Someone"))
    ]
    await asyncio.sleep(0)
    game_id = await store.start_game(user.id, LEVEL, Game.deal(LEVEL.variant, 1))
    assert (await store.game_record(game_id)).id == game_id
    assert (await store.statistics(user.id, LEVEL)).unfinished
    await asyncio.gather(*others)


class Escaped(BaseException):
    """Something no write is meant to raise (not an Exception, so no handler takes it)."""


@pytest.mark.expected_log_errors(r"(?s)ERROR the store's writer failed; .*\bEscaped\b")
async def test_a_writer_that_fails_fails_every_waiting_write_and_starts_again(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Whatever escapes the writer, the writes waiting for it are told at once (none waits
    forever), the log names the fault, and the next writes are committed."""
    tables = await dealt(store, 3)
    for _, _, game in tables:
        game.play(game.legal()[0])

    def escapes(db: sqlite3.Connection) -> None:
        raise Escaped

    caplog.set_level(logging.ERROR, logger="door")
    results = await asyncio.wait_for(
        asyncio.gather(
            store.record_play(tables[0][1], tables[0][2]),
            store._write(escapes),
            *(store.record_play(game_id, game) for _, game_id, game in tables[1:]),
            return_exceptions=True,
        ),
        10,
    )
    assert all(isinstance(result, WriterFailed) for result in results), results
    assert stored_moves(store.path) == {game_id: 0 for _, game_id, _ in tables}
    assert "the store's writer failed" in caplog.text and "Escaped" in caplog.text
    await asyncio.wait_for(
        asyncio.gather(*(store.record_play(game_id, game) for _, game_id, game in tables)), 10
    )
    assert stored_moves(store.path) == {game_id: 1 for _, game_id, _ in tables}


async def test_a_write_lock_held_past_the_busy_timeout_is_tried_again(tmp_path: Path) -> None:
    """Another program holds the write lock a little longer than one wait: the play is
    stored once the lock is free, not failed as a disk fault."""
    async with Store.open(tmp_path / "door.db", busy_timeout_ms=300) as store:
        ((_, game_id, game),) = await dealt(store, 1)
        game.play(game.legal()[0])
        with write_lock_held(store.path):
            play = asyncio.create_task(store.record_play(game_id, game))
            await asyncio.sleep(0.4)
        await asyncio.wait_for(play, 10)
        assert (await store.game_record(game_id)).moves == 1


@pytest.mark.slow
async def test_a_write_lock_held_for_good_is_called_busy_not_a_disk_fault(
    tmp_path: Path,
) -> None:
    async with Store.open(tmp_path / "door.db", busy_timeout_ms=100) as store:
        ((_, game_id, game),) = await dealt(store, 1)
        game.play(game.legal()[0])
        with write_lock_held(store.path), pytest.raises(StoreBusy) as fault:
            await asyncio.wait_for(store.record_play(game_id, game), 10)
        assert "another program holds" in str(fault.value)
        assert not isinstance(fault.value, DiskFault)
        await store.record_play(game_id, game)
        assert (await store.game_record(game_id)).moves == 1


# Plays a store takes, in twenty games at once, then a pause: more than the 1,000 pages past
# which SQLite would checkpoint in the connection that commits. Prints the writer thread's
# id, and the database file's size before the plays and after them (before closing).
PLAYS_SCRIPT = """
import asyncio, sys, threading
from pathlib import Path
from door.levels import SHIPPED_LEVELS
from door.engine import Game
from door.store import Store

async def main(path):
    level = SHIPPED_LEVELS[1]
    async with Store.open(path) as store:
        print("writer", await store._writer.call(threading.get_native_id))
        tables = []
        for n in range(20):
            user = await store.drop_file_user(f"Caller {n}", "Test BBS")
            game = Game.deal(level.variant, 1000 + n)
            tables.append((await store.start_game(user.id, level, game), game))
        before = path.stat().st_size

        async def turns(game_id, game):
            for _ in range(100):
                game.play("V")
                await store.record_play(game_id, game)

        await asyncio.gather(*(turns(*table) for table in tables))
        await asyncio.sleep(1.5)
        print("database", before, path.stat().st_size)

asyncio.run(main(Path(sys.argv[1])))
"""


MAKE_SCRIPT = """
import asyncio, sys
from door.store import Store

async def main(path):
    async with Store.open(path):
        pass

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.slow
def test_no_commit_waits_for_a_checkpoint(tmp_path: Path) -> None:
    """strace: the writer's thread syncs only the WAL; the pages reach the database file
    while the door runs, synced by another thread."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed")
    database = tmp_path / "door.db"
    # Made beforehand: a new database's first commits write its header.
    subprocess.run([sys.executable, "-c", MAKE_SCRIPT, str(database)], cwd=ROOT, check=True)
    trace = tmp_path / "trace.txt"
    traced = [strace, "-f", "-qq", "-e", "trace=openat,close,fsync,fdatasync", "-o", str(trace)]
    run = subprocess.run(
        [*traced, sys.executable, "-c", PLAYS_SCRIPT, str(database)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    said = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    writer = int(said["writer"])
    before, after = map(int, said["database"].split())
    assert after > before, "nothing reached the database file while the door ran"
    files: dict[str, str] = {}
    synced: list[tuple[int, str]] = []  # (thread, file)
    for line in trace.read_text().splitlines():
        thread, call = line.split(None, 1)  # strace pads the thread id to five columns
        if opened := re.match(r'openat\(AT_FDCWD, "([^"]+)".* = (\d+)$', call):
            files[opened[2]] = opened[1]
        elif closed := re.match(r"close\((\d+)\)", call):
            files.pop(closed[1], None)
        elif sync := re.match(r"f(?:data)?sync\((\d+)\)", call):
            synced.append((int(thread), files.get(sync[1], "?")))
    assert (writer, f"{database}-wal") in synced
    assert (writer, str(database)) not in synced, "a commit ran a checkpoint"
    assert any(name == str(database) for thread, name in synced if thread != writer)
