"""Where the piles are on the board: the pointer's marker, held cards, and mouse clicks.

A place on the board is a :class:`Spot`: a pile by its command key (``S`` the reserve, ``V``
the deck, ``D`` the waste, ``F`` the foundations, ``1`` to ``10`` the columns) and, in a
column, how many cards from the top it reaches. The pointer is one marker cell to the left
of its card's three cells and a blank (``► 10♥``, ``►  7♠``), so that it never touches the
card's text and moving it changes two cells; a card picked up is drawn in reverse.

>>> from door.engine import Game, Variant
>>> game = Game.deal(Variant(), 48213)
>>> spot_at(game, 4, 3), spot_at(game, 5, 48), spot_at(game, 8, 9), spot_at(game, 2, 3)
(Spot(pile='S', depth=1), Spot(pile='F', depth=1), Spot(pile='2', depth=1), None)
>>> marker_cell(game, Spot("2"))
(8, 7)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from gettext import NullTranslations

from ansi.screen import ScreenBuffer, Style
from ansi.sequences import BLACK, CYAN, YELLOW
from door.engine import Card, Game
from door.engine.moves import FOUNDATION
from door.views.board import (
    CLASSIC,
    COLUMN_WIDTH,
    REMINDER_WIDTH,
    RESERVE_COL,
    WASTE_FAN,
    Geometry,
    Look,
    card_text,
    column_rows,
    geometry,
    waste_shown,
)
from door.views.commands import COLUMN, COMMANDS, LEADING, PLAY, TARGET
from door.words import _
from door.words.speaking import spoken

TOP_ROW = ("S", "V", "D", "F")
MARKER = "►"
MARKER_OFFSET = 2  # the marker's column left of its card's: a blank between them
MARKER_STYLE = Style(YELLOW)  # not bold: bold costs a full reset to undo
HELD = Style(BLACK, CYAN)


@dataclass(frozen=True, slots=True)
class Spot:
    """A pile on the board, and in a column how many cards from its top (1: the top card)."""

    pile: str
    depth: int = 1

    @property
    def column(self) -> int | None:
        """The column's number, or None for the top piles."""
        return int(self.pile) if self.pile.isdigit() else None


def column_left(number: int) -> int:
    """The screen column where column ``number``'s cards start."""
    return RESERVE_COL + COLUMN_WIDTH * (number - 1)


def _top_col(pile: str, game: Game, g: Geometry) -> int:
    if pile == "S":
        return RESERVE_COL
    if pile == "V":
        return g.deck_col
    if pile == "D":
        shown = len(waste_shown(game))
        return g.waste_col + WASTE_FAN * max(0, shown - 1)  # the top card: the last shown
    return g.foundation_col


def _top_row(pile: str, g: Geometry) -> int:
    return g.foundation_row if pile == "F" else g.card_row


def _card_row(game: Game, number: int, depth: int, g: Geometry) -> int | None:
    """The screen row of the card ``depth`` from the top of column ``number`` (None: the
    card is in the folded part of a tall column)."""
    pile = game.tableau[number - 1]
    if not pile:
        return g.first_column_row
    index = len(pile) - min(depth, len(pile))  # the column may have shrunk under the pointer
    for offset, card in enumerate(column_rows(pile, g)):
        if card is not None and pile.index(card) == index:
            return g.first_column_row + offset
    return None


def visible_depth(game: Game, number: int, g: Geometry = CLASSIC) -> int:
    """How deep into column ``number`` the pointer can reach: its shown cards."""
    pile = game.tableau[number - 1]
    shown = [card for card in column_rows(pile, g) if card is not None]
    return len(shown) if len(shown) == len(pile) else len(shown) - 1


def marker_cell(game: Game, spot: Spot, g: Geometry = CLASSIC) -> tuple[int, int]:
    """Where the pointer's marker goes for ``spot``: a blank's width left of its card."""
    number = spot.column
    if number is None:
        return _top_row(spot.pile, g), _top_col(spot.pile, game, g) - MARKER_OFFSET
    row = _card_row(game, number, spot.depth, g) or g.first_column_row
    return row, column_left(number) - MARKER_OFFSET


def spot_at(game: Game, row: int, col: int, g: Geometry = CLASSIC) -> Spot | None:
    """The pile under a mouse click at ``row``, ``col``; None for anywhere else."""
    if g.foundation_row != g.card_row and g.foundation_label_row <= row <= g.foundation_row:
        # The narrow board's foundations, on rows of their own.
        return Spot("F") if col < g.foundation_col + 5 * len(game.foundations) else None
    if g.label_row <= row <= g.count_row:
        if col < g.deck_col - MARKER_OFFSET:  # a pile's marker cell is the pile's
            return Spot("S")
        if col < g.waste_col - MARKER_OFFSET:
            return Spot("V")
        if g.foundation_row != g.card_row:
            return Spot("D") if col <= g.piles_end else None
        if col < g.foundation_col - MARKER_OFFSET:
            return Spot("D")
        return Spot("F") if col < g.sidebar_col else None
    if not g.column_label_row <= row <= g.last_column_row or col < 1:
        return None
    number = (col - 1) // COLUMN_WIDTH + 1
    if number > len(game.tableau) or col >= column_left(number) + COLUMN_WIDTH - 1:
        return None
    pile = game.tableau[number - 1]
    for depth in range(1, len(pile) + 1):
        if _card_row(game, number, depth, g) == row:
            return Spot(str(number), depth)
    return Spot(str(number))  # the label, or below the cards: the top card


def spot_empty(game: Game, spot: Spot) -> bool:
    """Whether the pile at ``spot`` has no card to pick up (or to turn, for the deck)."""
    number = spot.column
    if number is not None:
        return not game.tableau[number - 1] if number <= len(game.tableau) else True
    return not {"S": game.reserve, "V": game.deck or game.waste, "D": game.waste}.get(
        spot.pile, [True]
    )


def draw_pointer(
    screen: ScreenBuffer,
    game: Game,
    look: Look,
    pointer: Spot | None,
    held: Spot | None,
    whole_piles: bool,
) -> None:
    """Draw the held cards in reverse and the pointer's marker over a drawn board."""
    g = geometry(screen.width, screen.height, len(game.tableau)) or CLASSIC
    if held is not None:
        for row, col, card in _held_cards(game, held, whole_piles, g):
            screen.put(row, col, card_text(card, look), HELD)
    if pointer is not None:
        row, col = marker_cell(game, pointer, g)
        screen.put(row, col, MARKER, MARKER_STYLE)


def _held_cards(
    game: Game, held: Spot, whole_piles: bool, g: Geometry
) -> list[tuple[int, int, Card]]:
    number = held.column
    if number is None:
        pile = {"S": game.reserve, "D": game.waste}.get(held.pile, [])
        return [(g.card_row, _top_col(held.pile, game, g), pile[-1])] if pile else []
    pile = game.tableau[number - 1] if number <= len(game.tableau) else []
    depth = len(pile) if whole_piles else min(held.depth, len(pile))
    cells: list[tuple[int, int, Card]] = []
    for from_top in range(1, depth + 1):
        row = _card_row(game, number, from_top, g)
        if row is not None:
            cells.append((row, column_left(number), pile[len(pile) - from_top]))
    return cells


def keys_reminder(
    columns: int, *, hot: bool, pointer: bool, hints: bool = False, width: int = REMINDER_WIDTH
) -> list[str]:
    """The board's reminder of the keys, a few short rows for the sidebar: the plays from a
    pile to a pile, the other commands with a ``reminder`` in ``COMMANDS`` (the engine's
    plays, the pointer's keys, then the screen's), as many to a row as fit; ``hints`` at a
    level that offers them.

    >>> keys_reminder(4, hot=True, pointer=True)[:4]
    ['Keys', 'S D 1-4, then', '  1-4 or F', 'V turn  U undo']
    >>> keys_reminder(4, hot=True, pointer=False, hints=True)[-2:]
    ['HINT  a hint', '? help  Q quit']
    """
    piles = "1" if columns == 1 else f"1-{'0' if columns >= 10 else columns}"
    sources = " ".join(key for key, command in LEADING.items() if command.then == TARGET)
    sources = sources.replace(COLUMN, piles)
    narrow = width < REMINDER_WIDTH
    # TRANSLATORS: at most 13 characters, the two spaces kept (the board's keys reminder)
    targets = _("  {piles} or {foundation}")
    if not hot and narrow:
        # TRANSLATORS: at most 13 characters, the two spaces kept (the narrow board's reminder)
        targets = _("  {piles}/{foundation} Enter")
    elif not hot:
        # TRANSLATORS: at most 17 characters, the two spaces kept (the board's keys reminder)
        targets = _("  {piles} or {foundation}, Enter")
    lines = [
        # TRANSLATORS: at most 13 characters (the board's keys reminder)
        _("Keys"),
        # TRANSLATORS: at most 13 characters; {sources} is "S D 1-4" (the keys reminder)
        _("{sources}, then").format(sources=sources),
        targets.format(piles=piles, foundation=FOUNDATION),
    ]
    shown = [command for command in COMMANDS if command.reminder and (hints or not command.hints)]
    lines += _rows([_(command.reminder) for command in shown if command.name == PLAY], width)
    if pointer:
        if narrow:
            # TRANSLATORS: at most 13 characters each (the narrow board's keys reminder)
            lines += [_("Arrows: point"), _("Space: pick")]
        else:
            # TRANSLATORS: at most 18 characters each (the board's keys reminder)
            lines += [_("Arrows: pointer"), _("Space: pick, drop")]
    lines += _rows([_(command.reminder) for command in shown if command.name != PLAY], width)
    return lines


def _rows(items: list[str], width: int) -> list[str]:
    """``items`` two spaces apart, as many to a row as fit the sidebar's ``width`` with a
    column to spare; on a narrow board's (whose edge is the window's, its last column
    free), one space apart, to the edge.

    >>> _rows(["V turn", "U undo", "? help"], 18), _rows(["V turn", "U undo", "? help"], 13)
    (['V turn  U undo', '? help'], ['V turn U undo', '? help'])
    """
    narrow = width < REMINDER_WIDTH
    gap, room = (" ", width + 1) if narrow else ("  ", width)
    rows: list[str] = []
    for item in items:
        if narrow:
            item = " ".join(item.split())
        if rows and len(rows[-1]) + len(gap) + len(item) < room:
            rows[-1] += gap + item
        else:
            rows.append(item)
    return rows


def reminder_lines(
    columns: int, *, hot: bool, hints: bool, width: int = REMINDER_WIDTH
) -> tuple[str, ...]:
    """The keys' reminder of an ANSI board, for ``draw_board``'s ``reminder``: drawn with the
    board's frame, once for every board alike (in a language) rather than at every play.

    >>> reminder_lines(4, hot=True, hints=False)[-1]
    '? help  Q quit'
    """
    return _reminder_lines(columns, hot, hints, width, spoken())


@functools.lru_cache(maxsize=64)
def _reminder_lines(
    columns: int, hot: bool, hints: bool, width: int, words: NullTranslations
) -> tuple[str, ...]:
    """The reminder in ``words``, the language spoken when it is made (the cache's key)."""
    return tuple(keys_reminder(columns, hot=hot, pointer=True, hints=hints, width=width))
