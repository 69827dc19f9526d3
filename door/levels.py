"""The levels of the main menu: the rules each is played under, and what the door adds.

Read from sysop.toml's ``[[levels]]`` (:mod:`door.config`), played by the visits, kept with
every game in the store, searched by the solver.

>>> [level.name for level in SHIPPED_LEVELS]
['Level 1 - Draw one', 'Level 2 - Draw three', 'Level 3 - One pass']
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from door.engine.variant import Variant


class Hints(StrEnum):
    """A level's hints: none; the best play judged from the cards in view; the solver's play."""

    OFF = "off"
    VISIBLE = "visible"
    SOLVER = "solver"


@dataclass(frozen=True, slots=True)
class Level:
    """A numbered entry of the main menu: a name, the rules it is played under (the engine's
    knobs), and what the door adds around them: hints, and dealing only winnable deals."""

    number: int
    name: str
    variant: Variant
    hints: Hints = Hints.OFF
    winnable_only: bool = False


# The levels of the shipped sysop.toml, and of one that names none.
SHIPPED_LEVELS: tuple[Level, ...] = (
    Level(1, "Level 1 - Draw one", Variant(draw=1, passes=0, multiplier=1), hints=Hints.VISIBLE),
    Level(2, "Level 2 - Draw three", Variant(draw=3, passes=0, multiplier=2)),
    Level(3, "Level 3 - One pass", Variant(draw=3, passes=1, multiplier=3)),
)
