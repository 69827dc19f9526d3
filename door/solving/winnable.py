"""Finding deals the solver proves winnable, for levels with ``winnable_only = true``.

The numbers are drawn like any scored game's, from :mod:`secrets` over the whole range of
deal numbers, and kept only in the database until a caller is dealt one: no caller can
learn a number of the stock, and a game's number is shown only when it ends.
"""

from __future__ import annotations

import time

from door.engine import Game
from door.engine.solver import Result
from door.engine.status import Status
from door.fairness import secret_deal_number
from door.levels import Level
from door.solving.daily import Solver

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
        number = secret_deal_number()
        game = Game.deal(level.variant, number)
        if game.status != Status.PLAYING:
            continue
        verdict = await pool.solve(game.to_dict(), seconds)
        if verdict.result == Result.WON:
            return number
    return None
