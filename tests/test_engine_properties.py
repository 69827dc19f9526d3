"""Properties that hold over random deals, variants and play sequences."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.engine import CARDS, Game, IllegalMove
from tests.support.strategies import variants

# Commands that are sometimes legal, sometimes not: each is either accepted or refused
# without a trace.
probes = ["V", "F", "U", "S F", "D F", "S 1", "D 2", "1 F", "1 2", "2 1", "3 1", "10 F", "S 11"]

PILES = (
    "reserve",
    "deck",
    "waste",
    "foundations",
    "tableau",
    "base_rank",
    "passes_started",
    "status",
)


def all_cards(game: Game) -> list:
    piles = [game.reserve, game.deck, game.waste, *game.foundations, *game.tableau]
    return sorted(card for pile in piles for card in pile)


def play_randomly(game: Game, data: st.DataObject, steps: int) -> None:
    """Random plays from legal(), with refused probes and undos mixed in, checking as it goes."""
    taken_back: list[tuple[dict, int]] = []  # (position before a play, score after it)
    for _ in range(steps):
        if game.is_over:
            assert game.legal() == []
            return
        legal = game.legal()
        assert legal, "a game that is still playing always has a play"
        probe = data.draw(st.sampled_from(probes)) if data.draw(st.booleans()) else None
        if probe == "U":
            check_undo(game, taken_back)
        elif probe is not None and probe not in legal:
            before = game.to_dict()
            try:
                game.play(probe)
            except IllegalMove:
                assert game.to_dict() == before
            else:
                raise AssertionError(f"{probe} was played though legal() did not list it")
        else:
            before = game.to_dict()
            game.play(probe or data.draw(st.sampled_from(legal)))
            taken_back.append((before, game.score))
            assert all_cards(game) == list(CARDS)


def check_undo(game: Game, taken_back: list[tuple[dict, int]]) -> None:
    """U is refused and changes nothing, or restores the position before the last play."""
    before = game.to_dict()
    try:
        game.play("U")
    except IllegalMove:
        assert game.to_dict() == before
        assert not taken_back or game.variant.undo != "unlimited"
        return
    assert game.variant.undo != "none"
    position, score_after_play = taken_back.pop()
    after = game.to_dict()
    for key in PILES:
        assert after[key] == position[key], key
    penalty = 3 if game.variant.scoring == "cards" else 0
    assert game.score == before["score"] - (score_after_play - position["score"]) - penalty
    assert game.moves == before["moves"] + (1 if game.variant.tournament else -1)


@pytest.mark.slow
@settings(max_examples=400)
@given(variant=variants, number=st.integers(0, 2**63 - 1), data=st.data())
def test_random_play_keeps_every_card_and_refusals_change_nothing(variant, number, data):
    game = Game.deal(variant, number)
    assert all_cards(game) == list(CARDS)
    play_randomly(game, data, steps=60)


@pytest.mark.slow
@settings(max_examples=200)
@given(variant=variants, number=st.integers(0, 2**63 - 1), data=st.data())
def test_position_round_trips_and_history_replays(variant, number, data):
    game = Game.deal(variant, number)
    play_randomly(game, data, steps=40)
    position = game.to_dict()
    again = Game.from_dict(json.loads(json.dumps(position)))
    assert again.to_dict() == position
    replayed = Game.deal(variant, number)
    for command in position["history"]:
        replayed.play(command)
    if position["status"] != "resigned":
        assert replayed.to_dict() == position
    # Undo works after reading back exactly as before.
    assert again.is_legal("U") == game.is_legal("U")


def every_command(columns: int) -> list[str]:
    sources = ["S", "D", *map(str, range(1, columns + 1))]
    targets = ["F", *map(str, range(1, columns + 1))]
    return ["V", "F"] + [f"{source} {target}" for source in sources for target in targets]


@pytest.mark.slow
@settings(max_examples=50)
@given(variant=variants, number=st.integers(0, 2**63 - 1), data=st.data())
def test_legal_lists_exactly_the_plays_that_are_accepted(variant, number, data):
    game = Game.deal(variant, number)
    commands = every_command(variant.columns)
    for _ in range(30):
        legal = set(game.legal())
        assert legal <= set(commands)
        before = game.to_dict()
        for command in commands:
            if command not in legal:
                try:
                    game.play(command)
                except IllegalMove:
                    continue
                raise AssertionError(f"{command} was accepted though legal() did not list it")
        assert game.to_dict() == before
        if game.is_over:
            return
        game.play(data.draw(st.sampled_from(sorted(legal))))
