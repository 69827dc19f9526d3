"""A deal the solver wins fast, and its winning line, for tests that play to a win."""

from __future__ import annotations

import functools

from door.engine import Game, Variant
from door.engine.solver import solve
from door.levels import SHIPPED_LEVELS

# A deal whose winning line is short (169 plays at level 2), so whole games stay quick.
WON_DEAL, WON_LEVEL = 10, 2


@functools.cache
def _line(variant: Variant) -> tuple[str, ...]:
    verdict = solve(Game.deal(variant, WON_DEAL), max_seconds=20)
    assert verdict.result == "won"
    return tuple(verdict.line)


def winning_line(door=None) -> list[str]:
    """The winning line of :data:`WON_DEAL` at ``door``'s level 2 (the shipped one's)."""
    level = door.config.level(WON_LEVEL) if door is not None else SHIPPED_LEVELS[WON_LEVEL - 1]
    return list(_line(level.variant))


async def saved_one_play_from_a_win(door, alias: str) -> tuple[Game, str]:
    """A practice game of ``alias``'s at level 2, saved one play from a win (the caller
    resumes it with R from the main menu); the game and its last play."""
    level = door.config.level(WON_LEVEL)
    game = Game.deal(level.variant, WON_DEAL)
    line = winning_line(door)
    for command in line[:-1]:
        game.play(command)
    user = await door.store.find_user(alias)
    await door.store.start_game(user.id, level, game, practice=True)
    return game, line[-1]
