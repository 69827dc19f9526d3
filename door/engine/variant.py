"""The variant knobs of docs/rules.md §11: one frozen value per game's rules.

>>> Variant().draw, Variant().base, Variant().scoring
(3, 'dealt', 'points')
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


_CHOICES: dict[str, tuple[str, ...]] = {
    "base": ("dealt", "ace", "choose"),
    "wrap": ("broken", "full"),
    "moves": ("whole", "partial"),
    "spaces": ("auto", "manual"),
    "spaces_after_reserve": ("any", "waste", "king"),
    "undo": ("none", "one", "unlimited"),
    "scoring": ("points", "vegas", "cards"),
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
    base: str = "dealt"
    wrap: str = "broken"
    moves: str = "whole"
    spaces: str = "auto"
    spaces_after_reserve: str = "any"
    undo: str = "one"
    tournament: bool = False
    scoring: str = "points"
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
            if value not in choices:
                raise VariantError(knob, value, " or ".join(f'"{c}"' for c in choices))
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
