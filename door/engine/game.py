"""A game of Canfield: the piles, the plays, undo, scoring and the position JSON.

Why one module, however long: :class:`Game` is one object whose plays, undo, scoring and
the words for a refused play all read and write the same private state (the snapshots for
undo, the points not yet settled, the cached targets). Cut into modules, each part would
reach into the others' privates, which is what :mod:`door.engine.position` no longer does:
it reads and checks the format, and :meth:`Game.from_position` builds the game.

>>> from door.engine import Game, Variant
>>> game = Game.deal(Variant(), number=48213)
>>> game.legal()[0]
'V'
>>> before = game.to_dict()
>>> game.play("v").move
'V'
>>> game.play("u").move
'U'
>>> {k: v for k, v in game.to_dict().items() if k not in ("history", "moves")} == {
...     k: v for k, v in before.items() if k not in ("history", "moves")}
True
"""

from __future__ import annotations

import copy
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from door.engine.cards import CARDS, RANKS, Card, Rank, check_full_deck
from door.engine.moves import (
    FOUNDATION,
    RESERVE,
    SEND_UP,
    TURN,
    UNDO,
    WASTE,
    IllegalMove,
    Move,
)
from door.engine.position import Layout, Position
from door.engine.shuffle import shuffled_order
from door.engine.status import Status
from door.engine.variant import (
    MOST_COLUMNS,
    Base,
    Moves,
    Scoring,
    Spaces,
    SpacesAfterReserve,
    Undo,
    Variant,
    Wrap,
)

KING = 12
_RED = tuple((card & 3) in (1, 2) for card in range(52))
_COLUMN_KEYS = tuple(str(number) for number in range(1, 11))
_NEXT_IN_SUIT = tuple(((card >> 2) + 1) % 13 * 4 + (card & 3) for card in range(52))
_OF_RANK = tuple(tuple(rank * 4 + suit for suit in range(4)) for rank in range(13))
# The columns (indexes) in each set of columns written as a bit mask. A position's targets
# keep masks, shared tuples of columns from here: nothing of their own that a thousand
# callers' games hold, nor that the garbage collector looks at.
_COLUMNS_IN = tuple(
    tuple(index for index in range(MOST_COLUMNS) if mask >> index & 1)
    for mask in range(1 << MOST_COLUMNS)
)
# The two cards that go on each card in a column: one rank lower, the other colour.
_FITS_ON = tuple(
    tuple(((card >> 2) - 1) % 13 * 4 + suit for suit in ((0, 3) if _RED[card] else (1, 2)))
    for card in range(52)
)
_SEPARATOR = b"\xff"
# The states and settings a play and the search for legal plays test, read off their enums
# once: on Python 3.11 reading a member off its enum class costs some 150 ns (EnumType's
# __getattr__ hook), and a play reads a dozen or more (_column_moves alone about seven).
_PLAYING, _WON, _STUCK, _RESIGNED = Status.PLAYING, Status.WON, Status.STUCK, Status.RESIGNED
_NO_UNDO, _ONE_UNDO = Undo.NONE, Undo.ONE
_POINTS, _CARD_SCORING = Scoring.POINTS, Scoring.CARDS
_AUTO_SPACES = Spaces.AUTO
_BROKEN, _WHOLE = Wrap.BROKEN, Moves.WHOLE
_ANY_FILLS = SpacesAfterReserve.ANY
_WASTE_FILLS = SpacesAfterReserve.WASTE
_KING_FILLS = SpacesAfterReserve.KING


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What one accepted play did, for the screen to show."""

    move: str
    """The play in canonical form."""
    sent_up: tuple[Card, ...]
    """Every card the play put on a foundation, in order (send up and finish included)."""
    finish: tuple[Card, ...]
    """The cards the automatic finish sent up (the end of ``sent_up``); empty if none."""
    status: Status
    score: int
    moves: int
    finish_columns: tuple[int, ...] = ()
    """The column (1, 2, ...) each card of ``finish`` went up from, to show them going."""


class _Targets(NamedTuple):
    up: tuple[int, ...] | None
    """Cards that may go to a foundation now; None while any may (base not chosen yet)."""
    fits: dict[int, int]
    """Card -> the non-empty columns it may be placed on, as a mask (see _COLUMNS_IN)."""
    spaces: tuple[int, ...]
    """The empty columns."""


# The position before a play, so that undo can take the play back (a play is only made, and
# undone, in a game being played): the base rank (-1: not chosen yet), the passes started
# and the score the play gained, then the piles (packed). Bytes, as the garbage collector
# neither counts nor looks at them: an object a play, kept for the whole game, brought every
# caller's next collection sooner and was looked at again by every older one. A change must
# keep each snapshot one bytes object (no list, tuple or Card kept beside it), each card packed
# as its number (0 to 51, never _SEPARATOR), and _unpack the exact inverse of _pack:
# tests/test_footprint.py checks all three.
_SNAPSHOT_HEAD = struct.Struct("<bqq")


class Game:
    """One game: deal it with :meth:`deal` or :meth:`from_order`, then :meth:`play`.

    The piles are lists, bottom first (the last item is the top card). Read them; change them
    only through :meth:`play`.
    """

    variant: Variant
    deal_number: int | None
    order: tuple[Card, ...]
    reserve: list[Card]
    deck: list[Card]
    waste: list[Card]
    foundations: list[list[Card]]
    tableau: list[list[Card]]
    base_rank: int | None
    passes_started: int
    score: int
    moves: int
    status: Status
    history: list[str]

    def __init__(self, variant: Variant, order: Sequence[Card], deal_number: int | None) -> None:
        check_full_deck(order)
        self.variant = variant
        self.deal_number = deal_number
        self.order = tuple(order)
        self._deal_piles()
        self.passes_started = 1
        self.moves = 0
        self.status = _PLAYING
        self.history = []
        self._snapshots: list[bytes] = []
        self._sent_up: list[Card] = []
        self._sent_from: list[int] = []  # column index of each card sent up, -1 otherwise
        self._targets_cache: _Targets | None = None
        self._points = 0
        self._cards_points = 0
        self.score = 0
        self._settle_score()
        self._check_stuck()

    # -- dealing ---------------------------------------------------------------------------

    @classmethod
    def deal(cls, variant: Variant, number: int) -> Game:
        """Deal ``number`` with the documented shuffle (door.engine.shuffle)."""
        return cls(variant, shuffled_order(number), number)

    @classmethod
    def from_order(cls, variant: Variant, cards: Iterable[Card | str]) -> Game:
        """Deal an explicit order of the 52 cards (``"7H"`` strings or Cards)."""
        return cls(variant, [c if isinstance(c, Card) else Card.parse(c) for c in cards], None)

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        """A game to try plays on apart from this one, made without copy's general walk (the
        door copies a game for a trial play, the solver to check a line): the lists, and the
        piles in them, are new; what they hold (cards, plays, undo's snapshots) never changes,
        and neither does any other attribute, so those are shared. The cached targets are
        left to be worked out again.

        >>> game = Game.deal(Variant(), 7)
        >>> trial = copy.deepcopy(game)
        >>> trial.play("v").move, len(game.waste), len(trial.waste), game.history
        ('V', 0, 3, [])
        """
        twin = copy.copy(self)
        memo[id(self)] = twin
        for name, value in vars(self).items():
            if isinstance(value, list):  # each list holds one kind: piles, or values
                nested = value and isinstance(value[0], list)
                setattr(twin, name, [list(pile) for pile in value] if nested else value[:])
        twin._targets_cache = None
        return twin

    def _deal_piles(self) -> None:
        variant, order = self.variant, self.order
        at = variant.reserve_size
        self.reserve = list(order[:at])
        self.foundations = [[], [], [], []]
        self.base_rank = None
        if variant.base == Base.DEALT:
            self.foundations[0].append(order[at])
            self.base_rank = order[at].rank
            at += 1
        elif variant.base == Base.ACE:
            self.base_rank = 0
        self.tableau = [[card] for card in order[at : at + variant.columns]]
        self.deck = list(reversed(order[at + variant.columns :]))
        self.waste = []

    # -- what the position allows ----------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.status != _PLAYING

    @property
    def cards_on_foundations(self) -> int:
        return sum(map(len, self.foundations))

    @property
    def passes_left(self) -> int | None:
        """New passes still allowed after this one; None when unlimited."""
        if self.variant.passes == 0:
            return None
        return max(0, self.variant.passes - self.passes_started)

    def _new_pass_allowed(self) -> bool:
        return self.variant.passes == 0 or self.passes_started < self.variant.passes

    def _fits(self, card: int, top: int) -> bool:
        """May ``card`` be placed on ``top`` in a column? (docs/rules.md §6.1, §6.2)"""
        if _RED[card] == _RED[top] or ((top >> 2) - (card >> 2)) % 13 != 1:
            return False
        # The broken corner: a card of rank base-1 never goes on one of the base rank.
        broken = self.variant.wrap == _BROKEN and self.base_rank is not None
        return not (broken and top >> 2 == self.base_rank)

    def _foundation_for(self, card: int) -> int | None:
        """The foundation ``card`` would go to now, or None (docs/rules.md §5.2, §5.3)."""
        rank = card >> 2
        if self.base_rank is None or rank == self.base_rank:
            for index, pile in enumerate(self.foundations):
                if not pile:
                    return index
            return None
        for index, pile in enumerate(self.foundations):
            if pile and pile[0] & 3 == card & 3:
                top = pile[-1]
                if len(pile) < 13 and (top >> 2) + 1 - rank in (0, 13):
                    return index
                return None
        return None

    def _space_takes(self, source: str, card: int, whole_pile: bool) -> bool:
        """May ``card`` (from the reserve, the waste or a column) fill an empty column?"""
        if self.reserve:
            return source == RESERVE
        rule = self.variant.spaces_after_reserve
        if rule == _WASTE_FILLS:
            return source == WASTE
        if rule == _KING_FILLS:
            return card >> 2 == KING
        return source == WASTE or whole_pile

    def _run_start(self, pile: list[Card]) -> int:
        """Index of the bottom card of the run on top of ``pile`` (docs/rules.md §6.5)."""
        start = len(pile) - 1
        while start > 0 and self._fits(pile[start], pile[start - 1]):
            start -= 1
        return start

    def _targets(self) -> _Targets:
        """Where cards can go now: worked out once per position, then looked up per card."""
        if self._targets_cache is not None:
            return self._targets_cache
        base = self.base_rank
        up: tuple[int, ...] | None = None
        if base is not None:
            wanted: set[int] = set()
            for pile in self.foundations:
                if not pile:
                    wanted.update(_OF_RANK[base])
                elif len(pile) < 13:
                    wanted.add(_NEXT_IN_SUIT[pile[-1]])
            up = tuple(wanted)
        fits: dict[int, int] = {}
        spaces = 0
        broken = self.variant.wrap == _BROKEN and base is not None
        for index, pile in enumerate(self.tableau):
            if not pile:
                spaces |= 1 << index
            elif not (broken and pile[-1] >> 2 == base):  # the broken corner
                for card in _FITS_ON[pile[-1]]:
                    fits[card] = fits.get(card, 0) | 1 << index
        self._targets_cache = _Targets(up, fits, _COLUMNS_IN[spaces])
        return self._targets_cache

    def _column_moves(self, source: int, targets: _Targets) -> dict[int, int]:
        """For ``m n`` from column ``source``: target column -> index of the moving part's
        bottom card, for every column it may go to (docs/rules.md §6.4, §6.5, §7.4)."""
        pile = self.tableau[source]
        moves: dict[int, int] = {}
        if not pile:
            return moves
        if self.variant.moves == _WHOLE:
            for target in _COLUMNS_IN[targets.fits.get(pile[0], 0)]:
                if target != source:  # a pile's bottom card may fit its own top card
                    moves[target] = 0
            if targets.spaces and self._space_takes("column", pile[0], True):
                moves.update(dict.fromkeys(targets.spaces, 0))
            return moves
        start = self._run_start(pile)
        for index in range(start, len(pile)):
            for target in _COLUMNS_IN[targets.fits.get(pile[index], 0)]:
                if target != source and target not in moves:
                    moves[target] = index
        if targets.spaces and not self.reserve:
            rule = self.variant.spaces_after_reserve
            kings = [index for index in range(start, len(pile)) if pile[index] >> 2 == KING]
            if rule == _ANY_FILLS:
                moves.update(dict.fromkeys(targets.spaces, 0))
            elif rule == _KING_FILLS and kings:
                moves.update(dict.fromkeys(targets.spaces, kings[0]))
        return moves

    def _card_targets(self, source: str, card: int, targets: _Targets) -> list[int]:
        """Columns the top card of the reserve or the waste may go to."""
        columns = list(_COLUMNS_IN[targets.fits.get(card, 0)])
        if targets.spaces and self._space_takes(source, card, False):
            columns = sorted([*columns, *targets.spaces])
        return columns

    def _tops(self) -> list[tuple[str, int, Card]]:
        """(source key, column index or -1, top card) for every pile a card can leave."""
        tops: list[tuple[str, int, Card]] = []
        if self.reserve:
            tops.append((RESERVE, -1, self.reserve[-1]))
        if self.waste:
            tops.append((WASTE, -1, self.waste[-1]))
        for index, pile in enumerate(self.tableau):
            if pile:
                tops.append((_COLUMN_KEYS[index], index, pile[-1]))
        return tops

    def legal(self) -> list[str]:
        """Every play the position allows, in canonical form: V, F, S…, D…, then columns.

        U, being no play of its own, is not listed.
        """
        if self.status != _PLAYING:
            return []
        plays: list[str] = []
        if self.deck or (self.waste and self._new_pass_allowed()):
            plays.append(TURN)
        targets = self._targets()
        up = targets.up
        tops = self._tops()
        if up is not None and any(card in up for _, _, card in tops):
            plays.append(SEND_UP)
        for key, source, card in tops:
            if up is None or card in up:
                plays.append(f"{key} F")
            if source < 0:
                columns = self._card_targets(key, card, targets)
            else:
                columns = sorted(self._column_moves(source, targets))
            plays.extend(f"{key} {column + 1}" for column in columns)
        return plays

    def is_legal(self, command: str | Move) -> bool:
        """Would :meth:`play` accept ``command`` now? (U included)"""
        try:
            move = command if isinstance(command, Move) else Move.parse(command)
        except IllegalMove:
            return False
        if move.source == UNDO:
            return self._undo_refusal() is None
        return str(move) in self.legal()

    # -- the stuck rule ---------------------------------------------------------------------

    def _has_real_play(self, targets: _Targets) -> bool:
        """Is any play but V legal, leaving out whole piles moved into a space?"""
        for key, source, card in self._tops():
            if targets.up is None or card in targets.up:
                return True
            if source < 0:
                if self._card_targets(key, card, targets):
                    return True
            elif any(
                part > 0 or self.tableau[column]
                for column, part in self._column_moves(source, targets).items()
            ):
                return True
        return False

    def _cards_turning_shows(self) -> list[Card]:
        """Cards that turning alone would bring to the top of the waste (the stuck rule)."""
        draw = self.variant.draw
        this_pass = self.deck[::-1]
        shown = this_pass[draw - 1 :: draw]
        if len(this_pass) % draw:
            shown.append(this_pass[-1])
        if self._new_pass_allowed():
            whole_pass = self.waste + this_pass
            shown += whole_pass[draw - 1 :: draw]
            if len(whole_pass) % draw:
                shown.append(whole_pass[-1])
        return shown

    def _is_stuck(self) -> bool:
        targets = self._targets()
        if self._has_real_play(targets):
            return False
        return not any(
            (targets.up is None or card in targets.up) or self._card_targets(WASTE, card, targets)
            for card in self._cards_turning_shows()
        )

    def _check_stuck(self) -> None:
        if self.status == _PLAYING and self._is_stuck():
            self.status = _STUCK

    # -- playing ----------------------------------------------------------------------------

    def play(self, command: str | Move) -> PlayResult:
        """Make one play (or ``U``), given in any spelling docs/rules.md §14.1 accepts.

        Raises IllegalMove, leaving the game exactly as it was, when the play is refused.
        """
        move = command if isinstance(command, Move) else Move.parse(command)
        if self.status != _PLAYING:
            raise self._over_refusal()
        if move.source == UNDO:
            return self._undo()
        self._check_columns(move)
        piles_before, base_before = self._pack(), self.base_rank
        passes_before, score_before = self.passes_started, self.score
        self._points = self._cards_points = 0
        self._sent_up.clear()  # emptied, not replaced: fewer objects for the collector
        self._sent_from.clear()
        if move.source == TURN:
            self._turn()
        elif move.source == SEND_UP:
            if self.base_rank is None:
                raise IllegalMove(
                    "Choose the base rank first: send a card up with S F, D F or a column's F"
                )
            if not self._send_up():
                raise IllegalMove("No card can go to a foundation now")
        else:
            self._move(move)
        self._targets_cache = None
        finish, finish_columns = self._finish()
        self.moves += 1
        self.history.append(str(move))
        if self.cards_on_foundations == 52:
            self.status = _WON
        self._settle_score()
        gain = self.score - score_before
        self._remember(piles_before, base_before, passes_before, gain)
        self._check_stuck()
        return PlayResult(
            str(move),
            tuple(self._sent_up),
            finish,
            self.status,
            self.score,
            self.moves,
            finish_columns,
        )

    def _remember(self, piles: bytes, base_rank: int | None, passes: int, gain: int) -> None:
        """Keep the position before a play for undo (a level without undo keeps nothing)."""
        if self.variant.undo == _NO_UNDO:
            return
        if self.variant.undo == _ONE_UNDO:
            self._snapshots.clear()
        head = _SNAPSHOT_HEAD.pack(-1 if base_rank is None else base_rank, passes, gain)
        self._snapshots.append(head + piles)

    def resign(self) -> None:
        """End the game as lost (the door's ``N``); it is not a play."""
        if self.status == _PLAYING:
            self.status = _RESIGNED

    def _check_columns(self, move: Move) -> None:
        columns = len(self.tableau)
        for number in (move.source_column, move.target_column):
            if number is not None and not 1 <= number <= columns:
                raise IllegalMove(
                    "There is no column {number}: this game has {columns}",
                    number=number,
                    columns=columns,
                )

    def _turn(self) -> None:
        if self.deck:
            for _ in range(min(self.variant.draw, len(self.deck))):
                self.waste.append(self.deck.pop())
        elif not self.waste:
            raise IllegalMove("The deck and the waste are both empty")
        elif not self._new_pass_allowed():
            raise IllegalMove("The deck is empty and this level allows no more passes")
        else:
            self.deck = self.waste[::-1]
            self.waste = []
            self.passes_started += 1
            self._points -= 1

    def _move(self, move: Move) -> None:
        source, target = move.source, move.target
        assert target is not None  # only V, F and U name no target (Move.parse)
        if source.isdigit():
            self._move_from_column(int(source) - 1, target)
            return
        pile = self.reserve if source == RESERVE else self.waste
        if not pile and source == RESERVE:
            raise IllegalMove("The reserve is empty")
        if not pile:
            raise IllegalMove("The waste is empty")
        card = pile[-1]
        if target == FOUNDATION:
            if self._foundation_for(card) is None:
                raise self._why_not_up(card)
            self._take(source)
            self._put_up(card, source)
        else:
            column = int(target) - 1
            if column not in self._card_targets(source, card, self._targets()):
                raise self._why_not_on_column(card, column)
            self._take(source)
            self.tableau[column].append(card)
            if source == WASTE:
                self._cards_points += 5
        self._fill_spaces()

    def _move_from_column(self, source: int, target: str) -> None:
        pile = self.tableau[source]
        if not pile:
            raise IllegalMove("Column {number} is empty", number=source + 1)
        if target == FOUNDATION:
            card = pile[-1]
            if self._foundation_for(card) is None:
                raise self._why_not_up(card)
            pile.pop()
            self._put_up(card, "column")
        else:
            column = int(target) - 1
            if column == source:
                raise IllegalMove("A column can't move onto itself")
            part = self._column_moves(source, self._targets()).get(column)
            if part is None:
                raise self._why_not_column_move(source, column)
            self.tableau[column].extend(pile[part:])
            del pile[part:]
        self._fill_spaces()

    def _take(self, source: str) -> Card:
        """Take the top card of the reserve or the waste, scoring what that earns."""
        if source == RESERVE:
            card = self.reserve.pop()
            if self.reserve:
                self._points += 2
                self._cards_points += 5
            return card
        self._points += 1
        return self.waste.pop()

    def _put_up(self, card: Card, source: str) -> None:
        index = self._foundation_for(card)
        assert index is not None
        if self.base_rank is None:
            self.base_rank = card.rank
        self.foundations[index].append(card)
        self._sent_up.append(card)
        self._points += 4
        self._cards_points += 10 if source == WASTE else 5

    def _fill_spaces(self) -> None:
        """spaces = auto: the reserve fills every empty column at once, left to right."""
        if self.variant.spaces != _AUTO_SPACES:
            return
        for pile in self.tableau:
            if not self.reserve:
                return
            if not pile:
                pile.append(self._take(RESERVE))

    def _send_up(self) -> int:
        """Send up every card that can go, one at a time (docs/rules.md §8.1); how many went."""
        sent = 0
        while True:
            movable = [top for top in self._tops() if self._foundation_for(top[2]) is not None]
            if not movable:
                return sent
            key, source, card = movable[0]
            if source >= 0:
                self.tableau[source].pop()
            else:
                self._take(key)
            self._sent_from.append(source)
            self._put_up(card, key)
            self._fill_spaces()
            sent += 1

    def _finish(self) -> tuple[tuple[Card, ...], tuple[int, ...]]:
        """The automatic finish: send everything up when that would win (docs/rules.md §10.2).

        Returns the cards it sent up and the column (1-based) each came from.
        """
        if self.reserve or self.deck or self.waste or self.base_rank is None:
            return (), ()
        if not self._finish_possible():
            return (), ()
        cards_before, columns_before = len(self._sent_up), len(self._sent_from)
        self._send_up()
        columns = tuple(index + 1 for index in self._sent_from[columns_before:])
        return tuple(self._sent_up[cards_before:]), columns

    def _finish_possible(self) -> bool:
        next_rank: dict[int, int] = {}
        for pile in self.foundations:
            if pile:
                next_rank[pile[0] & 3] = ((pile[-1] >> 2) + 1) % 13
        columns = [list(pile) for pile in self.tableau if pile]
        progress = True
        while progress:
            progress = False
            for pile in columns:
                while pile:
                    card = pile[-1]
                    wanted = next_rank.get(card & 3, self.base_rank)
                    if card >> 2 != wanted:
                        break
                    pile.pop()
                    next_rank[card & 3] = ((card >> 2) + 1) % 13
                    progress = True
        return not any(columns)

    def _settle_score(self) -> None:
        variant = self.variant
        if variant.scoring == _POINTS:
            self.score += self._points * variant.multiplier
        elif variant.scoring == _CARD_SCORING:
            self.score += self._cards_points
        else:
            score = -variant.vegas_cost + variant.vegas_per_card * self.cards_on_foundations
            if self.status == _WON and variant.vegas_refund_on_win:
                score += variant.vegas_cost
            self.score = score
        self._points = self._cards_points = 0

    # -- undo -------------------------------------------------------------------------------

    def _undo_refusal(self) -> IllegalMove | None:
        if self.status != _PLAYING:
            return self._over_refusal()
        if self.variant.undo == _NO_UNDO:
            return IllegalMove("This level allows no undo")
        if self.variant.undo == _ONE_UNDO and self.history and self.history[-1] == UNDO:
            return IllegalMove("Only the last play can be undone, and it already was")
        if not self._snapshots:
            return IllegalMove("There is nothing to undo")
        return None

    def _undo(self) -> PlayResult:
        refusal = self._undo_refusal()
        if refusal is not None:
            raise refusal
        snapshot = self._snapshots.pop()
        base_rank, self.passes_started, gain = _SNAPSHOT_HEAD.unpack_from(snapshot)
        self.base_rank = None if base_rank < 0 else base_rank
        self._unpack(snapshot[_SNAPSHOT_HEAD.size :])
        self._targets_cache = None
        self.score -= gain
        if self.variant.scoring == _CARD_SCORING:
            self.score -= 3
        self.moves += 1 if self.variant.tournament else -1
        self.history.append(UNDO)
        return PlayResult(UNDO, (), (), self.status, self.score, self.moves)

    def _pack(self) -> bytes:
        piles = [self.reserve, self.deck, self.waste, *self.foundations, *self.tableau]
        return _SEPARATOR.join(bytes(pile) for pile in piles)

    def _unpack(self, data: bytes) -> None:
        # Into the piles there are, not new ones: a caller's game lives long, and lists made
        # at every undo would each be one more object for the garbage collector to look at.
        piles = [self.reserve, self.deck, self.waste, *self.foundations, *self.tableau]
        for pile, piece in zip(piles, data.split(_SEPARATOR), strict=True):
            pile[:] = map(CARDS.__getitem__, piece)

    # -- why a play is refused --------------------------------------------------------------

    def _over_refusal(self) -> IllegalMove:
        if self.status == _WON:
            return IllegalMove("This game is over: it was won")
        if self.status == _STUCK:
            return IllegalMove("This game is over: no play can change anything any more")
        return IllegalMove("This game is over: it was resigned")

    def _why_not_up(self, card: Card) -> IllegalMove:
        assert self.base_rank is not None
        suit = card.suit_value
        for pile in self.foundations:
            if pile and pile[0].suit == card.suit:
                if len(pile) == 13:
                    return IllegalMove(
                        "{card} can't go up: the {suit} foundation is complete",
                        card=card,
                        suit=suit,
                    )
                return IllegalMove(
                    "{card} can't go up: the {suit} foundation needs {next} next",
                    card=card,
                    suit=suit,
                    next=Card.of((pile[-1].rank + 1) % 13, card.suit),
                )
        return IllegalMove(
            "{card} can't go up: the {suit} foundation starts with {base}",
            card=card,
            suit=suit,
            base=Card.of(self.base_rank, card.suit),
        )

    def _closes_column(self, top: Card) -> bool:
        """Is ``top`` of the base rank, on which nothing goes when the ranks do not wrap?"""
        return self.variant.wrap == Wrap.BROKEN and top.rank == self.base_rank

    def _why_not_in_space(self) -> IllegalMove:
        if self.reserve:
            return IllegalMove("While the reserve has cards, only the reserve may fill a space")
        rule = self.variant.spaces_after_reserve
        if rule == SpacesAfterReserve.WASTE:
            return IllegalMove("Only the waste's top card may fill a space")
        if rule == SpacesAfterReserve.KING:
            return IllegalMove("Only a K may fill a space")
        return IllegalMove("Only the waste's top card or a column's whole pile may fill a space")

    # Each refusal of a card on a column is a whole sentence of its own, for each reason
    # (the base rank, a red card wanted, a black one), so that each language words it whole.

    def _why_not_on_column(self, card: Card, column: int) -> IllegalMove:
        destination = self.tableau[column]
        if not destination:
            return self._why_not_in_space()
        top = destination[-1]
        if self._closes_column(top):
            return IllegalMove(
                "{card} can't go on {top}: nothing goes on the base rank {rank}",
                card=card,
                top=top,
                rank=Rank(top.rank),
            )
        wanted = Rank((top.rank - 1) % 13)
        if top.red:
            return IllegalMove(
                "{card} can't go on {top}: column {column} needs a black {rank}",
                card=card,
                top=top,
                column=column + 1,
                rank=wanted,
            )
        return IllegalMove(
            "{card} can't go on {top}: column {column} needs a red {rank}",
            card=card,
            top=top,
            column=column + 1,
            rank=wanted,
        )

    def _why_not_column_move(self, source: int, column: int) -> IllegalMove:
        pile, destination = self.tableau[source], self.tableau[column]
        if not destination:
            return self._why_not_in_space()
        if self.variant.moves == Moves.WHOLE:
            return self._why_not_pile(pile[0], destination[-1], column)
        return self._why_no_run(source, destination[-1], column)

    def _why_not_pile(self, bottom: Card, top: Card, column: int) -> IllegalMove:
        if self._closes_column(top):
            return IllegalMove(
                "The pile from {card} can't go on {top}: nothing goes on the base rank {rank}",
                card=bottom,
                top=top,
                rank=Rank(top.rank),
            )
        wanted = Rank((top.rank - 1) % 13)
        if top.red:
            return IllegalMove(
                "The pile from {card} can't go on {top}: column {column} needs a black {rank}",
                card=bottom,
                top=top,
                column=column + 1,
                rank=wanted,
            )
        return IllegalMove(
            "The pile from {card} can't go on {top}: column {column} needs a red {rank}",
            card=bottom,
            top=top,
            column=column + 1,
            rank=wanted,
        )

    def _why_no_run(self, source: int, top: Card, column: int) -> IllegalMove:
        if self._closes_column(top):
            return IllegalMove(
                "No run in column {source} fits on {top}: nothing goes on the base rank {rank}",
                source=source + 1,
                top=top,
                rank=Rank(top.rank),
            )
        wanted = Rank((top.rank - 1) % 13)
        if top.red:
            return IllegalMove(
                "No run in column {source} fits on {top}: column {column} needs a black {rank}",
                source=source + 1,
                top=top,
                column=column + 1,
                rank=wanted,
            )
        return IllegalMove(
            "No run in column {source} fits on {top}: column {column} needs a red {rank}",
            source=source + 1,
            top=top,
            column=column + 1,
            rank=wanted,
        )

    # -- the position JSON ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The position as its JSON object (docs/rules.md §18.1)."""

        def names(pile: Iterable[Card]) -> list[str]:
            return [str(card) for card in pile]

        return {
            "variant": self.variant.to_dict(),
            "deal": self.deal_number,
            "order": names(self.order),
            "reserve": names(self.reserve),
            "deck": names(self.deck),
            "waste": names(self.waste),
            "foundations": [names(pile) for pile in self.foundations],
            "tableau": [names(pile) for pile in self.tableau],
            "base_rank": None if self.base_rank is None else RANKS[self.base_rank],
            "passes_started": self.passes_started,
            "score": self.score,
            "moves": self.moves,
            "status": self.status,
            "history": list(self.history),
        }

    @classmethod
    def from_position(cls, position: Position) -> Game:
        """The game at ``position``: its deal dealt and its history replayed, so undo works as
        before it was saved; a position with no history whose piles differ from the deal
        (one laid out by hand) is taken as it stands. ValueError if it is not a possible one.

        >>> game = Game.from_position(Position.from_dict({"deal": 7, "history": ["V"]}))
        >>> game.moves, game.history, len(game.waste)
        (1, ['V'], 3)
        """
        game = cls(position.variant, position.order, position.deal)
        for number, command in enumerate(position.history, start=1):
            try:
                game.play(command)
            except IllegalMove as refusal:
                raise ValueError(
                    f"position: history play {number} ({command!r}) is refused: {refusal}"
                ) from None
        if position.differs(game.to_dict()):
            if position.history:
                raise ValueError("position: the piles do not match what its history gives")
            game._lay_out(position.layout())
        elif position.history:
            position.check_counts(game.score, game.moves)
        if position.resigned:
            game.resign()
        return game

    @classmethod
    def from_dict(cls, position: Mapping[str, Any]) -> Game:
        """Read a position object (see :meth:`from_position`); ValueError if it is not a
        possible one."""
        return cls.from_position(Position.from_dict(position))

    def _lay_out(self, layout: Layout) -> None:
        """Put the piles, counts and status of ``layout`` in place, with nothing to undo."""
        self.reserve, self.deck, self.waste = map(list, (layout.reserve, layout.deck, layout.waste))
        self.foundations = [list(pile) for pile in layout.foundations]
        self.tableau = [list(pile) for pile in layout.tableau]
        self.base_rank = layout.base_rank
        self._targets_cache = None
        self.passes_started = layout.passes_started
        self.moves = layout.moves
        self.score = layout.score
        # Vegas counts from the foundations alone (docs/rules.md §13.3).
        if self.variant.scoring == Scoring.VEGAS:
            self._points = self._cards_points = 0
            self._settle_score()
        self.history = []
        self._snapshots.clear()
        self.status = layout.status
        if self.status == Status.PLAYING:
            if self.cards_on_foundations == 52:
                self.status = Status.WON
            self._check_stuck()
