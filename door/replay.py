"""Checking a stored game: its plays replayed from its deal through the rules.

The sysop's ``game`` command uses it to show that a score on the lists is what its plays
give, so that anyone can verify any game once its deal is known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from door.engine import Game, IllegalMove, Variant
from door.engine.status import Status
from door.store import GameRecord


@dataclass(frozen=True, slots=True)
class ReplayCheck:
    """What replaying a game found: ``problems`` is empty when it matches what is stored."""

    game: Game
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def replay(record: GameRecord, variant: Variant, order: Sequence[str]) -> ReplayCheck:
    """Deal the record's deal afresh (its stored cards when it has no number), play its
    history through the engine, and compare the result with the stored one."""
    problems: list[str] = []
    if record.deal is None:
        game = Game.from_order(variant, order)
    else:
        game = Game.deal(variant, record.deal)
        if [str(card) for card in game.order] != list(order):
            problems.append(f"the stored cards are not those of deal {record.deal}")
    for index, play in enumerate(record.history, start=1):
        try:
            game.play(play)
        except IllegalMove as refusal:
            problems.append(f"play {index} ({play}) is refused by the rules: {refusal}")
            break
    if record.status == Status.RESIGNED and game.status == Status.PLAYING:
        game.resign()
    replayed = (game.status, game.score, game.moves, game.cards_on_foundations)
    stored = (record.status, record.score, record.moves, record.cards_up)
    if not problems and replayed != stored:
        problems.append(
            "the replay gives {} with score {}, {} moves, {} cards up; stored: "
            "{} with score {}, {} moves, {} cards up".format(*replayed, *stored)
        )
    return ReplayCheck(game, tuple(problems))
