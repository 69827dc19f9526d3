"""The sysop's live view of a running door: who, send, kick, watch, status and reload over the
control socket, with the real ``canfield-door sysop`` client against real callers over TCP."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from door.config import load_config
from door.running.service import Service
from tests.support.live_door import ROOT, WAIT, LiveDoor, start_live, sysop, write_config
from tests.support.telnet_caller import Caller
from tests.support.visits import DEAL, log_in, play, sign_up, start_deal

RIGHT = "\x1b[C"


@pytest.fixture
async def live(tmp_path) -> AsyncIterator[LiveDoor]:
    door = await start_live(tmp_path)
    yield door
    await door.service.stop()
    async with asyncio.timeout(WAIT):
        await door.task


@pytest.mark.slow
async def test_who_lists_each_caller_with_what_they_are_doing(live):
    alice = await sign_up(live)
    await start_deal(alice, DEAL)
    await play(alice, "V", 1)
    bob = await sign_up(live, "Bob", "secret-two2")
    status, out, err = await sysop(live, "who")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["Node", "Alias", "Way", "From", "Doing", "Idle", "On"]
    assert lines[1].split()[:4] == ["1", "Alice", "telnet", "127.0.0.1"]
    assert "playing level 2, move 1" in lines[1]
    assert lines[2].split()[:4] == ["2", "Bob", "telnet", "127.0.0.1"]
    assert "main menu" in lines[2]
    assert "\x1b" not in out
    await alice.hang_up()
    await bob.hang_up()


@pytest.mark.slow
async def test_a_message_reaches_the_game_line_without_disturbing_typing(live):
    alice = await sign_up(live)
    await start_deal(alice, DEAL)
    await alice.type("D", enter=False)  # half typed: D, then a target (or Enter: turn)
    await alice.wait_for(r"Command \(\? for help\): D → \?")
    status, out, err = await sysop(live, "send", "1", "Back in \x1b[2Jfive minutes")
    assert status == 0, err
    assert out.strip() == "Sent to node 1."
    await alice.wait_for("Sysop: Back in five minutes")
    assert alice.row(22).strip() == "Sysop: Back in five minutes"
    assert alice.row(23).endswith("Command (? for help): D → ?")
    await alice.type("")  # the Enter that ends what was typed: the play goes through
    await alice.wait_for(r"Moves\s+1\b")
    await alice.hang_up()


@pytest.mark.slow
async def test_the_sysops_message_stays_on_the_board_until_the_next_play(live):
    alice = await sign_up(live)
    await start_deal(alice, DEAL)  # the board's own message: "Practice deal ..."
    status, _, err = await sysop(live, "send", "1", "Back in five minutes")
    assert status == 0, err
    await alice.wait_for("Sysop: Back in five minutes")
    await alice.key(RIGHT)  # the pointer appears on the reserve: the board is drawn again
    await alice.wait_for("(?m)^►")
    assert alice.row(22).strip() == "Sysop: Back in five minutes"
    await alice.key("S")  # a half command, then Backspace: drawn again, twice
    await alice.wait_for(r"Command \(\? for help\): S → \?")
    assert alice.row(22).strip() == "Sysop: Back in five minutes"
    await alice.key("\x7f")
    await alice.wait_for(r"Command \(\? for help\):$")
    assert alice.row(22).strip() == "Sysop: Back in five minutes"
    await play(alice, "V", 1)  # the next play has the message line
    assert "Sysop" not in alice.display()
    await alice.hang_up()


@pytest.mark.slow
async def test_the_log_names_the_sysop_once(live, caplog):
    caplog.set_level(logging.INFO, logger="door")
    alice = await sign_up(live)
    status, _, err = await sysop(live, "send", "1", "Back in five minutes")
    assert status == 0, err
    await alice.wait_for("Sysop: Back in five minutes")
    # The caller's line says "Sysop: ...", the log line "the sysop says: ...".
    said = [r.getMessage() for r in caplog.records if "the sysop says" in r.getMessage()]
    assert said == ["node 1: the sysop says: Back in five minutes"], said
    await alice.hang_up()


@pytest.mark.slow
async def test_a_message_to_all_reaches_a_caller_at_a_menu(live):
    alice = await sign_up(live)
    bob = await sign_up(live, "Bob", "secret-two2")
    status, out, _ = await sysop(live, "send", "all", "The door restarts at noon")
    assert status == 0 and out.strip() == "Sent to nodes 1, 2."
    for caller in (alice, bob):
        await caller.wait_for("Sysop: The door restarts at noon")
    await bob.key("S")  # the menu still answers
    await bob.wait_for("Which board")
    await alice.hang_up()
    await bob.hang_up()


@pytest.mark.slow
async def test_kick_ends_the_call_politely_with_the_game_saved(live):
    alice = await sign_up(live)
    await start_deal(alice, DEAL)
    await play(alice, "V", 1)
    await play(alice, "V", 2)
    status, _, err = await sysop(live, "kick", "1", "Maintenance")
    assert status == 0, err
    await alice.wait_closed()
    assert "The sysop has ended your call: Maintenance. Your game is saved." in alice.display()
    again = await log_in(live)
    await again.key("R")
    await again.wait_for("Welcome back")
    await again.wait_for(r"Moves\s+2\b")
    await again.hang_up()
    status, _, err = await sysop(live, "kick", "7")
    assert status == 1 and "nobody is on node 7" in err


@pytest.mark.slow
async def test_watch_shows_the_callers_screen_live_until_a_key(live):
    alice = await sign_up(live)
    await start_deal(alice, DEAL)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "door",
        "sysop",
        "--config",
        str(live.config_path),
        "watch",
        "1",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None and process.stdin is not None
    seen = b""

    async def until(text: bytes) -> None:
        nonlocal seen
        async with asyncio.timeout(WAIT):
            while text not in seen:
                chunk = await process.stdout.read(4096)
                assert chunk, f"watch ended before {text!r}: {seen[-500:]!r}"
                seen += chunk

    await until(b"Command (? for help)")  # the board as it stands, at once
    await until(f"Practice deal {DEAL}".encode())
    await alice.type("V")
    await until(b"Moves")
    await alice.wait_for(r"Moves\s+1\b")
    await until(b"1")
    process.stdin.write(b"q")
    await process.stdin.drain()
    async with asyncio.timeout(WAIT):
        rest, err = await process.communicate()
    assert process.returncode == 0
    assert b"Stopped watching node 1." in rest
    assert b"Watching node 1 (Alice)" in err
    await alice.type("V")  # the caller never noticed
    await alice.wait_for(r"Moves\s+2\b")
    await alice.hang_up()


@pytest.mark.slow
async def test_status_tells_callers_peak_games_and_database(live):
    alice = await sign_up(live)
    bob = await sign_up(live, "Bob", "secret-two2")
    await start_deal(alice, DEAL)
    await bob.hang_up()
    status, out, err = await sysop(live, "status")
    assert status == 0, err
    assert "Callers now: 1 of 32 nodes; most at once today: 2" in out
    assert "Games started today: 1" in out
    assert f"Database: {live.config.server.database}" in out
    assert "Last backup: none" in out
    await alice.hang_up()


@pytest.mark.slow
async def test_a_door_that_is_not_running_is_reported_plainly(tmp_path):
    path = write_config(tmp_path)
    door = LiveDoor(Service(load_config(path), lambda: load_config(path)), None, path)  # type: ignore[arg-type]
    for command in (["who"], ["status"], ["reload"], ["send", "all", "hi"]):
        status, out, err = await sysop(door, *command)
        assert status == 1 and out == ""
        assert "the door is not running" in err, err


needs_runuser = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("runuser") is None, reason="needs root and runuser"
)


@pytest.mark.slow
@needs_runuser
async def test_another_user_is_refused_the_control_socket():
    # A folder every user may enter, so that only the socket's own mode stands in the way.
    folder = Path(tempfile.mkdtemp(prefix="canfield-control-"))
    try:
        folder.chmod(0o755)
        door = await start_live(folder)
        try:
            (folder / "sysop.toml").chmod(0o644)
            assert stat.S_IMODE(door.socket.stat().st_mode) == 0o600
            status, _, err = await sysop(door, "who", user="nobody")
            assert status == 1 and "permission denied" in err, err
            # Even with the socket's mode opened up, the door asks who is calling.
            door.socket.chmod(0o666)
            status, _, err = await sysop(door, "who", user="nobody")
            assert status == 1 and "permission denied" in err, err
            status, out, _ = await sysop(door, "who")
            assert status == 0 and out.strip() == "Nobody is on."
        finally:
            await door.service.stop()
            await door.task
        assert not door.socket.exists()
    finally:
        shutil.rmtree(folder)


@pytest.mark.slow
async def test_a_plain_caller_gets_the_message_then_the_prompt_and_their_typing(live):
    alice = await sign_up(live, ansi=False, term="dumb", charset="ascii")
    await alice.key("#")
    await alice.wait_for("Deal number", in_text=True)
    await alice.type(str(DEAL))
    await alice.wait_for("Level:", in_text=True)
    await alice.key("\r")
    await alice.wait_for(r"\r\nCommand: $", in_text=True)  # a plain caller's game: lines
    await alice.type("V", enter=False)
    await alice.wait_for(r"Command: V$", in_text=True)
    alice.forget_text()
    status, _, err = await sysop(live, "send", "1", "Hello there")
    assert status == 0, err
    await alice.wait_for(r"\r\nSysop: Hello there\r\nCommand: V$", in_text=True)
    await alice.type("")
    await alice.wait_for(r"\r\nDeck \d+, waste .*\r\nCommand: $", in_text=True)
    await alice.hang_up()


@pytest.mark.slow
async def test_a_reload_that_lowers_the_limits_keeps_the_callers_already_on(tmp_path):
    door = await start_live(tmp_path, max_nodes=2)
    try:
        alice = await sign_up(door)
        bob = await sign_up(door, "Bob", "secret-two2")
        text = door.config_path.read_text()
        door.config_path.write_text(
            text.replace("max_nodes = 2", "max_nodes = 1").replace(
                "idle_timeout = 300", "idle_timeout = 600"
            )
        )
        status, out, err = await sysop(door, "reload")
        assert status == 0, err
        assert "server.max_nodes: 2 -> 1" in out and "server.idle_timeout: 300 -> 600" in out
        # A longer idle timeout counts at once for those on; fewer nodes only for new calls.
        assert [c.terminal.clocks.idle_timeout for c in door.service.nodes.calls] == [600, 600]
        late = await Caller.connect(door.port)
        await late.wait_for("The only node is busy")
        await late.wait_closed()
        for caller in (alice, bob):
            await caller.key("S")
            await caller.wait_for("Which board")
        # A shorter one waits for their next call; the next caller gets it at once.
        door.config_path.write_text(text.replace("idle_timeout = 300", "idle_timeout = 120"))
        status, out, err = await sysop(door, "reload")
        assert status == 0 and "server.idle_timeout: 600 -> 120" in out, err
        assert [c.terminal.clocks.idle_timeout for c in door.service.nodes.calls] == [600, 600]
        await bob.hang_up()
        carol = await sign_up(door, "Carol", "secret-three3")
        assert [c.terminal.clocks.idle_timeout for c in door.service.nodes.calls] == [600, 120]
        await alice.hang_up()
        await carol.hang_up()
    finally:
        await door.service.stop()
        await door.task


@pytest.mark.slow
@pytest.mark.expected_log_errors(r"ERROR settings not reloaded; .*server\.max_nodes = 0")
async def test_a_bad_file_is_refused_by_sysop_reload_with_check_configs_words(live):
    live.config_path.write_text(
        live.config_path.read_text().replace("max_nodes = 32", "max_nodes = 0")
    )
    status, out, err = await sysop(live, "reload")
    assert status == 1 and out == ""
    assert "server.max_nodes = 0 is not accepted: a whole number of at least 1" in err
    assert live.service.config.server.max_nodes == 32


@pytest.mark.slow
async def test_a_socket_left_by_a_door_that_died_is_replaced(tmp_path):
    import socket as sockets

    stale = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    stale.bind(str(tmp_path / "door.db.control"))
    stale.close()  # as SIGKILL leaves it: the file, with nobody listening
    door = await start_live(tmp_path)
    try:
        status, out, _ = await sysop(door, "who")
        assert status == 0 and out.strip() == "Nobody is on."
    finally:
        await door.service.stop()
        await door.task


@pytest.mark.slow
async def test_an_ssh_caller_is_listed_messaged_and_kicked_like_any_other(tmp_path):
    from tests.support.ssh import sign_up_as_new, ssh_caller

    door = await start_live(tmp_path, edits={"# port = 2222": "port = 0"})
    try:
        ssh = door.service.ways.ssh
        assert ssh is not None
        async with ssh_caller(ssh.port, "new", "anything") as (caller, _):
            await sign_up_as_new(caller, "Sshy", "hunter22")
            await start_deal(caller, DEAL)
            status, out, err = await sysop(door, "who")
            assert status == 0, err
            assert out.splitlines()[1].split()[:4] == ["1", "Sshy", "SSH", "127.0.0.1"]
            status, _, err = await sysop(door, "send", "1", "Hello over SSH")
            assert status == 0, err
            await caller.wait_for("Sysop: Hello over SSH")
            status, _, err = await sysop(door, "kick", "1", "Closing early")
            assert status == 0, err
            await caller.wait_for("The sysop has ended your call: Closing early", in_text=True)
    finally:
        await door.service.stop()
        await door.task


async def test_a_linked_boards_caller_the_sysop_sends_off_hears_why(tmp_path):
    from door.running.control import kick_farewell
    from tests.support.rlogin import ABC, linked_caller, open_rlogin_door

    door = await open_rlogin_door(tmp_path)
    try:
        caller = await linked_caller(door.port, ABC, "Linda")
        await caller.wait_for("Your choice")
        (call,) = door.ways.nodes.calls
        assert call.way == "rlogin"
        call.end(kick_farewell("Closing early"), "ended by the sysop")
        await caller.wait_closed()
        assert "The sysop has ended your call: Closing early." in caller.text
    finally:
        await door.close()


async def test_a_message_at_a_menu_shows_on_the_message_row_with_nothing_scrolled(live):
    alice = await sign_up(live)
    title = alice.row(1)
    assert title.startswith(" Canfield - ")
    status, _, err = await sysop(live, "send", "1", "The door restarts at noon")
    assert status == 0, err
    await alice.wait_for("Sysop: The door restarts at noon")
    assert alice.row(1) == title  # nothing scrolled
    assert alice.row(22) == " Sysop: The door restarts at noon"
    assert alice.row(23) == " Your choice:"
    assert (alice.screen.cursor.y, alice.screen.cursor.x) == (22, len(" Your choice: "))
    await alice.key("G")  # the goodbye leaves the last menu where it was
    await alice.wait_closed()
    assert alice.row(1) == title
    await alice.hang_up()


async def test_a_message_at_a_line_prompt_writes_the_prompt_and_the_typing_again(live):
    alice = await sign_up(live)
    await alice.key("#")
    await alice.wait_for("Deal number")
    await alice.type("12", enter=False)
    await alice.wait_for(r"Deal number \(Enter to go back\): 12")
    title = alice.row(1)
    status, _, err = await sysop(live, "send", "1", "Back in five minutes")
    assert status == 0, err
    await alice.wait_for("Sysop: Back in five minutes")
    assert alice.row(1) == title
    assert alice.row(22) == " Sysop: Back in five minutes"
    assert alice.row(23) == " Deal number (Enter to go back): 12"
    await alice.type("3")  # the typing goes on where it was: deal 123
    await alice.wait_for("Choose a level")
    await alice.key("\r")
    await alice.wait_for(r"Practice deal 123\b")
    await alice.hang_up()


async def test_a_message_at_the_log_in_prompt_keeps_the_welcome_and_the_typing(live):
    caller = await Caller.connect(live.port)
    await caller.wait_for("Your alias")
    await caller.type("Ali", enter=False)
    await caller.wait_for(r"Your alias \(or NEW\): Ali")
    title = caller.row(1)
    status, _, err = await sysop(live, "send", "1", "Welcome, early bird")
    assert status == 0, err
    await caller.wait_for("Sysop: Welcome, early bird")
    assert caller.row(1) == title
    assert caller.row(22) == " Sysop: Welcome, early bird"
    assert caller.row(23) == " Your alias (or NEW): Ali"
    await caller.hang_up()


async def test_a_plain_caller_at_a_line_prompt_gets_the_message_then_the_prompt(live):
    alice = await sign_up(live, ansi=False, term="dumb", charset="ascii")
    await alice.key("#")
    await alice.wait_for("Deal number", in_text=True)
    await alice.type("12", enter=False)
    await alice.wait_for(r"Deal number \(Enter to go back\): 12$", in_text=True)
    alice.forget_text()
    status, _, err = await sysop(live, "send", "1", "Hello there")
    assert status == 0, err
    await alice.wait_for(
        r"^\r\nSysop: Hello there\r\n Deal number \(Enter to go back\): 12$", in_text=True
    )
    assert "\x1b" not in alice.text
    await alice.hang_up()


def colours_of(caller: Caller, row: int, text: str) -> set[tuple[str, str, bool]]:
    """The colours (foreground, background, bold) ``text`` is drawn in on screen row
    ``row``."""
    start = caller.row(row).index(text)
    line = caller.screen.buffer[row - 1]
    return {(line[x].fg, line[x].bg, line[x].bold) for x in range(start, start + len(text))}


async def test_the_sysops_message_is_drawn_in_its_colours_from_the_first(live):
    alice = await sign_up(live)
    await start_deal(alice, DEAL)
    status, _, err = await sysop(live, "send", "1", "Back in five minutes")
    assert status == 0, err
    await alice.wait_for("Sysop: Back in five minutes")
    bright_yellow = {("brown", "black", True)}  # pyte's name for yellow; bold: bright
    assert colours_of(alice, 22, "Sysop: Back in five minutes") == bright_yellow
    await alice.key(RIGHT)  # drawn again at the next key: the same colours
    await alice.wait_for("(?m)^►")
    assert colours_of(alice, 22, "Sysop: Back in five minutes") == bright_yellow
    await alice.key("Q")
    await alice.wait_for("Your choice")
    status, _, err = await sysop(live, "send", "1", "Back in ten minutes")
    assert status == 0, err
    await alice.wait_for("Sysop: Back in ten minutes")
    assert colours_of(alice, 22, "Sysop: Back in ten minutes") == bright_yellow
    await alice.hang_up()
