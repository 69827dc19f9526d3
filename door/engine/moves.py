"""Commands that parse and print themselves, and the refusal every illegal one raises.

A play is written in canonical form (``V``, ``F``, ``U``, ``S F``, ``S 3``, ``D F``, ``D 3``,
``2 F``, ``2 4``); any spelling docs/rules.md §14.1 accepts parses to the same :class:`Move`.

>>> Move.parse("s3"), Move.parse("2f"), Move.parse("12"), Move.parse("d")
(Move('S 3'), Move('2 F'), Move('1 2'), Move('V'))
>>> str(Move.parse("  a ")), str(Move.parse("SF")), str(Move.parse("1 10"))
('F', 'S F', '1 10')
>>> Move.parse("V V")
Traceback (most recent call last):
...
door.engine.moves.IllegalMove: Unknown command "V V" - type ? for help
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from door.engine.cards import Card, Rank, Suit

TURN = "V"
SEND_UP = "F"
UNDO = "U"
RESERVE = "S"
WASTE = "D"
FOUNDATION = "F"


Value = str | int | Card | Suit | Rank
"""A value a refusal names: words, a number, or a card, suit or rank."""


class IllegalMove(ValueError):
    """A refused command. Its message says why, in the game's own terms.

    The message is a template with named fields (``{card}``) and the values that fill them,
    kept apart in :attr:`template` and :attr:`values`, so that a screen can say it in the
    caller's language and draw the cards, suits and ranks it names as it draws them on the
    board; ``str`` writes it in English, with the suit symbols.

    >>> refusal = IllegalMove("{card} can't go up: the {suit} foundation", card=Card.parse("AH"),
    ...     suit=Suit(2))
    >>> str(refusal), refusal.template, refusal.values["card"]
    ("A♥ can't go up: the ♥ foundation", "{card} can't go up: the {suit} foundation", Card('AH'))
    """

    def __init__(self, template: str, /, **values: Value) -> None:
        self.template = template
        self.values: dict[str, Value] = values
        super().__init__(template.format_map({name: _written(v) for name, v in values.items()}))


def _written(value: Value) -> str | int:
    """A value as the English message writes it: a card or suit with its symbol, a ten 10."""
    if isinstance(value, Card | Suit):
        return value.symbol
    return value.word if isinstance(value, Rank) else value


def unknown_command(text: str) -> IllegalMove:
    return IllegalMove('Unknown command "{command}" - type ? for help', command=text.strip())


@dataclass(frozen=True, slots=True)
class Move:
    """One play: ``source`` is V, F, U, S, D or a column number; ``target`` is F, a column
    number, or None for the one-key plays V, F and U."""

    source: str
    target: str | None = None

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read any spelling docs/rules.md §14.1 accepts; IllegalMove for anything else."""
        return _parse(text)

    @property
    def source_column(self) -> int | None:
        """The 1-based column the play takes from, if it takes from a column."""
        return int(self.source) if self.source.isdigit() else None

    @property
    def target_column(self) -> int | None:
        return int(self.target) if self.target is not None and self.target.isdigit() else None

    def __str__(self) -> str:
        return self.source if self.target is None else f"{self.source} {self.target}"

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"


def _keys(token: str) -> list[str] | None:
    """Split one typed word into pile keys: ``S3`` -> S, 3; ``110`` -> 1, 10; ``2F`` -> 2, F."""
    keys: list[str] = []
    i = 0
    while i < len(token):
        char = token[i]
        if char.isalpha():
            keys.append(char)
            i += 1
        elif char in "123456789":
            if char == "1" and token[i + 1 : i + 2] == "0":
                keys.append("10")
                i += 2
            else:
                keys.append(char)
                i += 1
        else:
            return None
    return keys


@lru_cache(maxsize=512)
def _parse(text: str) -> Move:
    keys: list[str] = []
    for token in text.upper().split():
        token_keys = _keys(token)
        if token_keys is None:
            raise unknown_command(text)
        keys.extend(token_keys)
    if len(keys) == 1:
        key = keys[0]
        if key in ("V", "D"):
            return Move(TURN)
        if key in ("F", "A"):
            return Move(SEND_UP)
        if key == "U":
            return Move(UNDO)
    elif len(keys) == 2:
        source, target = keys
        target = FOUNDATION if target == "A" else target
        if (source in (RESERVE, WASTE) or source.isdigit()) and (
            target == FOUNDATION or target.isdigit()
        ):
            return Move(source, target)
    raise unknown_command(text)
