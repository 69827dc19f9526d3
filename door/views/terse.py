"""The game in words, a line at a time: for plain callers on slow lines and callers who listen.

After a play, one line says what changed; ``L`` and a pile reads that pile. Every line tells
only what the board shows: the reserve's and the waste's top cards (as many as the board
draws: the last three at draw three, the top at draw one), how many cards each pile holds,
the foundations and the columns; never a card face down.

>>> from door.engine import Game, Variant
>>> look = Look(ansi=False)
>>> game = Game.deal(Variant(), 48213)
>>> before = sight(game)
>>> result = game.play("V")
>>> describe_play(before, game, result, look)
'Deck 31, waste TD 8C 8H.'
>>> pile_text(game, "2", look)
'Column 2: 2D.'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from door.engine import Card, Game, PlayResult
from door.engine.moves import FOUNDATION, RESERVE, TURN, UNDO, WASTE
from door.views.board import Look, card_text, rank_word, waste_shown
from door.words import _, ngettext

# Pile keys a caller can ask about with L, besides column numbers.
DECK = "V"


@dataclass(frozen=True, slots=True)
class Sight:
    """What the board shows of a game: no card that lies face down."""

    reserve_top: Card | None
    reserve_count: int
    deck_count: int
    waste: tuple[Card, ...]  # the cards the board draws, bottom to top
    waste_count: int
    foundations: tuple[Card | None, ...]
    columns: tuple[tuple[Card, ...], ...]
    base_rank: int | None
    passes_started: int


def sight(game: Game) -> Sight:
    return Sight(
        reserve_top=game.reserve[-1] if game.reserve else None,
        reserve_count=len(game.reserve),
        deck_count=len(game.deck),
        waste=tuple(waste_shown(game)),
        waste_count=len(game.waste),
        foundations=tuple(pile[-1] if pile else None for pile in game.foundations),
        columns=tuple(tuple(pile) for pile in game.tableau),
        base_rank=game.base_rank,
        passes_started=game.passes_started,
    )


def _cards(cards: Sequence[Card], look: Look) -> str:
    return " ".join(card_text(card, look).strip() for card in cards)


def _deck_and_waste(seen: Sight, look: Look) -> str:
    if not seen.waste:
        return _("Deck {count}, waste empty").format(count=seen.deck_count)
    return _("Deck {count}, waste {cards}").format(
        count=seen.deck_count, cards=_cards(seen.waste, look)
    )


def _reserve(seen: Sight, look: Look) -> str:
    if seen.reserve_top is None:
        return _("Reserve empty")
    count = seen.reserve_count
    # The English says "cards" for one too, as it always has; another language may not.
    text = ngettext("Reserve {card}, {count} cards", "Reserve {card}, {count} cards", count)
    return text.format(card=card_text(seen.reserve_top, look).strip(), count=count)


def _column(number: int, cards: Sequence[Card], look: Look, *, whole: bool) -> str:
    if not cards:
        return _("Column {number}: empty").format(number=number)
    shown = _cards(cards if whole else cards[-1:], look)
    return _("Column {number}: {cards}").format(number=number, cards=shown)


def describe_play(before: Sight, game: Game, result: PlayResult, look: Look) -> str:
    """One line saying what a play changed on the board: cards sent up, the deck and waste,
    a reserve card turned up, each column's new top card."""
    after = sight(game)
    parts = []
    if result.move != TURN:
        command = result.move
        if result.sent_up:
            cards = _cards(result.sent_up, look)
            command = _("{command}: {cards} up").format(command=command, cards=cards)
        parts.append(command)
    if after.passes_started != before.passes_started:
        parts.append(_("Pass {number}").format(number=after.passes_started))
    if (after.deck_count, after.waste, after.waste_count) != (
        before.deck_count,
        before.waste,
        before.waste_count,
    ):
        parts.append(_deck_and_waste(after, look))
    if (after.reserve_top, after.reserve_count) != (before.reserve_top, before.reserve_count):
        parts.append(_reserve(after, look))
    if result.move == UNDO and after.foundations != before.foundations:
        parts.append(_foundations(after, look))
    for number, (was, now) in enumerate(zip(before.columns, after.columns, strict=True), 1):
        if was != now:
            parts.append(_column(number, now, look, whole=False))
    if after.base_rank != before.base_rank and after.base_rank is not None:
        parts.append(_("Base rank {rank}").format(rank=rank_word(after.base_rank)))
    return ". ".join(parts) + "."


def _foundations(seen: Sight, look: Look) -> str:
    tops = " ".join(card_text(top, look).strip() if top else "-" for top in seen.foundations)
    return _("Foundations {cards}").format(cards=tops)


def pile_text(game: Game, pile: str, look: Look) -> str:
    """What the board shows of one pile, for ``L`` and the pile's key; '' for no such pile."""
    seen = sight(game)
    if pile == RESERVE:
        return _reserve(seen, look) + "."
    if pile in (WASTE, DECK):
        if seen.waste_count > len(seen.waste):
            return _("{deck_and_waste} ({count} in the waste).").format(
                deck_and_waste=_deck_and_waste(seen, look), count=seen.waste_count
            )
        return _deck_and_waste(seen, look) + "."
    if pile == FOUNDATION:
        base = _("not chosen") if seen.base_rank is None else rank_word(seen.base_rank)
        return f"{_foundations(seen, look)}. " + _("Base rank {rank}").format(rank=base) + "."
    if pile.isdigit() and 1 <= int(pile) <= len(seen.columns):
        number = int(pile)
        return _column(number, seen.columns[number - 1], look, whole=True) + "."
    return ""


def status_text(game: Game) -> str:
    """The score and progress, as the board's side shows them."""
    started, limit, moves = game.passes_started, game.variant.passes, game.moves
    if limit:
        passes = _("pass {number} of {limit}").format(number=started, limit=limit)
    else:
        passes = _("pass {number}").format(number=started)
    text = ngettext(
        "Score {score}, {count} move, {cards} of 52 up, {passes}.",
        "Score {score}, {count} moves, {cards} of 52 up, {passes}.",
        moves,
    )
    return text.format(
        score=game.score, count=moves, cards=game.cards_on_foundations, passes=passes
    )
