"""Hints from the cards in view: good advice, and never a word about a hidden card."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.engine import CARDS, Game, Variant
from door.engine.hints import visible_advice, visible_hint
from door.engine.status import Status

VARIANTS = [
    Variant(),
    Variant(draw=1),
    Variant(draw=3, passes=2),
    Variant(moves="partial", spaces="manual"),
    Variant(base="choose", spaces_after_reserve="king", moves="partial"),
    Variant(base="ace", wrap="full", spaces_after_reserve="waste", draw=1),
    Variant(reserve_size=5, columns=7, undo="unlimited"),
]


def played(variant: Variant, number: int, plays: int, chooser: random.Random) -> Game:
    """Deal ``number`` and make up to ``plays`` random plays, stopping before the game ends."""
    game = Game.deal(variant, number)
    for _ in range(plays):
        legal = game.legal()
        if not legal:
            break
        before = game.to_dict()
        game.play(chooser.choice(legal))
        if game.status != Status.PLAYING:
            return Game.from_dict(before)
    return game


def with_hidden_cards_shuffled(game: Game, shuffler: random.Random) -> Game:
    """The same position as the caller sees it, the hidden cards dealt out anew: those under
    the reserve's top card, in the deck, and in the waste below the three the board shows."""
    reserve, deck, waste = list(game.reserve), list(game.deck), list(game.waste)
    hidden = reserve[:-1] + deck + waste[:-3]
    shuffler.shuffle(hidden)
    under_reserve = len(reserve[:-1])
    new_reserve = hidden[:under_reserve] + reserve[-1:]
    new_deck = hidden[under_reserve : under_reserve + len(deck)]
    new_waste = hidden[under_reserve + len(deck) :] + waste[-3:]
    position: dict[str, Any] = {
        key: value
        for key, value in game.to_dict().items()
        if key not in ("history", "order", "deal")
    }
    position.update(
        reserve=[str(card) for card in new_reserve],
        deck=[str(card) for card in new_deck],
        waste=[str(card) for card in new_waste],
        status=Status.PLAYING,
    )
    return Game.from_dict(position)


@settings(max_examples=200)
@given(
    variant=st.sampled_from(VARIANTS),
    number=st.integers(0, 10**9),
    plays=st.integers(0, 150),
    seed=st.integers(0, 2**32),
)
@pytest.mark.slow
def test_the_hint_is_the_same_whatever_the_hidden_cards(
    variant: Variant, number: int, plays: int, seed: int
) -> None:
    chooser = random.Random(seed)
    game = played(variant, number, plays, chooser)
    if game.status != Status.PLAYING:  # stuck at the deal: no game to hint in
        return
    advice = visible_advice(game)
    assert advice is not None
    assert advice.play in game.legal()
    for _ in range(8):
        other = with_hidden_cards_shuffled(game, chooser)
        # Only the stuck test reads hidden cards, and a stuck game gets no hint at all.
        if other.status != Status.PLAYING:
            continue
        assert other.legal() == game.legal()
        assert visible_advice(other) == advice


def test_a_finished_game_has_no_hint() -> None:
    game = Game.deal(Variant(), 1)
    game.resign()
    assert visible_hint(game) is None


def laid_out(
    reserve: list[str], waste: list[str], foundations: list[list[str]], tableau: list[list[str]]
) -> Game:
    """A draw-one position with base rank 3; every card not named is in the deck."""
    named = {*reserve, *waste, *(c for pile in foundations for c in pile)}
    named |= {c for pile in tableau for c in pile}
    deck = [str(card) for card in CARDS if str(card) not in named]
    position = {
        "variant": Variant(draw=1).to_dict(),
        "reserve": reserve,
        "deck": deck,
        "waste": waste,
        "foundations": foundations + [[]] * (4 - len(foundations)),
        "tableau": tableau,
        "base_rank": "3",
    }
    return Game.from_dict(position)


def test_a_safe_card_goes_up_first() -> None:
    # 3H is of the base rank: nothing can need it, so up it goes before the waste's 9S
    # goes onto column 2's TH.
    game = laid_out(
        ["2C", "5D"], ["AD", "9S"], [["3C"], ["3D"]], [["KH", "3H"], ["TH"], ["QS"], ["8C"]]
    )
    assert visible_hint(game) == "1 F"


def test_the_reserve_card_goes_to_a_column_before_the_waste_card() -> None:
    # Both the reserve's 9S and the waste's 9C fit on column 2's TH.
    game = laid_out(["2C", "9S"], ["AD", "9C"], [["3C"], ["3D"]], [["KH"], ["TH"], ["5S"], ["8C"]])
    advice = visible_advice(game)
    assert advice is not None
    assert (advice.play, advice.why) == ("S 2", "it uncovers a reserve card")


def test_a_column_moves_whole_so_that_the_reserve_fills_its_space() -> None:
    game = laid_out(["2C", "9S"], ["AD", "9C"], [["3C"], ["3D"]], [["KH"], ["5D"], ["QS"], ["8C"]])
    assert visible_hint(game) == "3 1"


def test_a_card_up_is_unsafe_while_a_card_that_goes_on_it_is_down() -> None:
    # 4C could go up, but the red 3s are not up and could need it in a column: the waste's
    # 5D goes onto the black 6 first.
    game = laid_out(["2C", "KD"], ["AD", "5D"], [["3C"]], [["4C"], ["6S"], ["QS"], ["8C"]])
    advice = visible_advice(game)
    assert advice is not None and advice.play == "D 2"


def test_nothing_in_view_plays_so_turn_the_deck() -> None:
    game = Game.deal(Variant(draw=1), 7)
    while (hint := visible_hint(game)) != "V":
        assert hint is not None
        game.play(hint)
    assert visible_advice(game).why == "nothing in view plays; turn the deck"
