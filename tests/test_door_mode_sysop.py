"""The sysop's who, send, kick and watch reach a caller a BBS sent through its doors menu:
each door-mode call answers on a control socket of its own beside the database, listed
with ``serve``'s callers, named by the BBS's node (``D3``)."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from door.commands.cli import AdminError
from door.commands.live import door_mode_calls
from door.files import not_private
from door.running.control import calls_folder
from door.store import Store
from tests.support.door_caller import (
    WAIT,
    DoorCall,
    door32,
    door_args,
    door_command,
    sysop_command,
    write_config,
    write_dropfile,
)
from tests.support.live_door import start_live, sysop
from tests.support.visits import sign_up

MYSTIC = "Mystic BBS 1.12 A48"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_config(tmp_path, "Test Board")


def at_the_menu(tmp_path: Path, config: Path, **drop: object) -> tuple[DoorCall, int]:
    """A door-mode caller (DOOR32.SYS, node 3 of Mystic unless ``drop`` says) at the main
    menu; the call and its pty's slave side, for the test to close."""
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32(**drop))  # type: ignore[arg-type]
    call, slave = DoorCall.on_pty(door_args(dropfile, config))
    call.wait_for("Your choice:")
    return call, slave


def listed(config: Path) -> list[str]:
    result = sysop_command(config, "who")
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.slow
def test_who_send_and_kick_reach_a_door_mode_caller(tmp_path, config):
    call, slave = at_the_menu(tmp_path, config)
    try:
        lines = listed(config)
        assert lines[0].split() == ["Node", "Alias", "Way", "From", "Doing", "Idle", "On"]
        assert lines[1].split()[:4] == ["D3", "Joe", "door", "mode"]
        assert MYSTIC in lines[1] and "main menu" in lines[1]
        # The socket is the caller's own, owner-only in an owner-only folder.
        folder = calls_folder(tmp_path / "door.db")
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        (sock,) = folder.iterdir()
        assert sock.name == str(call.process.pid)
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600

        sent = sysop_command(config, "send", "d3", "Back in five minutes")
        assert (sent.returncode, sent.stdout.strip()) == (0, "Sent to node D3."), sent.stderr
        call.wait_for("Sysop: Back in five minutes")
        everyone = sysop_command(config, "send", "all", "Closing at noon")
        assert everyone.stdout.strip() == "Sent to node D3.", everyone.stderr
        call.wait_for("Sysop: Closing at noon")
        # Node 3 of the running door (not running) is not the BBS's node 3.
        assert "the door is not running" in sysop_command(config, "send", "3", "hi").stderr
        missing = sysop_command(config, "kick", "D4")
        assert missing.returncode == 1 and "nobody is on node D4" in missing.stderr

        call.send("P\r")
        call.wait_for("Choose a level")
        call.send("\r")
        call.send("V\r")
        call.wait_for(r"Moves +1\b")
        kicked = sysop_command(config, "kick", "D3", "Maintenance")
        assert kicked.returncode == 0, kicked.stderr
        assert "Ended the call on node D3" in kicked.stdout
        call.wait_for("The sysop has ended your call: Maintenance. Your game is saved.")
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    assert "node 3 (Joe): hang-up (ended by the sysop)" in call.log()
    assert not any(folder.iterdir()), "the call's socket goes with it"
    assert sysop_command(config, "who").returncode == 1

    async def saved_moves() -> int:
        async with Store.open(tmp_path / "door.db", create=False) as store:
            user = await store.find_user("Joe", MYSTIC)
            assert user is not None
            saved = await store.resume(user.id, 2)
            assert saved is not None
            return saved[1].moves

    assert asyncio.run(saved_moves()) == 1


def test_watch_shows_a_door_mode_callers_screen(tmp_path, config):
    call, slave = at_the_menu(tmp_path, config)
    watcher = subprocess.Popen(
        door_command("sysop", "--config", str(config), "watch", "D3"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert watcher.stdout is not None and watcher.stdin is not None
        os.set_blocking(watcher.stdout.fileno(), False)
        seen = b""
        deadline = time.monotonic() + WAIT
        call.send("S")  # the scoreboards' menu: drawn for the caller, and the watcher
        while b"Which board" not in seen:
            assert time.monotonic() < deadline, seen[-500:]
            call.drain(0.1)
            seen += watcher.stdout.read() or b""
        watcher.stdin.write(b"q")
        watcher.stdin.flush()
        _, err = watcher.communicate(timeout=WAIT)
        assert watcher.returncode == 0, err
        assert b"Watching node D3 (Joe)" in err
        call.send("Q")
        call.wait_for("Your choice:")
        call.send("G")
        assert call.wait_exit() == 0
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait(WAIT)
        call.close()
        os.close(slave)


def test_a_door_mode_call_killed_is_not_listed_and_its_socket_goes(tmp_path, config):
    call, slave = at_the_menu(tmp_path, config)
    folder = calls_folder(tmp_path / "door.db")
    try:
        (left,) = folder.iterdir()
        os.kill(call.process.pid, signal.SIGKILL)  # the BBS gone, or a kill -9
        call.process.wait(WAIT)
        assert left.exists()
        result = sysop_command(config, "who")
        assert result.returncode == 1 and "the door is not running" in result.stderr
        assert not left.exists(), "a socket nobody answers on, of a process gone, is removed"
    finally:
        call.close()
        os.close(slave)


@pytest.mark.slow
async def test_serves_callers_and_door_mode_callers_are_listed_together(tmp_path):
    live = await start_live(tmp_path)
    alice = await sign_up(live)
    call, slave = await asyncio.to_thread(at_the_menu, tmp_path, live.config_path, node=1)
    try:
        status, out, err = await sysop(live, "who")
        assert status == 0, err
        lines = out.splitlines()
        assert lines[1].split()[:3] == ["1", "Alice", "telnet"]
        assert lines[2].split()[:4] == ["D1", "Joe", "door", "mode"]
        status, out, err = await sysop(live, "send", "all", "Closing at noon")
        assert (status, out.strip()) == (0, "Sent to nodes 1, D1."), err
        await alice.wait_for("Sysop: Closing at noon")
        await asyncio.to_thread(call.wait_for, "Sysop: Closing at noon")
        await asyncio.to_thread(call.send, "G")
        assert await asyncio.to_thread(call.wait_exit) == 0
    finally:
        await asyncio.to_thread(call.close)
        os.close(slave)
        await alice.hang_up()
        await live.service.stop()
        async with asyncio.timeout(WAIT):
            await live.task


async def test_a_calls_folder_open_to_others_is_not_trusted(tmp_path) -> None:
    """Another user who made (or may write in) the folder could plant sockets there that
    take the sysop's messages: a call does not listen in it, and the sysop is told why."""
    database = tmp_path / "door.db"
    folder = calls_folder(database)
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    assert not_private(folder) == f"{folder} is open to other users (mode 777)"
    with pytest.raises(AdminError, match=r"can't be trusted: .* open to other users"):
        door_mode_calls(folder)
    folder.chmod(0o700)
    assert not_private(folder) is None
    assert door_mode_calls(folder) == []
