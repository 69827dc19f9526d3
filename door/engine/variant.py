"""The variant knobs of docs/rules.md §11: one frozen value per game's rules.

>>> Variant().draw, Variant().base, Variant().scoring
(3, <Base.DEALT: 'dealt'>, <Scoring.POINTS: 'points'>)
>>> Variant.from_dict({"draw": 1, "passes": 1, "base": "ace"}).base is Base.ACE
True
>>> Variant.from_dict({"draw": 1, "passes": 1}).to_dict()["passes"]
1
>>> Variant(draw=2)
Traceback (most recent call last):
...
door.engine.variant.VariantError: draw = 2 is not accepted: 1 or 3
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any


class VariantError(ValueError):
    """A knob with a value docs/rules.md §11 does not accept; says which, and what would be."""

    def __init__(self, knob: str, value: object, accepted: str) -> None:
        self.knob = knob
        self.value = value
        self.accepted = accepted
        super().__init__(f"{knob} = {value!r} is not accepted: {accepted}")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The knobs with a few named settings. Their values are the words RULES.md, the position
# JSON, the stored variants and sysop.toml all use, so a setting is the word itself.


class Base(StrEnum):
    DEALT = "dealt"
    ACE = "ace"
    CHOOSE = "choose"


class Wrap(StrEnum):
    BROKEN = "broken"
    FULL = "full"


class Moves(StrEnum):
    WHOLE = "whole"
    PARTIAL = "partial"


class Spaces(StrEnum):
    AUTO = "auto"
    MANUAL = "manual"


class SpacesAfterReserve(StrEnum):
    ANY = "any"
    WASTE = "waste"
    KING = "king"


class Undo(StrEnum):
    NONE = "none"
    ONE = "one"
    UNLIMITED = "unlimited"


class Scoring(StrEnum):
    POINTS = "points"
    VEGAS = "vegas"
    CARDS = "cards"


_CHOICES: dict[str, type[StrEnum]] = {
    "base": Base,
    "wrap": Wrap,
    "moves": Moves,
    "spaces": Spaces,
    "spaces_after_reserve": SpacesAfterReserve,
    "undo": Undo,
    "scoring": Scoring,
}
MOST_COLUMNS = 10
_NUMBERS: dict[str, tuple[int, int | None, str]] = {
    "passes": (0, None, "0 for unlimited, or a whole number of passes of at least 1"),
    "reserve_size": (0, 26, "a whole number from 0 to 26"),
    "columns": (1, MOST_COLUMNS, f"a whole number from 1 to {MOST_COLUMNS}"),
    "multiplier": (1, None, "a whole number of at least 1"),
    "vegas_cost": (0, None, "a whole number of at least 0"),
    "vegas_per_card": (0, None, "a whole number of at least 0"),
}
_FLAGS = ("tournament", "vegas_refund_on_win")


@dataclass(frozen=True, slots=True)
class Variant:
    """Every knob of docs/rules.md §11, each at its default unless given."""

    draw: int = 3
    passes: int = 0
    reserve_size: int = 13
    columns: int = 4
    base: Base = Base.DEALT
    wrap: Wrap = Wrap.BROKEN
    moves: Moves = Moves.WHOLE
    spaces: Spaces = Spaces.AUTO
    spaces_after_reserve: SpacesAfterReserve = SpacesAfterReserve.ANY
    undo: Undo = Undo.ONE
    tournament: bool = False
    scoring: Scoring = Scoring.POINTS
    multiplier: int = 1
    vegas_cost: int = 52
    vegas_per_card: int = 5
    vegas_refund_on_win: bool = False

    def __post_init__(self) -> None:
        if not _whole(self.draw) or self.draw not in (1, 3):
            raise VariantError("draw", self.draw, "1 or 3")
        for knob, (low, high, words) in _NUMBERS.items():
            value = getattr(self, knob)
            if not _whole(value) or value < low or (high is not None and value > high):
                raise VariantError(knob, value, words)
        for knob, choices in _CHOICES.items():
            value = getattr(self, knob)
            try:
                setting = choices(value)
            except ValueError:
                raise VariantError(knob, value, " or ".join(f'"{c}"' for c in choices)) from None
            # A knob given as its word (from JSON or TOML) is kept as its setting.
            object.__setattr__(self, knob, setting)
        for knob in _FLAGS:
            value = getattr(self, knob)
            if not isinstance(value, bool):
                raise VariantError(knob, value, "true or false")

    @classmethod
    def from_dict(cls, knobs: Mapping[str, Any]) -> Variant:
        """Build from a mapping of knob names; missing knobs take their defaults."""
        known = cls.knob_names()
        for name in knobs:
            if name not in known:
                accepted = "no such knob; the knobs are " + ", ".join(known)
                raise VariantError(name, knobs[name], accepted)
        return cls(**dict(knobs))

    def to_dict(self) -> dict[str, Any]:
        """Every knob, in the order of docs/rules.md §11."""
        return asdict(self)

    @classmethod
    def knob_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))
