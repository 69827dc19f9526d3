"""Positions laid out by hand, for tests of single rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from door.engine import CARDS, RANKS, Game, Variant

Pile = Sequence[str]


def climb(base: str, suit: str, top: str) -> list[str]:
    """A foundation of ``suit`` built from rank ``base`` up to rank ``top``: climb('8','H','T')."""
    start, end = RANKS.index(base), RANKS.index(top)
    length = (end - start) % 13 + 1
    return [RANKS[(start + step) % 13] + suit for step in range(length)]


def build(
    tableau: Sequence[Pile],
    *,
    reserve: Pile = (),
    waste: Pile = (),
    deck: Pile = (),
    foundations: Sequence[Pile] = ((), (), (), ()),
    base_rank: str | None = "8",
    passes_started: int = 1,
    rest: str = "deck",
    **knobs: Any,
) -> Game:
    """A game laid out as given; every card not named goes to the bottom of ``rest``
    (the deck or the reserve)."""
    variant = Variant(columns=len(tableau), **knobs)
    named = {*reserve, *waste, *deck, *(c for p in (*foundations, *tableau) for c in p)}
    leftover = [str(card) for card in CARDS if str(card) not in named]
    if rest == "reserve":
        reserve, leftover = leftover + list(reserve), []
    position = {
        "variant": variant.to_dict(),
        "deal": None,
        "reserve": list(reserve),
        "deck": leftover + list(deck),
        "waste": list(waste),
        "foundations": [list(p) for p in foundations],
        "tableau": [list(p) for p in tableau],
        "base_rank": base_rank,
        "passes_started": passes_started,
        "score": 0,
        "moves": 0,
        "status": "playing",
        "history": [],
    }
    return Game.from_dict(position)


def full_foundations_except(base: str, missing: Sequence[str]) -> list[list[str]]:
    """Four foundations from ``base`` holding every card but ``missing`` (and what lies above).

    Each suit climbs until its first missing card, so the missing cards and everything of
    their suit above them are left out; returns the four piles.
    """
    piles = []
    for suit in "CDHS":
        pile = []
        for step in range(13):
            card = RANKS[(RANKS.index(base) + step) % 13] + suit
            if card in missing:
                break
            pile.append(card)
        piles.append(pile)
    return piles
