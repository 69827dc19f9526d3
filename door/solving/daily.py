"""The deal of the day: one deal number for every caller each day, proved winnable.

The number comes from the date and a secret the door made on its first start and keeps in its
database (see :func:`door.fairness.daily_start`), so nobody outside can work it out, or solve
it, ahead of the day:

1. The day's starting number: the SHA-256 digest of ``SECRET YYYY-MM-DD`` read as a number
   in the range of deal numbers.
2. From there, count up to the first deal that is not over at the deal and that the solver
   proves winnable at ``[solver] daily_level``, within ``[solver] seconds`` a deal.

The number found is stored with the day, so that every caller gets the same deal all day,
whatever the solver's speed or a later change of the settings. A caller is shown it only
once they have finished their game of it, and nobody can play it as a numbered deal before
the day is over. Games of a day's deal still unfinished when the day ends are closed then
(they count as resigned), so that every day's board settles.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Protocol

from door.config import Config
from door.engine import Game
from door.engine.shuffle import MAX_DEAL_NUMBER
from door.engine.solver import Result, Verdict
from door.engine.status import Status
from door.fairness import daily_start
from door.store import DailyDeal, Store

log = logging.getLogger("door")

DEAL_RANGE = MAX_DEAL_NUMBER + 1
MAX_TRIES = 500
"""Deals tried from the starting number before settling for the starting number itself."""


class Solver(Protocol):
    async def solve(self, position: dict, seconds: float) -> Verdict: ...


async def choose_deal_of_the_day(
    pool: Solver, store: Store, config: Config, day: date
) -> DailyDeal:
    """The deal of ``day``: the stored one, or else found (step 2) and stored."""
    chosen = await store.daily_deal(day)
    if chosen is not None:
        return chosen
    level = config.level(config.daily_level)
    start = daily_start(day, await store.daily_secret())
    for offset in range(MAX_TRIES):
        number = (start + offset) % DEAL_RANGE
        game = Game.deal(level.variant, number)
        if game.status != Status.PLAYING:
            continue
        verdict = await pool.solve(game.to_dict(), config.solver.seconds)
        if verdict.result == Result.WON:
            break
    else:
        # Rules under which hardly a deal is winnable: the day still gets a deal.
        # (The number stays out of the log, which a caller may see under some BBSes.)
        log.warning("no winnable deal of the day found for %s; dealing its first one", day)
        number = start
    return await store.choose_daily_deal(day, level, number)


async def close_past_days(store: Store, today: date, user_id: int | None = None) -> int:
    """Resign the games of earlier days' deals still unfinished (everyone's, or the user's);
    how many were closed."""
    unfinished = await store.unfinished_daily_games(user_id, today)
    for game_id in unfinished:
        game = await store.load_game(game_id)
        if game.status == Status.PLAYING:
            game.resign()
        await store.finish_game(game_id, game)
    return len(unfinished)
