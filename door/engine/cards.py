"""Cards, ranks, suits and their notation.

A card is written rank then suit: ``TH`` is the ten of hearts, ``AS`` the ace of spades.
Each of the 52 cards is one interned :class:`Card`, a small ``int`` (``rank * 4 + suit``) so
that piles are cheap to copy and compare.

>>> card = Card.parse("th")
>>> card, card.rank_char, card.suit_char, card.red
(Card('TH'), 'T', 'H', True)
>>> str(Card.parse("AS")), Card.parse("AS").symbol
('AS', 'A♠')
>>> len(FULL_DECK)
52
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RED_SUITS = frozenset({1, 2})
TEN = RANKS.index("T")


class Suit(int):
    """One of the four suits, 0 clubs to 3 spades, for a screen to draw as it can: as a
    symbol or as a letter.

    >>> Suit(2).symbol, Suit(2).char
    ('♥', 'H')
    """

    __slots__ = ()

    @property
    def symbol(self) -> str:
        return SUIT_SYMBOLS[self]

    @property
    def char(self) -> str:
        return SUITS[self]

    def __repr__(self) -> str:
        return f"Suit({int(self)})"


class Rank(int):
    """One of the thirteen ranks, 0 an ace to 12 a king, for a screen to write as it can: a
    ten as 10, or as T where a card's rank has one character.

    >>> Rank(9).word, Rank(9).char, Rank(12).word
    ('10', 'T', 'K')
    """

    __slots__ = ()

    @property
    def word(self) -> str:
        return "10" if self == TEN else RANKS[self]

    @property
    def char(self) -> str:
        return RANKS[self]

    def __repr__(self) -> str:
        return f"Rank({int(self)})"


class Card(int):
    """One of the 52 cards; compare by identity or value, print as ``TH``."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """0 for an ace up to 12 for a king."""
        return self >> 2

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return self & 3

    @property
    def red(self) -> bool:
        return (self & 3) in RED_SUITS

    @property
    def rank_char(self) -> str:
        return RANKS[self >> 2]

    @property
    def suit_char(self) -> str:
        return SUITS[self & 3]

    @property
    def suit_value(self) -> Suit:
        """The suit as a :class:`Suit`, for words that name it."""
        return Suit(self & 3)

    @property
    def symbol(self) -> str:
        """The card with its suit drawn as a symbol: ``T♥``."""
        return RANKS[self >> 2] + SUIT_SYMBOLS[self & 3]

    def __str__(self) -> str:
        return RANKS[self >> 2] + SUITS[self & 3]

    # A card never changes, so a copy of it is the card itself (identity stays meaningful).
    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Card:
        return self

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card written rank then suit (``TH``, ``as``; ``10H`` is accepted too)."""
        cleaned = text.strip().upper()
        if cleaned.startswith("10"):
            cleaned = "T" + cleaned[2:]
        if len(cleaned) != 2 or cleaned[0] not in RANKS or cleaned[1] not in SUITS:
            raise ValueError(f"not a card: {text!r} (write rank then suit, like TH or AS)")
        return CARDS[RANKS.index(cleaned[0]) * 4 + SUITS.index(cleaned[1])]

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        return CARDS[rank * 4 + suit]


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
FULL_DECK = frozenset(CARDS)


def rank_from_char(char: str) -> int:
    """The rank number of a rank letter: ``'A'`` is 0, ``'K'`` is 12."""
    index = RANKS.find(char.strip().upper()) if len(char.strip()) == 1 else -1
    if index < 0:
        raise ValueError(f"not a rank: {char!r} (one of {' '.join(RANKS)})")
    return index


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [Card.parse(text) for text in texts]


def check_full_deck(cards: Iterable[Card]) -> None:
    """Raise ValueError unless ``cards`` holds each of the 52 cards exactly once."""
    seen: set[Card] = set()
    repeated = []
    for card in cards:
        if card in seen:
            repeated.append(str(card))
        seen.add(card)
    missing = sorted(FULL_DECK - seen)
    if repeated or missing:
        parts = []
        if missing:
            parts.append("missing " + " ".join(str(c) for c in missing))
        if repeated:
            parts.append("repeated " + " ".join(repeated))
        raise ValueError("a deck must hold each of the 52 cards once: " + "; ".join(parts))
