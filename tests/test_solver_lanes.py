"""The solver pool keeps its promise: one process for the background search, one for callers,
so a caller is answered while the background searches; a search whose caller stopped waiting
(hung up) is stopped, its process ended, rather than left to use up its budget; a process
that dies answers "undecided"; and a lane's process is there only while it has searches to
do. Real solver processes, real searches."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time

import pytest

from door.engine import Game
from door.engine.solver import Result, Verdict
from door.levels import SHIPPED_LEVELS
from door.solving.child import question_line
from door.solving.pool import CHILD_MODULE, PACKAGE_ROOT, SolverPool
from tests.support.solver_processes import is_solver, solver_processes

VARIANT = SHIPPED_LEVELS[0].variant
LONG = Game.deal(VARIANT, 3).to_dict()  # the search uses its whole budget
QUICK = Game.deal(VARIANT, 1).to_dict()  # won at once
BUDGET = 40.0


async def test_a_caller_is_answered_while_the_background_searches() -> None:
    pool = SolverPool()
    background = [asyncio.create_task(pool.background.solve(LONG, BUDGET)) for _ in range(2)]
    try:
        await asyncio.sleep(0.5)
        verdict = await asyncio.wait_for(pool.solve(QUICK, BUDGET), BUDGET / 2)
        assert verdict.result == "won"
        assert not any(search.done() for search in background)
    finally:
        pool.close()
        await pool.wait_closed()
        for search in background:
            search.cancel()
            with contextlib.suppress(BaseException):
                await search


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
async def test_a_search_nobody_waits_for_is_stopped() -> None:
    pool = SolverPool()
    try:
        searches = [asyncio.create_task(pool.solve(LONG, BUDGET)) for _ in range(2)]
        await asyncio.sleep(1.0)
        searching = solver_processes(os.getpid())
        assert searching
        for search in searches:  # the callers hang up
            search.cancel()
        ended = await asyncio.gather(*searches, return_exceptions=True)
        assert all(isinstance(end, asyncio.CancelledError) for end in ended), ended
        # Their searches end now, not when their budget is spent: the next caller is
        # answered at once.
        verdict = await asyncio.wait_for(pool.solve(QUICK, BUDGET), BUDGET / 2)
        assert verdict.result == "won"
        for _ in range(100):
            if not any(alive(pid) for pid in searching):
                break
            await asyncio.sleep(0.05)
        assert not any(alive(pid) for pid in searching)
    finally:
        pool.close()
        await pool.wait_closed()


async def processes_appear(known: set[int], timeout: float = 10.0) -> set[int]:
    """The solver processes of this one that were not among ``known``, once there are any."""
    deadline = time.monotonic() + timeout
    while not (started := set(solver_processes(os.getpid())) - known):
        assert time.monotonic() < deadline, "no solver process started"
        await asyncio.sleep(0.05)
    return started


async def processes_end(pids: set[int], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while any(is_solver(pid) for pid in pids):
        assert time.monotonic() < deadline, f"solver processes {pids} still there"
        await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_a_lane_s_process_is_there_only_while_it_has_searches_to_do() -> None:
    pool = SolverPool(idle_seconds=1.0)
    earlier = set(solver_processes(os.getpid()))  # another test's, ending
    try:
        assert (await pool.solve(QUICK, BUDGET)).result == "won"
        started = set(solver_processes(os.getpid())) - earlier
        assert len(started) == 1  # the callers' lane's, still there after its search
        assert (await pool.solve(QUICK, BUDGET)).result == "won"
        assert set(solver_processes(os.getpid())) - earlier == started  # the same one
        await processes_end(started, timeout=10.0)  # a second idle: let go
        # The next search starts one again.
        assert (await pool.background.solve(QUICK, BUDGET)).result == "won"
        again = set(solver_processes(os.getpid())) - earlier
        assert len(again) == 1 and not again & started
        await processes_end(again, timeout=10.0)
    finally:
        pool.close()
        await pool.wait_closed()


async def test_a_solver_process_that_dies_answers_undecided_and_its_lane_starts_afresh(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pool = SolverPool()
    try:
        search = asyncio.create_task(pool.solve(LONG, BUDGET))
        started = await processes_appear(set(solver_processes(os.getpid())))
        with caplog.at_level(logging.WARNING, logger="door"):
            for pid in started:
                os.kill(pid, signal.SIGKILL)  # out of memory, say
            assert await asyncio.wait_for(search, BUDGET / 2) == Verdict(Result.UNKNOWN, (), 0, 0.0)
        assert [record.levelname for record in caplog.records] == ["WARNING"]
        assert "solver process died" in caplog.records[0].getMessage()
        assert (await pool.solve(QUICK, BUDGET)).result == "won"
    finally:
        pool.close()
        await pool.wait_closed()


@pytest.mark.slow
def test_a_solver_process_ends_when_its_stdin_closes_even_mid_search() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", CHILD_MODULE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=PACKAGE_ROOT,
    ) as child:
        try:
            assert child.stdin is not None
            child.stdin.write(question_line(LONG, BUDGET))
            child.stdin.flush()
            time.sleep(1.0)
            assert child.poll() is None  # searching
            child.stdin.close()  # the door is gone
            assert child.wait(5) == 0
        finally:
            child.kill()


def test_a_solver_process_whose_door_is_gone_when_it_answers_ends_quietly() -> None:
    # The door killed mid-search: its end of the answers' pipe may be closed before the
    # process has seen the end of its questions. It ends as at the end of its questions,
    # with nothing on stderr (the door's log): no traceback of a broken pipe.
    with subprocess.Popen(
        [sys.executable, "-m", CHILD_MODULE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=PACKAGE_ROOT,
    ) as child:
        try:
            assert child.stdin is not None and child.stdout is not None
            child.stdout.close()  # nobody reads the answer any more
            child.stdin.write(question_line(QUICK, BUDGET))
            child.stdin.flush()
            assert child.wait(30) == 0
            assert child.stderr is not None and child.stderr.read() == b""
        finally:
            child.kill()
