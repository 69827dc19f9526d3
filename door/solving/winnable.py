"""Finding deals the solver proves winnable, for levels with ``winnable_only = true``."""

from __future__ import annotations

import secrets
import time

from door.config import Level
from door.engine import Game
from door.engine.status import PLAYING
from door.solving.daily import DEAL_RANGE, Solver

TRIES = 200
"""Random deals tried in one search before it gives up (rules that are hardly winnable)."""


async def find_winnable(
    pool: Solver,
    level: Level,
    seconds: float,
    tries: int = TRIES,
    give_up_after: float | None = None,
) -> int | None:
    """A random deal number the solver proves winnable under the level's rules, or None
    after ``tries`` deals or ``give_up_after`` seconds, whichever comes first."""
    deadline = None if give_up_after is None else time.monotonic() + give_up_after
    for _ in range(tries):
        if deadline is not None and time.monotonic() > deadline:
            break
        number = secrets.randbelow(DEAL_RANGE)
        game = Game.deal(level.variant, number)
        if game.status != PLAYING:
            continue
        verdict = await pool.solve(game.to_dict(), seconds)
        if verdict.result == "won":
            return number
    return None
