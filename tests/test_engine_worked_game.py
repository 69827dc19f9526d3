"""The worked game of the rule book: the deal's JSON and every score under each scheme."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from door.engine import Game, Variant

ORDER = (
    "4H JD 2H QD TD AD 4D TS TC 5C 2S 7D 2C 8H 5D 3C QS 6S QC 9C KC 8S JC KD 5S 9D 5H 9H 7S 4C "
    "9S 6D KS 6C AC 3D 3H QH 6H 4S JH AH TH AS KH 2D 7C 3S JS 7H 8D 8C"
).split()

# play, then (score, moves) under points x2, vegas and cards
TABLE = """
1 4  | 4 1   | -47 1  | 5 1
V    | 4 2   | -47 2  | 5 2
V    | 4 3   | -47 3  | 5 3
V    | 4 4   | -47 4  | 5 4
V    | 4 5   | -47 5  | 5 5
D 4  | 6 6   | -47 6  | 10 6
V    | 6 7   | -47 7  | 10 7
V    | 6 8   | -47 8  | 10 8
D 4  | 8 9   | -47 9  | 15 9
1 4  | 12 10 | -47 10 | 20 10
4 1  | 16 11 | -47 11 | 25 11
V    | 16 12 | -47 12 | 25 12
V    | 16 13 | -47 13 | 25 13
D 1  | 18 14 | -47 14 | 30 14
D 3  | 20 15 | -47 15 | 35 15
V    | 20 16 | -47 16 | 35 16
V    | 20 17 | -47 17 | 35 17
V    | 20 18 | -47 18 | 35 18
D F  | 30 19 | -42 19 | 45 19
V    | 30 20 | -42 20 | 45 20
D F  | 40 21 | -37 21 | 55 21
V    | 38 22 | -37 22 | 55 22
U    | 40 21 | -37 21 | 52 21
"""
ROWS = [[cell.strip() for cell in line.split("|")] for line in TABLE.strip().splitlines()]
SCHEMES = {"points": 1, "vegas": 2, "cards": 3}


def deal(scoring: str) -> Game:
    return Game.from_order(Variant(scoring=scoring, multiplier=2), ORDER)


def test_the_deal_matches_the_position_json():
    expected = json.loads(
        (Path(__file__).parent / "fixtures" / "worked-game-deal.json").read_text()
    )
    assert deal("points").to_dict() == expected
    assert deal("points").legal() == ["V", "1 4"]


@pytest.mark.parametrize("scoring", SCHEMES)
def test_every_score_and_move_count(scoring):
    game = deal(scoring)
    start = {"points": 0, "vegas": -47, "cards": 0}[scoring]
    assert (game.score, game.moves) == (start, 0)
    for row in ROWS:
        game.play(row[0])
        score, moves = map(int, row[SCHEMES[scoring]].split())
        assert (game.score, game.moves) == (score, moves), row[0]


def test_the_position_after_the_last_play():
    game = deal("points")
    for row in ROWS:
        game.play(row[0])
    position = game.to_dict()
    assert position["foundations"] == [["8H"], ["8D"], ["8C"], []]
    assert position["waste"][-1] == "7H"
    assert position["passes_started"] == 1 and position["status"] == "playing"
    assert position["history"] == [row[0] for row in ROWS]
    assert Game.from_dict(json.loads(json.dumps(position))).to_dict() == position
