"""``canfield-door local``: the sysop plays on the console, which is left as it was found.

The console is a pty; the test compares its settings before the door starts and after it
ends, by goodbye, by Ctrl-C and by a fault.
"""

from __future__ import annotations

import asyncio
import os
import termios
from pathlib import Path

import pytest

from door.commands.local import LOCAL_BBS
from door.store import Store
from tests.support.door_caller import DoorCall, write_config

CONSOLE = {"PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color", "LANG": "C.UTF-8"}


def local_args(config: Path, *extra: str) -> list[str]:
    return ["local", "--config", str(config), *extra]


def saved_moves(database: Path, alias: str) -> int | None:
    """Moves of the alias's saved game at the default level, None if there is none."""

    async def look() -> int | None:
        async with Store.open(database, create=False) as store:
            user = await store.find_user(alias, LOCAL_BBS)
            assert user is not None
            saved = await store.resume(user.id, 2)
            return None if saved is None else saved[1].moves

    return asyncio.run(look())


def test_local_play_starts_at_the_main_menu_and_restores_the_console(tmp_path):
    config = write_config(tmp_path)
    call, console = DoorCall.on_pty(local_args(config), charset="utf-8", env=CONSOLE)
    before = termios.tcgetattr(console)
    try:
        call.wait_for("Your choice:")
        assert "Hello, Sysop." in call.display()  # sysop.toml's bbs.sysop
        raw = termios.tcgetattr(console)
        assert not raw[3] & (termios.ICANON | termios.ECHO)
        assert raw[3] & termios.ISIG  # Ctrl-C still interrupts on the sysop's console
        call.send("P\r")  # a key and its Enter, as a client that sends lines does
        call.wait_for("Choose a level")
        call.send("\r")
        call.wait_for(r"Command \(\? for help\):")
        assert any(suit in call.display() for suit in "♥♦♣♠"), "UTF-8 console, UTF-8 suits"
        call.send("Q\r")
        call.wait_for("Your game is saved")
        call.send("G")
        call.wait_for("Goodbye!")
        assert call.wait_exit() == 0
        assert termios.tcgetattr(console) == before
    finally:
        call.close()
        os.close(console)
    assert saved_moves(tmp_path / "door.db", "Sysop") == 0
    assert "node 0: Sysop logged in" in call.log()


def test_ctrl_c_ends_local_play_with_the_game_saved(tmp_path):
    config = write_config(tmp_path)
    call, console = DoorCall.on_pty(
        local_args(config, "--alias", "Jane"), charset="utf-8", env=CONSOLE, controlling=True
    )
    before = termios.tcgetattr(console)
    try:
        call.wait_for("Hello, Jane.")
        call.send("P\r")
        call.wait_for("Choose a level")
        call.send("\r")
        call.send("V\r")
        call.wait_for(r"Moves +1\b")
        call.send(b"\x1a")  # Ctrl-Z must not stop the door with the console raw
        call.send(b"\x03")  # Ctrl-C
        assert call.wait_exit() == 0
        assert termios.tcgetattr(console) == before
        # The console's colours are its own again, and the shell's prompt will come on a
        # line of its own below the board, not on the board's last line.
        assert call.received.endswith(b"\x1b[0m\x1b[?25h\x1b[24;1H\x1b[K")
        assert (call.screen.cursor.y, call.screen.cursor.x) == (23, 0)
        assert call.screen.display[23].strip() == ""
    finally:
        call.close()
        os.close(console)
    assert saved_moves(tmp_path / "door.db", "Jane") == 1
    assert "SIGINT received" in call.log()


@pytest.mark.expected_log_errors(r"ERROR node 0 \(Sysop\): the visit failed")
def test_a_fault_still_restores_the_console(tmp_path):
    # A database the door can't open: the visit fails after the console went raw.
    config = write_config(tmp_path)
    text = config.read_text(encoding="utf-8").replace(
        'database = "door.db"', 'database = "no such folder/door.db"'
    )
    config.write_text(text, encoding="utf-8")
    call, console = DoorCall.on_pty(local_args(config), charset="utf-8", env=CONSOLE)
    before = termios.tcgetattr(console)
    try:
        call.wait_for("Sorry, something went wrong.")
        assert call.wait_exit() == 1
        assert termios.tcgetattr(console) == before
    finally:
        call.close()
        os.close(console)
    assert "the visit failed" in call.log()
