"""The deal of the day: one deal number for every caller each day, proved winnable.

The number comes from the date, so that anyone can check it:

1. Take the SHA-256 digest of the text ``canfield-door deal of the day YYYY-MM-DD`` (the ISO
   date, UTF-8); read its first 8 bytes as a big-endian number, modulo 1,000,000,000 (the
   range the door deals random deals from). That is the day's starting number.
2. From there, count up (after 999,999,999 comes 0) to the first deal that is not over at
   the deal and that the solver proves winnable at ``[solver] daily_level``, within
   ``[solver] seconds`` a deal.

The number found is stored with the day, so that every caller gets the same deal all day,
whatever the solver's speed or a later change of the settings.

>>> daily_start(date(2026, 11, 29))
385624016
"""

from __future__ import annotations

import hashlib
import logging
from datetime import date
from typing import Protocol

from door.config import Config
from door.engine import Game
from door.engine.solver import Verdict
from door.engine.status import PLAYING
from door.store import DailyDeal, Store

log = logging.getLogger("door")

DEAL_RANGE = 1_000_000_000
MAX_TRIES = 500
"""Deals tried from the starting number before settling for the starting number itself."""


class Solver(Protocol):
    async def solve(self, position: dict, seconds: float) -> Verdict: ...


def daily_start(day: date) -> int:
    """The day's starting number (step 1 above)."""
    digest = hashlib.sha256(f"canfield-door deal of the day {day.isoformat()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % DEAL_RANGE


async def choose_deal_of_the_day(
    pool: Solver, store: Store, config: Config, day: date
) -> DailyDeal:
    """The deal of ``day``: the stored one, or else found (step 2) and stored."""
    chosen = await store.daily_deal(day)
    if chosen is not None:
        return chosen
    level = config.level(config.daily_level)
    start = daily_start(day)
    for offset in range(MAX_TRIES):
        number = (start + offset) % DEAL_RANGE
        game = Game.deal(level.variant, number)
        if game.status != PLAYING:
            continue
        verdict = await pool.solve(game.to_dict(), config.solver.seconds)
        if verdict.result == "won":
            break
    else:
        # Rules under which hardly a deal is winnable: the day still gets a deal.
        log.warning("no winnable deal of the day found for %s; dealing %d", day, start)
        number = start
    return await store.choose_daily_deal(day, level, number)
