"""The position JSON of docs/rules.md §18, read and checked: :class:`Position`, and the piles of one
laid out by hand, :class:`Layout`. :meth:`door.engine.Game.from_position` builds the game.

A position is read by dealing its ``order`` (or its ``deal`` number) and replaying its
``history``, so that undo works after a saved game is resumed exactly as before it was saved.
A position with no history whose piles differ from the deal (one laid out by hand, for a test
or a puzzle) is taken as it stands, with nothing to undo.

>>> position = Position.from_dict({"deal": 7, "history": ["V"]})
>>> position.deal, len(position.order), position.history
(7, 52, ('V',))
>>> Position.from_dict({"history": ["V"]})
Traceback (most recent call last):
ValueError: position: give its order, its deal number, or all of its piles
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from door.engine.cards import Card, check_full_deck, rank_from_char
from door.engine.shuffle import shuffled_order
from door.engine.status import Status
from door.engine.variant import Base, Variant

PILE_KEYS = ("reserve", "deck", "waste", "foundations", "tableau", "base_rank", "passes_started")


def _cards(value: Any, key: str) -> list[Card]:
    if not isinstance(value, list):
        raise ValueError(f"position: {key} must be a list of cards")
    return [Card.parse(text) if isinstance(text, str) else _not_a_card(text, key) for text in value]


def _not_a_card(value: Any, key: str) -> Card:
    raise ValueError(f"position: {key} holds {value!r}, which is not a card like 'TH'")


def _piles(value: Any, key: str, count: int) -> list[list[Card]]:
    if not isinstance(value, list) or len(value) != count:
        raise ValueError(f"position: {key} must be a list of {count} piles")
    return [_cards(pile, f"{key}[{index}]") for index, pile in enumerate(value)]


def _whole(value: Any, key: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"position: {key} must be a whole number of at least {low}, not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Layout:
    """The piles, counts and status of a position as they stand: 52 cards, each foundation
    built up in suit from the base rank."""

    reserve: tuple[Card, ...]
    deck: tuple[Card, ...]
    waste: tuple[Card, ...]
    foundations: tuple[tuple[Card, ...], ...]
    tableau: tuple[tuple[Card, ...], ...]
    base_rank: int | None
    passes_started: int
    moves: int
    score: int
    status: Status


@dataclass(frozen=True, slots=True)
class Position:
    """A position object, its fields checked: the rules, the deal (``order``, given or dealt
    from ``deal``, or gathered from the piles of one laid out by hand), and the plays to
    replay. ``given`` is the object as read, for what is compared with the replayed game and
    laid out as it stands (:meth:`layout`)."""

    variant: Variant
    deal: int | None
    order: tuple[Card, ...]
    history: tuple[str, ...]
    given: Mapping[str, Any]

    @classmethod
    def from_dict(cls, position: Mapping[str, Any]) -> Position:
        """Read a position object; ValueError, saying which field, if it is not one."""
        if not isinstance(position, Mapping):
            raise ValueError("a position is a JSON object")
        variant = Variant.from_dict(position.get("variant") or {})
        deal = position.get("deal")
        if deal is not None:
            _whole(deal, "deal", 0)
        history = position.get("history") or []
        if not isinstance(history, list) or not all(isinstance(entry, str) for entry in history):
            raise ValueError("position: history must be a list of commands")
        order = position.get("order")
        cards: Sequence[Card]
        if order is not None:
            cards = _cards(order, "order")
        elif deal is not None:
            cards = shuffled_order(deal)
        elif all(key in position for key in PILE_KEYS[:5]):
            cards = _order_of_layout(position, variant)
        else:
            raise ValueError("position: give its order, its deal number, or all of its piles")
        return cls(variant, deal, tuple(cards), tuple(history), position)

    @property
    def resigned(self) -> bool:
        return self.given.get("status") == Status.RESIGNED

    def differs(self, current: Mapping[str, Any]) -> bool:
        """Whether a pile (or the base rank, or the passes) given differs from ``current``,
        a game's :meth:`~door.engine.Game.to_dict`."""
        return any(key in self.given and self.given[key] != current[key] for key in PILE_KEYS)

    def check_counts(self, score: int, moves: int) -> None:
        """ValueError if the score or moves given are not those its history gives."""
        for key, value in (("score", score), ("moves", moves)):
            if key in self.given and self.given[key] != value:
                raise ValueError(
                    f"position: {key} is {self.given[key]!r} but its history gives {value}"
                )

    def layout(self) -> Layout:
        """The piles, counts and status given, as they stand; ValueError if impossible."""
        position, columns = self.given, self.variant.columns
        reserve = _cards(position.get("reserve", []), "reserve")
        deck = _cards(position.get("deck", []), "deck")
        waste = _cards(position.get("waste", []), "waste")
        foundations = _piles(position.get("foundations", [[], [], [], []]), "foundations", 4)
        tableau = _piles(position.get("tableau", [[] for _ in range(columns)]), "tableau", columns)
        piles = (reserve, deck, waste, *foundations, *tableau)
        check_full_deck([card for pile in piles for card in pile])
        base_char = position.get("base_rank")
        base_rank = None if base_char is None else rank_from_char(str(base_char))
        if base_rank is None and (self.variant.base != Base.CHOOSE or any(foundations)):
            raise ValueError("position: base_rank is needed once a foundation is started")
        for index, pile in enumerate(foundations):
            for depth, card in enumerate(pile):
                rank = (base_rank + depth) % 13 if base_rank is not None else None
                if depth >= 13 or card.rank != rank or card.suit != pile[0].suit:
                    raise ValueError(
                        f"position: foundations[{index}] is not built up in suit from the base rank"
                    )
        given_status = position.get("status", Status.PLAYING)
        try:
            status = Status(given_status)
        except ValueError:
            raise ValueError(
                f"position: status must be one of {', '.join(Status)}, not {given_status!r}"
            ) from None
        passes_started = _whole(position.get("passes_started", 1), "passes_started", 1)
        moves = _whole(position.get("moves", 0), "moves", 0)
        score = position.get("score", 0)
        if isinstance(score, bool) or not isinstance(score, int):
            raise ValueError(f"position: score must be a whole number, not {score!r}")
        return Layout(
            tuple(reserve),
            tuple(deck),
            tuple(waste),
            tuple(map(tuple, foundations)),
            tuple(map(tuple, tableau)),
            base_rank,
            passes_started,
            moves,
            score,
            status,
        )


def _order_of_layout(position: Mapping[str, Any], variant: Variant) -> list[Card]:
    """Some order of the 52 cards for a position given only as piles."""
    cards = _cards(position["reserve"], "reserve") + _cards(position["deck"], "deck")
    cards += _cards(position["waste"], "waste")
    for pile in _piles(position["foundations"], "foundations", 4):
        cards += pile
    for pile in _piles(position["tableau"], "tableau", variant.columns):
        cards += pile
    check_full_deck(cards)
    return cards
