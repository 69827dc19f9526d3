"""The sysop's own ANSI art on the door's screens, as callers see it.

Art files made here (with and without SAUCE, in iCE colours, with cursor moves, too wide,
holding a terminal query and a window title) reach callers on pyte screens: UTF-8, CP437 that
draws the low glyphs, CP437 behind a board that re-encodes it (suits as letters) and plain
ASCII. Whatever the file holds, a caller gets cells: never its SAUCE record, never a query.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from pathlib import Path

import pytest

from ansi.art import MOST_DROPPED, MOST_ROWS, read_art, split_sauce
from door.art import SCREENS, art_problems
from door.config import ConfigError, load_config
from tests.support.art import (
    CONTEST,
    GOODBYE,
    MENU,
    WELCOME,
    WELCOME_ASC,
    WIDE,
    art_folder,
    with_art,
)
from tests.support.door_server import door_config, open_door
from tests.support.served_door import check_config
from tests.support.telnet_caller import Caller, DroppingCaller
from tests.support.visits import sign_up_on
from tests.support.winning import saved_one_play_from_a_win

HOSTILE = (b"\x1b[6n", b"\x1b[c", b"\x1b]", b"\x1bP", b"SAUCE", b"COMNT", b"pwned", b"\x1a")


@pytest.fixture
async def art_door(tmp_path):
    folder = art_folder(
        tmp_path / "art",
        {
            "welcome.ans": WELCOME,
            "welcome.asc": WELCOME_ASC,
            "menu.ans": MENU,
            "goodbye.ans": GOODBYE,
            "scores.ans": WIDE,
            "contest.ans": CONTEST,
        },
    )
    running = await open_door(with_art(door_config(tmp_path), folder))
    yield running
    await running.close()


def after(received: bytes, marker: bytes) -> bytes:
    """What the door sent from ``marker`` (a piece of the art, as sent) on."""
    at = received.find(marker)
    assert at >= 0, received[-2000:]
    return received[at:]


def never_sent(received: bytes) -> None:
    """Nothing of a file's SAUCE or of its hostile sequences reached the caller: the door's
    own charset probe (ESC[6n) comes before the welcome, never after it."""
    shown = after(received, b"ART WELCOME")
    for piece in HOSTILE:
        assert piece not in shown, piece


# --- the reader -------------------------------------------------------------------------------


def test_sauce_is_read_and_left_out_of_the_art() -> None:
    data, record = split_sauce(WELCOME)
    assert record is not None
    assert (record.title, record.width, record.ice_colours) == ("Welcome to the board", 80, True)
    assert record.comments == ("Drawn for the door",)
    assert b"SAUCE" not in data and b"\x1a" not in data
    art = read_art(WELCOME)
    assert art.lines() == ["╔" + "═" * 20 + "╗", "║ ♥ ART WELCOME ♥    ║", "╚" + "═" * 20 + "╝"]
    assert art.dropped == ("ESC[6n", "ESC[c", "ESC]0;pwned BEL", "ESCP1$rESC\\")
    assert art.cell(1, 1)[1] == (3, 4, True) and art.cell(2, 3)[1] == (1, 0, False)


def test_ice_colours_cursor_moves_and_wrap() -> None:
    art = read_art(MENU)
    assert art.height == 4 and art.columns == 40
    assert art.lines()[0] == " MENU ART ".center(40, "▒")
    assert art.lines()[2] == "  ♦ ♣ ♠"
    assert art.lines()[1].endswith("!") and len(art.lines()[1]) == 38  # restored, down, back
    # Blink under iCE asks for a bright blue background: drawn blue, never blinking.
    assert art.cell(1, 1)[1] == (7, 4, False)
    assert read_art(WIDE).columns == 100
    assert read_art(b"x" * 90).lines() == ["x" * 80, "x" * 10]  # no SAUCE: 80 columns


def test_a_huge_or_noisy_file_is_read_within_bounds() -> None:
    art = read_art(b"x" * 1_000_000)
    assert art.height == MOST_ROWS and len(art.rows) == MOST_ROWS
    noisy = read_art(b"".join(b"\x1b[%dn" % number for number in range(1000)) + b"ok")
    assert len(noisy.dropped) == MOST_DROPPED and noisy.lines() == ["ok"]


# --- sysop.toml and check-config ----------------------------------------------------------------


def test_the_folder_is_beside_sysop_toml_and_read_with_it(tmp_path: Path) -> None:
    art_folder(tmp_path / "art", {"menu.ans": MENU, "won.asc": b"WON\r\n"})
    (tmp_path / "sysop.toml").write_text('[art]\nfolder = "art"\n')
    config = load_config(tmp_path / "sysop.toml")
    assert config.art.folder == tmp_path / "art"
    assert [art.screen.name for art in config.art.screens] == ["menu", "won"]
    menu = config.art.screen("menu")
    assert menu is not None and menu.ansi is not None and menu.plain is None
    assert config.art.screen("welcome") is None
    (tmp_path / "sysop.toml").write_text('[art]\nfolder = "pictures"\n')
    with pytest.raises(ConfigError, match=r'art\.folder = "pictures" is not a folder'):
        load_config(tmp_path / "sysop.toml")


def test_check_config_names_art_too_wide_hostile_or_not_cp437(tmp_path: Path) -> None:
    folder = art_folder(
        tmp_path,
        {
            "welcome.ans": WELCOME,
            "scores.ans": WIDE,
            "won.ans": "╔═══╗ ♥ drawn in UTF-8".encode(),
            "menu.ans": MENU,
        },
    )
    problems = art_problems(folder)
    assert problems == [
        "welcome.ans holds sequences the door does not pass on to callers (dropped): "
        "ESC[6n, ESC[c, ESC]0;pwned BEL, ESCP1$rESC\\",
        "won.ans is not CP437 text: it is UTF-8 text (saved as UTF-8, not CP437)",
        "scores.ans is 100 columns wide: wider than the 80 the scoreboards' head takes, so "
        "callers see the door's own screen",
    ]
    assert {screen.name for screen in SCREENS} == {
        "welcome",
        "menu",
        "goodbye",
        "won",
        "contest",
        "scores",
    }


# --- callers ------------------------------------------------------------------------------------


async def test_a_utf8_caller_sees_the_art_in_utf8_and_nothing_else(art_door) -> None:
    caller = await Caller.connect(art_door.port, term="xterm", charset="utf-8")
    await caller.wait_for("ART WELCOME")
    screen = await caller.wait_for("Your alias")
    assert caller.row(1) == "╔" + "═" * 20 + "╗"
    assert caller.row(2) == "║ ♥ ART WELCOME ♥    ║"
    assert "Welcome to" in screen and "node" in screen
    corner = caller.screen.buffer[0][0]
    assert (corner.fg, corner.bg, corner.bold) == ("brown", "blue", True)
    assert caller.screen.buffer[1][2].fg == "red"
    assert "♥".encode() in bytes(caller.received)
    never_sent(bytes(caller.received))
    await sign_up_on(caller, "Utfa")
    # The menu's head, and under it every entry and the prompt.
    screen = await caller.wait_for("Your choice")
    assert "MENU ART" in caller.row(1) and caller.row(3) == "  ♦ ♣ ♠"
    assert "G  Goodbye" in screen and "T  Terminal settings" in screen
    # Too wide a head for the scoreboards: the door's own.
    await caller.key("S")
    screen = await caller.wait_for("Which board")
    assert "WWW" not in screen and caller.row(1).strip() == "Scoreboards"
    await caller.key("Q")
    await caller.wait_for("MENU ART")
    await caller.key("G")
    screen = await caller.wait_for("Thanks for playing")
    assert caller.row(1) == "   ART GOODBYE ♥♥♥"
    await caller.wait_closed()


async def test_a_cp437_caller_gets_the_arts_own_bytes(art_door) -> None:
    caller = await Caller.connect(art_door.port, term="ansi-bbs", charset="cp437")
    await caller.wait_for("Your alias")
    received = bytes(caller.received)
    assert b"\xc9" + b"\xcd" * 20 + b"\xbb" in received
    assert b"\x03 ART WELCOME \x03" in received
    assert caller.row(2) == "║ ♥ ART WELCOME ♥    ║"
    never_sent(received)
    await caller.hang_up()


async def test_behind_a_reencoding_board_the_low_glyphs_are_letters(art_door) -> None:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", art_door.port), 5)
    caller = DroppingCaller(reader, writer, term="ansi-bbs", charset="cp437")
    await caller.wait_for("Your alias")
    assert caller.row(1) == "╔" + "═" * 20 + "╗"
    assert caller.row(2) == "║ H ART WELCOME H    ║"
    never_sent(bytes(caller.received))
    await sign_up_on(caller, "Relayed")
    await caller.wait_for("MENU ART")
    assert caller.row(3) == "  D C S"
    await caller.hang_up()


async def test_a_plain_caller_gets_the_asc_or_the_doors_own(art_door) -> None:
    caller = await Caller.connect(art_door.port, term="dumb", charset="ascii", ansi=False)
    text = await caller.wait_for("Your alias", in_text=True)
    assert "| PLAIN ART WELCOME  |" in text and "ART WELCOME \x03" not in text
    assert "\x1b" not in text
    await sign_up_on(caller, "Plain")
    # No menu.asc: the door's own plain menu, every entry.
    text = caller.text[caller.text.rfind("Hello, Plain") :]
    assert "MENU ART" not in text and "G  Goodbye" in text
    await caller.hang_up()


async def test_art_wider_than_the_callers_window_is_not_sent_cut(tmp_path) -> None:
    folder = art_folder(tmp_path / "art", {"welcome.ans": b"=" * 70 + b"\r\nSEVENTY\r\n"})
    door = await open_door(with_art(door_config(tmp_path), folder))
    try:
        narrow = await Caller.connect(door.port, size=(60, 24))
        screen = await narrow.wait_for("Your alias")
        assert "SEVENTY" not in screen and "C A N F I E L D" in screen
        wide = await Caller.connect(door.port, size=(80, 24))
        screen = await wide.wait_for("Your alias")
        assert "SEVENTY" in screen and re.search("^={70}$", screen, re.MULTILINE)
        await narrow.hang_up()
        await wide.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_a_won_game_shows_the_sysops_art_beside_the_sidebar(tmp_path) -> None:
    won = (
        b"\x1b[1;32m"
        + b"\xdb" * 30
        + b"\r\n\xdb  WON ART \x03\x04\x05\x06  \xdb\r\n"
        + b"\xdb" * 30
    )
    folder = art_folder(tmp_path / "art", {"won.ans": won})
    door = await open_door(with_art(door_config(tmp_path), folder))
    try:
        caller = await Caller.connect(door.port)
        await sign_up_on(caller, "Winner")
        _game, last = await saved_one_play_from_a_win(door, "Winner")
        await caller.key("X")
        await caller.wait_for("Resume your saved game")
        await caller.key("R")
        await caller.wait_for(r"Command \(\? for help\)")
        await caller.type(last)
        screen = await caller.wait_for("You won!")
        assert "Y O U   W O N" not in screen
        rows = [number for number in range(1, 25) if "WON ART" in caller.row(number)]
        assert rows and rows[0] - 1 >= 8 and rows[0] + 1 <= 20  # in the columns' rows
        left = (61 - 30) // 2  # centred left of the sidebar, which starts at column 62
        assert caller.row(rows[0] - 1)[left : left + 30] == "█" * 30
        assert caller.row(rows[0])[left:].startswith("█  WON ART ♥♦♣♠  █")
        await caller.hang_up()
    finally:
        await door.close()


def test_check_config_lists_the_art_and_its_problems(tmp_path: Path) -> None:
    art_folder(tmp_path / "art", {"welcome.ans": WELCOME, "menu.ans": MENU})
    (tmp_path / "sysop.toml").write_text('[art]\nfolder = "art"\n')
    result = check_config(tmp_path / "sysop.toml")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1] == (
        f'Art from {tmp_path / "art"} for the screens: welcome ("Welcome to the board"), '
        'menu ("Menu")'
    )
    assert lines[2].startswith("Art: welcome.ans holds sequences the door does not pass on")


async def test_the_contest_page_has_its_head_when_its_lines_fit_under_it(art_door) -> None:
    now = art_door.store.now()
    level = art_door.config.level(1)
    await art_door.store.declare_contest("Winter Cup", level, 3, now, now + dt.timedelta(hours=1))
    caller = await Caller.connect(art_door.port)
    await sign_up_on(caller, "Cupper")
    await caller.key("C")
    page = await caller.wait_for(r"Contest - Winter Cup[\s\S]*Your choice")
    # The art's blank rows at its foot take no room: the title comes right under it.
    assert caller.row(1) == "=== CONTEST ART ==="
    assert caller.row(2).strip() == "Contest - Winter Cup"
    assert "Q  Back to the menu" in page
    await caller.hang_up()
