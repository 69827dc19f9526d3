"""Callers over SSH, with asyncssh's client: log in at SSH's prompt, sign up, play, resume,
the refusals, and a client that never finishes its key exchange."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import stat
from collections.abc import AsyncIterator

import asyncssh
import pytest

from door.config import SshConfig
from tests.support.ssh import (
    SshDoor,
    WrongEveryTime,
    open_ssh_door,
    sign_up_as_new,
    ssh_caller,
    ssh_config,
)
from tests.support.telnet_caller import Caller


@pytest.fixture
async def door(tmp_path) -> AsyncIterator[SshDoor]:
    running = await open_ssh_door(ssh_config(tmp_path))
    yield running
    await running.close()


async def test_new_signs_up_plays_drops_and_resumes(door):
    async with ssh_caller(door.port, "new", "anything") as (caller, _):
        await sign_up_as_new(caller, "Sshy", "hunter22")
        assert "Hello, Sshy." in caller.display()
        await caller.key("#")
        await caller.wait_for("Deal number")
        await caller.type("48213")
        await caller.wait_for("Choose a level")
        await caller.key("1")
        await caller.wait_for(r"Command \(\? for help\)")
        assert "Practice deal 48213" in caller.display() and "♦" in caller.display()
        await caller.type("V")
        await caller.wait_for(r"Moves\s+1\b")
        assert [call.way for call in door.ways.nodes.calls] == ["ssh"]
    # The line dropped mid-game: the node is freed, the game kept.
    for _ in range(100):
        if not door.ways.nodes.calls:
            break
        await asyncio.sleep(0.05)
    assert door.ways.nodes.calls == []
    async with ssh_caller(door.port, "sshy", "hunter22") as (caller, _):
        screen = await caller.wait_for("Your choice")
        assert "Hello, Sshy." in screen and "Resume your saved game (level 1)" in screen
        await caller.key("R")
        screen = await caller.wait_for(r"Command \(\? for help\)")
        assert "Practice deal 48213" in screen and re.search(r"Moves\s+1\b", screen)
        await caller.type("Q")
        await caller.wait_for("Your choice")
        await caller.key("G")
        await caller.wait_for("Goodbye", in_text=True)
        await caller.wait_closed()


@pytest.mark.slow
async def test_a_wrong_password_is_refused_and_the_right_one_works(door, caplog):
    await door.store.create_user("Bob", "hunter22")
    caplog.set_level(logging.INFO, logger="door")
    with pytest.raises(asyncssh.PermissionDenied):
        async with ssh_caller(door.port, "Bob", "wrong-one"):
            pass
    assert "ssh: wrong password for Bob" in caplog.text
    assert "wrong-one" not in caplog.text
    assert door.ways.nodes.calls == []
    async with ssh_caller(door.port, "bob", "hunter22") as (caller, _):
        screen = await caller.wait_for("Your choice")
        assert "Hello, Bob." in screen


@pytest.mark.slow
async def test_too_many_wrong_passwords_close_the_connection(door):
    await door.store.create_user("Bob", "hunter22")
    WrongEveryTime.tries = 0
    with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
        await asyncio.wait_for(
            asyncssh.connect(
                "127.0.0.1",
                door.port,
                username="Bob",
                known_hosts=None,
                agent_path=None,
                client_keys=None,
                preferred_auth="password",
                client_factory=WrongEveryTime,
            ),
            30,
        )
    assert WrongEveryTime.tries == 3  # the door's three tries, then the line is cut


@pytest.mark.slow
async def test_a_client_that_never_finishes_its_key_exchange_holds_no_node(tmp_path):
    running = await open_ssh_door(ssh_config(tmp_path, max_nodes=1), login_timeout=1.0)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", running.port)
        writer.write(b"SSH-2.0-Stalling_1.0\r\n")  # and then nothing more, ever
        await writer.drain()
        # Meanwhile the only node is free for a caller who does log in.
        async with ssh_caller(running.port, "new", "x") as (caller, _):
            await caller.wait_for("Alias:")
            assert [call.node for call in running.ways.nodes.calls] == [1]
        # The staller is cut off by the door.
        async with asyncio.timeout(10):
            while await reader.read(4096):
                pass
        writer.close()
    finally:
        await running.close()


async def test_ssh_and_telnet_callers_share_the_nodes(tmp_path):
    running = await open_ssh_door(ssh_config(tmp_path, max_nodes=1))
    try:
        async with ssh_caller(running.port, "new", "x") as (caller, _):
            await caller.wait_for("Alias:")
            telnet = await Caller.connect(running.ways.telnet.port)
            await telnet.wait_for("The only node is busy", in_text=True)
            await telnet.wait_closed()
        for _ in range(100):
            if not running.ways.nodes.calls:
                break
            await asyncio.sleep(0.05)
        telnet = await Caller.connect(running.ways.telnet.port)
        await telnet.wait_for("Your alias")
        # Told as the connection arrives, before any password.
        with pytest.raises(asyncssh.DisconnectError, match="The only node is busy"):
            async with ssh_caller(running.port, "new", "x"):
                pass
        await telnet.hang_up()
    finally:
        await running.close()


async def test_window_size_comes_with_the_session_and_its_changes_are_followed(door):
    async with ssh_caller(door.port, "new", "x", term="xterm-256color") as (caller, process):
        await caller.wait_for("Alias:")
        [call] = door.ways.nodes.calls
        info = call.terminal.info
        assert (info.term_type, info.width, info.height, info.charset) == (
            "xterm-256color",
            80,
            24,
            "utf-8",
        )
        caller.screen.resize(50, 132)
        caller.stream.feed("\x1b[2J")  # what the window showed is lost as it grows
        process.change_terminal_size(132, 50)
        await caller.type("")  # a key, so the door reads the change
        for _ in range(100):
            if call.terminal.info.width == 132:
                break
            await asyncio.sleep(0.05)
        assert (call.terminal.info.width, call.terminal.info.height) == (132, 50)
        await caller.wait_for("Alias:")  # the page drawn again for the new size
        assert caller.row(49).startswith(" Alias:")


async def test_a_command_is_refused(door):
    connection = await asyncssh.connect(
        "127.0.0.1",
        door.port,
        username="new",
        password="x",
        known_hosts=None,
        agent_path=None,
        client_keys=None,
    )
    async with connection:
        result = await asyncio.wait_for(connection.run("cat /etc/passwd"), 10)
    assert "This door runs no commands" in str(result.stdout)
    assert door.ways.nodes.calls == []


async def test_the_host_key_is_made_once_owner_only_and_its_fingerprint_logged(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="door")
    config = ssh_config(tmp_path)
    running = await open_ssh_door(config)
    fingerprints = []
    try:
        async with ssh_caller(running.port, "new", "x") as (caller, _):
            await caller.wait_for("Alias:")
            fingerprints.append(caller.writer._connection.get_server_host_key().get_fingerprint())
    finally:
        await running.close()
    key_file = tmp_path / "canfield-ssh-host-key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert fingerprints[0] in caplog.text
    running = await open_ssh_door(config)  # the same key on the next start
    try:
        async with ssh_caller(running.port, "new", "x") as (caller, _):
            await caller.wait_for("Alias:")
            fingerprints.append(caller.writer._connection.get_server_host_key().get_fingerprint())
    finally:
        await running.close()
    assert fingerprints[0] == fingerprints[1]
    assert "made a new SSH host key" in caplog.text
    assert caplog.text.count("made a new SSH host key") == 1


@pytest.mark.slow
async def test_a_caller_adds_an_ssh_key_and_logs_in_with_it(door):
    key = asyncssh.generate_private_key("ssh-ed25519", comment="bob@home")
    public = key.export_public_key().decode().strip()
    await door.store.create_user("Bob", "hunter22")
    with pytest.raises(asyncssh.PermissionDenied):  # no key added yet
        async with ssh_caller(door.port, "Bob", key=key):
            pass
    async with ssh_caller(door.port, "Bob", "hunter22") as (caller, _):
        await caller.wait_for("Your choice")
        await caller.key("T")
        screen = await caller.wait_for("SSH key for logging in: none")
        await caller.key("K")
        await caller.wait_for("Key \\(Enter to go back\\)")
        await caller.type("ssh-ed25519 AAAAthis-is-no-key")
        screen = await caller.wait_for("not an SSH public key")
        assert "SSH key for logging in: none" in screen
        await caller.key("K")
        await caller.wait_for("Key \\(Enter to go back\\)")
        await caller.type(public)
        screen = await caller.wait_for("SSH key added")
        assert "SSH key for logging in: added" in screen
    async with ssh_caller(door.port, "bob", key=key) as (caller, _):
        screen = await caller.wait_for("Your choice")
        assert "Hello, Bob." in screen
        await caller.key("T")
        await caller.wait_for("SSH key for logging in: added")
        await caller.key("K")
        await caller.wait_for("Remove your SSH key")
        await caller.type("Y")
        await caller.wait_for("SSH key removed")
    with pytest.raises(asyncssh.PermissionDenied):
        async with ssh_caller(door.port, "Bob", key=key):
            pass
    # Another caller's key lets nobody in as Bob.
    other = asyncssh.generate_private_key("ssh-ed25519")
    alice = await door.store.create_user("Alice", "wonderland")
    await door.store.set_ssh_key(alice.id, other.export_public_key().decode().strip())
    with pytest.raises(asyncssh.PermissionDenied):
        async with ssh_caller(door.port, "Bob", key=other):
            pass


async def test_the_sysops_own_host_key_is_used(tmp_path):
    own = asyncssh.generate_private_key("ssh-ed25519")
    key_file = tmp_path / "my_host_key"
    key_file.write_bytes(own.export_private_key())
    config = dataclasses.replace(ssh_config(tmp_path), ssh=SshConfig(port=0, host_key=key_file))
    running = await open_ssh_door(config)
    try:
        async with ssh_caller(running.port, "new", "x") as (caller, _):
            await caller.wait_for("Alias:")
            served = caller.writer._connection.get_server_host_key()
        assert served.get_fingerprint() == own.get_fingerprint()
        assert not (tmp_path / "canfield-ssh-host-key").exists()
    finally:
        await running.close()


@pytest.mark.slow
async def test_a_shutdown_tells_ssh_and_telnet_callers_and_keeps_their_games(tmp_path):
    running = await open_ssh_door(ssh_config(tmp_path))
    await running.store.create_user("Bob", "hunter22")
    try:
        async with ssh_caller(running.port, "Bob", "hunter22") as (caller, _):
            await caller.wait_for("Your choice")
            await caller.key("#")
            await caller.wait_for("Deal number")
            await caller.type("48213")
            await caller.wait_for("Choose a level")
            await caller.key("1")
            await caller.wait_for(r"Command \(\? for help\)")
            await caller.type("V")
            await caller.wait_for(r"Moves\s+1\b")
            telnet = await Caller.connect(running.ways.telnet.port)
            await telnet.wait_for("Your alias")
            await running.ways.close("The door is shutting down.", grace=5.0)
            await caller.wait_for("The door is shutting down", in_text=True)
            await telnet.wait_for("The door is shutting down", in_text=True)
            await caller.wait_closed()
        assert running.ways.nodes.calls == []
        assert await running.store.unfinished_levels(1) == [1]
    finally:
        await running.close()
