"""The rules of Canfield as docs/rules.md writes them: pure Python, no I/O.

:mod:`~door.engine.game` is the :class:`Game` (plays, undo, scoring), built from a deal or
from a position JSON (docs/rules.md §18; :meth:`Game.from_position`, the format read and checked
in :mod:`~door.engine.position`); :mod:`~door.engine.cards`, :mod:`~door.engine.moves`,
:mod:`~door.engine.variant` and :mod:`~door.engine.shuffle` are what a game is made of,
:mod:`~door.engine.hints` the hints, and :mod:`door.engine.solver` the search.

>>> from door.engine import Game, Variant
>>> game = Game.deal(Variant(draw=1), number=7)
>>> result = game.play("v")
>>> result.move, game.moves, len(game.waste)
('V', 1, 1)
"""

from door.engine.cards import CARDS, RANKS, SUITS, Card, Suit
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
    "Suit",
    "Variant",
    "VariantError",
    "shuffled_order",
]
