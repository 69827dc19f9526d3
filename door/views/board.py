"""The game screen: a Canfield position drawn into an 80x24 screen buffer.

The same drawing serves both kinds of caller: an ANSI caller is sent only the cells that
changed; a plain-ASCII caller is sent the buffer's lines as text (no colours, suits as
letters, a ten as ``T``).

>>> from door.engine import Game, Variant
>>> look = Look(ansi=False, suit_letters=True)
>>> screen = ScreenBuffer(80, 24)
>>> draw_board(screen, Game.deal(Variant(), 48213), "Level 2: Draw three", look)
>>> screen.text_at(4)[:30]
'   4D 13      ### 34    ---   '
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from gettext import NullTranslations

from ansi.art import Art
from ansi.screen import Row, ScreenBuffer, Style, cells
from ansi.sequences import BLACK, BLUE, CYAN, GREEN, RED, WHITE, YELLOW, clear_to_end_of_line, move
from door.engine import RANKS, Card, Game, Suit
from door.engine.cards import SUIT_SYMBOLS, SUITS
from door.engine.variant import Scoring, Undo
from door.views.layout import wrap
from door.words import N_, _, ngettext
from door.words.speaking import spoken

WIDTH, HEIGHT = 80, 24
TITLE_ROW = 1
LABEL_ROW, CARD_ROW, COUNT_ROW = 3, 4, 5
COLUMN_LABEL_ROW, FIRST_COLUMN_ROW, LAST_COLUMN_ROW = 7, 8, 20
FOOTNOTE_ROW, MESSAGE_ROW, PROMPT_ROW = 21, 22, 23
# Marked for the catalog: the board translates it where it draws it (a visit compares its
# prompt with it), and any other prompt it is given is already in the caller's words.
PROMPT = N_("Command (? for help): ")
COLUMN_WIDTH = 6
SIDEBAR = 62
# Every card is drawn in three cells (``10♥``, `` 7♠``), and the pointer's marker stands two
# cells left of them, so that a blank parts it from the card's text whatever its width: the
# piles start in column 3, and a column's slot is two blanks, the card and one blank.
RESERVE_COL, DECK_COL, WASTE_COL, FOUNDATION_COL = 3, 15, 25, 43
CARD_WIDTH = 3
SLOT_LEAD = 2  # the blanks before a card in a column's slot: the marker's and the gap's
WASTE_FAN = 6  # between the fanned waste cards: room for the marker, a blank either side
# The keys' reminder stands in the sidebar's free rows, as BSD canfield keeps its commands
# on screen (the row under the columns belongs to long messages).
REMINDER_TOP, REMINDER_COL = 12, SIDEBAR
REMINDER_WIDTH = 80 - SIDEBAR  # from REMINDER_COL to the edge

NAME_WIDTH = 10  # the sidebar's names, its values right of them
VALUE_COL = SIDEBAR + NAME_WIDTH
VALUE_WIDTH = WIDTH - VALUE_COL
BANNER_ROW = 12  # the middle of the columns, which a won game has emptied


@dataclass(frozen=True, slots=True)
class Geometry:
    """Where a board's parts go on its screen of ``width`` x ``height``.

    :data:`CLASSIC` is the board of 80x24 (the constants above); :func:`geometry` gives the
    narrow one for a window narrower (down to 40 columns) or shorter: the foundations on a
    row of their own under the other piles, and a shorter sidebar beside them and the
    columns, with the keys' reminder under it. Cards keep their three cells and the pointer
    its place.
    """

    width: int
    height: int
    label_row: int  # the reserve's, deck's and waste's names and keys
    card_row: int
    count_row: int  # under the cards: the waste's playable mark
    deck_col: int
    waste_col: int
    foundation_label_row: int
    foundation_row: int
    foundation_col: int
    column_label_row: int
    first_column_row: int
    last_column_row: int
    sidebar_row: int
    sidebar_col: int
    name_width: int
    reminder_top: int
    reminder_col: int
    banner_row: int
    piles_end: int  # the last column of the piles' rows
    short: bool = False  # the sidebar's short names and values

    @property
    def value_col(self) -> int:
        return self.sidebar_col + self.name_width

    @property
    def value_width(self) -> int:
        return self.width - self.value_col

    @property
    def reminder_width(self) -> int:
        """From the reminder's column to the edge."""
        return self.width - self.reminder_col

    @property
    def reminder_rows(self) -> int:
        """The rows the keys' reminder may take."""
        return self.last_column_row - self.reminder_top + 1

    @property
    def footnote_row(self) -> int:
        return self.height - 3

    @property
    def message_row(self) -> int:
        return self.height - 2

    @property
    def prompt_row(self) -> int:
        return self.height - 1


CLASSIC = Geometry(
    WIDTH,
    HEIGHT,
    LABEL_ROW,
    CARD_ROW,
    COUNT_ROW,
    DECK_COL,
    WASTE_COL,
    LABEL_ROW,
    CARD_ROW,
    FOUNDATION_COL,
    COLUMN_LABEL_ROW,
    FIRST_COLUMN_ROW,
    LAST_COLUMN_ROW,
    LABEL_ROW,
    SIDEBAR,
    NAME_WIDTH,
    REMINDER_TOP,
    REMINDER_COL,
    BANNER_ROW,
    SIDEBAR - 1,
)
# The narrow sidebar's width: a short name and value, as "Score -1234", and two entries of
# the keys' reminder under it on a row, as "? Hilfe Q Ende".
SIDEBAR_ROOM = 14
SHORT_NAME_WIDTH = 6


def _narrow_sidebar_col(columns: int) -> int:
    """Where the narrow sidebar starts: two blanks after the last column's cards (its
    slot's blank and one more)."""
    return RESERVE_COL + COLUMN_WIDTH * columns - 1


def geometry(width: int, height: int, columns: int) -> Geometry | None:
    """The board for a screen of ``width`` x ``height`` (see :func:`fitted`) and a game of
    ``columns`` columns: the classic board on 80x24 and larger (in its top-left corner), else
    the narrow one; None when the columns leave no room for the narrow sidebar.

    >>> geometry(80, 24, 4) is CLASSIC, geometry(132, 60, 4) is CLASSIC
    (True, True)
    >>> narrow = geometry(40, 25, 4)
    >>> narrow.sidebar_col, narrow.value_width, narrow.last_column_row, narrow.prompt_row
    (26, 8, 21, 24)
    >>> narrow.reminder_top, narrow.reminder_rows, narrow.reminder_width
    (13, 9, 14)
    >>> geometry(40, 25, 5) is None, geometry(46, 25, 5) is not None
    (True, True)
    """
    if width >= WIDTH and height >= HEIGHT:
        return CLASSIC
    sidebar_col = _narrow_sidebar_col(columns)
    if width - sidebar_col < SIDEBAR_ROOM:
        return None
    last_column_row = height - 4
    return Geometry(
        width,
        height,
        label_row=2,
        card_row=3,
        count_row=4,
        deck_col=13,
        waste_col=23,
        foundation_label_row=5,
        foundation_row=6,
        foundation_col=RESERVE_COL,
        column_label_row=7,
        first_column_row=8,
        last_column_row=last_column_row,
        sidebar_row=5,
        sidebar_col=sidebar_col,
        name_width=SHORT_NAME_WIDTH,
        reminder_top=13,
        reminder_col=sidebar_col,
        banner_row=max(8, (8 + last_column_row) // 2 - 1),
        piles_end=width - 1,
        short=True,
    )


def columns_needed(columns: int) -> int:
    """The narrowest window whose board shows ``columns`` columns.

    >>> columns_needed(4), columns_needed(10)
    (40, 76)
    """
    return max(40, _narrow_sidebar_col(columns) + SIDEBAR_ROOM)


TITLE = Style(WHITE, BLUE, True)
LABEL = Style(CYAN)
KEY = Style(YELLOW, BLACK, True)
RED_CARD = Style(RED, WHITE)
BLACK_CARD = Style(BLACK, WHITE)
CARD_BACK = Style(WHITE, BLUE)
EMPTY = Style(BLUE, BLACK, True)
INFO = Style(WHITE)
VALUE = Style(WHITE, BLACK, True)
MESSAGE = Style(YELLOW, BLACK, True)
REFUSAL = Style(RED, BLACK, True)
GOOD_NEWS = Style(GREEN, BLACK, True)
PLAIN = Style()
PLAYABLE_MARK = "^^^"  # under the waste card that is playable, when three are fanned


@dataclass(frozen=True, slots=True)
class Look:
    """How this caller wants cards drawn, and the game shown: ``terse``, a line per play
    instead of the board. A visit builds it as it draws, from its terminal's ANSI and suits
    as letters (the terminal's to keep, since it writes by them too) and the caller's
    choice of view, and the size its window fits."""

    ansi: bool = True
    suit_letters: bool = False
    terse: bool = False
    #: The size of the screen pages are drawn in (:func:`door.views.layout.fitted`). Left out
    #: of comparing looks: the cells cached for a look (its cards, say) are the same in every
    #: size, and callers' windows come in many.
    width: int = field(default=WIDTH, compare=False)
    height: int = field(default=HEIGHT, compare=False)


def _letters(look: Look) -> bool:
    """Whether suits are letters: by the caller's choice (or their screen's), or in plain
    text."""
    return look.suit_letters or not look.ansi


def suit_text(suit: Suit, look: Look) -> str:
    """A suit as the board draws it: ``♥``, or ``H`` in letters or plain text."""
    return suit.char if _letters(look) else suit.symbol


def card_text(card: Card, look: Look) -> str:
    """A card in three cells: ``10♥``, `` 7♠``; ``TH`` style in letters or plain ASCII."""
    suit = SUITS[card.suit] if _letters(look) else SUIT_SYMBOLS[card.suit]
    rank = RANKS[card.rank]
    if rank == "T" and look.ansi:
        return "10" + suit
    return f"{rank:>2}{suit}"


_TEN_WORD = re.compile(r"\b(red|black|rank) 10\b")
_CARD_NAME = re.compile(f"(?<![\\w])([{RANKS}])([{SUIT_SYMBOLS}])(?![\\w])")


def card_words(text: str, look: Look) -> str:
    """``text`` with the cards it names (``T♥``, ``K♠``) written as the board draws them,
    so that a screen has one notation for a ten: ``10`` on a colour screen, ``T`` in plain
    text (where the engine's words say "a black 10", plain text says "a black T").

    >>> card_words("T♥ can't go on K♠", Look()), card_words("T♥ on J♣", Look(ansi=False))
    ("10♥ can't go on K♠", 'TH on JC')
    >>> card_words("9♦ can't go on 8♠: column 2 needs a red 10", Look(ansi=False))
    "9D can't go on 8S: column 2 needs a red T"
    """
    text = _CARD_NAME.sub(
        lambda found: card_text(
            Card.of(RANKS.index(found[1]), SUIT_SYMBOLS.index(found[2])), look
        ).strip(),
        text,
    )
    return text if look.ansi else _TEN_WORD.sub(r"\1 T", text)


def card_style(card: Card, look: Look) -> Style:
    if not look.ansi:
        return PLAIN
    return RED_CARD if card.red else BLACK_CARD


def rank_word(rank: int | None, look: Look | None = None) -> str:
    """A rank as the board writes it: a ten is 10, but T in plain text."""
    if rank is None:
        return _("not chosen")
    return "10" if RANKS[rank] == "T" and (look is None or look.ansi) else RANKS[rank]


# What the board draws most, made once as cells (``ansi.screen.cells``) for each look: a
# board is drawn at every play, and a row drawn again alike is then left as it was.
NO_CARD_CELLS, BACK_CELLS = 52, 53  # in _pile_cells, after the cards


@functools.lru_cache(maxsize=8)
def _pile_cells(look: Look) -> tuple[Row, ...]:
    """Every card as the board draws it in ``look``, by the card's number; then where a pile
    has no card, and the deck's back."""
    drawn = [
        (card_text(Card(number), look), card_style(Card(number), look)) for number in range(52)
    ]
    drawn.append(("[ ]", EMPTY) if look.ansi else ("---", PLAIN))
    drawn.append(("▒▒▒", CARD_BACK) if look.ansi else ("###", PLAIN))
    return tuple(cells(text, style) for text, style in drawn)


@functools.lru_cache(maxsize=64)
def _count_cells(count: int) -> Row:
    """A pile's number of cards, beside it."""
    return cells(f"{count:>2}", INFO)


@functools.lru_cache(maxsize=128)
def _blank_cells(width: int) -> Row:
    return cells(" " * width)


def _stretch(placed: Sequence[tuple[int, Row]], end: int) -> Row:
    """A row's cells from column 1 to ``end``: each ``(col, cells)`` of ``placed``, left to
    right, at its column, and blanks between (the frame has none on the piles' rows)."""
    parts: list[Row] = []
    at = 1
    for col, drawn in placed:
        if col > at:
            parts.append(_blank_cells(col - at))
        parts.append(drawn)
        at = col + len(drawn) // 2
    parts.append(_blank_cells(end + 1 - at))
    return "".join(parts)


def _put_label(screen: ScreenBuffer, row: int, col: int, name: str, key: str, look: Look) -> None:
    end = screen.put(row, col, name, LABEL if look.ansi else PLAIN)
    screen.put(row, end + 1, key, KEY if look.ansi else PLAIN)


def _title(screen: ScreenBuffer, level_name: str, caption: str, look: Look, g: Geometry) -> None:
    # The deal number is never drawn from the game here: a scored game's number is secret
    # until it ends, so the game screen says what the title shows (``caption``).
    text = f" CANFIELD  {level_name}" if not g.short else f" {level_name}"
    if g.short and len(text) + len(caption) + 2 > g.width:
        caption = ""  # the level's name first; the practice deal's number is in the footnote
    line = text + caption.rjust(g.width - 1 - len(text)) + " "
    screen.put(TITLE_ROW, 1, line[: g.width], TITLE if look.ansi else PLAIN)


@functools.lru_cache(maxsize=64)
def _frame(
    look: Look,
    columns: int,
    names: tuple[str, ...],
    g: Geometry,
    reminder: tuple[str, ...],
    words: NullTranslations,
) -> ScreenBuffer:
    """What a board shows whatever the position: the piles' and columns' labels, the
    sidebar's names and the keys' ``reminder``, in ``words`` (the language spoken). Drawn
    once (each board starts from it), never written to after."""
    frame = ScreenBuffer(g.width, g.height)
    if len(reminder) > g.reminder_rows:  # a short window: the keys without their heading,
        reminder = reminder[1:]
    if len(reminder) > g.reminder_rows:  # and in a shorter one their first lines and the last
        reminder = (*reminder[: g.reminder_rows - 1], reminder[-1])
    for offset, line in enumerate(reminder):
        frame.put(g.reminder_top + offset, g.reminder_col, line, INFO)
    # TRANSLATORS: a pile's name over it, its key after it: at most 9 characters
    _put_label(frame, g.label_row, RESERVE_COL, _("Reserve"), "S", look)
    # TRANSLATORS: a pile's name over it, its key after it: at most 7 characters
    _put_label(frame, g.label_row, g.deck_col, _("Deck"), "V", look)
    # TRANSLATORS: a pile's name over it, its key after it: at most 12 characters
    _put_label(frame, g.label_row, g.waste_col, _("Waste"), "D", look)
    # TRANSLATORS: the foundations' name over them, their key after it: at most 16 characters
    foundations = _("Foundations")
    _put_label(frame, g.foundation_label_row, g.foundation_col, foundations, "F", look)
    for index in range(columns):
        col = RESERVE_COL + 1 + COLUMN_WIDTH * index  # over the card's middle
        frame.put(g.column_label_row, col, str(index + 1), KEY if look.ansi else PLAIN)
    name_width = _name_width(g, names)
    for offset, name in enumerate(names):
        frame.put(
            g.sidebar_row + offset,
            g.sidebar_col,
            f"{name:<{name_width}}",
            LABEL if look.ansi else PLAIN,
        )
    return frame


def _name_width(g: Geometry, names: Sequence[str]) -> int:
    """The sidebar's column of names: the board's; on the narrow board, as wide as a
    language's longest short name and a blank, if that is wider (its values then have a
    column or two fewer)."""
    if not g.short:
        return g.name_width
    return max(g.name_width, 1 + max(map(len, names)))


def _top_piles(screen: ScreenBuffer, game: Game, look: Look, g: Geometry) -> None:
    """The piles' row and the row under it, whole, left of the sidebar; and the
    foundations' row, when they have one of their own."""
    piles = _pile_cells(look)
    reserve, deck = game.reserve, game.deck
    placed = [
        (RESERVE_COL, piles[reserve[-1] if reserve else NO_CARD_CELLS]),
        (RESERVE_COL + 4, _count_cells(len(reserve))),
        (g.deck_col, piles[BACK_CELLS if deck else NO_CARD_CELLS]),
        (g.deck_col + 4, _count_cells(len(deck))),
    ]
    shown = waste_shown(game)
    placed += [(g.waste_col + WASTE_FAN * offset, piles[card]) for offset, card in enumerate(shown)]
    if not shown:
        placed.append((g.waste_col, piles[NO_CARD_CELLS]))
    foundations = [
        (g.foundation_col + 5 * index, piles[pile[-1] if pile else NO_CARD_CELLS])
        for index, pile in enumerate(game.foundations)
    ]
    if g.foundation_row == g.card_row:
        placed += foundations
    else:  # the narrow board's: the sidebar starts beside them
        screen.put_cells(g.foundation_row, 1, _stretch(foundations, g.sidebar_col - 1))
    screen.put_cells(g.card_row, 1, _stretch(placed, g.piles_end))
    marked = []
    if len(shown) > 1:  # only the top card of the fan is playable: point at it
        marked.append((g.waste_col + WASTE_FAN * (len(shown) - 1), _playable_mark(look)))
    screen.put_cells(g.count_row, 1, _stretch(marked, g.piles_end))


@functools.lru_cache(maxsize=8)
def _playable_mark(look: Look) -> Row:
    return cells(PLAYABLE_MARK, MESSAGE if look.ansi else PLAIN)


def waste_shown(game: Game) -> Sequence[Card]:
    """The waste's cards the board draws, bottom to top: as many as a turn lays down. At
    draw three the last three lie fanned, the top one playable; at draw one the waste is a
    squared pile showing its top card, as on a table (and a turn redraws one card, not three).

    >>> from door.engine import Variant
    >>> one, three = Game.deal(Variant(draw=1), 1), Game.deal(Variant(draw=3), 1)
    >>> turned = one.play("V"), one.play("V"), three.play("V"), three.play("V")
    >>> len(waste_shown(one)), len(waste_shown(three))
    (1, 3)
    """
    return game.waste[-game.variant.draw :]


def column_rows(pile: Sequence[Card], g: Geometry = CLASSIC) -> list[Card | None]:
    """What a column shows in its rows; None marks cards left out of a very tall column.

    Its bottom card stays in view, since a whole pile moves by it.
    """
    rows = g.last_column_row - g.first_column_row + 1
    if len(pile) <= rows:
        return list(pile)
    return [pile[0], None, *pile[len(pile) - (rows - 2) :]]


# A column row is one stretch of cells, COLUMN_WIDTH of them a column: two blanks, the card,
# a blank. So drawing a row is a join of slots made once for every card.
EMPTY_SLOT = NO_CARD_CELLS  # in _column_slots: the cards, an empty column, then these
BLANK_SLOT, FOLDED_SLOTS = EMPTY_SLOT + 1, EMPTY_SLOT + 2
_FOLDED_MAX = 52  # cards a folded column can hide: fewer than the deck's


@functools.lru_cache(maxsize=8)
def _column_slots(look: Look) -> tuple[Row, ...]:
    """Every card's slot in a column row, by the card's number; then an empty column's top
    row, a row the column does not reach, and a tall column's count of folded cards, by
    count."""
    before = _blank_cells(SLOT_LEAD)
    after = _blank_cells(COLUMN_WIDTH - SLOT_LEAD - CARD_WIDTH)
    drawn = [*_pile_cells(look)[: EMPTY_SLOT + 1], _blank_cells(CARD_WIDTH)]
    drawn += [cells(f"+{count:<2}", INFO) for count in range(_FOLDED_MAX + 1)]
    return tuple(before + cards + after for cards in drawn)


def column_sample(cards: Sequence[Card], look: Look) -> tuple[list[tuple[str, Style]], str]:
    """``cards`` as a row of the board's columns draws them, in the board's slots and
    colours (text and style, piece by piece); and a row of marks under them, three under
    each card, that a card drawn a cell short (a suit the line lost) no longer stands over.

    >>> pieces, marks = column_sample([Card.parse("TH"), Card.parse("KS")], Look())
    >>> "".join(text for text, _style in pieces), marks
    (' 10♥    K♠  ', ' ^^^   ^^^  ')
    >>> pieces[1][1] == RED_CARD, pieces[4][1] == BLACK_CARD
    (True, True)
    """
    before, after = " ", " " * (COLUMN_WIDTH - 4)
    pieces: list[tuple[str, Style]] = []
    for card in cards:
        pieces += [(before, PLAIN), (card_text(card, look), card_style(card, look)), (after, PLAIN)]
    return pieces, (before + "^^^" + after) * len(cards)


def _columns(screen: ScreenBuffer, game: Game, look: Look, rows: range, g: Geometry) -> None:
    """The column rows ``rows``, whole, as far as the columns reach across."""
    slots = _column_slots(look)
    shown: list[list[int]] = []  # each column's slots from its first row down
    folds = g.last_column_row - g.first_column_row - 1  # the cards shown under the fold
    for pile in game.tableau:
        if not pile:
            shown.append([EMPTY_SLOT])
        else:
            folded = FOLDED_SLOTS + len(pile) - folds - 1
            shown.append([folded if card is None else card for card in column_rows(pile, g)])
    for row in rows:
        offset = row - g.first_column_row
        line = "".join(
            [slots[column[offset] if offset < len(column) else BLANK_SLOT] for column in shown]
        )
        screen.put_cells(row, 1, line)


# What the board's sidebar says of the undo a level allows, by its ``undo`` setting.
UNDO_WORDS = {
    # TRANSLATORS: the undo a level allows, at most 8 characters (the board's sidebar)
    Undo.NONE: N_("none"),
    # TRANSLATORS: the undo a level allows, at most 8 characters (the board's sidebar)
    Undo.ONE: N_("one"),
    # TRANSLATORS: the undo a level allows, at most 9 characters (the board's sidebar)
    Undo.UNLIMITED: N_("unlimited"),
}


@functools.lru_cache(maxsize=16)
def _sidebar_names(words: NullTranslations, short: bool, vegas: bool) -> tuple[str, ...]:
    """The sidebar's names in ``words`` (the language spoken: the cache's key); ``short``,
    the narrow board's."""
    if short:
        # TRANSLATORS: "Bal." (Balance) ... "Waste": at most 6 characters (the narrow board's
        # sidebar, its names)
        names = (_("Bal.") if vegas else _("Score"), _("Moves"), _("Base"), _("Pass"))
        # TRANSLATORS: "Draw" ... "Waste": at most 6 characters (the narrow board's sidebar);
        # "Up": the cards on the foundations
        return (*names, _("Draw"), _("Undo"), _("Up"), _("Waste"))
    # TRANSLATORS: at most 9 characters each (the board's sidebar, its names)
    names = (_("Balance") if vegas else _("Score"), _("Moves"), _("Base rank"), _("Pass"))
    # TRANSLATORS: at most 9 characters each (the board's sidebar); "Up": the cards on the
    # foundations
    return (*names, _("Draw"), _("Undo"), _("Up"), _("Waste"))


def sidebar_lines(
    game: Game, look: Look | None = None, *, short: bool = False
) -> list[tuple[str, str]]:
    """The sidebar's names and values; ``short``, in the narrow board's few columns.

    >>> from door.engine import Variant
    >>> sidebar_lines(Game.deal(Variant(), 1), short=True)[::3]
    [('Score', '0'), ('Pass', '1'), ('Up', '1/52')]
    """
    variant = game.variant
    names = _sidebar_names(spoken(), short, variant.scoring == Scoring.VEGAS)
    if short:
        return list(zip(names, _short_values(game, look), strict=True))
    started, passes, up, waste = (
        game.passes_started,
        variant.passes,
        game.cards_on_foundations,
        len(game.waste),
    )
    values = (
        str(game.score),
        str(game.moves),
        rank_word(game.base_rank, look),
        # TRANSLATORS: at most 8 characters (the board's sidebar): the pass under way, of all
        _("{started} of {passes}").format(started=started, passes=passes)
        if passes
        else f"{started}",
        str(variant.draw),
        _(UNDO_WORDS[variant.undo]),
        # TRANSLATORS: at most 8 characters (the board's sidebar): cards on the foundations
        _("{cards} of 52").format(cards=up),
        # TRANSLATORS: at most 8 characters (the board's sidebar): cards in the waste
        ngettext("{count} card", "{count} cards", waste).format(count=waste),
    )
    return list(zip(names, values, strict=True))


def _short_values(game: Game, look: Look | None) -> tuple[str, ...]:
    variant = game.variant
    passes = str(game.passes_started)
    if variant.passes:
        passes += f"/{variant.passes}"
    base = "?" if game.base_rank is None else rank_word(game.base_rank, look)
    # TRANSLATORS: unlimited undo, at most 6 characters (the narrow board's sidebar)
    undo = _("any") if variant.undo == Undo.UNLIMITED else _(UNDO_WORDS[variant.undo])
    return (
        str(game.score),
        str(game.moves),
        base,
        passes,
        str(variant.draw),
        undo,
        f"{game.cards_on_foundations}/52",
        str(len(game.waste)),
    )


def _sidebar(
    screen: ScreenBuffer,
    values: Sequence[str],
    look: Look,
    g: Geometry,
    drawn: Sequence[str] = (),
    name_width: int | None = None,
) -> None:
    """The sidebar's values beside their names (the frame's, in a column ``name_width``
    wide: the board's unless a language's names need more), each padded to the width of
    its place; those equal to what ``drawn`` shows there are left as they are."""
    value_col = g.value_col if name_width is None else g.sidebar_col + name_width
    value_width = g.width - value_col
    # Plain white, as the counts beside the piles: values that change with every play
    # then cost no change of attributes on the way to or from the cards.
    value_style = INFO if look.ansi else PLAIN
    for offset, value in enumerate(values):
        if offset < len(drawn) and drawn[offset] == value:
            continue
        padded = f"{value[:value_width]:<{value_width}}"
        screen.put(g.sidebar_row + offset, value_col, padded, value_style)


def draw_board(
    screen: ScreenBuffer,
    game: Game,
    level_name: str,
    look: Look,
    message: str = "",
    message_style: Style = MESSAGE,
    prompt: str = PROMPT,
    *,
    caption: str = "",
    footnote: str = "",
    reminder: tuple[str, ...] = (),
) -> None:
    """Draw the whole game screen into ``screen`` (the caller renders it), with ``prompt``
    where the cursor waits: the one question the caller is asked, in the caller's words
    (:data:`PROMPT` as it is: the board says it in them).

    ``caption`` goes at the right of the title (which game this is) and ``footnote`` on the
    row under the columns (the game's seal, or its deal once it is over, or that it is
    practice); ``reminder``, the keys' reminder's lines (``pointer.reminder_lines``: a
    heading, then the keys), in the sidebar's free rows. A board drawn again after each
    play is better kept by a :class:`BoardPainter`, which draws only what changed.
    """
    BoardPainter().draw(
        screen,
        game,
        level_name,
        look,
        message,
        message_style,
        prompt,
        caption=caption,
        footnote=footnote,
        reminder=reminder,
    )


def _top_contents(game: Game) -> bytes:
    """All that the top piles' rows show of ``game``, to tell whether they changed."""
    reserve, foundations = game.reserve, game.foundations
    return bytes(
        (
            len(reserve),
            reserve[-1] if reserve else NO_CARD,
            len(game.deck),
            *(pile[-1] if pile else NO_CARD for pile in foundations),
            *waste_shown(game),
        )
    )


def _columns_contents(game: Game) -> bytes:
    """All that the columns show of ``game``, to tell whether they changed."""
    return bytes((*map(len, game.tableau), *itertools.chain.from_iterable(game.tableau)))


NO_CARD = 255  # an empty pile, in the contents above (cards are 0 to 51)


class BoardPainter:
    """One caller's board from play to play, drawn again by the parts that changed.

    A play changes a pile or two and the sidebar's values; drawing all of the board again
    for each play was a good part of the door's time at a thousand callers. So the board is
    kept here, in a screen buffer of its own that nothing else writes on, in parts that
    each own a rectangle of it: the title, the top piles, the sidebar's values, the columns,
    and the rows under them (the footnote, the message and the prompt). A part whose
    contents are as last drawn is left alone; one that changed is drawn anew over its whole
    rectangle (the piles' rows and the columns' rows whole, blanks and all; the other parts
    over the frame's cells), so a board drawn by parts is, cell for cell, the board drawn
    whole (:func:`draw_board`), and a row drawn again alike keeps its copy. A new message
    alone leaves the columns as they are. The screen is then given the board's rows, and
    whatever is drawn over them (the pointer, the caller's typing, a banner) is gone at the
    next draw.

    >>> from door.engine import Game, Variant
    >>> game, look = Game.deal(Variant(), 48213), Look(ansi=False, suit_letters=True)
    >>> painter, kept, whole = BoardPainter(), ScreenBuffer(), ScreenBuffer()
    >>> for play in ("V", "V", "U"):
    ...     result = game.play(play)
    ...     painter.draw(kept, game, "Level 2", look)
    ...     draw_board(whole, game, "Level 2", look)
    ...     assert kept.plain_lines() == whole.plain_lines()
    >>> kept.text_at(4)[:39]
    '   4D 13      ### 31     TD    8C    8H'
    """

    # What each part was last drawn from, field by field: no tuple made for every play to
    # outlive it, for the garbage collector to look at.
    __slots__ = (
        "_board",
        "_caption",
        "_columns",
        "_footnote",
        "_frame",
        "_level_name",
        "_message",
        "_message_style",
        "_prompt",
        "_prompt_end",
        "_top",
        "_values",
    )

    def __init__(self) -> None:
        self._board: ScreenBuffer | None = None
        self._frame: ScreenBuffer | None = None
        self._forget()

    def _forget(self) -> None:
        """Have every part drawn at the next draw."""
        # None: never drawn, unlike any text.
        self._level_name: str | None = None
        self._caption: str | None = None
        self._message: str | None = None
        self._prompt: str | None = None
        self._footnote: str | None = None
        self._message_style: Style | None = None
        self._top = self._columns = b""
        self._values: tuple[str, ...] = ()
        self._prompt_end = 1

    def draw(
        self,
        screen: ScreenBuffer,
        game: Game,
        level_name: str,
        look: Look,
        message: str = "",
        message_style: Style = MESSAGE,
        prompt: str = PROMPT,
        *,
        caption: str = "",
        footnote: str = "",
        reminder: tuple[str, ...] = (),
    ) -> None:
        """Draw the board into ``screen`` as :func:`draw_board` does, with the same
        arguments."""
        g = geometry(screen.width, screen.height, len(game.tableau)) or CLASSIC
        sidebar = sidebar_lines(game, look, short=g.short)
        names = tuple(name for name, _value in sidebar)
        frame = _frame(look, len(game.tableau), names, g, reminder, spoken())
        board = self._board
        if board is None or frame is not self._frame:
            board = self._board = ScreenBuffer(g.width, g.height)
            board.clear(frame)
            self._frame = frame
            self._forget()
        if level_name != self._level_name or caption != self._caption:
            _title(board, level_name, caption, look, g)  # the whole row
            board.share_rows(range(TITLE_ROW, TITLE_ROW + 1))
            self._level_name, self._caption = level_name, caption
        top = _top_contents(game)
        if top != self._top:
            _top_piles(board, game, look, g)
            board.share_rows(range(g.card_row, max(g.count_row, g.foundation_row) + 1))
            self._top = top
        values = tuple(value for _name, value in sidebar)
        if values != self._values:
            _sidebar(board, values, look, g, self._values, _name_width(g, names))
            board.share_rows(range(g.sidebar_row, g.sidebar_row + len(values)))
            self._values = values
        columns = _columns_contents(game)
        moved = columns != self._columns
        if (
            moved
            or message != self._message
            or message_style != self._message_style
            or prompt != self._prompt
            or footnote != self._footnote
        ):
            # The rows under the columns start again from the frame, and so does the last
            # column row, where the footnote may go up; the other column rows only if the
            # columns changed.
            under = range(g.last_column_row, g.height + 1)
            board.copy_area(frame, under, 1, g.width)
            redrawn = range(g.first_column_row if moved else g.last_column_row, g.height + 1)
            _columns(board, game, look, range(redrawn.start, g.last_column_row + 1), g)
            self._prompt_end = _bottom(board, look, message, message_style, prompt, footnote, g)
            board.share_rows(redrawn)
            self._columns, self._message, self._message_style = columns, message, message_style
            self._prompt, self._footnote = prompt, footnote
        screen.clear(board)
        screen.set_cursor(g.prompt_row, min(self._prompt_end, g.width - 1))


def _bottom(
    screen: ScreenBuffer,
    look: Look,
    message: str,
    message_style: Style,
    prompt: str,
    footnote: str,
    g: Geometry = CLASSIC,
) -> int:
    """The footnote, the message and the prompt under the columns; the column after the
    prompt."""
    room = g.width - 3
    lines = wrap(card_words(message, look), room) if message else []
    # A narrow board's long message may take a third row, the last of the columns', where
    # they leave it free (they do once a game is won).
    free = not screen.text_at(g.last_column_row)[: g.sidebar_col - 1].strip()
    lines = lines[-3:] if g.short and len(lines) > 2 and free else lines[-2:]
    # A long message takes the footnote's row (and a third line the one above): the footnote
    # goes up above the message if the columns leave that row free (they do once a game is
    # won), since it may say what the deal was.
    footnote_row = g.footnote_row
    row = footnote_row - max(0, len(lines) - 1)
    if footnote and (row == footnote_row or not screen.text_at(row).strip()):
        shown = wrap(footnote, room)[0] if g.short else footnote[:room]
        screen.put(row, 2, shown, LABEL if look.ansi else PLAIN)
    if message:
        # The row under the columns is free for a second row of a long message.
        message_rows = (g.message_row - 2, g.message_row - 1, g.message_row)
        for row, line in zip(message_rows[-len(lines) :], lines, strict=True):
            if row == g.last_column_row:  # the whole row, no piece of the keys' reminder left
                line = line.ljust(g.width - 2)
            screen.put(row, 2, line, message_style if look.ansi else PLAIN)
    if prompt == PROMPT:
        prompt = _(PROMPT)
    if g.short and len(prompt) > room:
        prompt = wrap(prompt, room - 1)[-1] + " "  # a question's last words, on a narrow board
    return screen.put(g.prompt_row, 2, prompt, INFO)


def notice_text(text: str, row: int = MESSAGE_ROW, width: int = WIDTH) -> str:
    """What shows a notice (a line from the sysop, a clock's warning) on an ANSI screen, a
    board or a page, from wherever the cursor is: on the message row over what was there,
    in the message's colours from the first, nothing scrolled (``row``, on a screen
    ``width`` wide). What follows it puts the cursor back at the prompt, in the prompt's
    colours.

    >>> notice_text("Sysop: Back soon")
    '\\x1b[22;2H\\x1b[0;1;33;40m\\x1b[KSysop: Back soon'
    """
    # The classic screen's notice is cut at its width, as it always was; a narrower one's
    # shows its first line's words.
    shown = text[: width - 3] if width >= WIDTH else wrap(text, width - 3)[0]
    return f"{move(row, 2)}{MESSAGE.sgr()}{clear_to_end_of_line()}{shown}"


def draw_banner(
    screen: ScreenBuffer,
    lines: Sequence[str],
    look: Look,
    art: Art | None = None,
    g: Geometry = CLASSIC,
) -> None:
    """A banner across the middle of the board in a frame of suits: a win's celebration,
    in one colour so that it costs few bytes. Its suits are drawn as the cards' are.
    ``art``: the sysop's own instead, in the middle of the emptied columns' rows, left of the
    sidebar, on the board of 80x24 it is drawn for (another size shows the door's own).

    >>> screen = ScreenBuffer(80, 24)
    >>> draw_banner(screen, ["YOU WON!"], Look(ansi=False))
    >>> [screen.text_at(row).strip() for row in (12, 13, 14)]
    ['HDCSHDCSHDCSHD', 'D  YOU WON!  D', 'HDCSHDCSHDCSHD']
    >>> draw_banner(screen, ["YOU WON!"], Look(suit_letters=True))
    >>> screen.text_at(12).strip()
    'HDCSHDCSHDCSHD'
    """
    if art is not None and g == CLASSIC:
        row = FIRST_COLUMN_ROW + max(LAST_COLUMN_ROW - FIRST_COLUMN_ROW + 1 - art.height, 0) // 2
        col = max(SIDEBAR - 1 - art.columns, 0) // 2 + 1
        draw_art(screen, art, row, col, look)
        return
    width = max(len(line) for line in lines) + 6
    across = g.width if not g.short else g.sidebar_col - 1  # a narrow board's columns
    col = max(1, (across - width) // 2 + 1)
    row = g.banner_row
    suits = "".join(suit_text(Suit(suit), look) for suit in (2, 1, 0, 3))  # ♥♦♣♠
    frame = (suits * width)[:width]
    style = GOOD_NEWS if look.ansi else PLAIN
    screen.put(row, col, frame, style)
    for offset, line in enumerate(lines, start=1):
        side = frame[offset % 4]
        screen.put(row + offset, col, f"{side}{line:^{width - 2}}{side}", style)
    screen.put(row + len(lines) + 1, col, frame, style)


def draw_art(screen: ScreenBuffer, art: Art, row: int, col: int, look: Look) -> None:
    """The sysop's art from ``row``, ``col`` on: its cells on an ANSI screen, its text on a
    plain one (an .asc file's)."""
    if look.ansi:
        art.draw(screen, row, col)
    else:
        for offset, line in enumerate(art.lines()):
            screen.put(row + offset, col, line, PLAIN)


def plain_lines(screen: ScreenBuffer) -> list[str]:
    """A screen as plain lines for an ASCII caller, runs of empty lines folded to one."""
    lines: list[str] = []
    for line in screen.plain_lines():
        if line or (lines and lines[-1]):
            lines.append(line)
    return lines
