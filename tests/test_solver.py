"""The solver: known answers, lines the engine confirms, its rules checked against the engine."""

from __future__ import annotations

import copy
import dataclasses
import warnings
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from door.engine import RANKS, SUITS, Game, IllegalMove, Variant
from door.engine.shuffle import MAX_DEAL_NUMBER
from door.engine.solver import UnconfirmedWin, Verdict, solve, wins
from door.engine.solver.model import FOUNDATION, WASTE, Model, State
from door.engine.solver.search import SearchResult
from tests.support.layouts import build, climb
from tests.support.strategies import rule_variants as variants

KNOBS: dict[str, list[Any]] = {
    "draw": [1, 3],
    "passes": [0, 1, 2],
    "reserve_size": [0, 13, 26],
    "columns": [1, 4, 10],
    "base": ["dealt", "ace", "choose"],
    "wrap": ["broken", "full"],
    "moves": ["whole", "partial"],
    "spaces": ["auto", "manual"],
    "spaces_after_reserve": ["any", "waste", "king"],
    "undo": ["none", "one", "unlimited"],
    "tournament": [False, True],
    "scoring": ["points", "vegas", "cards"],
    "multiplier": [1, 3],
    "vegas_cost": [0, 50],
    "vegas_per_card": [0, 2],
    "vegas_refund_on_win": [False, True],
}
EVERY_KNOB_VALUE = [(knob, value) for knob, values in KNOBS.items() for value in values]



def confirmed(position: dict[str, Any] | Game, verdict: Verdict) -> None:
    """A 'won' verdict's line must win the game in the engine, play by play."""
    assert verdict.result == "won", verdict
    game = copy.deepcopy(position) if isinstance(position, Game) else Game.from_dict(position)
    for command in verdict.line:
        assert command in game.legal(), (command, game.legal())
        game.play(command)
    assert game.status == "won"


def solved(game: Game, **budget: Any) -> Verdict:
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnconfirmedWin)
        return solve(game, **budget)


# -- positions a few plays from a win, at every knob value --------------------------------------


def near_win(columns: int = 4, **knobs: Any) -> Game:
    """Six cards from a win, spread over every pile: KD in the reserve, QH in the waste,
    KS under QS in the deck, KC and KH in column 1."""
    return build(
        [["KC", "KH"]] + [[] for _ in range(columns - 1)],
        reserve=["KD"],
        waste=["QH"],
        deck=["KS", "QS"],
        foundations=[climb("A", "C", "Q"), climb("A", "D", "Q"), climb("A", "H", "J"),
                     climb("A", "S", "J")],
        base_rank="A",
        **knobs,
    )


@pytest.mark.parametrize(("knob", "value"), EVERY_KNOB_VALUE)
def test_a_near_win_is_won_at_every_knob_value(knob, value):
    knobs = {knob: value}
    columns = knobs.pop("columns", 4)
    game = near_win(columns, **knobs)
    verdict = solved(game)
    confirmed(game.to_dict(), verdict)
    assert verdict.nodes >= 1


def test_a_finished_game_answers_at_once():
    game = near_win()
    for command in solved(game).line:
        game.play(command)
    assert (solved(game).result, solved(game).line, solved(game).nodes) == ("won", (), 0)
    resigned = near_win()
    resigned.resign()
    assert (solved(resigned).result, solved(resigned).nodes) == ("lost", 0)


def test_choose_fixes_the_base_with_the_first_card_up():
    """No base yet: every card lies in the columns; the first card sent up fixes the base
    and the automatic finish does the rest."""
    columns = [[RANKS[rank] + suit for rank in range(12, -1, -1)] for suit in SUITS]
    for column in columns:
        column.append(column.pop(0))  # a K on top: the base must be a K
    game = build(columns, foundations=((), (), (), ()), base_rank=None, base="choose")
    verdict = solved(game)
    confirmed(game.to_dict(), verdict)


def test_full_wrap_lets_a_king_go_on_an_ace_and_broken_does_not():
    """Base A. KS in the reserve covers AH; the only way out for KS is a red A (AD in
    column 1): a K on an A, which only full wrap allows."""
    layout: dict[str, Any] = {
        "reserve": ["QS", "AH", "KS"],
        "deck": [RANKS[rank] + "H" for rank in range(2, 13)],
        "foundations": [climb("A", "C", "K"), [], [], climb("A", "S", "J")],
        "base_rank": "A",
        "base": "ace",
        "spaces": "manual",
    }
    # 2H under the diamonds, KD up to AD on top: the column can never be emptied.
    column = ["2H", *(RANKS[rank] + "D" for rank in range(12, -1, -1))]
    full = build([column], wrap="full", **layout)
    broken = build([column], wrap="broken", **layout)
    confirmed(full.to_dict(), solved(full))
    assert solved(broken).result == engine_verdict(broken) == "lost"


def test_partial_moves_are_used_when_they_are_needed():
    """8H, the next heart, lies under 7C; 7C can't go up (6C is at the bottom of the
    reserve) and the whole pile from 9S fits nowhere, but 7C alone fits on 8D."""
    layout: dict[str, Any] = {
        "reserve": ["6C", "7D", "9H"],
        "foundations": [climb("A", "C", "5"), climb("A", "D", "6"), climb("A", "H", "7"),
                        climb("A", "S", "8")],
        "base_rank": "A",
        "spaces": "manual",
    }
    tableau = [["9S", "8H", "7C"], ["8D"]]
    partial = build(tableau, moves="partial", **layout)
    whole = build(tableau, moves="whole", **layout)
    verdict = solved(partial)
    confirmed(partial.to_dict(), verdict)
    assert "1 2" in verdict.line
    assert solved(whole).result == engine_verdict(whole) == "lost"


@pytest.mark.parametrize("rule", ["any", "waste", "king"])
def test_what_may_fill_a_space_after_the_reserve(rule):
    """The reserve is empty; a space and a K in the waste; the win needs the space."""
    game = build(
        [[], ["QH"]],
        waste=["KS"],
        deck=["JS"],
        foundations=[climb("A", "C", "K"), climb("A", "D", "K"), climb("A", "H", "T"),
                     climb("A", "S", "T")],
        base_rank="A",
        spaces_after_reserve=rule,
        spaces="manual",
    )
    assert solved(game).result == engine_verdict(game)


@pytest.mark.parametrize(("draw", "passes"), [(1, 1), (3, 1), (3, 2), (3, 0), (1, 0)])
def test_the_deck_in_passes(draw, passes):
    game = build(
        [["KC"]],
        reserve=["KD"],
        deck=["QD", "QC", "KH", "QH", "KS", "QS"],
        foundations=[climb("A", "C", "J"), climb("A", "D", "J"), climb("A", "H", "J"),
                     climb("A", "S", "J")],
        base_rank="A",
        draw=draw,
        passes=passes,
    )
    assert solved(game).result == engine_verdict(game)


# -- proved-lost positions ------------------------------------------------------------------------


def lost_by_burial(**knobs: Any) -> Game:
    """Base A. 2H lies on AH in the reserve, with QD under both: 2H can't go up, no black 3
    is left to take it, and column 1's KD can never leave, so no space ever opens. The deck
    still has plays (QS and KS go up, QS onto KD, JH onto QS)."""
    hearts = [RANKS[rank] + "H" for rank in range(2, 13)]
    return build(
        [["KD"]],
        reserve=["QD", "AH", "2H"],
        deck=["QS", "KS", *hearts],
        foundations=[climb("A", "C", "K"), climb("A", "D", "J"), [], climb("A", "S", "J")],
        base_rank="A",
        **knobs,
    )


@pytest.mark.parametrize("draw", [1, 3])
@pytest.mark.parametrize("spaces", ["auto", "manual"])
def test_a_card_buried_on_its_own_predecessor_is_lost(draw, spaces):
    game = lost_by_burial(draw=draw, spaces=spaces)
    assert game.status == "playing" and game.legal()
    verdict = solved(game)
    assert verdict.result == "lost"
    assert verdict.line == ()
    assert engine_verdict(game) == "lost"


def test_a_stuck_game_is_lost():
    game = lost_by_burial(draw=1)
    for _ in range(200):
        if game.status != "playing":
            break
        plays = game.legal()
        game.play(next((play for play in plays if play != "V"), plays[0]))
    assert game.status == "stuck"
    assert (solved(game).result, solved(game).nodes) == ("lost", 0)


# -- the engine's own search, for small positions --------------------------------------------------


def piles_key(game: Game) -> tuple:
    passes = game.passes_started if game.variant.passes else 0
    return (tuple(game.reserve), tuple(game.deck), tuple(game.waste),
            tuple(map(tuple, game.foundations)), tuple(map(tuple, game.tableau)),
            game.base_rank, passes)


def engine_winnable(game: Game, limit: int = 20_000) -> bool | None:
    """Every position the engine's own plays reach, searched for a won one (None if there
    are more than ``limit``)."""
    if game.status == "won":
        return True
    seen = {piles_key(game)}
    waiting = [copy.deepcopy(game)]
    while waiting:
        current = waiting.pop()
        for command in current.legal():
            after = copy.deepcopy(current)
            try:
                after.play(command)
            except IllegalMove:
                continue  # listed but refused: it reaches nothing
            if after.status == "won":
                return True
            key = piles_key(after)
            if after.status == "playing" and key not in seen:
                seen.add(key)
                waiting.append(after)
        if len(seen) > limit:
            return None
    return False


def engine_verdict(game: Game) -> str:
    winnable = engine_winnable(game)
    assert winnable is not None, "too big for the engine's own search"
    return "won" if winnable else "lost"


@st.composite
def small_positions(draw: st.DrawFn) -> Game:
    """Random positions of any variant with a handful of cards off the foundations."""
    variant = draw(variants)
    base = draw(st.integers(0, 12))
    loose = draw(st.lists(st.integers(0, 3), min_size=4, max_size=7))
    missing = [loose.count(suit) for suit in range(4)]
    foundations, cards = [], []
    for suit, count in enumerate(missing):
        ranks = [(base + step) % 13 for step in range(13)]
        foundations.append([RANKS[r] + SUITS[suit] for r in ranks[: 13 - count]])
        cards += [RANKS[r] + SUITS[suit] for r in ranks[13 - count :]]
    cards = draw(st.permutations(cards))
    places = draw(st.lists(st.integers(0, 2 + variant.columns), min_size=len(cards),
                           max_size=len(cards)))
    piles: list[list[str]] = [[] for _ in range(3 + variant.columns)]
    for card, place in zip(cards, places, strict=True):
        piles[place].append(card)
    knobs = {k: v for k, v in variant.to_dict().items() if k != "columns"}
    return build(piles[3:], reserve=piles[0], deck=piles[1], waste=piles[2],
                 foundations=foundations, base_rank=RANKS[base], **knobs)


@pytest.mark.slow
@settings(max_examples=120)
@given(game=small_positions())
def test_the_verdict_agrees_with_the_engine_own_search(game):
    winnable = engine_winnable(game, limit=3000)
    assume(winnable is not None)
    verdict = solved(game)
    assert verdict.result == ("won" if winnable else "lost")
    if verdict.result == "won" and game.status == "playing":
        confirmed(game.to_dict(), verdict)


# -- random deals ---------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=30)
@given(variant=variants, number=st.integers(0, MAX_DEAL_NUMBER))
def test_every_won_line_is_confirmed_by_the_engine(variant, number):
    game = Game.deal(variant, number)
    verdict = solved(game, max_nodes=3000)
    assert verdict.result in ("won", "lost", "unknown")
    if verdict.result == "won":
        confirmed(game.to_dict(), verdict)
    else:
        assert verdict.line == ()


def test_classic_deals_with_known_answers():
    classic = Variant(moves="whole", spaces_after_reserve="waste")
    assert solved(Game.deal(classic, 5)).result == "won"
    assert solved(Game.deal(classic, 1)).result == "lost"
    assert solved(Game.deal(classic, 8)).result == "lost"  # stuck at the deal


# -- the API --------------------------------------------------------------------------------------


def test_a_position_or_a_game_and_the_game_is_left_alone():
    game = Game.deal(Variant(), 5)
    before = game.to_dict()
    from_game = solved(game)
    from_position = solved(before)
    assert game.to_dict() == before
    assert from_game.result == from_position.result == "won"
    assert from_game.line == from_position.line
    with pytest.raises(dataclasses.FrozenInstanceError):
        from_game.result = "lost"  # type: ignore[misc]


def test_a_position_already_played_into():
    game = Game.deal(Variant(draw=1), 6)
    for _ in range(5):
        game.play(game.legal()[-1])
    verdict = solved(game, max_nodes=20_000)
    if verdict.result == "won":
        confirmed(game.to_dict(), verdict)


def test_the_budget_gives_unknown():
    game = Game.deal(Variant(moves="whole", spaces_after_reserve="waste"), 3)
    verdict = solved(game, max_nodes=50)
    assert (verdict.result, verdict.line, verdict.nodes) == ("unknown", (), 50)
    assert solved(game, max_seconds=0.0).result == "unknown"


def test_a_line_the_engine_refuses_is_never_a_win(monkeypatch):
    def bogus(*args: Any, **kwargs: Any) -> SearchResult:
        return SearchResult("won", ("V", "S F"), 1, 1)

    monkeypatch.setattr("door.engine.solver.explore", bogus)
    game = lost_by_burial()
    with pytest.warns(UnconfirmedWin):
        verdict = solve(game)
    assert verdict.result == "unknown"
    assert not wins(game.to_dict(), ("V", "S F"))


# -- the solver's rules against the engine's ------------------------------------------------------


def played_into(variant: Variant, number: int, choices: list[int]) -> Game:
    """A deal played at random (the choices pick among the legal plays, V less often)."""
    game = Game.deal(variant, number)
    for choice in choices:
        if game.is_over:
            break
        legal = game.legal()
        others = [play for play in legal if play != "V"]
        pick = others[choice % len(others)] if others and choice % 3 else legal[choice % len(legal)]
        game.play(pick)
    return game


def engine_piles(game: Game) -> dict[str, Any]:
    position = game.to_dict()
    foundations = {pile[0][1]: pile for pile in position["foundations"] if pile}
    piles = {key: position[key] for key in ("reserve", "deck", "waste", "tableau", "base_rank",
                                            "passes_started")}
    return {**piles, "foundations": foundations}


@settings(max_examples=200)
@given(variant=variants, number=st.integers(0, MAX_DEAL_NUMBER),
       choices=st.lists(st.integers(0, 1000), min_size=5, max_size=120))
@pytest.mark.slow
def test_the_solver_plays_exactly_the_engine_plays(variant, number, choices):
    """From positions reached by random play, the same plays lead to the same positions."""
    game = played_into(variant, number, choices)
    if game.is_over:
        return
    model = Model(game.variant, bytes(game.reserve))
    state = Model.state_of(game)
    assert model.piles(state) == engine_piles(game)
    plays = model.exact(state)
    assert set(plays) == set(game.legal())
    for command, after in plays.items():
        engine = copy.deepcopy(game)
        engine.play(command)
        if engine.status == "won":
            assert after is None, command
        else:
            assert after is not None, command
            assert model.piles(after) == engine_piles(engine), command


def layout_of(state: State | None) -> tuple | None:
    if state is None:
        return None
    res, stock, pos, _passes, heights, cols, base = state
    return (res, stock, pos, heights, tuple(sorted(cols)), base)


def turned(model: Model, state: State) -> list[State]:
    """The positions turning alone reaches from ``state``, itself included."""
    found, seen = [], set()
    current: State | None = state
    while current is not None:
        mark = (current[2], current[3] if not model.unlimited else 0)
        if mark in seen:
            break
        seen.add(mark)
        found.append(current)
        current = model.exact(current).get("V")
    return found


@settings(max_examples=200)
@given(variant=variants, number=st.integers(0, MAX_DEAL_NUMBER),
       choices=st.lists(st.integers(0, 1000), min_size=5, max_size=120))
@pytest.mark.slow
def test_the_search_plays_are_the_engine_plays_after_turning(variant, number, choices):
    """children() lists exactly the engine's plays (V and F aside): any play but a waste
    play from the position itself, and a waste play from every position turning reaches,
    with the fewest passes; pile moves that only swap two columns aside. The commands of
    each play lead where it says."""
    game = played_into(variant, number, choices)
    if game.is_over:
        return
    model = Model(game.variant, bytes(game.reserve))
    state = Model.state_of(game)
    expected: dict[tuple | None, int | None] = {}
    for start in turned(model, state):
        for command, after in model.exact(start).items():
            if command in ("V", "F") or (start is not state and not command.startswith("D")):
                continue
            if layout_of(after) == layout_of(start):
                continue  # a pile moved into a space, swapping two columns
            passes = None if after is None else after[3]
            key = layout_of(after)
            if key not in expected or (passes is not None and passes < expected[key]):
                expected[key] = passes
    listed: dict[tuple | None, int | None] = {}
    for move, after in model.children(state, prune=False):
        listed[layout_of(after)] = None if after is None else after[3]
        current: State | None = state
        for command in model.commands(state, move):
            assert current is not None
            current = model.exact(current)[command]
        assert layout_of(current) == layout_of(after)
    assert listed == expected
    for move, after in model.children(state):
        current = state
        for command in model.commands(state, move):
            assert current is not None
            current = model.exact(current)[command]
        assert layout_of(current) == layout_of(after)


@settings(max_examples=100)
@given(variant=variants, number=st.integers(0, MAX_DEAL_NUMBER),
       choices=st.lists(st.integers(0, 1000), min_size=5, max_size=150))
def test_a_safe_play_is_a_card_nothing_can_go_on_any_more(variant, number, choices):
    game = played_into(variant, number, choices)
    if game.is_over:
        return
    model = Model(game.variant, bytes(game.reserve))
    state = Model.state_of(game)
    safe = model.safe_move(state)
    if safe is None:
        return
    assert safe[-1] == FOUNDATION
    assert safe[0] != WASTE or game.variant.draw == 1
    after = model.apply(state, safe)
    every = {layout_of(a) for _m, a in model.children(state, prune=False)}
    assert layout_of(after) in every


def test_column_order_is_ignored_unless_auto_fill_meets_two_spaces():
    game = build([["KC"], ["KD"], []], reserve=["2C"], spaces="auto")
    model = Model(game.variant, bytes(game.reserve))
    res, stock, pos, passes, heights, cols, base = Model.state_of(game)
    swapped = (res, stock, pos, passes, heights, (cols[1], cols[0], cols[2]), base)
    assert model.key(swapped) == model.key(Model.state_of(game))
    two_spaces = (res, stock, pos, passes, heights, (cols[0], b"", b""), base)
    moved = (res, stock, pos, passes, heights, (b"", cols[0], b""), base)
    assert model.key(two_spaces) != model.key(moved)


def test_an_illegal_line_is_not_a_win():
    game = near_win()
    assert not wins(game.to_dict(), ("1 2",))
    with pytest.raises(IllegalMove):
        game.play("1 2")
