"""What the game screen tells a caller from the hint rules and the solver: the answer to
HINT, and after a stuck game whether the deal could have been won."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from door.engine import Game
from door.engine.hints import visible_advice
from door.engine.solver import Result
from door.engine.status import Status
from door.levels import Hints, Level
from door.solving.pool import Solving
from door.words import N_, _, ngettext

# The solver's verdicts: a sentence each, without its full stop (the game screen adds it).
UNDECIDED = N_("The solver could not decide in time")
COULD_HAVE_WON = N_("This deal could have been won")
NO_LINE_WINS = N_("No line wins this deal")


@dataclass(frozen=True, slots=True)
class Hint:
    """The words for the caller; ``assisted`` when they learned something from it (the game
    is then marked as helped on the scoreboards)."""

    text: str
    assisted: bool


class Hinter:
    """Answers HINT in one game, as the level's ``hints`` setting says.

    With ``solver`` hints the winning line found is kept: while the caller follows it, each
    next hint is its next play, without asking the solver again.
    """

    def __init__(self, level: Level, solving: Solving | None) -> None:
        self.level = level
        self.solving = solving
        self._line: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # (from, line)

    def asks_the_solver(self, game: Game) -> bool:
        """Will :meth:`hint` have to wait for the solver (no known line to follow)?"""
        return (
            self.level.hints == Hints.SOLVER
            and self.solving is not None
            and game.status == Status.PLAYING
            and self._rest_of_line(game) is None
        )

    async def hint(self, game: Game) -> Hint:
        if self.level.hints == Hints.OFF:
            return Hint(_("Hints are off at this level"), False)
        if game.status != Status.PLAYING:
            return Hint(_("This game is over"), False)
        if self.level.hints == Hints.VISIBLE:
            advice = visible_advice(game)
            if advice is None:
                return Hint(_("No play to suggest"), False)
            hint = _("Hint: {play} ({why})").format(play=advice.play, why=_(advice.why))
            return Hint(hint, True)
        return await self._solver_hint(game)

    async def _solver_hint(self, game: Game) -> Hint:
        rest = self._rest_of_line(game)
        if rest is None:
            if self.solving is None:
                return Hint(_("The solver is not running on this door"), False)
            verdict = await self.solving.verdict(game.to_dict())
            if verdict.result == Result.LOST:
                return Hint(_("No winning line from here"), True)
            if verdict.result != Result.WON or not verdict.line:
                return Hint(_(UNDECIDED), False)
            self._line = (tuple(game.history), verdict.line)
            rest = verdict.line
        hint = ngettext(
            "Hint: {play} (a winning line, {count} play to go)",
            "Hint: {play} (a winning line, {count} plays to go)",
            len(rest),
        )
        return Hint(hint.format(play=rest[0], count=len(rest)), True)

    def _rest_of_line(self, game: Game) -> tuple[str, ...] | None:
        """What is left of the known winning line, if the game has kept to it."""
        if self._line is None:
            return None
        start, line = self._line
        history = tuple(game.history)
        if history[: len(start)] != start:
            return None
        done = history[len(start) :]
        if len(done) >= len(line) or line[: len(done)] != done:
            return None
        return line[len(done) :]


def deal_position(game: Game) -> dict[str, Any]:
    """The game's deal as it was dealt, before any play, as a position for the solver."""
    return {
        "variant": game.variant.to_dict(),
        "deal": game.deal_number,
        "order": [str(card) for card in game.order],
    }


async def was_it_winnable(solving: Solving, game: Game) -> str:
    """Whether the game's deal could have been won from the deal, in the caller's words."""
    verdict = await solving.verdict(deal_position(game))
    return _({Result.WON: COULD_HAVE_WON, Result.LOST: NO_LINE_WINS}.get(verdict.result, UNDECIDED))
