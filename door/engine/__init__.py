"""The rules of Canfield as docs/rules.md writes them: pure Python, no I/O.

- :mod:`~door.engine.game`: the :class:`Game`: its piles, plays, undo, scoring and position
- :mod:`~door.engine.position`: the position JSON (docs/rules.md §18) read and checked;
  :meth:`Game.from_position` builds the game from it
- :mod:`~door.engine.cards`: cards, ranks, suits and their notation
- :mod:`~door.engine.moves`: plays that parse and print themselves, and the refusal
  (:class:`IllegalMove`) every illegal one raises
- :mod:`~door.engine.variant`: the knobs, one frozen :class:`Variant` per game's rules
- :mod:`~door.engine.shuffle`: the documented shuffle behind deal numbers
- :mod:`~door.engine.status`: the four states of a game
- :mod:`~door.engine.hints`: hints judged only from the cards in view
- :mod:`door.engine.solver`: the search: won with a line, lost, or undecided

>>> from door.engine import Game, Variant
>>> game = Game.deal(Variant(draw=1), number=7)
>>> result = game.play("v")
>>> result.move, game.moves, len(game.waste)
('V', 1, 1)
"""

from door.engine.cards import CARDS, RANKS, SUITS, Card, Rank, Suit
from door.engine.game import Game, PlayResult
from door.engine.moves import IllegalMove, Move
from door.engine.position import Position
from door.engine.shuffle import shuffled_order
from door.engine.variant import Variant, VariantError

__all__ = [
    "CARDS",
    "RANKS",
    "SUITS",
    "Card",
    "Game",
    "IllegalMove",
    "Move",
    "PlayResult",
    "Position",
    "Rank",
    "Suit",
    "Variant",
    "VariantError",
    "shuffled_order",
]
