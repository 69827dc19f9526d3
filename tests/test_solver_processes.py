"""A running door's solver processes are there only while it has solving to do: once its
background has chosen the deal of the day and filled a winnable level's stock, they end; and
a door killed with SIGKILL leaves none behind, even in the middle of a search."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from benchmarks.callers import ServerProcess, write_config
from tests.support import door_log
from tests.support.solver_processes import is_solver, short_idle, solver_processes

pytestmark = pytest.mark.slow  # a real door, its solver's real searches

READY = 2


def winnable_config(folder: Path, rules: str, seconds: int = 10, ready: int = READY) -> Path:
    """The shipped settings and one more level, winnable deals only, under ``rules``."""
    path = write_config(folder, {}, {"ready": ready, "seconds": seconds})
    path.write_text(
        path.read_text() + f'\n[[levels]]\nname = "Winnable"\n{rules}\nwinnable_only = true\n'
    )
    return path


def started(folder: Path, config: Path, launcher: list[str] | None = None) -> ServerProcess:
    door = ServerProcess.door(config, folder / "door.db", folder / "door.log", launcher=launcher)
    door_log.current().watch_file(door.log_path, "the door's log")
    return door


async def stock_is_full(door: ServerProcess, database: Path, timeout: float = 90.0) -> None:
    """Wait until the door's background has chosen the deal of the day and keeps
    :data:`READY` winnable deals ready."""
    deadline = time.monotonic() + timeout
    while True:
        with sqlite3.connect(database) as db:
            daily = db.execute("SELECT count(*) FROM daily_deals").fetchone()[0]
            ready = db.execute("SELECT count(*) FROM winnable_deals").fetchone()[0]
        if daily and ready >= READY:
            return
        assert door.process.poll() is None, door.log_text()
        assert time.monotonic() < deadline, f"the stock holds {ready} deals; see {door.log_path}"
        await asyncio.sleep(0.1)


async def processes_end(pids: list[int], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while left := [pid for pid in pids if is_solver(pid)]:
        assert time.monotonic() < deadline, f"solver processes {left} still there"
        await asyncio.sleep(0.05)


async def test_a_door_whose_solver_is_idle_has_no_solver_process(tmp_path: Path) -> None:
    config = winnable_config(tmp_path, "draw = 1\npasses = 0")
    door = started(tmp_path, config, launcher=short_idle(1.0))
    try:
        await stock_is_full(door, tmp_path / "door.db")
        deadline = time.monotonic() + 20
        while solver_processes(door.pid):
            assert time.monotonic() < deadline, "the idle solver's processes are still there"
            await asyncio.sleep(0.1)
        await asyncio.sleep(2.0)  # and none starts while nothing is to be solved
        assert solver_processes(door.pid) == []
    finally:
        assert door.stop() == 0


async def test_a_door_killed_leaves_no_solver_process_behind(tmp_path: Path) -> None:
    config = winnable_config(tmp_path, "draw = 1\npasses = 0")
    door = started(tmp_path, config)
    try:
        await stock_is_full(door, tmp_path / "door.db")
        solver = solver_processes(door.pid)  # idle, not yet let go
        assert solver
    finally:
        door.kill()
    await processes_end(solver, timeout=10.0)


async def test_a_door_killed_mid_search_leaves_no_solver_process_behind(tmp_path: Path) -> None:
    # Rules under which few deals are winnable, a budget of minutes and a stock that is
    # never full: the background searches all the time.
    config = winnable_config(tmp_path, "draw = 3\npasses = 1", seconds=300, ready=100)
    door = started(tmp_path, config)
    try:
        deadline = time.monotonic() + 30
        while not (solver := solver_processes(door.pid)):
            assert time.monotonic() < deadline, "no search started"
            await asyncio.sleep(0.05)
        await asyncio.sleep(2.0)
    finally:
        door.kill()
    await processes_end(solver, timeout=5.0)
