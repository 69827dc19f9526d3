"""The door asks the caller's screen which suits it draws, and believes the screen.

A suit glyph, then ``ESC[6n``: the cursor's column says whether the glyph took one column.
The callers here are terminals (pyte screens) that answer with where their cursor really is;
one of them sits behind a BBS that re-encodes the door's CP437 as UTF-8 and drops 0x03-0x06,
as ENiGMA½ does.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess

import pytest

from door.store import Store
from tests.support.door_caller import (
    WAIT,
    DoorCall,
    door32,
    door_args,
    door_command,
    play_a_move_and_quit,
    write_config,
    write_dropfile,
)
from tests.support.rlogin import ABC, handshake, open_rlogin_door, send
from tests.support.telnet_caller import Caller, DroppingCaller
from tests.support.visits import DEAL, log_in, sign_up, sign_up_on, start_deal

# A card as the board draws it: rank, then a suit glyph or letter.
CARD = re.compile(r"(?:10|[A2-9TJQK])[♥♦♣♠HDCS]")
RANK = re.compile(r"(?<![\w])(?:10|[A2-9TJQK])(?=[^\w]|$)")


def cards_on_board(display: str) -> tuple[list[str], list[str]]:
    """The cards of the top row and the columns, and any rank shown without a suit."""
    rows = display.splitlines()
    board = [rows[3][:60], *(row[:40] for row in rows[7:20])]
    text = "\n".join(board)
    return CARD.findall(text), RANK.findall(CARD.sub("", text).replace("[ ]", ""))


async def test_a_terminal_that_claims_xterm_but_draws_cp437_gets_cp437(door):
    # TTYPE says xterm (UTF-8), but the screen is a BBS terminal's: 0x03 draws a heart.
    caller = await sign_up(door, term="xterm", charset="cp437")
    await start_deal(caller, DEAL)
    assert set(bytes(caller.received)) & {3, 4, 5, 6}
    cards, bare = cards_on_board(caller.display())
    assert len(cards) >= 6 and not bare
    assert all(card[-1] in "♥♦♣♠" for card in cards)
    await caller.hang_up()


async def test_a_utf8_terminal_gets_utf8_whatever_it_is_called(door):
    caller = await sign_up(door, term="ansi-bbs", charset="utf-8")  # a CP437 name
    await start_deal(caller, DEAL)
    assert any(suit.encode() in caller.received for suit in "♥♦♣♠")
    cards, bare = cards_on_board(caller.display())
    assert len(cards) >= 6 and not bare
    await caller.hang_up()


async def test_behind_a_relay_that_drops_the_suit_bytes_every_card_keeps_a_suit(door):
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", door.port), 5)
    caller = DroppingCaller(reader, writer, term="ansi-bbs", charset="cp437")
    await sign_up_on(caller, "Relayed")
    await start_deal(caller, DEAL)
    cards, bare = cards_on_board(caller.display())
    assert len(cards) >= 6 and not bare, caller.display()
    assert all(card[-1] in "HDCS" for card in cards)
    await caller.hang_up()


def test_door_mode_behind_a_bbs_that_reencodes_cp437_as_utf8_shows_a_suit_on_every_card(
    tmp_path,
):
    config = write_config(tmp_path)
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    call, slave = DoorCall.on_pty(door_args(dropfile, config), relay=True)
    try:
        call.wait_for("Your choice:")
        call.send("P\r")  # a key and its Enter, as a client that sends lines does
        call.wait_for("Choose a level")
        call.send("\r")
        call.wait_for(r"Command \(\? for help\):")
        call.send("V\r")
        call.wait_for(r"Moves +1\b")
        cards, bare = cards_on_board(call.display())
        assert len(cards) >= 7 and not bare, call.display()
        assert all(card[-1] in "HDCS" for card in cards)
        # Updates land in the right cells: the deck's count reads 31, not "313".
        assert re.search(r"(?<!\d)31(?!\d)", call.display().splitlines()[3][14:24])
        call.send("Q\r")
        call.wait_for("Your game is saved")
        call.send("T")
        call.wait_for("Character set:")
        shown = call.display()
        assert "Suits drawn as: letters" in shown and " 10H    KS    AD    7C" in shown
        call.send("Q")
        call.wait_for("Your choice:")
        call.send("G")
        call.wait_for("Goodbye!")
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    # The log says what the probe saw, not "draws cp437" of a screen that draws UTF-8.
    assert "the screen draws" not in call.log()
    assert (
        "node 3: the screen shows neither CP437's suits nor UTF-8's (a BBS between may "
        "re-encode the line): suits and other glyphs as letters, sent in cp437" in call.log()
    )


def test_the_sysop_can_force_the_charset_and_then_nothing_is_asked(tmp_path):
    config = write_config(tmp_path)
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    call, slave = DoorCall.on_pty(door_args(dropfile, config, "--charset", "utf-8"))
    try:
        call.charset = "utf-8"
        play_a_move_and_quit(call)
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    assert b"\x1b[6n" not in call.received
    assert any(suit.encode() in call.received for suit in "♥♦♣♠")


def test_sysop_toml_door_charset_is_used_by_door_mode(tmp_path):
    config = write_config(tmp_path)
    text = config.read_text(encoding="utf-8").replace('charset = "auto"', 'charset = "ascii"')
    config.write_text(text, encoding="utf-8")
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    call, slave = DoorCall.on_pty(door_args(dropfile, config))
    try:
        play_a_move_and_quit(call)
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    assert b"\x1b[6n" not in call.received
    assert all(byte < 0x80 for byte in call.received)  # ASCII, colours and all


def test_io_connect_reaches_the_port_the_bbs_listens_on(tmp_path):
    config = write_config(tmp_path)
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32(comm=2, handle=-1))
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(WAIT)
    port = listener.getsockname()[1]
    process = subprocess.Popen(
        door_command(*door_args(dropfile, config, "--io", "connect", "--port", str(port))),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        line, _ = listener.accept()
    finally:
        listener.close()
    call = DoorCall(process, os.dup(line.fileno()), "cp437")
    line.close()
    try:
        play_a_move_and_quit(call)
        assert call.wait_exit() == 0
    finally:
        call.close()
    assert "over connect" in call.log()

    async def saved() -> int:
        async with Store.open(tmp_path / "door.db") as store:
            user = await store.find_user("Joe", "Mystic BBS 1.12 A48")
            assert user is not None
            return len(await store.games_of(user.id))

    assert asyncio.run(saved()) == 1


def test_io_connect_needs_a_port(tmp_path):
    config = write_config(tmp_path)
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    done = subprocess.run(
        door_command(*door_args(dropfile, config, "--io", "connect")),
        capture_output=True,
        text=True,
        timeout=WAIT * 3,
    )
    assert done.returncode == 2 and "--io connect --port N" in done.stderr


async def test_a_callers_own_charset_choice_wins_over_the_probe(door):
    caller = await sign_up(door)  # a UTF-8 screen: the probe says UTF-8
    await caller.key("T")
    await caller.wait_for("Character set: automatic \\(this call: utf-8\\)")
    await caller.key("S")
    await caller.wait_for("Plain ASCII")
    await caller.key("P")
    await caller.wait_for("Keep this")
    await caller.key("Y")
    await caller.wait_for("Character set: ascii")  # the caller's choice, kept
    await caller.hang_up()
    again = await log_in(door)
    await start_deal(again, DEAL)
    since_menu = bytes(again.received).rsplit(b"Your choice", 1)[1]
    assert all(byte < 0x80 for byte in since_menu), "ASCII as chosen, though UTF-8 was seen"
    await again.hang_up()


async def test_a_linked_boards_caller_behind_a_reencoding_relay_keeps_a_suit_on_every_card(
    tmp_path,
):
    running = await open_rlogin_door(tmp_path)
    try:
        reader, writer = await send(running.port, handshake(ABC.secret, "[ABC]Relayed"))
        assert await asyncio.wait_for(reader.readexactly(1), 10) == b"\0"
        caller = DroppingCaller(reader, writer, term="ansi-bbs", charset="cp437")
        await caller.wait_for("Your choice")
        await start_deal(caller, DEAL)
        cards, bare = cards_on_board(caller.display())
        assert len(cards) >= 6 and not bare, caller.display()
        assert all(card[-1] in "HDCS" for card in cards)
        await caller.hang_up()
    finally:
        await running.close()


class WatchingCaller(Caller):
    """A caller who keeps the screen as it stood after each chunk the door sent, before the
    welcome page: what the probe left in view, even for a moment."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.moments: list[str] = []

    def shown(self) -> None:
        if "Your alias" not in self.display():
            self.moments.append(self.display())


class WatchingDroppingCaller(WatchingCaller, DroppingCaller):
    pass


async def test_the_probe_leaves_nothing_in_view_even_for_a_moment(door):
    for make, term, charset in (
        (WatchingCaller, "syncterm", "cp437"),
        (WatchingCaller, "xterm", "utf-8"),
        (WatchingDroppingCaller, "ansi-bbs", "cp437"),
    ):
        caller = await make.connect(door.port, term=term, charset=charset)
        await caller.wait_for("Your alias")
        assert caller.moments, "the door sent something before its welcome"
        assert not any(moment.strip() for moment in caller.moments), (term, caller.moments)
        await caller.hang_up()


@pytest.mark.slow
def test_door_mode_with_no_answer_to_the_probe_draws_letters_not_blanks(tmp_path):
    config = write_config(tmp_path)
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    # A UTF-8 terminal behind a re-encoding board, and it answers no cursor position request.
    call, slave = DoorCall.on_pty(door_args(dropfile, config), relay=True)
    call.answers = False
    try:
        call.wait_for("Your choice:")
        call.send("P\r")
        call.wait_for("Choose a level")
        call.send("\r")
        call.wait_for(r"Command \(\? for help\):")
        cards, bare = cards_on_board(call.display())
        assert len(cards) >= 6 and not bare, call.display()
        assert all(card[-1] in "HDCS" for card in cards)
        call.send("\x1b[C")  # the pointer, on the reserve
        call.wait_for("(?m)^ *>")
        call.send("Q")
        call.wait_for("Your game is saved")
        call.send("G")
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    assert "the screen did not answer: suits and other glyphs as letters" in call.log()
