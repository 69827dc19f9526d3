"""``canfield-door door`` run as a BBS runs it: a drop file, then the caller on a pty or socket.

Each test plays the BBS: it writes a drop file and a sysop.toml with its database in
``tmp_path``, starts the door as a subprocess, plays through a pyte screen, and then checks
the exit status, the saved game and the user row in the real database.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import socket
import subprocess
import termios
from pathlib import Path

import pytest

from door.commands.door import AUTO, SOCKET, STDIO, choose_transport
from door.engine import Game
from door.net.doorio import IAC, SB, SE, WILL, TelnetInput, escape_iac
from door.net.dropfile import DropFileError, parse_dropfile
from door.store import Store
from door.store.records import User
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

NAWS = 31
SUITS = "♥♦♣♠"

# -- drop files as BBSes write them --------------------------------------------------------------


def door_sys(
    *,
    real_name: str = "Rick Greer",
    alias: str = "Stud",
    seconds: int = 7560,
    graphics: str = "GR",
    node: int = 4,
) -> list[str]:
    lines = ["COM1:", "38400", "8", str(node), "38400", "Y", "Y", "Y", "Y", real_name]
    lines += ["Lewisville, Tx.", "214 221-7814", "214 221-7814", "PASSWORD", "110", "1456"]
    lines += ["03/14/88", str(seconds), str(seconds // 60), graphics, "24", "Y"]
    lines += ["1,2,3,4,5,6,7", "7", "01/01/99", "1", "Y", "0", "0", "0", "999999"]
    lines += ["10/22/88", "G:\\GAP\\MAIN", "G:\\GAP\\GEN", "Michael", alias, "00:05", "Y"]
    lines += ["N", "Y", "14", "0", "02/02/94", "12:34", "12:00", "32768", "0", "0", "0"]
    lines += ["None", "0", "0"]
    assert len(lines) == 52
    return lines


def dorinfo(*, board: str = "Dark Realms BBS", graphics: int = 1) -> list[str]:
    return [
        board,
        "Jane",  # sysop's first name
        "Sysop",
        "COM1",
        "38400 BAUD,N,8,1",
        "0",
        "BOB",  # caller's first name
        "SMITH",
        "Springfield, IL",
        str(graphics),
        "50",  # security level
        "59",  # minutes left
        "-1",
    ]


# -- the BBS's side ------------------------------------------------------------------------------


def stored(database: Path, alias: str, bbs: str) -> tuple[User | None, Game | None]:
    """The caller's user row and their saved game at the default level, if any."""

    async def look() -> tuple[User | None, Game | None]:
        async with Store.open(database, create=False) as store:
            user = await store.find_user(alias, bbs)
            saved = None if user is None else await store.resume(user.id, 2)
            return user, None if saved is None else saved[1]

    return asyncio.run(look())


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_config(tmp_path, "Test Board")


# -- a caller over standard input and output -----------------------------------------------------


def test_door32_caller_plays_over_stdio(tmp_path, config):
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    call, slave = DoorCall.on_pty(door_args(dropfile, config))
    before = termios.tcgetattr(slave)
    try:
        call.wait_for("Hello, Joe.")
        assert "Canfield - Test Board" in call.display()
        raw = termios.tcgetattr(slave)  # raw: keys as typed, no echo but the door's, no signals
        assert not raw[3] & (termios.ICANON | termios.ECHO | termios.ISIG)
        play_a_move_and_quit(call)
        assert call.wait_exit() == 0
        assert termios.tcgetattr(slave) == before  # the BBS gets its terminal back as it was
    finally:
        call.close()
        os.close(slave)
    assert any(suit in call.text for suit in SUITS), "ANSI callers get CP437 suit glyphs"
    # The drop file says ANSI; the screen is asked which suits it draws: CP437's first.
    assert b"\x03\x1b[6n" in call.received
    assert "the screen draws cp437" in call.log()
    user, game = stored(tmp_path / "door.db", "Joe", "Mystic BBS 1.12 A48")
    assert user is not None and game is not None
    assert (user.bbs, user.real_name) == ("Mystic BBS 1.12 A48", "Joe Caller")
    assert game.moves == 1
    assert "node 3: Joe from Mystic BBS 1.12 A48" in call.log()
    assert "node 3 (Joe): hang-up (goodbye)" in call.log()


def test_a_door32_socket_of_minus_one_is_not_logged_as_a_socket(tmp_path, config):
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32(comm=2, handle=-1))
    call, slave = DoorCall.on_pty(door_args(dropfile, config, "--io", "stdio"))
    try:
        play_a_move_and_quit(call)
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    assert "over stdio" in call.log()
    assert "socket" not in call.log() and "None" not in call.log()


def test_door_sys_caller_without_ansi_logs_beside_the_database(tmp_path, config):
    dropfile = write_dropfile(tmp_path, "DOOR.SYS", door_sys(graphics="NG"))
    # stderr on the pty too, as most BBSes run doors: the log must not reach the caller.
    call, slave = DoorCall.on_pty(door_args(dropfile, config), stderr_on_pty=True)
    try:
        call.wait_for("Hello, Stud.")
        play_a_move_and_quit(call)
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    assert b"\x1b" not in call.received, "NG: plain text, not one escape sequence"
    assert "INFO" not in call.text
    log = (tmp_path / "canfield-door.log").read_text(encoding="utf-8")
    assert "node 4: Stud from Test Board, DOOR.SYS over stdio, no ANSI, ascii" in log
    # DOOR.SYS names no board: the user is kept under sysop.toml's bbs.name.
    user, game = stored(tmp_path / "door.db", "Stud", "Test Board")
    assert user is not None and game is not None
    assert user.real_name == "Rick Greer"


def test_dorinfo_caller_plays_over_stdio(tmp_path, config):
    dropfile = write_dropfile(tmp_path, "DORINFO3.DEF", dorinfo())
    call, slave = DoorCall.on_pty(door_args(dropfile, config))
    try:
        call.wait_for("Hello, BOB SMITH.")
        play_a_move_and_quit(call)
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    user, game = stored(tmp_path / "door.db", "BOB SMITH", "Dark Realms BBS")
    assert user is not None and game is not None
    assert "node 3: BOB SMITH from Dark Realms BBS" in call.log()


@pytest.mark.slow
def test_same_alias_on_two_boards_is_two_users(tmp_path, config):
    for board in ("Dark Realms BBS", "The Other Place"):
        dropfile = write_dropfile(tmp_path, "DORINFO1.DEF", dorinfo(board=board))
        call, slave = DoorCall.on_pty(door_args(dropfile, config))
        try:
            call.wait_for("Your choice:")
            call.send("G")
            assert call.wait_exit() == 0
        finally:
            call.close()
            os.close(slave)
    first, _ = stored(tmp_path / "door.db", "BOB SMITH", "Dark Realms BBS")
    second, _ = stored(tmp_path / "door.db", "BOB SMITH", "The Other Place")
    assert first is not None and second is not None and first.id != second.id


def test_the_sysop_can_pin_the_boards_name(tmp_path, config):
    # DOOR32.SYS line 4 is the BBS software and its version, which an upgrade changes.
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    call, slave = DoorCall.on_pty(door_args(dropfile, config, "--bbs", "Joe's Place"))
    try:
        call.wait_for("Your choice:")
        call.send("G")
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    user, _ = stored(tmp_path / "door.db", "Joe", "Joe's Place")
    assert user is not None and user.bbs == "Joe's Place"


def test_carrier_lost_mid_game_keeps_the_game(tmp_path, config):
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    call, slave = DoorCall.on_pty(door_args(dropfile, config), controlling=True)
    try:
        call.wait_for("Your choice:")
        call.send("P\r")
        call.wait_for("Choose a level")
        call.send("\r")
        call.send("V\r")
        call.wait_for(r"Moves +1\b")
        call.hang_up()  # the BBS closes the pty: SIGHUP and end of input
        os.close(slave)
        assert call.wait_exit() == 0
    finally:
        call.close()
    _, game = stored(tmp_path / "door.db", "Joe", "Mystic BBS 1.12 A48")
    assert game is not None and game.moves == 1
    # The log says the line dropped, not that the door was shut down.
    assert "shut down" not in call.log()
    assert re.search(r"node 3 \(Joe\): hang-up \((carrier lost|caller gone)\)", call.log())


@pytest.mark.slow
def test_time_left_runs_out(tmp_path, config):
    dropfile = write_dropfile(tmp_path, "DOOR.SYS", door_sys(seconds=6))
    call, slave = DoorCall.on_pty(door_args(dropfile, config))
    try:
        call.wait_for("Your choice:")
        assert "You have 6 seconds left." in call.text
        call.send("P\r")
        call.wait_for("Choose a level")
        call.send("\r")
        call.send("V\r")
        call.wait_for(r"Moves +1\b")
        call.wait_for("Your time is up. Your game is saved. Goodbye.")
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    _, game = stored(tmp_path / "door.db", "Stud", "Test Board")
    assert game is not None and game.moves == 1
    assert "node 4 (Stud): hang-up (time up)" in call.log()


# -- a caller on a socket the BBS passes ---------------------------------------------------------


def test_door32_caller_plays_over_an_inherited_socket(tmp_path, config):
    bbs_end, door_end = socket.socketpair()
    flags = fcntl.fcntl(door_end.fileno(), fcntl.F_GETFL)
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32(comm=2, handle=door_end.fileno()))
    line = os.dup(bbs_end.fileno())
    call = DoorCall.on_socket(door_args(dropfile, config), line, door_end.fileno())
    try:
        call.wait_for("Hello, Joe.")
        # Telnet commands may still come from the caller's client: a window size, here.
        naws = bytes([IAC, WILL, NAWS, IAC, SB, NAWS, 0, 80, 0, 24, IAC, SE])
        call.send(naws[:7])
        call.send(naws[7:])
        play_a_move_and_quit(call)
        assert call.wait_exit() == 0
        assert fcntl.fcntl(door_end.fileno(), fcntl.F_GETFL) == flags  # blocking, as it was
        # The door closed its copy only: the BBS's connection to the caller is still up.
        bbs_end.sendall(b"back at the BBS")
        door_end.settimeout(WAIT)
        assert door_end.recv(64) == b"back at the BBS"
    finally:
        call.close()
        bbs_end.close()
        door_end.close()
    user, game = stored(tmp_path / "door.db", "Joe", "Mystic BBS 1.12 A48")
    assert user is not None and game is not None and game.moves == 1
    assert "DOOR32.SYS over socket" in call.log()


def test_telnet_commands_split_anywhere_are_taken_out():
    sent = b"a" + bytes([IAC, WILL, NAWS, IAC, SB, NAWS, 0, 80, 0, 24, IAC, SE]) + b"b\xff\xffc"
    telnet = TelnetInput()
    kept = b"".join(telnet.feed(sent[i : i + 1]) for i in range(len(sent)))
    assert kept == b"ab\xffc"
    assert escape_iac(b"\xff\xfe") == b"\xff\xff\xfe"


def test_transport_follows_the_drop_file():
    local = parse_dropfile("\r\n".join(door32(comm=0)).encode(), "door32")
    one, other = socket.socketpair()
    with one, other:
        passed = parse_dropfile("\r\n".join(door32(comm=2, handle=one.fileno())).encode(), "door32")
        assert choose_transport(passed, AUTO) == SOCKET
        assert choose_transport(passed, STDIO) == STDIO
    assert choose_transport(local, AUTO) == STDIO
    # A socket named but not handed over (Mystic on Linux redirects stdio): standard I/O.
    assert choose_transport(passed, AUTO) == STDIO
    with pytest.raises(DropFileError, match="line 2: expected the handle of a socket"):
        choose_transport(passed, SOCKET)
    with pytest.raises(DropFileError, match="line 1: expected comm type 2"):
        choose_transport(local, SOCKET)


# -- drop files that can't be used ---------------------------------------------------------------

MALFORMED = {
    "missing": ("DOOR32.SYS", None, "DOOR32.SYS: no such file"),
    "short": ("DOOR32.SYS", door32()[:6], "has 6 lines, DOOR32.SYS needs 11"),
    "minutes": (
        "DOOR32.SYS",
        [*door32()[:8], "lots", *door32()[9:]],
        "line 9: expected minutes left (a whole number), found 'lots'",
    ),
    "graphics": (
        "DOOR.SYS",
        [*door_sys()[:19], "COLOUR", *door_sys()[20:]],
        "line 20: expected graphics mode GR, NG, 7E or RIP, found 'COLOUR'",
    ),
    "seconds": (
        "DOOR.SYS",
        [*door_sys()[:17], "-5", *door_sys()[18:]],
        "line 18: expected seconds left (a whole number), found '-5'",
    ),
    "dorinfo": (
        "DORINFO1.DEF",
        [*dorinfo()[:9], "ansi", *dorinfo()[10:]],
        "line 10: expected graphics 0 (ASCII), 1 (ANSI), 2 (Avatar) or 3 (RIP), found 'ansi'",
    ),
    "name": ("CALLINFO.BBS", door32(), "can't tell the drop file's format from its name"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", MALFORMED)
def test_a_bad_drop_file_is_refused_and_nothing_written(tmp_path, config, case):
    name, lines, message = MALFORMED[case]
    path = tmp_path / name
    if lines is not None:
        write_dropfile(tmp_path, name, lines)
    before = sorted(tmp_path.iterdir())
    done = subprocess.run(
        door_command(*door_args(path, config)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=WAIT,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    error = done.stderr.decode()
    assert error.count("\n") == 1, error
    assert error.startswith(f"{path}: ")
    assert message in error
    assert sorted(tmp_path.iterdir()) == before  # no database, no log


def test_socket_wanted_but_the_drop_file_has_none(tmp_path, config):
    dropfile = write_dropfile(tmp_path, "DOOR.SYS", door_sys())
    done = subprocess.run(
        door_command(*door_args(dropfile, config, "--io", "socket")),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=WAIT,
    )
    assert done.returncode == 2
    assert "--io socket needs DOOR32.SYS" in done.stderr.decode()
    assert not (tmp_path / "door.db").exists()


def test_a_bad_sysop_toml_is_exit_status_1(tmp_path):
    config = write_config(tmp_path, idle_timeout='"soon"')
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    done = subprocess.run(
        door_command(*door_args(dropfile, config)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=WAIT,
    )
    assert done.returncode == 1
    assert "server.idle_timeout" in done.stderr.decode()
    assert not (tmp_path / "door.db").exists()


def test_the_window_size_the_bbs_gives_is_drawn_for(tmp_path, config):
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    call, slave = DoorCall.on_pty(door_args(dropfile, config, "--size", "40x24"))
    try:
        call.wait_for("Your choice:")
        rows = call.display().splitlines()
        assert max(len(row.rstrip()) for row in rows) <= 39  # the menu wrapped at 40 columns
        call.send("G")
        call.wait_for("Goodbye!")
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)


def test_window_sizes_a_telnet_client_reports_are_taken_out_and_kept():
    telnet = TelnetInput()
    sent = bytes([IAC, SB, NAWS, 0, 132, 0, 43, IAC, SE, IAC, SB, NAWS, 0, 255, 255, 0, 50])
    assert telnet.feed(sent + bytes([IAC, SE]) + b"k") == b"k"
    assert telnet.take_sizes() == [(132, 43), (255, 50)]  # 0xFF comes doubled
