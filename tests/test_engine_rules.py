"""Each rule and each knob of docs/rules.md, one behaviour at a time."""

from __future__ import annotations

import pytest

from door.engine import Card, Game, IllegalMove, Move, Variant, VariantError, shuffled_order
from tests.support.layouts import build, climb


def names(pile: list[Card]) -> list[str]:
    return [str(card) for card in pile]


def refused(game: Game, command: str) -> str:
    """Play ``command``, which must be refused and change nothing; return the message."""
    before = game.to_dict()
    with pytest.raises(IllegalMove) as refusal:
        game.play(command)
    assert game.to_dict() == before
    return str(refusal.value)


# -- notation and the shuffle -----------------------------------------------------------------


def test_cards_are_written_rank_then_suit():
    assert str(Card.parse("th")) == "TH"
    assert Card.parse("10h") is Card.parse("TH")
    assert Card.parse("AS").symbol == "A♠"
    assert Card.parse("QD").red and not Card.parse("QC").red
    with pytest.raises(ValueError):
        Card.parse("1X")


def test_deal_numbers_give_the_same_deal_forever():
    # Pinned: changing the shuffle would change every deal number callers have shared.
    pinned = {
        0: "QH TC 3C JC 4H 7C QC 3D 4S AC 3H 2H 9H",
        1: "5S 3C 5C 9D 6C JS 6S 5H QS 3H 5D 7D AH",
        48213: "6D KC JC 9H 5C AC QD TH AS 2C AH 7S 4D",
        2**63 - 1: "2C 3H 9D 7H 6H 9H AD 3D QH TD 8C AH KC",
    }
    for number, first_thirteen in pinned.items():
        order = shuffled_order(number)
        assert " ".join(str(card) for card in order[:13]) == first_thirteen
        assert len(set(order)) == 52


def test_deal_number_must_be_a_whole_number_in_range():
    for bad in (-1, 2**63, 1.5, "7", True):
        with pytest.raises(ValueError):
            shuffled_order(bad)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("V", "V"),
        ("d", "V"),
        ("F", "F"),
        ("a", "F"),
        ("u", "U"),
        ("S 3", "S 3"),
        ("s3", "S 3"),
        ("S F", "S F"),
        ("SF", "S F"),
        ("s a", "S F"),
        ("D 1", "D 1"),
        ("d1", "D 1"),
        ("DF", "D F"),
        ("2 F", "2 F"),
        ("2f", "2 F"),
        ("2 4", "2 4"),
        ("24", "2 4"),
        ("  1   2 ", "1 2"),
        ("1 10", "1 10"),
        ("101", "10 1"),
    ],
)
def test_every_spelling_parses_to_its_canonical_form(text, canonical):
    assert str(Move.parse(text)) == canonical


@pytest.mark.parametrize(
    "text", ["V V", "S", "3 X", "F 2", "R", "?", "Q", "N", "", "S 0", "SDF", "5%"]
)
def test_other_commands_are_unknown(text):
    with pytest.raises(IllegalMove, match="Unknown command"):
        Move.parse(text)


def test_unknown_command_message_names_it():
    game = Game.deal(Variant(), 5)
    assert refused(game, "X") == 'Unknown command "X" - type ? for help'


# -- the variant knobs ------------------------------------------------------------------------


def test_defaults_are_the_classic_game():
    assert Variant().to_dict() == {
        "draw": 3,
        "passes": 0,
        "reserve_size": 13,
        "columns": 4,
        "base": "dealt",
        "wrap": "broken",
        "moves": "whole",
        "spaces": "auto",
        "spaces_after_reserve": "any",
        "undo": "one",
        "tournament": False,
        "scoring": "points",
        "multiplier": 1,
        "vegas_cost": 52,
        "vegas_per_card": 5,
        "vegas_refund_on_win": False,
    }


@pytest.mark.parametrize(
    "knobs",
    [
        {"draw": 2},
        {"passes": -1},
        {"reserve_size": 27},
        {"columns": 0},
        {"columns": 11},
        {"base": "king"},
        {"wrap": "half"},
        {"moves": "some"},
        {"spaces": "never"},
        {"spaces_after_reserve": "queen"},
        {"undo": "two"},
        {"tournament": 1},
        {"scoring": "golf"},
        {"multiplier": 0},
        {"vegas_cost": -5},
        {"draw": True},
    ],
)
def test_bad_knob_values_are_refused_with_what_is_accepted(knobs):
    with pytest.raises(VariantError) as refusal:
        Variant(**knobs)
    assert refusal.value.knob in knobs


def test_unknown_knob_is_refused():
    with pytest.raises(VariantError, match="no such knob"):
        Variant.from_dict({"drawn": 3})


# -- the deal ---------------------------------------------------------------------------------


def test_classic_deal_lays_out_the_order():
    order = shuffled_order(99)
    game = Game.from_order(Variant(), order)
    assert game.reserve == list(order[:13])
    assert game.foundations == [[order[13]], [], [], []]
    assert game.base_rank == order[13].rank
    assert game.tableau == [[card] for card in order[14:18]]
    assert game.deck[-1] == order[18] and len(game.deck) == 34
    assert game.waste == [] and game.passes_started == 1 and game.status == "playing"


@pytest.mark.parametrize(("reserve_size", "columns"), [(0, 1), (26, 10), (13, 7), (5, 4)])
def test_reserve_size_and_columns_change_the_counts(reserve_size, columns):
    game = Game.deal(Variant(reserve_size=reserve_size, columns=columns), 3)
    assert len(game.reserve) == reserve_size
    assert len(game.tableau) == columns
    assert all(len(pile) == 1 for pile in game.tableau)
    assert len(game.deck) == 52 - reserve_size - 1 - columns


def test_base_ace_deals_no_base_card_and_starts_at_ace():
    game = Game.deal(Variant(base="ace"), 3)
    assert game.foundations == [[], [], [], []] and game.base_rank == 0
    assert len(game.deck) == 52 - 13 - 4


def test_base_choose_leaves_the_base_rank_open_until_a_card_goes_up():
    game = build([["9H"], ["4C"]], reserve=["7S"], base_rank=None, base="choose")
    assert "S F" in game.legal() and "1 F" in game.legal()
    assert "F" not in game.legal()
    assert "Choose the base rank first" in refused(game, "F")
    game.play("2 F")
    assert game.base_rank == 3 and names(game.foundations[0]) == ["4C"]
    assert game.to_dict()["base_rank"] == "4"
    assert "S F" not in game.legal()


# -- turning and passes -----------------------------------------------------------------------


def test_draw_three_turns_three_cards_one_at_a_time():
    game = build([["KS"]], deck=["2C", "3C", "4C", "5C"])
    game.play("V")
    assert names(game.waste) == ["5C", "4C", "3C"]
    assert names(game.deck[-1:]) == ["2C"]


@pytest.mark.parametrize("left", [1, 2])
def test_draw_three_with_fewer_left_turns_what_is_left(left):
    deck = ["8C", "3C"][:left]
    game = build([["KS"]], deck=deck, rest="reserve")
    game.play("V")
    assert names(game.waste) == deck[::-1] and game.deck == []


def test_draw_one_turns_one_card():
    game = build([["KS"]], deck=["2C", "3C"], draw=1)
    game.play("V")
    assert names(game.waste) == ["3C"]


def test_a_new_pass_keeps_the_deck_order_and_costs_a_point():
    game = build(
        [["KS"]], deck=["2C", "3C", "8C", "5C", "6C"], rest="reserve", draw=1, multiplier=3
    )
    first = []
    for _ in range(5):
        game.play("V")
        first.append(str(game.waste[-1]))
    result = game.play("V")
    assert game.waste == [] and game.passes_started == 2 and result.score == -3
    second = []
    for _ in range(5):
        game.play("V")
        second.append(str(game.waste[-1]))
    assert first == second == ["6C", "5C", "8C", "3C", "2C"]


def test_new_pass_only_turns_the_waste_over():
    game = build([["KS"]], waste=["8C", "3C"], rest="reserve", draw=1)
    game.play("V")
    assert names(game.deck) == ["3C", "8C"] and game.waste == []


def test_the_last_pass_is_refused():
    columns = [["KS"], ["QH"]]  # QH on KS stays possible, so the game is not stuck
    game = build(columns, waste=["2C", "3C"], rest="reserve", passes=2, passes_started=2)
    assert "V" not in game.legal()
    assert refused(game, "V") == "The deck is empty and this level allows no more passes"
    one_pass = build(columns, waste=["2C"], rest="reserve", passes=1)
    assert refused(one_pass, "V") == "The deck is empty and this level allows no more passes"
    two_passes = build(columns, waste=["2C"], rest="reserve", passes=2)
    two_passes.play("V")
    assert two_passes.passes_started == 2 and two_passes.passes_left == 0


def test_turning_with_deck_and_waste_empty_is_refused():
    game = build([["KS"], ["QH"]], rest="reserve")
    assert refused(game, "V") == "The deck and the waste are both empty"


# -- foundations --------------------------------------------------------------------------------


def test_base_rank_goes_to_the_leftmost_empty_foundation():
    game = build([["8D"], ["8S"]], foundations=[["8H"], [], [], []])
    game.play("1 F")
    game.play("2 F")
    assert [names(pile) for pile in game.foundations] == [["8H"], ["8D"], ["8S"], []]


def test_foundations_build_up_in_suit_and_turn_the_corner():
    game = build([["AH"], ["3H"]], foundations=[climb("8", "H", "K"), [], [], []])
    assert "2 F" not in game.legal()
    assert refused(game, "2 F") == "3♥ can't go up: the ♥ foundation needs A♥ next"
    game.play("1 F")
    assert str(game.foundations[0][-1]) == "AH"


def test_foundation_refusals_say_what_is_needed():
    game = build([["TH"], ["7S"], ["9C"]], foundations=[["8H"], ["8C"], [], []])
    assert refused(game, "1 F") == "T♥ can't go up: the ♥ foundation needs 9♥ next"
    assert refused(game, "2 F") == "7♠ can't go up: the ♠ foundation starts with 8♠"
    assert refused(game, "S F") == "The reserve is empty"
    assert refused(game, "D F") == "The waste is empty"


def test_a_complete_foundation_takes_nothing():
    game = build([["9C"]], foundations=[climb("9", "H", "8"), [], [], []], base_rank="9")
    assert len(game.foundations[0]) == 13
    game.play("1 F")
    assert names(game.foundations[1]) == ["9C"]


def test_only_the_top_card_of_a_column_goes_up():
    game = build([["TS", "9H"]], foundations=[["8S"], [], [], []])
    assert "1 F" not in game.legal()
    game2 = build([["9H", "8S"]], foundations=[["8H"], [], [], []])
    game2.play("1 F")
    assert names(game2.tableau[0]) == ["9H"]


# -- columns ----------------------------------------------------------------------------------


def test_a_card_goes_on_one_rank_higher_of_the_other_colour():
    game = build([["9S"], ["7H"], ["8D"]], waste=["8H"])
    assert "D 1" in game.legal()
    assert refused(game, "2 1") == "The pile from 7♥ can't go on 9♠: column 1 needs a red 8"
    game.play("D 1")
    assert names(game.tableau[0]) == ["9S", "8H"]


def test_refusal_names_the_needed_card():
    game = build([["9S"], ["7H"]], waste=["7C"])
    assert refused(game, "D 1") == "7♣ can't go on 9♠: column 1 needs a red 8"
    assert refused(game, "D 2") == "7♣ can't go on 7♥: column 2 needs a black 6"


def test_ranks_turn_the_corner_on_columns_except_at_the_base_rank():
    # Base 8: a black K goes on a red A ...
    game = build([["AH"]], waste=["KS"])
    game.play("D 1")
    assert names(game.tableau[0]) == ["AH", "KS"]
    # ... but a 7 never goes on an 8 under the broken corner.
    broken = build([["8H"]], waste=["7S"])
    assert refused(broken, "D 1") == "7♠ can't go on 8♥: nothing goes on the base rank 8"
    full = build([["8H"]], waste=["7S"], wrap="full")
    full.play("D 1")
    assert names(full.tableau[0]) == ["8H", "7S"]


def test_with_base_ace_a_king_never_goes_on_an_ace_unless_wrap_is_full():
    broken = build([["AH"]], waste=["KS"], base_rank="A", base="ace")
    assert "D 1" not in broken.legal()
    full = build([["AH"]], waste=["KS"], base_rank="A", base="ace", wrap="full")
    assert "D 1" in full.legal()


def test_broken_corner_waits_for_the_base_rank_under_choose():
    game = build([["8H"]], waste=["7S"], base_rank=None, base="choose")
    assert "D 1" in game.legal()


def test_whole_pile_moves_as_a_unit():
    game = build([["9S", "8H", "7C"], ["TD"], ["8D"]])
    game.play("1 2")
    assert names(game.tableau[1]) == ["TD", "9S", "8H", "7C"]
    assert "3 2" not in game.legal()


def test_whole_moves_refuse_a_run_that_only_fits_partly():
    game = build([["9S", "8H", "7C"], ["9D"]], rest="deck")
    assert refused(game, "1 2") == "The pile from 9♠ can't go on 9♦: column 2 needs a black 8"


def test_partial_moves_take_the_one_run_that_fits():
    game = build([["TC", "9H", "8S", "7D"], ["9D"], ["8H"]], moves="partial", base_rank="A")
    game.play("1 2")
    assert names(game.tableau[0]) == ["TC", "9H"]
    assert names(game.tableau[1]) == ["9D", "8S", "7D"]
    assert refused(game, "3 1") == "No run in column 3 fits on 9♥: column 1 needs a black 8"


def test_a_column_cannot_move_onto_itself():
    # QS at the bottom would fit on KH at the top: still not a play.
    assert build([["QS", "KH"]], base_rank="A", base="ace").legal() == ["V"]
    game = build([["9S"], ["8H"]])
    assert refused(game, "1 1") == "A column can't move onto itself"
    assert refused(game, "5 1").startswith("There is no column 5")


# -- spaces -----------------------------------------------------------------------------------


def test_auto_spaces_fill_from_the_reserve_the_moment_they_appear():
    game = build([["9S"], ["8H"]], reserve=["2C", "3C"])
    game.play("2 1")
    assert names(game.tableau[1]) == ["3C"] and names(game.reserve) == ["2C"]


def test_auto_fill_goes_left_to_right_after_each_card():
    game = build(
        [["8D"], ["8S"], ["KC"]], reserve=["2C", "3C", "4C"], foundations=[["8H"], [], [], []]
    )
    game.play("F")
    assert names(game.tableau[0]) == ["4C"] and names(game.tableau[1]) == ["3C"]
    assert names(game.reserve) == ["2C"]


def test_manual_spaces_wait_for_the_player_and_only_take_the_reserve():
    game = build([["9S"], ["8H"]], reserve=["2C", "3C"], waste=["KD"], spaces="manual")
    game.play("2 1")
    assert game.tableau[1] == []
    assert refused(game, "D 2") == "While the reserve has cards, only the reserve may fill a space"
    game.play("S 2")
    assert names(game.tableau[1]) == ["3C"]


@pytest.mark.parametrize(
    ("rule", "waste_card", "column_pile", "allowed"),
    [
        ("any", "5D", ["9S", "8H"], {"D 2", "1 2"}),
        ("waste", "5D", ["9S", "8H"], {"D 2"}),
        ("king", "5D", ["9S", "8H"], set()),
        ("king", "KD", ["KS", "QH"], {"D 2", "1 2"}),
    ],
)
def test_spaces_after_the_reserve(rule, waste_card, column_pile, allowed):
    game = build([column_pile, []], waste=[waste_card], spaces_after_reserve=rule)
    plays_into_space = {play for play in game.legal() if play.endswith(" 2")}
    assert plays_into_space == allowed


def test_king_rule_with_partial_moves_moves_the_run_from_its_king():
    game = build([["5C", "KS", "QH"], []], moves="partial", spaces_after_reserve="king")
    game.play("1 2")
    assert names(game.tableau[0]) == ["5C"] and names(game.tableau[1]) == ["KS", "QH"]


def test_waste_rule_refuses_columns_into_a_space():
    game = build([["9S", "8H"], []], spaces_after_reserve="waste")
    assert refused(game, "1 2") == "Only the waste's top card may fill a space"


# -- send up ----------------------------------------------------------------------------------


def test_send_up_plays_everything_it_can_in_order():
    game = build(
        [["9H"], ["TH"], ["KC"]],
        reserve=["JC", "8D"],
        waste=["8C"],
        foundations=[["8H"], [], [], []],
        rest="deck",
    )
    result = game.play("F")
    # Reserve first, then the waste, then columns left to right, looking again each time.
    assert names(result.sent_up) == ["8D", "8C", "9H", "TH"]
    assert game.moves == 1 and game.history == ["F"]


def test_send_up_is_refused_when_nothing_can_go():
    game = build([["9S"]], foundations=[["8H"], [], [], []])
    assert refused(game, "F") == "No card can go to a foundation now"


# -- the automatic finish and winning -----------------------------------------------------------


def finishing_layout(**knobs) -> Game:
    foundations = [
        climb("8", "C", "7"),
        climb("8", "D", "7"),
        climb("8", "H", "4"),
        climb("8", "S", "5"),
    ]
    return build([["7H", "7S"], ["6H", "5H"]], reserve=["6S"], foundations=foundations, **knobs)


def test_the_automatic_finish_sends_everything_up_and_wins():
    game = finishing_layout(multiplier=2)
    result = game.play("S F")
    assert result.status == "won" and game.status == "won"
    assert names(result.sent_up) == ["6S", "7S", "5H", "6H", "7H"]
    assert names(result.finish) == ["7S", "5H", "6H", "7H"]
    assert result.finish_columns == (1, 2, 2, 1)
    assert game.cards_on_foundations == 52
    # Each card is scored as a play to a foundation: 5 cards x 4 points x 2.
    assert result.score == 40
    assert game.legal() == []
    assert "This game is over" in refused(game, "U")


def test_no_finish_while_a_card_blocks_the_rest():
    foundations = [
        climb("8", "C", "7"),
        climb("8", "D", "7"),
        climb("8", "H", "4"),
        climb("8", "S", "5"),
    ]
    # 6H is buried under 7H, which needs 6H first: sending up cannot carry everything.
    game = build([["6H", "7H"], ["5H"], ["7S"]], reserve=["6S"], foundations=foundations)
    result = game.play("S F")
    assert result.finish == () and game.status == "playing"


def test_vegas_scores_each_foundation_card_and_refunds_a_win():
    game = finishing_layout(
        scoring="vegas", vegas_cost=50, vegas_per_card=2, vegas_refund_on_win=True
    )
    assert game.score == -50 + 2 * 47
    result = game.play("S F")
    assert result.score == -50 + 2 * 52 + 50


# -- undo ---------------------------------------------------------------------------------------


def test_undo_takes_back_each_kind_of_play():
    for command, game in [
        ("V", build([["KS"], ["QH"]], deck=["2C", "3C", "4C"])),
        ("V", build([["KS"], ["QH"]], waste=["2C", "3C"], rest="reserve")),
        ("S F", build([["KS"]], reserve=["3C", "8D"], foundations=[["8H"], [], [], []])),
        ("D 1", build([["9S"]], waste=["8H"])),
        ("1 2", build([["9S"], ["TH"]], reserve=["3C", "4C"])),
        ("F", build([["9H"], ["8D"]], reserve=["3C", "4C"], foundations=[["8H"], [], [], []])),
    ]:
        before = game.to_dict()
        game.play(command)
        game.play("U")
        after = game.to_dict()
        assert after["history"] == [command, "U"]
        for key in (
            "reserve",
            "deck",
            "waste",
            "foundations",
            "tableau",
            "base_rank",
            "passes_started",
            "score",
            "moves",
            "status",
        ):
            assert after[key] == before[key], (command, key)


def test_undo_brings_back_an_unchosen_base_rank():
    game = build([["9H"]], reserve=["4C", "7S"], base_rank=None, base="choose")
    game.play("S F")
    game.play("U")
    assert game.base_rank is None and game.foundations == [[], [], [], []]


def test_undo_one_allows_only_the_last_play():
    game = build([["KS"]], deck=["2C", "3C", "4C", "5C", "6C", "7C"], draw=1)
    assert refused(game, "U") == "There is nothing to undo"
    game.play("V")
    game.play("V")
    game.play("U")
    assert refused(game, "U") == "Only the last play can be undone, and it already was"
    game.play("V")
    game.play("U")


def test_undo_none_refuses():
    game = build([["KS"]], deck=["2C"], undo="none")
    game.play("V")
    assert refused(game, "U") == "This level allows no undo"


def test_undo_unlimited_goes_back_to_the_deal():
    game = build([["KS"]], deck=["2C", "3C", "4C", "5C"], draw=1, undo="unlimited")
    start = game.to_dict()
    for _ in range(4):
        game.play("V")
    for _ in range(4):
        game.play("U")
    assert game.waste == [] and names(game.deck[-4:]) == start["deck"][-4:]
    assert game.moves == 0
    assert refused(game, "U") == "There is nothing to undo"


def test_tournament_counts_every_undo_as_a_move():
    game = build([["KS"]], deck=["2C", "3C"], draw=1, tournament=True)
    game.play("V")
    game.play("U")
    assert game.moves == 2


def test_cards_scoring_undo_loses_the_play_and_three_more():
    game = build([["9S"]], waste=["8H"], scoring="cards")
    assert game.play("D 1").score == 5
    assert game.play("U").score == -3


# -- the stuck rule -----------------------------------------------------------------------------


def test_a_position_with_nothing_left_to_do_is_stuck():
    # Reserve and deck empty, waste cards that fit nowhere, columns that fit nowhere.
    game = build([["5H"], ["5S"]], waste=["2C", "3D"], rest="reserve", passes=1)
    assert game.status == "stuck"
    assert game.legal() == []
    assert "This game is over" in refused(game, "V")


def near_stuck(**knobs) -> Game:
    # Nothing plays now; the waste's bottom card 4S would go on 5H, but only a new pass
    # turns it up again.
    return build(
        [["5H"], ["QC"]],
        reserve=reserve_topped_by("2D"),
        waste=["4S", "2C", "3D"],
        foundations=EIGHTS,
        draw=1,
        **knobs,
    )


EIGHTS = [["8C"], ["8D"], ["8H"], ["8S"]]


def reserve_topped_by(top: str) -> list[str]:
    """Every card not used in the stuck layouts, with ``top`` (which fits nowhere) on top."""
    used = {"5H", "QC", "4S", "2C", "3D", top}
    return [str(c) for c in shuffled_order(1) if str(c) not in used and c.rank != 7] + [top]


def test_near_stuck_is_playing_while_a_new_pass_would_help():
    game = near_stuck(passes=0)
    assert game.status == "playing"
    assert game.legal() == ["V"]


def test_near_stuck_is_stuck_when_no_new_pass_is_allowed():
    game = near_stuck(passes=1)
    assert game.status == "stuck"


def test_draw_three_sees_only_every_third_card():
    # With draw 3 the 4S sits where turning never shows it on top: nothing can change.
    game = build(
        [["5H"], ["QC"]],
        reserve=reserve_topped_by("2D"),
        deck=["2C", "4S", "3D"],
        foundations=EIGHTS,
        draw=3,
    )
    assert game.status == "stuck"


def test_swapping_columns_into_a_space_does_not_count_as_a_play():
    foundations = [
        climb("8", "C", "7"),
        climb("8", "D", "7"),
        climb("8", "H", "4"),
        climb("8", "S", "6"),
    ]
    # Only moves of a whole pile into the space are left: they would just swap columns.
    game = build([["7S", "6H"], [], ["5H", "7H"]], foundations=foundations)
    assert game.status == "stuck"


# -- scoring schemes ------------------------------------------------------------------------------


def test_points_for_reserve_waste_and_foundation():
    game = build(
        [["9S"], ["9C"]],
        reserve=["3C", "8D"],
        waste=["8H"],
        foundations=[["8S"], [], [], []],
        multiplier=2,
    )
    assert game.play("D 1").score == 2  # +1 from the waste
    assert game.play("S F").score == 2 + 2 * (4 + 2)  # to a foundation, and a new reserve top


def test_cards_scoring_per_kind_of_move():
    game = build(
        [["9S"], ["9C"], ["TD"]],
        reserve=["3C", "8S"],
        waste=["9H", "8D"],
        foundations=[["8H"], [], [], []],
        scoring="cards",
    )
    assert game.play("D 1").score == 5  # waste to column
    assert game.play("S F").score == 5 + 5 + 5  # reserve to foundation, new reserve top
    assert game.play("D F").score == 15 + 10  # waste to foundation
    assert game.play("2 3").score == 25  # column to column: nothing


def test_vegas_starts_at_minus_cost_plus_the_base_card():
    assert Game.deal(Variant(scoring="vegas"), 3).score == -47
    assert Game.deal(Variant(scoring="vegas", base="ace"), 3).score == -52


# -- the finished game -----------------------------------------------------------------------------


def test_a_resigned_game_refuses_everything():
    game = Game.deal(Variant(), 11)
    game.resign()
    assert game.status == "resigned" and game.legal() == []
    assert refused(game, "V") == "This game is over: it was resigned"
