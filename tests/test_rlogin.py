"""Linked boards over RLOGIN: a client written here from RFC 1282, as two boards whose callers
meet on one scoreboard, and every refusal: an unknown address, a wrong tag or secret, a
malformed handshake, a handshake that never ends."""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import logging
import os
import re
import signal
import struct
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest

from door.net.rlogin import NOT_A_HANDSHAKE, NOT_LINKED, TOO_SLOW, WRONG_FIELDS
from tests.support.live_door import ROOT, write_config
from tests.support.rlogin import (
    ABC,
    XYZ,
    RloginDoor,
    handshake,
    linked_caller,
    open_rlogin_door,
    refusal,
    send,
)
from tests.support.served_door import serve
from tests.support.telnet_caller import Caller


@pytest.fixture
async def door(tmp_path) -> AsyncIterator[RloginDoor]:
    running = await open_rlogin_door(tmp_path)
    yield running
    await running.close()


async def play_and_resign(caller: Caller) -> None:
    """A scored game at level 1 (a numbered deal would be practice, on no list), resigned."""
    await caller.key("P")
    await caller.wait_for("Choose a level")
    await caller.key("1")
    await caller.wait_for(r"Command \(\? for help\)")
    await caller.type("V")
    await caller.wait_for(r"Moves\s+1\b")
    await caller.type("N")
    await caller.wait_for(r"Resign this game")
    await caller.key("Y")
    await caller.wait_for("Game resigned, score")
    await caller.type("")
    await caller.wait_for(r"Moves\s+0\b")
    await caller.type("Q")
    await caller.wait_for("Your choice")


async def test_two_linked_boards_callers_meet_on_one_scoreboard(door):
    bob_abc = await linked_caller(door.port, ABC, "Bob")
    screen = await bob_abc.wait_for("Your choice")  # straight to the main menu, no log in
    assert "Hello, Bob." in screen
    bob_xyz = await linked_caller(door.port, XYZ, "Bob")
    await bob_xyz.wait_for("Your choice")
    assert sorted(call.way for call in door.ways.nodes.calls) == ["rlogin", "rlogin"]
    await play_and_resign(bob_abc)
    await play_and_resign(bob_xyz)
    # Two boards' Bobs are two users, each with their board.
    users = await door.store.users_named("bob")
    assert sorted(user.bbs or "" for user in users) == ["Another Board", "Xylophone BBS"]
    await bob_xyz.key("S")
    await bob_xyz.wait_for("Which board")
    await bob_xyz.key("1")
    screen = await bob_xyz.wait_for("High scores - ")
    lines = [line for line in screen.split("\n") if "Bob" in line]
    assert len(lines) == 2
    assert {"Another Board", "Xylophone BBS"} == {
        name for line in lines for name in ("Another Board", "Xylophone BBS") if name in line
    }
    assert all(len(line) <= 79 for line in screen.split("\n"))
    # Goodbye ends the connection: the board takes its caller back.
    await bob_abc.key("G")
    await bob_abc.wait_for("Goodbye", in_text=True)
    await bob_abc.wait_closed()
    await bob_xyz.hang_up()


async def test_either_field_may_carry_the_secret(door):
    # ENiGMA-like order: the tagged alias as the client-user name, the secret second.
    reader, writer = await send(door.port, handshake("[xyz]Carol", XYZ.secret, "xterm"))
    assert await asyncio.wait_for(reader.readexactly(1), 10) == b"\0"
    caller = Caller(reader, writer, term="xterm")
    screen = await caller.wait_for("Your choice")
    assert "Hello, Carol." in screen
    [call] = door.ways.nodes.calls
    assert (call.way, call.alias, call.terminal.info.charset) == ("rlogin", "Carol", "utf-8")
    await caller.hang_up()


async def test_a_window_size_sent_in_band_is_followed(door):
    caller = await linked_caller(door.port, ABC, "Dana")
    await caller.wait_for("Your choice")
    caller.writer.write(b"\xff\xffss" + struct.pack(">4H", 50, 132, 0, 0))
    await caller.writer.drain()
    [call] = door.ways.nodes.calls
    await caller.key("S")  # the size message is no key: S still opens the scoreboards
    await caller.wait_for("Which board")
    assert (call.terminal.info.width, call.terminal.info.height) == (132, 50)
    await caller.hang_up()


@pytest.mark.parametrize(
    ("data", "answer", "logged"),
    [
        (handshake("abc-secret-1", "[QQQ]Bob"), WRONG_FIELDS, "tag QQQ"),
        (handshake("not-the-secret", "[ABC]Bob"), WRONG_FIELDS, "tag ABC"),
        (handshake(XYZ.secret, "[ABC]Bob"), WRONG_FIELDS, "tag ABC"),  # another board's
        (handshake("abc-secret-1", "Bob"), WRONG_FIELDS, "tag none"),
        (handshake("abc-secret-1", "[ABC]"), NOT_A_HANDSHAKE, "sent no alias"),
        (b"Bob\0[ABC]Bob\0ansi\0", NOT_A_HANDSHAKE, "does not begin with a NUL"),
        (b"\0" + b"x" * 600, NOT_A_HANDSHAKE, "no end in its first"),
    ],
)
async def test_a_bad_handshake_is_refused_with_one_line(door, caplog, data, answer, logged):
    caplog.set_level(logging.INFO, logger="door")
    reader, writer = await send(door.port, data)
    said = await refusal(reader)
    assert said == b"\x01" + answer.encode() + b"\r\n"
    assert "refused RLOGIN from 127.0.0.1: " in caplog.text and logged in caplog.text
    assert "abc-secret-1" not in caplog.text and "not-the-secret" not in caplog.text
    assert door.ways.nodes.calls == []
    writer.close()


async def test_an_unknown_address_is_refused_before_any_handshake(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="door")
    elsewhere = dataclasses.replace(ABC, addresses=(ipaddress.ip_network("192.0.2.7/32"),))
    running = await open_rlogin_door(tmp_path, boards=(elsewhere,))
    try:
        reader, writer = await send(running.port, handshake(ABC.secret, "[ABC]Bob"))
        assert await refusal(reader) == b"\x01" + NOT_LINKED.encode() + b"\r\n"
        assert "not the address of a linked board" in caplog.text
        writer.close()
    finally:
        await running.close()


@pytest.mark.slow
async def test_a_handshake_that_never_ends_is_cut_off_holding_no_node(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="door")
    running = await open_rlogin_door(tmp_path, max_nodes=1)
    try:
        reader, writer = await send(running.port, b"\0abc-secret-1\0[AB")  # and nothing more
        # Meanwhile the only node is free for a caller whose board finishes its handshake.
        caller = await linked_caller(running.port, XYZ, "Eve")
        await caller.wait_for("Your choice")
        assert [call.alias for call in running.ways.nodes.calls] == ["Eve"]
        assert await refusal(reader) == b"\x01" + TOO_SLOW.encode() + b"\r\n"
        assert "no whole handshake in 1 s" in caplog.text
        writer.close()
        await caller.hang_up()
    finally:
        await running.close()


async def test_a_full_door_refuses_a_linked_caller_with_one_line(tmp_path):
    running = await open_rlogin_door(tmp_path, max_nodes=1)
    try:
        telnet = await Caller.connect(running.ways.telnet.port)
        await telnet.wait_for("Your alias")
        reader, writer = await send(running.port, handshake(ABC.secret, "[ABC]Bob"))
        assert await refusal(reader) == b"\x01The only node is busy. Please call again later.\r\n"
        writer.close()
        await telnet.hang_up()
    finally:
        await running.close()


def test_scoreboards_fit_the_screen_with_a_board_column():
    from datetime import UTC, datetime

    from door.levels import SHIPPED_LEVELS
    from door.store import HighScore, Standing
    from door.views.pages import PageLine, high_score_lines, standing_lines

    def text(line: PageLine) -> str:
        return line if isinstance(line, str) else line.text  # type: ignore[union-attr]

    when = datetime(2026, 11, 30, tzinfo=UTC)
    scores = [
        HighScore(
            "A" * 20, "The Longest Board Name In The Network", -9999, False, 99999, when, True, 1
        ),
        HighScore("Bob", None, 120, True, 80, when, False, 2),
    ]
    lines = [text(line) for line in high_score_lines(SHIPPED_LEVELS[0], scores)]
    assert all(len(line) <= 77 for line in lines)
    assert lines[3].endswith("(hint)") and "The Longest" in lines[3]
    assert "Board" in lines[2] and lines[4].split()[1:3] == ["Bob", "120"]
    standings = [Standing("A" * 20, "Supercalifragilistic BBS", 9999, 9999, 100.0, 99999, True, 99)]
    assert all(len(text(line)) <= 77 for line in standing_lines(standings))


async def test_a_shutdown_tells_a_linked_caller(tmp_path):
    running = await open_rlogin_door(tmp_path)
    try:
        caller = await linked_caller(running.port, ABC, "Bob")
        await caller.wait_for("Your choice")
        closing = asyncio.create_task(running.ways.close("The door is shutting down.", grace=5))
        await caller.wait_for("The door is shutting down", in_text=True)
        await caller.wait_closed()
        await closing
        assert running.ways.nodes.calls == []
    finally:
        await running.close()


# The shipped sysop.toml's [rlogin] table, listening on a free port for board ABC.
RLOGIN_ON = {
    "# port = 5513\n": "port = 0\n",
    '# [[rlogin.boards]]\n# tag = "EXAMPLE"\n# name = "Example BBS"\n'
    '# addresses = ["192.0.2.7"]\n# secret = "change-this-secret"\n': (
        f'[[rlogin.boards]]\ntag = "{ABC.tag}"\nname = "{ABC.name}"\n'
        f'addresses = ["127.0.0.1"]\nsecret = "{ABC.secret}"\n'
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("where", ["main menu", "contests page"])
async def test_sigterm_with_a_linked_caller_on_tells_them_and_logs_no_error(tmp_path, where):
    """``serve`` stopped by SIGTERM while a linked board's caller is on: the caller is told,
    and the log says so in lines, not an error and a traceback (the door's log is read at
    the end, as for every door a test runs)."""
    config = write_config(tmp_path, edits=RLOGIN_ON)
    door = await serve(config)
    try:
        port = int(re.search(r"listening for RLOGIN on \S+ port (\d+)", door.logged())[1])
        if where == "contests page":
            opens = (datetime.now() + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")
            await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "door", "sysop", "--config", str(config), "contest",
                 "declare", "Winter Cup", "--level", "1", "--deals", "3", "--opens", opens,
                 "--for", "7d"],
                check=True, capture_output=True, timeout=60,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )  # fmt: skip
        caller = await linked_caller(port, ABC, "Bob")
        await caller.wait_for("Your choice")
        if where == "contests page":
            await caller.key("C")
            await caller.wait_for(r"Contest - Winter Cup[\s\S]*Your choice")
        door.signal(signal.SIGTERM)
        await caller.wait_for("The door is shutting down", in_text=True)
        await caller.wait_closed()
        assert await asyncio.to_thread(door.process.wait, 20) == 0
    finally:
        if door.process.poll() is None:
            door.process.kill()
    log = door.logged()
    assert "node 1 (Bob): hang-up (shut down)" in log, log
