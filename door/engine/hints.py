"""Hints judged only from what the caller can see, never from a hidden card.

A caller sees the reserve's top card and how many cards lie under it, how many cards the
deck holds, the waste's top cards as the board draws them (its last three at most, each
turned up in view) and its count, the foundations, the columns and the passes.
:func:`visible_advice` reads nothing else: the order of the cards under the reserve's top,
in the deck and deeper in the waste never changes its advice.

What it may lean on, and why: :meth:`Game.legal` reads the top cards, the foundations, the
columns and whether the reserve, deck and waste are empty, all in view. What it must not:
the stuck half of :attr:`Game.status` (the stuck test looks at the deck's order), and any
play tried on a copy (an automatic fill or a stuck test after it would read hidden cards).
A game that is over has no hint; its end is announced to the caller.

>>> from door.engine import Game, Variant
>>> visible_hint(Game.deal(Variant(draw=1), 7))
'4 3'
"""

from __future__ import annotations

from dataclasses import dataclass

from door.engine.cards import Card
from door.engine.game import Game
from door.engine.moves import FOUNDATION, RESERVE, TURN, WASTE
from door.engine.variant import Moves, SpacesAfterReserve, Wrap

KING = 12
RESERVE_UP = f"{RESERVE} {FOUNDATION}"
_OTHER_COLOUR = {0: (1, 2), 1: (0, 3), 2: (0, 3), 3: (1, 2)}  # suit -> suits of the other colour


@dataclass(frozen=True, slots=True)
class Advice:
    """A play in canonical form and, in a caller's words, why it is worth making (in
    English: the catalogs have each, as Babel extracts every ``Advice(play, "...")``)."""

    play: str
    why: str


def visible_hint(game: Game) -> str | None:
    """The best play judged from the cards in view, or None when there is none."""
    advice = visible_advice(game)
    return None if advice is None else advice.play


def visible_advice(game: Game) -> Advice | None:
    """The best play judged from the cards in view, with the reason; None if none is legal.

    In order: a card up that no other card can need any more; the reserve's card up or onto
    a column (it uncovers the next reserve card); a column moved whole so that the reserve
    fills its space; the waste's card onto a column; a column move that uncovers a card
    that can then go up safely or take the reserve's card; any other card up; the waste's
    card into a space; and else turning the deck.
    """
    legal = game.legal()
    if not legal:
        return None
    reads = _Reading(game)
    ups = [play for play in legal if play.endswith(f" {FOUNDATION}")]
    for play in ups:
        if reads.safe_up(reads.top(play.split()[0])):
            return Advice(play, "no other card can need it any more")
    if RESERVE_UP in ups:
        return Advice(RESERVE_UP, "it uncovers a reserve card")
    to_columns = [play for play in legal if play[-1].isdigit()]
    from_reserve = [play for play in to_columns if play.startswith(f"{RESERVE} ")]
    for play in sorted(from_reserve, key=lambda play: not reads.column(play)):
        return Advice(play, "it uncovers a reserve card")
    column_moves = [play for play in to_columns if play[0].isdigit()]
    if game.reserve:
        for play in column_moves:
            if reads.empties_onto_a_card(play):
                return Advice(play, "the reserve can fill the space it leaves")
    from_waste = [play for play in to_columns if play.startswith(f"{WASTE} ")]
    for play in from_waste:
        if reads.column(play):
            return Advice(play, "it plays a card from the waste")
    for play in column_moves:
        uncovering = reads.uncovers(play)
        if uncovering is not None:
            return uncovering
    for play in ups:
        return Advice(play, "one more card on the foundations")
    for play in from_waste:
        return Advice(play, "it plays a card from the waste")
    if TURN in legal:
        return Advice(TURN, "nothing in view plays; turn the deck")
    return None


class _Reading:
    """What the caller sees of one position, read for the hint: top cards, foundations and
    columns only."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.progress = [0, 0, 0, 0]  # cards up in each suit
        for pile in game.foundations:
            if pile:
                self.progress[pile[0].suit] = len(pile)

    def top(self, key: str) -> Card:
        if key == RESERVE:
            return self.game.reserve[-1]
        if key == WASTE:
            return self.game.waste[-1]
        return self.game.tableau[int(key) - 1][-1]

    def column(self, play: str) -> list[Card]:
        """The cards of the column a play goes to."""
        return self.game.tableau[int(play.split()[1]) - 1]

    def depth(self, card: Card) -> int | None:
        """How far up its foundation the card lies (0: the base rank); None before the base
        rank is chosen."""
        base = self.game.base_rank
        return None if base is None else (card.rank - base) % 13

    def goes_up(self, card: Card) -> bool:
        depth = self.depth(card)
        return depth is not None and self.progress[card.suit] == depth

    def safe_up(self, card: Card) -> bool:
        """Can the card go up, with every card that could be put on it in a column (one rank
        lower, the other colour) already up?"""
        depth = self.depth(card)
        if depth is None or not self.goes_up(card):
            return False
        return all(self.progress[suit] >= depth for suit in _OTHER_COLOUR[card.suit])

    def fits(self, card: Card, top: Card) -> bool:
        """May ``card`` go on ``top`` in a column? (docs/rules.md §6.1, §6.2)"""
        if card.red == top.red or (top.rank - card.rank) % 13 != 1:
            return False
        broken = self.game.variant.wrap == Wrap.BROKEN and self.game.base_rank is not None
        return not (broken and top.rank == self.game.base_rank)

    def moving_part(self, play: str) -> int:
        """For a legal column move ``m n``: the index in column m of the bottom card that
        moves (the engine's choice, docs/rules.md §6.5, §7.4)."""
        source, target = (int(key) - 1 for key in play.split())
        pile, destination = self.game.tableau[source], self.game.tableau[target]
        if self.game.variant.moves == Moves.WHOLE:
            return 0
        start = len(pile) - 1
        while start > 0 and self.fits(pile[start], pile[start - 1]):
            start -= 1
        if destination:
            return next(i for i in range(start, len(pile)) if self.fits(pile[i], destination[-1]))
        if self.game.variant.spaces_after_reserve == SpacesAfterReserve.KING:
            return next(i for i in range(start, len(pile)) if pile[i].rank == KING)
        return 0

    def empties_onto_a_card(self, play: str) -> bool:
        """Does the move take a whole column onto another card (not merely into a space)?"""
        return self.moving_part(play) == 0 and bool(self.column(play))

    def uncovers(self, play: str) -> Advice | None:
        """The play, if the card it uncovers under the moving part helps, and why."""
        source = self.game.tableau[int(play.split()[0]) - 1]
        part = self.moving_part(play)
        if part == 0:
            return None
        uncovered = source[part - 1]
        if self.safe_up(uncovered):
            return Advice(play, "it uncovers a card that can go up")
        reserve = self.game.reserve
        if reserve and self.fits(reserve[-1], uncovered):
            return Advice(play, "it uncovers a card the reserve's card can go on")
        return None
