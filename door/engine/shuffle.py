"""The documented shuffle behind deal numbers.

A deal number is a whole number from 0 to 2**63 - 1 (what SQLite and most languages hold as
a signed 64-bit integer). The same number gives the same deal on every machine and every
version of the door, so this procedure must never change:

1. Start from the 52 cards in order ``AC AD AH AS 2C 2D ... KS`` (rank by rank, suits in the
   order clubs, diamonds, hearts, spades).
2. Seed SplitMix64 with the deal number. Each draw adds ``0x9E3779B97F4A7C15`` to the state
   (mod 2**64) and returns the state mixed by ``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
   z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31`` (all mod 2**64).
3. Fisher-Yates from the end: for ``i`` from 51 down to 1, draw ``r`` and swap the card at
   ``i`` with the card at ``r % (i + 1)``.

The result is the dealing order of docs/rules.md §3.3 (the first cards form the reserve).

>>> " ".join(str(card) for card in shuffled_order(1)[:5])
'5S 3C 5C 9D 6C'
"""

from __future__ import annotations

from door.engine.cards import CARDS, Card

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
MAX_DEAL_NUMBER = 2**63 - 1


def _splitmix64(seed: int):
    state = seed & _MASK
    while True:
        state = (state + _GOLDEN) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        yield z ^ (z >> 31)


def shuffled_order(number: int) -> tuple[Card, ...]:
    """The 52 cards in dealing order for deal ``number``."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise ValueError(f"a deal number is a whole number, not {number!r}")
    if not 0 <= number <= MAX_DEAL_NUMBER:
        raise ValueError(
            f"a deal number is a whole number from 0 to {MAX_DEAL_NUMBER}, not {number}"
        )
    cards = list(CARDS)
    draws = _splitmix64(number)
    for i in range(51, 0, -1):
        j = next(draws) % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)
