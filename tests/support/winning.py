"""A deal the solver wins fast, and its winning line, for tests that play to a win."""

from __future__ import annotations

from door.engine import Game
from door.engine.solver import solve

# A deal whose winning line is short (169 plays at level 2), so whole games stay quick.
WON_DEAL, WON_LEVEL = 10, 2


def winning_line(door) -> list[str]:
    verdict = solve(Game.deal(door.config.level(WON_LEVEL).variant, WON_DEAL), max_seconds=20)
    assert verdict.result == "won"
    return list(verdict.line)
