"""Reading the position JSON of RULES.md back into a game.

A position is read by dealing its ``order`` (or its ``deal`` number) and replaying its
``history``, so that undo works after a saved game is resumed exactly as before it was saved.
A position with no history whose piles differ from the deal (one laid out by hand, for a test
or a puzzle) is taken as it stands, with nothing to undo.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from door.engine.cards import Card, check_full_deck, rank_from_char
from door.engine.moves import IllegalMove
from door.engine.status import PLAYING, STATUSES, WON
from door.engine.variant import Variant

if TYPE_CHECKING:
    from door.engine.game import Game

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


def read_position(cls: type[Game], position: Mapping[str, Any]) -> Game:
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
    if order is not None:
        game = cls(variant, _cards(order, "order"), deal)
    elif deal is not None:
        game = cls.deal(variant, deal)
    elif all(key in position for key in PILE_KEYS[:5]):
        game = cls(variant, _order_of_layout(position, variant), None)
    else:
        raise ValueError("position: give its order, its deal number, or all of its piles")
    for number, command in enumerate(history, start=1):
        try:
            game.play(command)
        except IllegalMove as refusal:
            raise ValueError(
                f"position: history play {number} ({command!r}) is refused: {refusal}"
            ) from None
    if _differs(game, position):
        if history:
            raise ValueError("position: the piles do not match what its history gives")
        lay_out(game, position)
    elif history:
        _check_counts(game, position)
    if position.get("status") == "resigned":
        game.resign()
    return game


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


def _differs(game: Game, position: Mapping[str, Any]) -> bool:
    current = game.to_dict()
    return any(key in position and position[key] != current[key] for key in PILE_KEYS)


def _check_counts(game: Game, position: Mapping[str, Any]) -> None:
    for key in ("score", "moves"):
        if key in position and position[key] != getattr(game, key):
            raise ValueError(
                f"position: {key} is {position[key]!r} but its history gives {getattr(game, key)}"
            )


def lay_out(game: Game, position: Mapping[str, Any]) -> None:
    """Put the piles, counts and status of ``position`` into ``game`` as they stand."""
    columns = game.variant.columns
    reserve = _cards(position.get("reserve", []), "reserve")
    deck = _cards(position.get("deck", []), "deck")
    waste = _cards(position.get("waste", []), "waste")
    foundations = _piles(position.get("foundations", [[], [], [], []]), "foundations", 4)
    tableau = _piles(position.get("tableau", [[] for _ in range(columns)]), "tableau", columns)
    piles = (reserve, deck, waste, *foundations, *tableau)
    check_full_deck([card for pile in piles for card in pile])
    base_char = position.get("base_rank")
    base_rank = None if base_char is None else rank_from_char(str(base_char))
    if base_rank is None and (game.variant.base != "choose" or any(foundations)):
        raise ValueError("position: base_rank is needed once a foundation is started")
    for index, pile in enumerate(foundations):
        for depth, card in enumerate(pile):
            rank = (base_rank + depth) % 13 if base_rank is not None else None
            if depth >= 13 or card.rank != rank or card.suit != pile[0].suit:
                raise ValueError(
                    f"position: foundations[{index}] is not built up in suit from the base rank"
                )
    status = position.get("status", PLAYING)
    if status not in STATUSES:
        raise ValueError(f"position: status must be one of {', '.join(STATUSES)}, not {status!r}")
    game.reserve, game.deck, game.waste = reserve, deck, waste
    game.foundations, game.tableau = foundations, tableau
    game.base_rank = base_rank
    game._targets_cache = None
    game.passes_started = _whole(position.get("passes_started", 1), "passes_started", 1)
    game.moves = _whole(position.get("moves", 0), "moves", 0)
    score = position.get("score", 0)
    if isinstance(score, bool) or not isinstance(score, int):
        raise ValueError(f"position: score must be a whole number, not {score!r}")
    game.score = score
    if game.variant.scoring == "vegas":  # always a function of the foundations (fine point 1)
        game._points = game._cards_points = 0
        game._settle_score()
    game.history = []
    game._snapshots.clear()
    game.status = status
    if status == PLAYING:
        if game.cards_on_foundations == 52:
            game.status = WON
        game._check_stuck()
