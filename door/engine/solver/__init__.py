"""A Canfield solver: won (with a winning line), lost (proved), or unknown (out of budget).

>>> from door.engine import Game, Variant
>>> game = Game.deal(Variant(), 5)
>>> verdict = solve(game, max_seconds=10)
>>> verdict.result, verdict.line[:4]
(<Result.WON: 'won'>, ('1 F', 'S 1', 'V', 'V'))
>>> wins(game, verdict.line)
True
>>> solve(Game.deal(Variant(), 1)).result
<Result.LOST: 'lost'>

:func:`solve` takes a game or a position (the JSON of docs/rules.md §18) under any knobs and answers

- ``won``, with the canonical commands from the position to a won game. The line is always
  played through the engine (:class:`door.engine.Game`) before it is returned; a line the
  engine does not confirm would be a solver bug, warned of as :class:`UnconfirmedWin` and
  answered ``unknown``, never ``won``;
- ``lost`` when the search has been through every position it must see (below) without
  reaching a won one;
- ``unknown`` when ``max_seconds``, ``max_nodes`` or :data:`MAX_STATES` runs out first.

How it searches
---------------

:mod:`door.engine.solver.model` holds a position as a few ints and bytes and makes the plays
itself, mirroring the engine's rules (the tests check it against the engine's own plays).
:mod:`door.engine.solver.search` goes depth first, remembering every position it has reached
by a key, so each is expanded once: the positions of a deal are finitely many (with unlimited
passes too: the layout of the cards, plus the passes used when they are limited), so the
search ends. It answers reachability: is a won position reachable from the start?

Why ``lost`` is a proof
-----------------------

If the start can be won, take among the positions the search expanded a winnable one whose
shortest win is shortest. Each pruning below keeps, among the plays tried from it, one that
leads to a position whose shortest win is shorter still (or to a position the search counts
as the same or better, already reached), so the search would have expanded it: a
contradiction. The prunings, and why each keeps such a play:

1. **Turning is part of the waste plays.** V changes nothing but where the waste stands, so
   the search has no V of its own: a waste play may play any card that turning alone can
   bring to the top of the waste, with the V plays that bring it there in its line. Turning
   on into a later pass than needed only uses passes up, and a position with more passes left
   can do everything one with fewer can: the stuck rule looks one pass further only when
   another pass is allowed.
2. **No F.** Send up is a run of single plays ``X F``, each legal on its own with the same
   automatic fillings after it, so the search makes them one by one.
3. **No whole pile into a space.** It only swaps two columns, which the key below ignores.
4. **Stuck positions need nothing special.** A position the engine calls stuck has no play
   but V and whole piles into spaces, and no card turning shows (in this pass and the next
   one allowed) can be played: nothing can change any more, so no win lies beyond it, and the
   search finds no play out of it either.
5. **The key.** It leaves out the foundations (they hold exactly the cards found nowhere
   else). With unlimited passes, the waste lengths turning reaches from an empty waste (0,
   draw, 2 draw, ..., the whole stock) reach each other by turning alone, so they share one
   key. Columns are sorted in it: the rules treat the columns alike (plays between any two,
   send up looking at all) but for auto-filling's "leftmost empty column" and the numbers of
   the commands. A play takes cards out of one column at a time and auto-filling follows each
   card movement, so while the reserve has cards auto-filling never meets two spaces at once,
   except in a position laid out so, whose columns keep their order in the key. Renumbering
   the columns turns each play into a play, and a win into a win; lines are written from the
   real positions on the search's path, never from keys.
6. **Waste lengths that reach more.** With unlimited passes, from waste length ``w`` turning
   reaches ``w + draw``, ``w + 2 draw``, ... and then everything an empty waste reaches. Of
   two positions with the same cards in the same places, one whose turning reaches every waste
   length the other's reaches can do all the other can. So the search skips a position when
   one with the same key reaching all its waste lengths has been searched, and when one
   reaching part of them has, it tries from the new one the waste plays of the other lengths
   only (besides every other play, which starts from the new waste length).
7. **Safe plays to a foundation.** A card ``c`` that can go up now is played up at once, and
   nothing else tried, when nothing can ever be placed on it again: each card that fits on it
   is on a foundation already, or (whole-pile moves) lies above the bottom card of a column,
   from where a card only ever leaves for a foundation, since only a pile's bottom card is
   placed on another card; with the broken corner nothing goes on a card of the base rank.
   This is done for ``c`` at the top of the reserve or of a column, and with draw 1 at the top
   of the waste or, with unlimited passes, anywhere in the deck or the waste. It loses
   nothing: let ``P'`` be the position after ``c`` goes up
   and ``L`` a winning line from ``P``. ``P'`` follows ``L`` leaving out ``c``'s own plays:
   every other play of ``L`` is legal in ``P'``, because ``c`` only ever sits on top of a pile
   (a pile moves by its bottom card, a run for partial moves is the same below ``c``) or at
   the top of the reserve, where it blocks what is below it; where ``L`` lets auto-filling put
   ``c`` into a space, ``P'`` has the reserve's next card there instead and one card less in
   the reserve, which stays so (one space takes one card, up to the order of the columns)
   until ``L`` plays that card, when ``P'`` plays it from the column and auto-filling gives
   both the same next card; with draw 1, a deck without ``c`` shows every other card as
   before. The cards ``c`` covered are free sooner in ``P'``, and ``L`` ends in a win there
   too. With draw 3 a waste card is not played up this way: taking a card out of the stock
   changes which cards later turns show.
8. **A safe card is not put on a column from the waste.** When such a card of the waste can go
   up, playing it onto a column instead takes it out of the stock just the same and, by 7,
   is no better than playing it up.

Memory: about 130 bytes per position remembered; :data:`MAX_STATES` caps them, and
``max_nodes`` the positions expanded (up to twice as many: see 6 above).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from door.engine.game import Game
from door.engine.moves import IllegalMove
from door.engine.solver.model import Model
from door.engine.solver.search import Result, explore
from door.engine.status import Status

__all__ = ["MAX_STATES", "Result", "UnconfirmedWin", "Verdict", "solve", "wins"]

MAX_STATES = 4_000_000
"""Positions remembered at most, about 130 bytes each (some 500 MB at the cap, reached after
a minute or so); past that the answer is unknown."""


class UnconfirmedWin(RuntimeWarning):
    """A winning line the engine did not confirm: a solver bug, answered as unknown."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer for one position."""

    result: Result
    """Won, lost (no line wins: proved), or unknown (the budget ran out first)."""
    line: tuple[str, ...]
    """For a won one, the canonical commands from the position to a won game; else empty."""
    nodes: int
    """Positions the search expanded."""
    seconds: float


def solve(
    game_or_position: Game | Mapping[str, Any],
    *,
    max_seconds: float = 30.0,
    max_nodes: int | None = None,
) -> Verdict:
    """Decide whether the position can be won, within ``max_seconds`` and ``max_nodes``.

    A finished game answers at once: 'won' with no line if it was won, else 'lost'. The
    game given is never changed.
    """
    start = perf_counter()
    if isinstance(game_or_position, Game):
        game = game_or_position
    else:
        game = Game.from_dict(game_or_position)
    if game.status != Status.PLAYING:
        result = Result.WON if game.status == Status.WON else Result.LOST
        return Verdict(result, (), 0, perf_counter() - start)
    model = Model(game.variant, bytes(game.reserve))
    outcome = explore(
        model,
        Model.state_of(game),
        deadline=start + max_seconds,
        max_nodes=max_nodes,
        max_states=MAX_STATES,
    )
    result, line = outcome.result, outcome.line
    if result == Result.WON and not wins(game, line):
        warnings.warn(
            f"the engine does not confirm the line {' '.join(line)}", UnconfirmedWin, stacklevel=2
        )
        result, line = Result.UNKNOWN, ()
    return Verdict(result, line, outcome.nodes, perf_counter() - start)


def wins(game_or_position: Game | Mapping[str, Any], line: tuple[str, ...]) -> bool:
    """Does playing ``line`` from the position in the engine win the game? (The game given
    is not changed.)"""
    if isinstance(game_or_position, Game):
        game = copy.deepcopy(game_or_position)
    else:
        game = Game.from_dict(game_or_position)
    try:
        for command in line:
            game.play(command)
    except IllegalMove:
        return False
    return game.status == Status.WON
