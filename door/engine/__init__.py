"""The rules of Canfield as RULES.md writes them: pure Python, no I/O.

>>> from door.engine import Game, Variant
>>> game = Game.deal(Variant(draw=1), number=7)
>>> result = game.play("v")
>>> result.move, game.moves, len(game.waste)
('V', 1, 1)
"""

from door.engine.cards import CARDS, RANKS, SUITS, Card, Suit
from door.engine.game import Game, PlayResult
from door.engine.moves import IllegalMove, Move
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
    "Suit",
    "Variant",
    "VariantError",
    "shuffled_order",
]
