"""The solver pool keeps its promise: one worker for the background search, one for callers,
so a caller is answered while the background searches; and a search whose caller stopped
waiting (hung up) is stopped, its worker ended, rather than left to use up its budget.
Real worker processes, real searches."""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest

from door.engine import Game
from door.levels import SHIPPED_LEVELS
from door.solving.pool import SolverPool

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
        workers = [
            process.pid
            for executor in pool._executors.values()
            for process in executor._processes.values()
        ]
        assert workers
        for search in searches:  # the callers hang up
            search.cancel()
        ended = await asyncio.gather(*searches, return_exceptions=True)
        assert all(isinstance(end, asyncio.CancelledError) for end in ended), ended
        # Their searches end now, not when their budget is spent: the next caller is
        # answered at once.
        verdict = await asyncio.wait_for(pool.solve(QUICK, BUDGET), BUDGET / 2)
        assert verdict.result == "won"
        for _ in range(100):
            if not any(alive(pid) for pid in workers):
                break
            await asyncio.sleep(0.05)
        assert not any(alive(pid) for pid in workers)
    finally:
        pool.close()
