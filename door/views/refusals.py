"""A refused play in the caller's words: the engine's reason, in the language spoken now,
with the cards, suits and ranks it names drawn as the caller's board draws them.

The engine says why in English (``str(refusal)``) and keeps the sentence's template and
values apart (:class:`~door.engine.IllegalMove`); the templates are in the catalogs (Babel
extracts each ``IllegalMove("...")``), so a refusal is translated whole and filled after.

>>> from door.engine import Card, Game, IllegalMove, Rank, Suit, Variant
>>> refusal = IllegalMove("{card} can't go up: the {suit} foundation starts with {base}",
...     card=Card.parse("AH"), suit=Suit(2), base=Card.parse("TH"))
>>> refusal_words(refusal, Look()), refusal_words(refusal, Look(suit_letters=True))
("A♥ can't go up: the ♥ foundation starts with 10♥", \
"AH can't go up: the H foundation starts with 10H")
>>> refusal_words(refusal, Look(ansi=False))
"AH can't go up: the H foundation starts with TH"
>>> refusal_words(IllegalMove("{card} can't go on {top}: column {column} needs a red {rank}",
...     card=Card.parse("9D"), top=Card.parse("8S"), column=2, rank=Rank(9)), Look(ansi=False))
"9D can't go on 8S: column 2 needs a red T"
"""

from __future__ import annotations

from door.engine import Card, IllegalMove, Rank, Suit
from door.engine.moves import Value
from door.views.board import Look, card_text, rank_word, suit_text
from door.words import _


def refusal_words(refusal: IllegalMove, look: Look) -> str:
    """Why a play was refused, in the language spoken now, drawn for ``look``."""
    shown = {name: _shown(value, look) for name, value in refusal.values.items()}
    return _(refusal.template).format_map(shown)


def _shown(value: Value, look: Look) -> str:
    """A value of a refusal as the board shows it: a ten as 10 in colour, T in plain text."""
    if isinstance(value, Card):
        return card_text(value, look).strip()
    if isinstance(value, Suit):
        return suit_text(value, look)
    if isinstance(value, Rank):
        return rank_word(value, look)
    return str(value)
