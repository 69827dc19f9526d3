"""Keys on the board: the key reader, hot-key assembly, the pointer and the mouse.

Every way of playing must end in the same plays: the property test plays random games by
typed lines, hot keys, the pointer and the mouse from the same deal and compares the games
and what the store keeps of them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansi.keys import DOWN, ENTER, ESCAPE, LEFT, RIGHT, SEQUENCE, UP, KeyParser, Mouse
from ansi.screen import ScreenBuffer
from door.engine import Game, Variant
from door.levels import SHIPPED_LEVELS
from door.store import Store
from door.store.schema import MIGRATIONS
from door.views.board import LAST_COLUMN_ROW, REMINDER_TOP, REMINDER_WIDTH, Look, draw_board
from door.views.pointer import (
    Spot,
    draw_pointer,
    keys_reminder,
    marker_cell,
    spot_at,
    visible_depth,
)
from door.visit.keys import BoardKeys, read_typed
from tests.support.keyplay import METHODS, Player, key_bytes

# -- the key reader -------------------------------------------------------------------------


def feed_bytewise(data: bytes, charset: str = "utf-8") -> list:
    parser = KeyParser(charset)
    keys = []
    for byte in data:
        keys += parser.feed(bytes([byte]))
    return keys + parser.expire()


STREAM = (
    b"s3\x1b[A\x1bOB\x1b[C\x1b[1;5D\x1b[H\x1b[F\x1b[1~\x1b[4~\x1bOw\x1bOp\x1b[15~"
    b"\x1b[<0;12;4M\x1b[<0;30;9m\x1b[M \x21\x25\x1b[M#\xe1\x25\xc3\xa9\r\n"
)
EXPECTED = [
    "s",
    "3",
    UP,
    DOWN,
    RIGHT,
    LEFT,
    *[SEQUENCE] * 7,  # Home, End (two ways each), keypad 7 and 0, F5: never a command
    Mouse(4, 12, True, 0),
    Mouse(9, 30, False, 0),
    Mouse(5, 1, True, 0),
    Mouse(5, 193, False, -1),  # the old form, a column past 127
    "é",
    ENTER,
]


def test_keys_at_once_and_byte_by_byte_are_the_same() -> None:
    assert KeyParser("utf-8").feed(STREAM) == EXPECTED
    assert feed_bytewise(STREAM) == EXPECTED


@given(st.lists(st.integers(1, len(STREAM) - 1), max_size=6))
def test_keys_survive_any_split(cuts: list[int]) -> None:
    parser = KeyParser("utf-8")
    keys: list = []
    points = [0, *sorted(set(cuts)), len(STREAM)]
    for start, end in itertools.pairwise(points):
        keys += parser.feed(STREAM[start:end])
    assert keys == EXPECTED


def test_a_lone_escape_is_a_key_once_nothing_follows() -> None:
    parser = KeyParser("ascii")
    assert parser.feed(b"\x1b") == [] and parser.holding_escape
    assert parser.expire() == [ESCAPE] and not parser.holding_escape
    assert parser.feed(b"\x1bv") == [ESCAPE, "v"]
    assert parser.feed(b"\x1b\x1b[A") == [ESCAPE, UP]


def test_old_mouse_reports_under_cp437_keep_their_high_bytes() -> None:
    assert KeyParser("cp437").feed(b"\x1b[M \xff\x38") == [Mouse(24, 223, True, 0)]


def test_mouse_wheel_and_motion_are_not_clicks() -> None:
    assert KeyParser("utf-8").feed(b"\x1b[<64;5;5M\x1b[<32;5;5M\x1b[M`%%") == [SEQUENCE] * 3


# -- hot keys -------------------------------------------------------------------------------


def commands(keys: BoardKeys, text: str, game: Game | None = None, more: bool = False) -> list:
    steps = [step for key in text for step in keys.feed(key, game, more=more)]
    return [step.command for step in steps if step.command]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("v", ["V"]),
        ("s3", ["S 3"]),
        ("d1", ["D 1"]),
        ("2f", ["2 F"]),
        ("4a", ["4 A"]),
        ("12", ["1 2"]),
        ("q", ["Q"]),
        ("?", ["?"]),
        ("n", ["N"]),
        ("r", ["R"]),
        ("undo", ["UNDO"]),
        ("hint", ["HINT"]),
        ("ansi", ["ANSI"]),
        ("x", ["X"]),  # refused at once, by the engine's word
        ("sx", ["S X"]),
        ("l3", ["L 3"]),
        ("ls", ["L S"]),
        ("l\r", ["L"]),
    ],
)
def test_hot_keys_act_when_complete(typed: str, expected: list[str]) -> None:
    assert commands(BoardKeys(hot=True, pointer=False), typed) == expected


def test_keys_that_begin_two_commands_wait_for_the_next() -> None:
    keys = BoardKeys(hot=True, pointer=False)
    assert commands(keys, "u") == [] and keys.waiting
    assert commands(keys, "v") == ["U", "V"]  # V cannot lengthen U: both act
    assert commands(keys, "h") == [] and keys.waiting
    assert commands(keys, "\r") == ["H"]
    assert commands(keys, "a ") == ["A"]


def test_ten_columns_wait_after_a_one() -> None:
    keys = BoardKeys(hot=True, pointer=False, columns=10)
    assert commands(keys, "1") == [] and keys.prompt_text() == "1 → ?"
    assert commands(keys, "0") == [] and keys.prompt_text() == "10 → ?"
    assert commands(keys, "1") == [] and keys.waiting
    assert commands(keys, "0") == ["10 10"]
    assert commands(keys, "21") == [] and [s.command for s in keys.expire()] == ["2 1"]
    assert commands(keys, "s0") == ["S 10"]
    assert read_typed("0", 4).state == "invalid"


def test_escape_and_backspace_cancel_a_half_typed_command() -> None:
    keys = BoardKeys(hot=True, pointer=False)
    commands(keys, "s")
    keys.feed(ESCAPE, None, more=False)
    assert keys.typed == "" and commands(keys, "v") == ["V"]
    commands(keys, "2")
    assert commands(keys, "\b") == [] and keys.typed == ""
    assert commands(keys, "f") == ["F"]


def test_lines_wait_for_enter() -> None:
    keys = BoardKeys(hot=False, pointer=False)
    assert commands(keys, "s3") == [] and keys.prompt_text() == "S3"
    assert commands(keys, "\r") == ["S3"]
    assert commands(keys, "v\b\bu\r") == ["U"]


def test_home_end_and_the_keypad_never_become_commands() -> None:
    keys = BoardKeys(hot=True, pointer=True)
    game = Game.deal(Variant(), 48213)
    for key in feed_bytewise(b"\x1b[H\x1b[F\x1bOH\x1bOF\x1bOq\x1bOr\x1b[2~\x1b[5~"):
        assert key == SEQUENCE and keys.feed(key, game, more=False) == []
    assert keys.typed == "" and keys.pointer is None and keys.held is None


# -- the pointer and the mouse --------------------------------------------------------------


def test_the_pointer_walks_the_board() -> None:
    game = Game.deal(Variant(), 48213)
    keys = BoardKeys(hot=True, pointer=True)
    walk = [RIGHT, RIGHT, RIGHT, DOWN, RIGHT, LEFT, LEFT, LEFT, UP, LEFT]
    seen = []
    for key in walk:
        keys.feed(key, game, more=False)
        seen.append(keys.pointer.pile)
    assert seen == ["S", "V", "D", "4", "4", "3", "2", "1", "S", "S"]


def test_space_on_the_deck_turns_and_esc_puts_a_card_back() -> None:
    game = Game.deal(Variant(), 48213)
    keys = BoardKeys(hot=True, pointer=True)
    keys.feed(RIGHT, game, more=False)
    keys.feed(RIGHT, game, more=False)
    assert [s.command for s in keys.feed(" ", game, more=False)] == ["V"]
    keys.feed(LEFT, game, more=False)
    keys.feed(" ", game, more=False)
    assert keys.held == Spot("S")
    keys.feed(ESCAPE, game, more=False)
    assert keys.held is None


def test_a_click_on_nothing_does_nothing() -> None:
    game = Game.deal(Variant(), 48213)
    keys = BoardKeys(hot=True, pointer=True)
    for row, col in ((1, 1), (2, 40), (6, 5), (22, 5), (10, 70), (10, 30)):
        assert spot_at(game, row, col) is None
        steps = keys.feed(Mouse(row, col, True), game, more=False)
        steps += keys.feed(Mouse(row, col, False), game, more=False)
        assert all(step.command is None and not step.said for step in steps)
    assert keys.held is None and keys.pointer is None


def test_the_marker_cell_of_every_spot_is_a_blank_of_the_board() -> None:
    game = Game.deal(Variant(columns=10), 48213)
    for spot in [Spot(pile) for pile in "SVDF"] + [Spot(str(n)) for n in range(1, 11)]:
        row, col = marker_cell(game, spot)
        assert spot_at(game, row, col + 1) == spot


def test_the_marker_never_touches_a_cards_text_whatever_its_width() -> None:
    """A blank on either side of the pointer's marker, wherever it points: a ten (``10♥``),
    the deck's back and an empty pile take all three of a card's cells."""
    look, tens = Look(), 0
    for deal, columns in itertools.product(range(1, 41), (4, 10)):
        game = Game.deal(Variant(columns=columns, draw=3), deal)
        for turns in range(3):  # the waste empty, then fanned
            if turns and game.status == "playing":
                game.play("V")
            spots = [Spot(pile) for pile in "SVDF"]
            spots += [
                Spot(str(number), depth)
                for number in range(1, columns + 1)
                for depth in range(1, visible_depth(game, number) + 1)
            ]
            for spot in spots:
                screen = ScreenBuffer(80, 24)
                draw_board(screen, game, "Level", look)
                draw_pointer(screen, game, look, spot, None, False)
                row, col = marker_cell(game, spot)
                assert screen.cell_at(row, col)[0] == "►"
                line = screen.text_at(row)
                assert line[col] == " ", (deal, spot, line)  # the cell right of it
                assert col == 1 or line[col - 2] == " ", (deal, spot, line)
                tens += line[col + 1 : col + 3] == "10"
    assert tens > 0


def test_the_keys_reminder_fits_the_board() -> None:
    for columns in (1, 4, 9, 10):
        for hot in (True, False):
            for pointer in (True, False):
                lines = keys_reminder(columns, hot=hot, pointer=pointer, hints=True)
                assert max(map(len, lines)) <= REMINDER_WIDTH - 1
                assert REMINDER_TOP + len(lines) - 1 <= LAST_COLUMN_ROW


# -- every way of playing ends in the same game ----------------------------------------------

LEVELS = [
    *SHIPPED_LEVELS,
    dataclasses.replace(
        SHIPPED_LEVELS[0], number=7, variant=Variant(moves="partial", columns=10, draw=1)
    ),
    dataclasses.replace(
        SHIPPED_LEVELS[1], number=8, variant=Variant(moves="partial", spaces="manual")
    ),
]


async def _store_plays(folder: Path, level, deal: int, plays: dict[str, list[str]]) -> dict:
    async with Store.open(folder / "door.db") as store:
        stored = {}
        for method, commands_made in plays.items():
            user = await store.create_user(f"by-{method}", "secret1")
            game = Game.deal(level.variant, deal)
            game_id = await store.start_game(user.id, level, game)
            for command in commands_made:
                game.play(command)
                await store.record_play(game_id, game)
            kept = await store.load_game(game_id)
            stored[method] = (kept.to_dict(), (await store.game_record(game_id)).history)
        return stored


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    level=st.sampled_from(LEVELS),
    deal=st.integers(0, 10**6),
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=40),
)
@pytest.mark.slow
def test_every_way_of_playing_makes_the_same_game(tmp_path_factory, level, deal, picks) -> None:
    reference = Game.deal(level.variant, deal)
    plays: list[str] = []
    for pick in picks:
        legal = reference.legal()
        if not legal:
            break
        plays.append(legal[pick % len(legal)])
        reference.play(plays[-1])
    made: dict[str, list[str]] = {}
    for method in METHODS:
        game = Game.deal(level.variant, deal)
        player = Player(method, game)
        for play in plays:
            before = len(player.commands)
            keys = player.keys_for(play)
            assert keys, play
            # Whatever the method, the keys of one play make that one play.
            new = player.commands[before:]
            assert len(new) == 1, (method, play, new)
            game.play(new[0])
        assert game.to_dict() == reference.to_dict(), method
        made[method] = player.commands
    folder = tmp_path_factory.mktemp("store")
    stored = asyncio.run(_store_plays(folder, level, deal, made))
    first = stored[METHODS[0]]
    assert all(kept == first for kept in stored.values())
    assert list(first[1]) == reference.history


def test_keys_become_bytes_both_mouse_forms() -> None:
    assert key_bytes(Mouse(4, 12, True)) == b"\x1b[<0;12;4M"
    assert KeyParser("utf-8").feed(key_bytes(Mouse(4, 12, False), old_mouse=True)) == [
        Mouse(4, 12, False, -1)
    ]


# -- the caller's choice, kept ----------------------------------------------------------------


async def test_the_choice_of_keys_is_kept_and_older_databases_keep_their_users(tmp_path):
    path = tmp_path / "old.db"
    now = "2026-11-28T12:00:00.000000+00:00"
    with sqlite3.connect(path) as db:
        for step in MIGRATIONS[:2]:
            for statement in step:
                db.execute(statement)
        db.execute("PRAGMA user_version = 2")
        db.execute(
            "INSERT INTO users (alias, alias_key, ansi, created, last_seen) VALUES (?, ?, 1, ?, ?)",
            ("Alice", "alice", now, now),
        )
    async with Store.open(path) as store:
        alice = await store.find_user("Alice")
        assert alice is not None and alice.ansi is True and alice.hot_keys is None
        assert (await store.save_hot_keys(alice.id, False)).hot_keys is False
        assert (await store.find_user("Alice")).hot_keys is False
        assert [summary.games for summary in await store.user_summaries()] == [0]
