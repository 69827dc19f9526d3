"""A compact position and the plays between positions, mirroring door.engine's rules.

The search expands hundreds of thousands of positions, so a position here is a plain tuple
(building a dataclass costs several times more) laid out as

``(reserve, stock, waste, passes, heights, columns, base)``

- ``reserve``: how many cards the reserve still holds (its cards never change order, so the
  count says which: the first ``reserve`` cards of :attr:`Model.reserve`, bottom first);
- ``stock``: the deck and the waste as one ``bytes`` in the order the deck is turned (the
  waste bottom first, then the deck from its top), the order every pass goes through;
- ``waste``: how many of those cards lie in the waste, so ``stock[waste - 1]`` is its top;
- ``passes``: passes started, as the engine counts them;
- ``heights``: the four foundations' heights packed four bits per suit (clubs lowest);
- ``columns``: one ``bytes`` per tableau column, bottom first;
- ``base``: the base rank, or -1 while ``base = choose`` has not fixed it.

A play that wins the game (the engine's automatic finish included) leads to ``None``.

:meth:`Model.exact` lists the engine's own plays, one command each, for the cross-check with
:meth:`door.engine.Game.legal`. :meth:`Model.children` lists the search's plays: every play but
``V`` and ``F``, where a card of the waste is any card that turning alone can bring to the top
(with the ``V`` plays that bring it there), whole piles moved into a space aside; and a safe
play to a foundation alone when there is one. :meth:`Model.layout` gives the transposition key.
The package docstring says why each of these loses no win.

Why one module, however long: :class:`Model` is the search's inner loop, one class over one
tuple layout, and every method reads that layout as the others write it; the speed of the
search comes from plain tuples and bound methods, which a split into modules would not buy
back in clarity.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from door.engine.cards import RANKS, SUITS
from door.engine.variant import Moves, Spaces, SpacesAfterReserve, Variant, Wrap

State = tuple[int, bytes, int, int, int, tuple[bytes, ...], int]
Move = tuple[Any, ...]
"""A search play: (RESERVE, target), (WASTE, position, new_pass, target) or
(COLUMN, column, index, target), target -1 being the foundations, else a column index; or
(SAFE_RUN, play, play, ...) for safe plays made one after the other."""

RESERVE, WASTE, COLUMN, SAFE_RUN = 0, 1, 2, 3
FOUNDATION = -1
KING = 12
_RED = tuple((card & 3) in (1, 2) for card in range(52))
_OPPOSITE = ((1, 2), (0, 3), (0, 3), (1, 2))
_SINGLE = tuple(bytes((card,)) for card in range(52))
_HEADS = tuple(tuple(bytes((res, base)) for base in range(14)) for res in range(53))
"""The start of a transposition key: reserve count and base rank (+1), built once."""
_STEP = tuple(1 << ((card & 3) * 4) for card in range(52))
"""What sending ``card`` up adds to the packed foundation heights."""

# Move ordering for finding wins early: plays that free the reserve or build the foundations
# first, plays that only shuffle cards between columns and waste last.
_P_RESERVE_UP, _P_COLUMN_UP, _P_RESERVE_OUT, _P_WASTE_UP = 0, 1, 2, 3
_P_PILE, _P_WASTE_OUT, _P_SPACE = 4, 5, 6


def _fits(card: int, top: int, base: int, broken: bool) -> bool:
    """May ``card`` go on ``top`` in a column? (docs/rules.md §6.1, §6.2)"""
    if _RED[card] == _RED[top] or ((top >> 2) - (card >> 2)) % 13 != 1:
        return False
    return not (broken and base >= 0 and top >> 2 == base)


class Model:
    """The rules of one variant, with the tables that make them quick to apply."""

    def __init__(self, variant: Variant, reserve: bytes) -> None:
        self.variant = variant
        self.reserve = reserve
        self.draw = variant.draw
        self.passes = variant.passes
        self.unlimited = variant.passes == 0
        self.broken = variant.wrap == Wrap.BROKEN
        self.partial = variant.moves == Moves.PARTIAL
        self.auto = variant.spaces == Spaces.AUTO
        self.after_any = variant.spaces_after_reserve == SpacesAfterReserve.ANY
        self.after_waste = variant.spaces_after_reserve == SpacesAfterReserve.WASTE
        self.after_king = variant.spaces_after_reserve == SpacesAfterReserve.KING
        # fitters[base + 1][top]: the cards that may go on ``top`` (two, or none at the corner).
        self.fitters = [
            [tuple(c for c in range(52) if _fits(c, top, base, self.broken)) for top in range(52)]
            for base in range(-1, 13)
        ]
        self.fit_pairs = [
            {(c, top) for top in range(52) for c in self.fitters[base + 1][top]}
            for base in range(-1, 13)
        ]
        # needs[base][suit * 14 + height]: the card that suit's foundation takes next, or -1.
        self.needs = [
            [
                (((base + height) % 13) * 4 + suit) if height < 13 else -1
                for suit in range(4)
                for height in range(14)
            ]
            for base in range(13)
        ]
        self._spot_cache: dict[tuple[int, int, bool], tuple[tuple[int, int], ...]] = {}

    # -- to and from the engine ---------------------------------------------------------------

    @staticmethod
    def state_of(game: Any) -> State:
        """The compact form of a :class:`door.engine.Game`'s position."""
        heights = 0
        for pile in game.foundations:
            if pile:
                heights |= len(pile) << ((pile[0] & 3) * 4)
        return (
            len(game.reserve),
            bytes(game.waste) + bytes(reversed(game.deck)),
            len(game.waste),
            game.passes_started,
            heights,
            tuple(bytes(pile) for pile in game.tableau),
            -1 if game.base_rank is None else game.base_rank,
        )

    def piles(self, state: State) -> dict[str, Any]:
        """The piles of ``state`` as the position JSON writes them, foundations by suit."""
        res, stock, pos, passes, heights, cols, base = state

        def names(cards: bytes) -> list[str]:
            return [RANKS[c >> 2] + SUITS[c & 3] for c in cards]

        foundations = {}
        for suit in range(4):
            height = (heights >> (suit * 4)) & 15
            if height:
                ranks = [(base + step) % 13 for step in range(height)]
                foundations[SUITS[suit]] = names(bytes(r * 4 + suit for r in ranks))
        return {
            "reserve": names(self.reserve[:res]),
            "deck": names(stock[pos:][::-1]),
            "waste": names(stock[:pos]),
            "foundations": foundations,
            "tableau": [names(col) for col in cols],
            "base_rank": None if base < 0 else RANKS[base],
            "passes_started": passes,
        }

    # -- the transposition key ----------------------------------------------------------------

    def layout(self, state: State) -> tuple[bytes, int]:
        """(key, waste class): equal keys for positions with the same future up to where
        the waste stands, the class telling where it stands.

        The foundations are left out (they hold exactly the cards found nowhere else). The
        columns are sorted unless auto-filling could find two spaces at once (see the package
        docstring for why their order does not matter otherwise). With limited passes the
        waste length and the passes are part of the key and the class is 0. With unlimited
        passes the class is 0 for every waste length turning reaches from an empty waste
        (0, draw, 2 draw, ..., the whole stock), which reach each other by turning alone,
        and the waste length itself for any other.
        """
        res, stock, pos, passes, _heights, cols, base = state
        if res and self.auto and b"" in cols and cols.count(b"") > 1:
            joined = b"\xff".join(cols)
        else:
            joined = b"\xff".join(sorted(cols))
        if self.unlimited:
            if pos % self.draw == 0 or pos == len(stock):
                pos = 0
            return _HEADS[res][base + 1] + stock + b"\xfe" + joined, pos
        count = passes.to_bytes((passes.bit_length() + 7) // 8 or 1, "little")
        head = _HEADS[res][base + 1] + bytes((pos, len(count))) + count
        return head + stock + b"\xfe" + joined, 0

    def key(self, state: State) -> bytes:
        """One key for positions with the same future (see :meth:`layout`)."""
        key, waste = self.layout(state)
        return key + bytes((waste,))

    @staticmethod
    def covers(cover: int, waste: int) -> bool:
        """Has this layout been searched from a position whose waste plays include all
        those of waste class ``waste``? ``cover`` packs what the searched ones could reach.

        Any searched position could reach the class-0 waste lengths. From waste length
        ``w`` turning reaches ``w + draw``, ``w + 2 draw``, ...: the smallest searched
        length of each remainder modulo 3 (only draw 3 has such classes) stands for them.
        """
        if not waste:
            return True
        smallest = (cover >> (1 if waste % 3 == 1 else 7)) & 63
        return 0 < smallest <= waste

    @staticmethod
    def cover(cover: int, waste: int) -> int:
        """``cover`` once a position of waste class ``waste`` has been searched."""
        if not waste:
            return cover | 1
        shift = 1 if waste % 3 == 1 else 7
        return (cover & ~(63 << shift)) | (waste << shift) | 1

    @staticmethod
    def fresh_below(cover: int, waste: int) -> int:
        """Waste plays from class ``waste`` not already searched from this layout: those
        of waste lengths below this (and none of class 0)."""
        smallest = (cover >> (1 if waste % 3 == 1 else 7)) & 63
        return smallest or 99

    # -- shared steps -------------------------------------------------------------------------

    def _new_pass_allowed(self, passes: int) -> bool:
        return self.unlimited or passes < self.passes

    def _settle(
        self,
        res: int,
        stock: bytes,
        pos: int,
        passes: int,
        heights: int,
        cols: tuple[bytes, ...],
        base: int,
    ) -> State | None:
        """After one card movement: auto-fill the spaces, then the automatic finish."""
        if self.auto and res and b"" in cols:
            filled = list(cols)
            for index, col in enumerate(filled):
                if not res:
                    break
                if not col:
                    res -= 1
                    filled[index] = self.reserve[res : res + 1]
            cols = tuple(filled)
        if not res and not stock and base >= 0 and self._finishes(heights, cols, base):
            return None
        return (res, stock, pos, passes, heights, cols, base)

    @staticmethod
    def _finishes(heights: int, cols: tuple[bytes, ...], base: int) -> bool:
        """Would sending up carry every column card to the foundations? (docs/rules.md §10.2)"""
        wanted = [((base + ((heights >> (s * 4)) & 15)) % 13) * 4 + s for s in range(4)]
        piles = [col for col in cols if col]
        tops = [len(col) for col in piles]
        progress = True
        while progress:
            progress = False
            for index, col in enumerate(piles):
                top = tops[index]
                while top and wanted[col[top - 1] & 3] == col[top - 1]:
                    card = col[top - 1]
                    wanted[card & 3] = (((card >> 2) + 1) % 13) * 4 + (card & 3)
                    top -= 1
                    progress = True
                tops[index] = top
        return not any(tops)

    def _needed(self, heights: int, base: int) -> tuple[int, int, int, int]:
        """The card each suit's foundation takes next (-1 when complete)."""
        needs = self.needs[base]
        return (
            needs[heights & 15],
            needs[14 + ((heights >> 4) & 15)],
            needs[28 + ((heights >> 8) & 15)],
            needs[42 + ((heights >> 12) & 15)],
        )

    def apply(self, state: State, move: Move) -> State | None:
        """The position after a search play (its V plays included), or None when won."""
        res, stock, pos, passes, heights, cols, base = state
        kind = move[0]
        if kind == RESERVE:
            res -= 1
            cards = self.reserve[res : res + 1]
        elif kind == WASTE:
            at = move[1]
            cards = stock[at - 1 : at]
            stock = stock[: at - 1] + stock[at:]
            pos = at - 1
            passes += move[2]
        else:
            column, index = move[1], move[2]
            pile = cols[column]
            cards = pile[index:]
            cols = (*cols[:column], pile[:index], *cols[column + 1 :])
        target = move[-1]
        if target == FOUNDATION:
            card = cards[0]
            if base < 0:
                base = card >> 2
            heights += 1 << ((card & 3) * 4)
        else:
            cols = (*cols[:target], cols[target] + cards, *cols[target + 1 :])
        return self._settle(res, stock, pos, passes, heights, cols, base)

    def _run_start(self, pile: bytes, base: int) -> int:
        """Index of the bottom card of the run on top of ``pile`` (docs/rules.md §6.5)."""
        pairs = self.fit_pairs[base + 1]
        start = len(pile) - 1
        while start > 0 and (pile[start], pile[start - 1]) in pairs:
            start -= 1
        return start

    def _moving_part(self, state: State, source: int, target: int) -> int | None:
        """Index in column ``source`` of the bottom card ``m n`` would move, as the engine."""
        res, _stock, _pos, _passes, _heights, cols, base = state
        pile, destination = cols[source], cols[target]
        if not pile or source == target:
            return None
        pairs = self.fit_pairs[base + 1]
        if not self.partial:
            if destination:
                return 0 if (pile[0], destination[-1]) in pairs else None
            if res or self.after_waste:
                return None
            return 0 if self.after_any or pile[0] >> 2 == KING else None
        start = self._run_start(pile, base)
        if destination:
            top = destination[-1]
            return next((i for i in range(start, len(pile)) if (pile[i], top) in pairs), None)
        if res or self.after_waste:
            return None
        if self.after_any:
            return 0
        return next((i for i in range(start, len(pile)) if pile[i] >> 2 == KING), None)

    def _space_takes(self, res: int, source: int, card: int) -> bool:
        """May a single card from the reserve or the waste fill a space?"""
        if res:
            return source == RESERVE
        if self.after_king:
            return card >> 2 == KING
        return True

    # -- the engine's plays, one command each -------------------------------------------------

    def exact(self, state: State) -> dict[str, State | None]:
        """Every play the engine allows in ``state`` (V and F included) and where it leads."""
        res, stock, pos, passes, heights, cols, base = state
        plays: dict[str, State | None] = {}
        if pos < len(stock):
            plays["V"] = (res, stock, min(pos + self.draw, len(stock)), passes, heights, cols, base)
        elif stock and self._new_pass_allowed(passes):
            plays["V"] = (res, stock, 0, passes + 1, heights, cols, base)
        up = self._can_go_up(heights, base)
        if base >= 0 and any(up(card) for _key, card, _move in self._tops(state)):
            plays["F"] = self._send_up(state)
        pairs = self.fit_pairs[base + 1]
        for key, card, move in self._tops(state):
            if up(card):
                plays[f"{key} F"] = self.apply(state, (*move, FOUNDATION))
            for target, destination in enumerate(cols):
                if move[0] == COLUMN:
                    part = self._moving_part(state, move[1], target)
                    if part is not None:
                        plays[f"{key} {target + 1}"] = self.apply(
                            state, (COLUMN, move[1], part, target)
                        )
                elif (
                    (card, destination[-1]) in pairs
                    if destination
                    else self._space_takes(res, move[0], card)
                ):
                    plays[f"{key} {target + 1}"] = self.apply(state, (*move, target))
        return plays

    def _tops(self, state: State) -> Iterator[tuple[str, int, Move]]:
        """(command key, card, search play without target) for each card that may leave."""
        res, stock, pos, _passes, _heights, cols, _base = state
        if res:
            yield "S", self.reserve[res - 1], (RESERVE,)
        if pos:
            yield "D", stock[pos - 1], (WASTE, pos, 0)
        for index, col in enumerate(cols):
            if col:
                yield str(index + 1), col[-1], (COLUMN, index, len(col) - 1)

    def _can_go_up(self, heights: int, base: int) -> Any:
        if base < 0:
            return lambda card: True
        needed = self._needed(heights, base)
        return lambda card: needed[card & 3] == card

    def _send_up(self, state: State) -> State | None:
        """F: the first card that can go up, again and again (docs/rules.md §8.1)."""
        current: State | None = state
        while current is not None:
            up = self._can_go_up(current[4], current[6])
            move = next((m for _k, card, m in self._tops(current) if up(card)), None)
            if move is None:
                break
            current = self.apply(current, (*move, FOUNDATION))
        return current

    # -- the search's plays -------------------------------------------------------------------

    def spots(self, size: int, pos: int, passes: int) -> tuple[tuple[int, int], ...]:
        """(waste length, new pass) for each waste top that turning alone can show.

        New pass is 1 when getting there starts a new pass. A spot a later pass could show
        again is left out: its play would only have used up more passes.
        """
        allowed = self._new_pass_allowed(passes)
        cache_key = (size, pos, allowed)
        found = self._spot_cache.get(cache_key)
        if found is None:
            found = self._spot_cache[cache_key] = self._list_spots(size, pos, allowed)
        return found

    def _list_spots(self, size: int, pos: int, allowed: bool) -> tuple[tuple[int, int], ...]:
        draw = self.draw
        shown: dict[int, int] = {}
        at = pos
        while True:
            if at:
                shown[at] = 0
            if at >= size:
                break
            at = min(at + draw, size)
        if allowed and size:
            at = 0
            while at < size:
                at = min(at + draw, size)
                shown.setdefault(at, 1)
        return tuple(shown.items())

    def turns(self, state: State, spot: int, new_pass: int) -> int:
        """How many V plays bring the waste of ``state`` to length ``spot``."""
        size, at, count = len(state[1]), state[2], 0
        if new_pass:
            while at < size:
                at, count = min(at + self.draw, size), count + 1
            at, count = 0, count + 1
        while at < spot:
            at, count = min(at + self.draw, size), count + 1
        if at != spot:
            raise ValueError(f"waste length {spot} can't be reached by turning")
        return count

    def commands(self, state: State, move: Move) -> list[str]:
        """The canonical commands that make the search play ``move`` from ``state``."""
        if move[0] == SAFE_RUN:
            commands: list[str] = []
            current: State | None = state
            for play in move[1:]:
                assert current is not None
                commands += self.commands(current, play)
                current = self.apply(current, play)
            return commands
        target = move[-1]
        to = "F" if target == FOUNDATION else str(target + 1)
        if move[0] == RESERVE:
            return [f"S {to}"]
        if move[0] == WASTE:
            return ["V"] * self.turns(state, move[1], move[2]) + [f"D {to}"]
        return [f"{move[1] + 1} {to}"]

    def children(
        self, state: State, fresh: int = 0, prune: bool = True
    ) -> list[tuple[Move, State | None]]:
        """The search plays from ``state`` and where they lead, likeliest winners first: a
        safe play alone when there is one (see :meth:`safe_move`), else every play.

        ``prune=False`` lists every play, safe or dominated ones included. With ``fresh``,
        the waste plays are only those from waste lengths below it that
        turning can't reach from an empty waste (the others have been searched already).
        Written out flat, because the search spends most of its time here.
        """
        res, stock, pos, passes, heights, cols, base = state
        if base < 0 or (self.auto and res and b"" in cols):
            # No base yet, or spaces auto-filling has yet to fill (a position laid out so).
            return self._children_general(state)
        top = self.reserve[res - 1] if res else -1
        needs = self.needs[base]
        raisable = (
            needs[heights & 15],
            needs[14 + ((heights >> 4) & 15)],
            needs[28 + ((heights >> 8) & 15)],
            needs[42 + ((heights >> 12) & 15)],
        )
        tops = {col[-1]: index for index, col in enumerate(cols) if col}
        safe = prune and self._safe(state, raisable, top, tops)
        if safe:
            return [self._safe_run(state, safe)]
        settle, single = self._settle, _SINGLE
        left = res - 1
        spots = self.spots(len(stock), pos, passes)
        if fresh:
            size, draw = len(stock), self.draw
            spots = tuple(s for s in spots if s[0] < fresh and s[0] % draw and s[0] != size)
        waste = {stock[at - 1]: (at, new) for at, new in spots}
        reserve_up: list[tuple[Move, State | None]] = []
        column_up: list[tuple[Move, State | None]] = []
        reserve_out: list[tuple[Move, State | None]] = []
        waste_up: list[tuple[Move, State | None]] = []
        piles: list[tuple[Move, State | None]] = []
        waste_out: list[tuple[Move, State | None]] = []
        child: State | None  # None: the play wins (see _settle)
        for card in raisable:
            if card < 0:
                continue
            raised = heights + _STEP[card]
            if card == top:
                child = (left, stock, pos, passes, raised, cols, base)
                if not left and not stock:
                    child = settle(*child)
                reserve_up.append(((RESERVE, FOUNDATION), child))
            elif card in waste:
                at, new = waste[card]
                rest = stock[: at - 1] + stock[at:]
                child = (res, rest, at - 1, passes + new, raised, cols, base)
                if not res and not rest:
                    child = settle(*child)
                waste_up.append(((WASTE, at, new, FOUNDATION), child))
            elif card in tops:
                column = tops[card]
                col = cols[column]
                index = len(col) - 1
                child = (
                    res,
                    stock,
                    pos,
                    passes,
                    raised,
                    (*cols[:column], col[:index], *cols[column + 1 :]),
                    base,
                )
                if not index or not (res or stock):
                    child = settle(*child)
                column_up.append(((COLUMN, column, index, FOUNDATION), child))
        fitters = self.fitters[base + 1]
        if self.partial:
            movable = self._movable(cols, base)
        else:
            movable = {col[0]: (index, 0) for index, col in enumerate(cols) if col}
        space = -1
        for target, col in enumerate(cols):
            if not col:
                if space < 0:
                    space = target
                continue
            pile_moves: dict[int, int] = {}
            for card in fitters[col[-1]]:
                if card == top:
                    child = (
                        left,
                        stock,
                        pos,
                        passes,
                        heights,
                        (*cols[:target], col + single[card], *cols[target + 1 :]),
                        base,
                    )
                    if not left and not stock:
                        child = settle(*child)
                    reserve_out.append(((RESERVE, target), child))
                elif card in waste:
                    if prune and card in raisable and self.dead(card, heights, cols, base):
                        continue  # playing it up instead loses nothing (see safe_move)
                    at, new = waste[card]
                    rest = stock[: at - 1] + stock[at:]
                    child = (
                        res,
                        rest,
                        at - 1,
                        passes + new,
                        heights,
                        (*cols[:target], col + single[card], *cols[target + 1 :]),
                        base,
                    )
                    if not res and not rest:
                        child = settle(*child)
                    waste_out.append(((WASTE, at, new, target), child))
                elif card in movable:
                    column, index = movable[card]
                    # The engine moves the lowest card of the run that fits.
                    if column != target and index < pile_moves.get(column, 99):
                        pile_moves[column] = index
            for column, index in pile_moves.items():
                source = cols[column]
                moved = list(cols)
                moved[column] = source[:index]
                moved[target] = col + source[index:]
                child = (res, stock, pos, passes, heights, tuple(moved), base)
                if not index or not (res or stock):
                    child = settle(*child)
                piles.append(((COLUMN, column, index, target), child))
        found = reserve_up + column_up + reserve_out + waste_up + piles + waste_out
        if space >= 0:
            spaces: list[tuple[int, Move]] = []
            self._into_spaces(spaces, state, space, top, waste)
            found += [(move, self.apply(state, move)) for _p, move in spaces]
        return found

    def _children_general(self, state: State) -> list[tuple[Move, State | None]]:
        """children() without its shortcuts, for the rare positions they don't fit."""
        res, stock, pos, passes, _heights, cols, base = state
        found: list[tuple[int, Move]] = []
        top = self.reserve[res - 1] if res else -1
        waste = {stock[at - 1]: (at, new) for at, new in self.spots(len(stock), pos, passes)}
        tops = {col[-1]: index for index, col in enumerate(cols) if col}
        if base < 0:
            self._choose_base(found, top, waste, tops, cols)
        else:
            for card in self._needed(state[4], base):
                if card < 0:
                    continue
                if card == top:
                    found.append((_P_RESERVE_UP, (RESERVE, FOUNDATION)))
                elif card in waste:
                    found.append((_P_WASTE_UP, (WASTE, *waste[card], FOUNDATION)))
                elif card in tops:
                    index = tops[card]
                    found.append((_P_COLUMN_UP, (COLUMN, index, len(cols[index]) - 1, FOUNDATION)))
        fitters = self.fitters[base + 1]
        movable = self._movable(cols, base)
        space = -1
        for target, col in enumerate(cols):
            if not col:
                space = target if space < 0 else space
                continue
            self._onto(found, fitters[col[-1]], target, top, waste, movable)
        if space >= 0:
            self._into_spaces(found, state, space, top, waste)
        found.sort(key=_priority)
        return [(move, self.apply(state, move)) for _p, move in found]

    def _choose_base(
        self,
        found: list[tuple[int, Move]],
        top: int,
        waste: dict[int, tuple[int, int]],
        tops: dict[int, int],
        cols: tuple[bytes, ...],
    ) -> None:
        """base = choose, no base yet: any card that may leave may go up first."""
        if top >= 0:
            found.append((_P_RESERVE_UP, (RESERVE, FOUNDATION)))
        for at, new in waste.values():
            found.append((_P_WASTE_UP, (WASTE, at, new, FOUNDATION)))
        for column in tops.values():
            found.append((_P_COLUMN_UP, (COLUMN, column, len(cols[column]) - 1, FOUNDATION)))

    def _movable(self, cols: tuple[bytes, ...], base: int) -> dict[int, tuple[int, int]]:
        """card -> (column, index) for each card a column play may move from its place."""
        if not self.partial:
            return {col[0]: (index, 0) for index, col in enumerate(cols) if col}
        movable: dict[int, tuple[int, int]] = {}
        for column, col in enumerate(cols):
            if col:
                for index in range(len(col) - 1, self._run_start(col, base) - 1, -1):
                    movable[col[index]] = (column, index)
        return movable

    def _onto(
        self,
        found: list[tuple[int, Move]],
        fitters: tuple[int, ...],
        target: int,
        top: int,
        waste: dict[int, tuple[int, int]],
        movable: dict[int, tuple[int, int]],
    ) -> None:
        """The plays onto the top card of column ``target``."""
        pile_moves: dict[int, int] = {}
        for card in fitters:
            if card == top:
                found.append((_P_RESERVE_OUT, (RESERVE, target)))
            elif card in waste:
                found.append((_P_WASTE_OUT, (WASTE, *waste[card], target)))
            elif card in movable:
                column, index = movable[card]
                # The engine moves the lowest card of the run that fits.
                if column != target and index < pile_moves.get(column, 99):
                    pile_moves[column] = index
        for column, index in pile_moves.items():
            found.append((_P_PILE, (COLUMN, column, index, target)))

    def _into_spaces(
        self,
        found: list[tuple[int, Move]],
        state: State,
        space: int,
        top: int,
        waste: dict[int, tuple[int, int]],
    ) -> None:
        """Plays into a space. Spaces are interchangeable but where auto-filling may meet
        two at once (a position laid out so), so one space stands for all but there."""
        res, _stock, _pos, _passes, _heights, cols, _base = state
        spaces = [i for i, col in enumerate(cols) if not col]
        if not (self.auto and res and len(spaces) > 1):
            spaces = [space]
        for target in spaces:
            if res:
                found.append((_P_SPACE, (RESERVE, target)))
                continue
            for card, (at, new) in waste.items():
                if not self.after_king or card >> 2 == KING:
                    found.append((_P_SPACE, (WASTE, at, new, target)))
            if self.partial and self.after_king:
                for column, col in enumerate(cols):
                    if col:
                        part = self._moving_part(state, column, target)
                        if part:  # part 0 would only swap two columns
                            found.append((_P_SPACE, (COLUMN, column, part, target)))

    # -- plays that can't be wrong ------------------------------------------------------------

    def safe_move(self, state: State) -> Move | None:
        """A card no card can ever be placed on again, that can go up now (see the package
        docstring for why playing it up at once loses nothing)."""
        res, _stock, _pos, _passes, heights, cols, base = state
        if base < 0:
            return None
        top = self.reserve[res - 1] if res else -1
        tops = {col[-1]: index for index, col in enumerate(cols) if col}
        return self._safe(state, self._needed(heights, base), top, tops) or None

    def _safe_run(self, state: State, first: Move) -> tuple[Move, State | None]:
        """A safe play and the safe plays after it, as one play (they are all forced)."""
        plays = [first]
        after = self.apply(state, first)
        while after is not None:
            more = self.safe_move(after)
            if more is None:
                break
            plays.append(more)
            after = self.apply(after, more)
        return ((SAFE_RUN, *plays) if len(plays) > 1 else first), after

    def _safe(
        self, state: State, raisable: tuple[int, ...], top: int, tops: dict[int, int]
    ) -> Move:
        """safe_move() given the cards that can go up, the reserve's top and column tops."""
        _res, stock, pos, _passes, heights, cols, base = state
        for card in raisable:
            if card < 0:
                continue
            if card == top:
                move: Move = (RESERVE, FOUNDATION)
            elif card in tops:
                column = tops[card]
                move = (COLUMN, column, len(cols[column]) - 1, FOUNDATION)
            elif self.draw == 1:
                move = self._stock_move(stock, pos, card)
                if not move:
                    continue
            else:
                continue
            if self.dead(card, heights, cols, base):
                return move
        return ()

    def _stock_move(self, stock: bytes, pos: int, card: int) -> Move:
        """Draw 1 only: ``card`` played up from wherever it lies in the stock."""
        if self.draw != 1 or card not in stock:
            return ()
        at = stock.index(card) + 1
        if at == pos:
            return (WASTE, at, 0, FOUNDATION)
        if self.unlimited:
            return (WASTE, at, 0 if at > pos else 1, FOUNDATION)
        return ()

    def dead(self, card: int, heights: int, cols: tuple[bytes, ...], base: int) -> bool:
        """Can no card ever be placed on ``card`` again?

        True when each card that fits on it is on a foundation or, with whole-pile moves,
        lies above the bottom of a column: such a card leaves only for a foundation, and
        only the bottom card of a pile is ever placed on another card.
        """
        for fitter in self.fitters[base + 1][card]:
            if (heights >> ((fitter & 3) * 4)) & 15 > ((fitter >> 2) - base) % 13:
                continue
            if self.partial:
                return False
            for col in cols:
                if col.find(fitter, 1) > 0:
                    break
            else:
                return False
        return True


def _priority(entry: tuple[int, Move]) -> int:
    return entry[0]
