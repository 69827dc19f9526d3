"""The door on uvloop's event loop, not asyncio's own: it relies on no private state of
asyncio's loop or transports but where :mod:`door.net.library_internals` handles both."""

from __future__ import annotations

import asyncio
import logging
import os
import time

import pytest
import uvloop

from door.engine import Game
from door.levels import SHIPPED_LEVELS
from door.solving.pool import SolverPool
from tests.support.door_server import door_config, open_door
from tests.support.solver_processes import is_solver, solver_processes
from tests.support.visits import log_in, sign_up, start_deal


async def whole_calls(tmp_path) -> None:
    assert isinstance(asyncio.get_running_loop(), uvloop.Loop)
    door = await open_door(door_config(tmp_path))
    try:
        caller = await sign_up(door, "Looper")
        await start_deal(caller, 48213)
        await caller.key("V")
        await caller.wait_for(r"Moves\s+1\b")
        await caller.type("Q")
        await caller.wait_for("Your choice")
        await caller.key("G")
        await caller.wait_closed()
        caller = await log_in(door, "Looper")
        await caller.key("G")
        await caller.wait_closed()
        async with asyncio.timeout(5):
            while door.server.nodes.calls:
                await asyncio.sleep(0.05)
    finally:
        await door.close()


@pytest.mark.slow
def test_a_whole_call_on_uvloop(tmp_path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(whole_calls(tmp_path))
    faults = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert faults == [], [r.getMessage() for r in faults]
    messages = [r.getMessage() for r in caplog.records]
    assert sum("hang-up (goodbye)" in message for message in messages) == 2, messages


VARIANT = SHIPPED_LEVELS[0].variant
QUICK = Game.deal(VARIANT, 1).to_dict()  # won at once
LONG = Game.deal(VARIANT, 3).to_dict()  # the search uses its whole budget


async def ended(pids: set[int]) -> None:
    deadline = time.monotonic() + 10
    while any(is_solver(pid) for pid in pids):
        assert time.monotonic() < deadline, f"solver processes {pids} still there"
        await asyncio.sleep(0.05)


async def solver_lanes() -> None:
    assert isinstance(asyncio.get_running_loop(), uvloop.Loop)
    pool = SolverPool(idle_seconds=0.5)
    earlier = set(solver_processes(os.getpid()))  # another test's, ending
    try:
        assert (await pool.solve(QUICK, 40)).result == "won"
        idle = set(solver_processes(os.getpid())) - earlier
        assert idle
        await ended(idle)  # let go
        search = asyncio.create_task(pool.solve(LONG, 40))
        await asyncio.sleep(0.5)
        searching = set(solver_processes(os.getpid())) - earlier
        assert searching
        search.cancel()  # the caller hung up: the search is stopped
        with pytest.raises(asyncio.CancelledError):
            await search
        await ended(searching)
        assert (await pool.solve(QUICK, 40)).result == "won"
    finally:
        pool.close()
        await pool.wait_closed()


@pytest.mark.slow
def test_the_solver_s_processes_on_uvloop() -> None:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(solver_lanes())
