"""Reading positions: saved games, positions laid out by hand, and broken ones."""

from __future__ import annotations

import pytest

from door.engine import Game, Variant
from tests.support.layouts import build


def test_a_saved_game_resumes_with_its_undo():
    game = Game.deal(Variant(draw=1), 2024)
    for _ in range(3):
        game.play("V")
    position = game.to_dict()
    resumed = Game.from_dict(position)
    resumed.play("U")
    game.play("U")
    assert resumed.to_dict() == game.to_dict()


def test_a_position_by_deal_number_alone_is_dealt_and_replayed():
    game = Game.from_dict({"variant": {"draw": 1}, "deal": 77, "history": ["V", "V"]})
    assert game.moves == 2 and len(game.waste) == 2
    assert game.to_dict()["order"] == [str(card) for card in Game.deal(Variant(draw=1), 77).order]


def test_a_resigned_game_stays_resigned():
    game = Game.deal(Variant(), 9)
    game.play("V")
    game.resign()
    again = Game.from_dict(game.to_dict())
    assert again.status == "resigned" and again.history == ["V"]


def test_a_hand_laid_position_is_taken_as_it_stands():
    game = build([["9S"], ["8H"]], reserve=["2C", "3C"], base_rank="A", base="ace")
    assert [str(c) for c in game.reserve] == ["2C", "3C"]
    assert game.legal()[:2] == ["V", "2 1"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"history": ["V", "S 9"]}, "history play 2"),
        ({"order": ["AS"] * 52}, "52 cards"),
        ({"reserve": ["AS"]}, "do not match"),
        ({"score": 999}, "score"),
        ({"variant": {"draw": 2}}, "draw"),
        ({"foundations": [["2C", "3C"], [], [], []]}, "do not match"),
    ],
)
def test_a_broken_position_is_refused(change, message):
    game = Game.deal(Variant(), 4)
    game.play("V")
    position = game.to_dict() | change
    with pytest.raises(ValueError) as refusal:
        Game.from_dict(position)
    assert message in str(refusal.value)


def test_a_deal_can_be_stuck_from_the_start():
    # Deal 8 under the classic rules: nothing fits, and turning never shows a card that would.
    game = Game.deal(Variant(), 8)
    assert game.status == "stuck" and game.legal() == []


def test_a_position_needs_an_object():
    with pytest.raises(ValueError):
        Game.from_dict(["not", "a", "position"])  # type: ignore[arg-type]
