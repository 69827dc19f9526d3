"""A slow disk does not make every caller wait for every other caller's fsync: plays that
arrive while a commit is on its way to disk are committed together in the next one.

The door runs in a subprocess with every fsync made 30 ms slower (benchmarks/fsync_delay.c,
loaded with LD_PRELOAD). Callers play at once; the door's log (SIGUSR1 asks for the store's
counts) shows how many commits held their plays and that the disk took their time, and the
database holds every play each caller was shown. With a slower fsync still, a caller's board
comes only once its play is committed.

The door chooses the deal of the day in the background as it starts, a write of its own that
may come late on a busy machine: the counts are taken once it is made.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from pathlib import Path

import pytest

from benchmarks.callers import (
    QUIET_SOLVER,
    UPDATE,
    ServerProcess,
    TelnetCaller,
    default_level,
    lasting_play,
    sign_up,
    start_game,
    stored_histories,
    write_config,
)
from benchmarks.slow_disk import ANNOUNCED, NO_COMPILER, build_fsync_shim, slow_disk_environment
from door.engine import Game

pytestmark = pytest.mark.slow

CALLERS = 12
PLAYS = 6
FSYNC_DELAY_MS = 30


async def store_counts(door: ServerProcess) -> tuple[int, int]:
    return await asyncio.to_thread(door.store_counts)


async def day_is_dealt(database: Path, timeout: float = 60.0) -> None:
    """Wait for the door's background to store the deal of the day, its one write of its own
    at start."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sqlite3.connect(database) as db:
            if db.execute("SELECT count(*) FROM daily_deals").fetchone()[0]:
                return
        await asyncio.sleep(0.05)
    raise TimeoutError(f"the door chose no deal of the day within {timeout} s")


async def play(caller: TelnetCaller, game: Game, rng: random.Random) -> None:
    """Plays one after another, each sent as soon as the last one's board is drawn."""
    for _ in range(PLAYS):
        command = lasting_play(game, rng)
        game.play(command)
        await caller.ask(command.encode() + b"\r\n", UPDATE, timeout=30.0)


async def test_plays_that_arrive_together_share_a_commit(tmp_path: Path) -> None:
    library = build_fsync_shim(tmp_path)
    if library is None:
        pytest.skip(NO_COMPILER)
    limits = {"max_nodes": CALLERS + 2, "max_per_address": CALLERS + 2, "time_limit": 0}
    # Every caller is 127.0.0.1: the limits that tell addresses apart are out of the way.
    limits |= {"reserved_nodes": 0, "connections_per_minute": 10_000, "signups_per_hour": 0}
    config = write_config(tmp_path, limits, QUIET_SOLVER)
    database = tmp_path / "door.db"
    environment = slow_disk_environment(library, FSYNC_DELAY_MS)
    door = ServerProcess.door(config, database, tmp_path / "door.log", env=environment)
    callers: list[TelnetCaller] = []
    try:
        assert ANNOUNCED in door.log_text()
        for number in range(CALLERS):
            caller = await TelnetCaller.connect(door.port)
            callers.append(caller)
            await sign_up(caller, f"slow{number}", "secret-slow")
        games = [await start_game(caller, default_level()) for caller in callers]
        await day_is_dealt(database)
        writes_before, commits_before = await store_counts(door)
        rngs = [random.Random(number) for number in range(CALLERS)]
        await asyncio.wait_for(
            asyncio.gather(*(play(c, g, r) for c, g, r in zip(callers, games, rngs, strict=True))),
            120,
        )
        writes_after, commits_after = await store_counts(door)
        stages = door.commit_stages_ms()
        commit_ms = door.commit_average_ms()
    finally:
        for caller in callers:
            caller.hang_up()
        door.stop()
    writes, commits = writes_after - writes_before, commits_after - commits_before
    assert writes == CALLERS * PLAYS
    # The log tells the sysop where the commits' time went: the slow disk, in the thread.
    assert stages is not None and commit_ms is not None
    assert stages["in_thread"] >= FSYNC_DELAY_MS, stages
    assert stages["to_thread"] + stages["in_thread"] + stages["back"] <= commit_ms, stages
    assert stages["to_thread"] + stages["back"] < FSYNC_DELAY_MS / 2, stages
    # And how long, once answered, a play waited for the door to draw its caller's board.
    assert stages["to_caller"] is not None and stages["to_caller"] >= 0, stages
    # One at a time, the plays would have taken a commit each.
    assert commits <= writes / 3, f"{writes} plays took {commits} commits"
    stored = stored_histories(database)
    # Every play each caller was shown is stored.
    for number, game in enumerate(games):
        assert stored[f"slow{number}"] == game.history


ANSWER_FSYNC_DELAY_MS = 300  # so that a write still under way when its answer came shows


async def test_a_play_is_answered_only_once_it_is_committed(tmp_path: Path) -> None:
    """The board after a play reaches the caller only once the play is committed: read the
    moment the board has come, the database holds the play (a board sent before the commit
    would come while the slow fsync still sleeps, and the commit unseen by readers)."""
    library = build_fsync_shim(tmp_path)
    if library is None:
        pytest.skip(NO_COMPILER)
    config = write_config(tmp_path, {"time_limit": 0}, QUIET_SOLVER)
    database = tmp_path / "door.db"
    environment = slow_disk_environment(library, ANSWER_FSYNC_DELAY_MS)
    door = ServerProcess.door(config, database, tmp_path / "door.log", env=environment)
    caller = await TelnetCaller.connect(door.port)
    try:
        await sign_up(caller, "patient", "secret-patient")
        game = await start_game(caller, default_level())
        rng = random.Random(23)
        for _ in range(4):
            command = lasting_play(game, rng)
            game.play(command)
            await caller.ask(command.encode() + b"\r\n", UPDATE, timeout=30.0)
            stored = stored_histories(database)["patient"]
            assert stored == game.history, f"{command!r} was shown before it was stored"
    finally:
        caller.hang_up()
        door.stop()
