"""Every way in guarded alike: SSH, RLOGIN and the web's connections meet telnet's rules per
address as they arrive, wrong passwords count against the address over SSH, guesses made at
once count as guesses made one after another, and aliases from other boards meet the alias
rules."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import logging
import os
import sqlite3

import asyncssh
import pytest

from door.net.nodes import TOO_MANY_MESSAGE, TOO_OFTEN_MESSAGE
from door.net.rlogin import NOT_LINKED, WRONG_FIELDS
from door.store import AliasRefused, Store
from door.store.accounts import hash_password
from door.store.hashing import HASHING
from tests.support.rlogin import ABC, XYZ, handshake, linked_caller, open_rlogin_door, refusal
from tests.support.ssh import WrongEveryTime, open_ssh_door, ssh_caller, ssh_config
from tests.support.telnet_caller import Caller
from tests.support.web_caller import WebDoor, web_caller, web_config

ELSEWHERE = "127.0.0.2"  # a second address on the loopback network: another caller


async def stalled_ssh_client(port: int) -> asyncio.StreamWriter:
    """A connection that sends SSH's version line and then nothing: one still logging in."""
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"SSH-2.0-Stalling_1.0\r\n")
    await writer.drain()
    return writer


async def ssh_connect(
    port: int,
    username: str,
    password: str | None = None,
    *,
    address: str = "127.0.0.1",
    wait: float = 30.0,
    **more,
):
    """An SSH connection logged in with ``password`` from ``address`` within ``wait`` s."""
    return await asyncio.wait_for(
        asyncssh.connect(
            "127.0.0.1",
            port,
            username=username,
            password=password,
            known_hosts=None,
            agent_path=None,
            client_keys=None,
            preferred_auth="password",
            local_addr=(address, 0),
            **more,
        ),
        wait,
    )


async def wrong_passwords(port: int, username: str) -> None:
    """One connection's wrong passwords, until the door cuts it off."""
    with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
        await ssh_connect(port, username, client_factory=WrongEveryTime)


@contextlib.asynccontextmanager
async def door_with_users(tmp_path, *aliases: str):
    """An SSH door that lets an address hold many connections, and answers wrong passwords
    without the visit's pause, with users ``aliases`` (password ``hunter22``)."""
    # A minute to log in: on a busy machine, twenty checks in turn take a while.
    running = await open_ssh_door(ssh_config(tmp_path, max_per_address=50), login_timeout=60.0)
    try:
        assert running.ways.ssh is not None
        running.ways.ssh.login_delay = 0.01
        for alias in aliases:
            await running.store.create_user(alias, "hunter22")
        yield running
    finally:
        await running.close()


@pytest.mark.slow
async def test_ssh_connections_past_the_address_limit_are_refused_before_their_password(tmp_path):
    running = await open_ssh_door(ssh_config(tmp_path, max_per_address=2))
    try:
        await running.store.create_user("Bob", "hunter22")
        stalled = [await stalled_ssh_client(running.port) for _ in range(2)]
        await asyncio.sleep(0.2)  # both have arrived
        with pytest.raises(asyncssh.DisconnectError, match=TOO_MANY_MESSAGE):
            await ssh_connect(running.port, "Bob", "a-wrong-guess")
        # Refused before the password: nothing was checked, nothing counted against Bob.
        assert await running.store.login_failures("bob") is None
        # Another address is not held back by this one.
        async with ssh_caller(running.port, "Bob", "hunter22", address=ELSEWHERE) as (caller, _):
            await caller.wait_for("Your choice")
        for writer in stalled:
            writer.close()
        await asyncio.sleep(0.2)
        async with ssh_caller(running.port, "Bob", "hunter22") as (caller, _):
            await caller.wait_for("Your choice")
    finally:
        await running.close()


async def test_ssh_connections_too_often_are_refused_and_logged_once_a_minute(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="door")
    running = await open_ssh_door(ssh_config(tmp_path, connections_per_minute=2))
    try:
        for _ in range(2):
            (await stalled_ssh_client(running.port)).close()
        for _ in range(10):
            with pytest.raises(asyncssh.DisconnectError, match=TOO_OFTEN_MESSAGE):
                await ssh_connect(running.port, "new", "x")
        refused = [r for r in caplog.records if r.getMessage().startswith("refused SSH from")]
        assert len(refused) == 1
    finally:
        await running.close()


async def test_web_connections_too_often_are_refused_by_the_browser_s_address(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="door")
    # Behind a proxy: every WebSocket comes from 127.0.0.1, each browser named by the proxy.
    config = web_config(tmp_path, proxies=(ipaddress.ip_network("127.0.0.1/32"),))
    server = dataclasses.replace(config.server, connections_per_minute=2, max_per_address=10)
    door = await WebDoor.open(dataclasses.replace(config, server=server))
    try:
        knocking = {"X-Forwarded-For": "203.0.113.7"}
        callers = [await web_caller(door.web_port, headers=knocking) for _ in range(2)]
        for caller in callers:
            await caller.wait_for("Your alias")
        for _ in range(3):
            refused = await web_caller(door.web_port, headers=knocking)
            await refused.wait_for(TOO_OFTEN_MESSAGE, in_text=True)
            await refused.wait_closed()
        # Another browser through the same proxy is let in.
        other = await web_caller(door.web_port, headers={"X-Forwarded-For": "198.51.100.9"})
        await other.wait_for("Your alias")
        lines = [r for r in caplog.records if r.getMessage().startswith("refused WEB from")]
        assert [line.getMessage().split(":")[0] for line in lines] == [
            "refused WEB from 203.0.113.7"
        ]
        for caller in (*callers, other):
            await caller.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_wrong_ssh_passwords_count_against_the_address(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="door")
    running = await open_ssh_door(ssh_config(tmp_path))
    try:
        assert running.ways.ssh is not None
        running.ways.ssh.login_delay = 0.01
        await running.store.create_user("Bob", "hunter22")
        # Eleven wrong passwords from one address, three aliases' worth (none of them Bob).
        for name in ("Ann", "Cid", "Dee", "Eve"):
            await wrong_passwords(running.port, name)
        # The address rests: even Bob's right password is not tried from it for now...
        with pytest.raises(asyncssh.PermissionDenied):
            await ssh_connect(running.port, "Bob", "hunter22")
        # ...but Bob, calling from elsewhere, gets in.
        async with ssh_caller(running.port, "Bob", "hunter22", address=ELSEWHERE) as (caller, _):
            await caller.wait_for("Your choice")
        wrong = [r for r in caplog.records if r.getMessage().startswith("ssh: wrong password")]
        assert len(wrong) == 1 and "hunter22" not in caplog.text
    finally:
        await running.close()


@pytest.mark.slow
async def test_twenty_wrong_passwords_at_once_count_and_lock_as_twenty_in_turn(tmp_path):
    async with door_with_users(tmp_path, "Bob", "Cid") as running:

        async def guess(alias: str) -> None:
            with pytest.raises(asyncssh.PermissionDenied):
                await ssh_connect(running.port, alias, "a-wrong-guess")

        await asyncio.gather(*(guess("Bob") for _ in range(20)))  # at once
        for _ in range(20):  # one after another
            await guess("Cid")
        at_once = await running.store.login_failures("bob")
        in_turn = await running.store.login_failures("cid")
        assert at_once is not None and in_turn is not None
        # As many guesses were tried, and the alias rests as long, either way.
        assert at_once.count == in_turn.count
        assert at_once.locked_until - at_once.last == in_turn.locked_until - in_turn.last
        assert at_once.locked_until > at_once.last


@pytest.mark.slow
async def test_an_honest_log_in_during_a_burst_of_guesses_is_answered(tmp_path):
    async with door_with_users(tmp_path, "Bob", "Honest") as running:

        async def guess(number: int) -> None:
            # Refused, or cut off at the log-in time while its address's checks wait in turn.
            with pytest.raises((asyncssh.PermissionDenied, asyncssh.ConnectionLost)):
                alias = "Bob" if number % 2 else f"Nobody{number}"
                await ssh_connect(running.port, alias, "x", wait=120.0)

        burst = [asyncio.create_task(guess(number)) for number in range(20)]
        await asyncio.sleep(0.05)  # the burst is under way
        async with ssh_caller(running.port, "Honest", "hunter22", address=ELSEWHERE) as (caller, _):
            await caller.wait_for("Your choice")
        await asyncio.gather(*burst)


@pytest.mark.slow
async def test_guesses_from_addresses_that_guessed_before_wait_behind_a_clean_caller(tmp_path):
    store = await Store.open(tmp_path / "door.db")
    try:
        await store.create_user("Honest", "hunter22")
        guessers = [f"192.0.2.{n}" for n in range(1, 9)]
        for address in guessers:  # each address has guessed wrong before
            assert await store.authenticate(f"Someone{address}", "x", address=address) is None
        answered: list[str] = []

        async def check(alias: str, password: str, address: str) -> None:
            await store.authenticate(alias, password, address=address)
            answered.append(alias)

        checks = [asyncio.create_task(check(f"Other{a}", "x", a)) for a in guessers]
        async with asyncio.timeout(10):
            while HASHING.waiting < len(guessers) - 1:  # one hashing, the others in line
                await asyncio.sleep(0.001)
        checks.append(asyncio.create_task(check("Honest", "hunter22", "198.51.100.1")))
        await asyncio.gather(*checks)
        # Only the hash already running when the honest caller came went before theirs.
        assert answered.index("Honest") <= 1
    finally:
        await store.close()


async def rlogin_refusal(port: int, data: bytes, address: str = "127.0.0.1") -> bytes:
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), 5
    )
    writer.write(data)
    await writer.drain()
    said = await refusal(reader)
    writer.close()
    return said


async def test_wrong_rlogin_secrets_make_the_address_rest_and_are_logged_once_a_minute(
    tmp_path, caplog
):
    caplog.set_level(logging.INFO, logger="door")
    running = await open_rlogin_door(tmp_path)
    try:
        wrong = handshake("not-the-secret", "[ABC]Bob")
        for _ in range(4):  # three free, and the fourth begins the rest
            assert (
                await rlogin_refusal(running.port, wrong)
                == b"\x01" + WRONG_FIELDS.encode() + b"\r\n"
            )
        for data in [wrong] * 50 + [handshake(ABC.secret, "[ABC]Bob")]:
            said = await rlogin_refusal(running.port, data)
            assert said.startswith(b"\x01Too many wrong secrets lately. Try again in 15 seconds.")
        lines = [r for r in caplog.records if r.getMessage().startswith("refused RLOGIN from")]
        assert len(lines) == 1 and "not-the-secret" not in caplog.text
        # The board, connecting from its other address, is not held back.
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", running.port, local_addr=(ELSEWHERE, 0)), 5
        )
        writer.write(handshake(ABC.secret, "[ABC]Bob"))
        assert await asyncio.wait_for(reader.readexactly(1), 10) == b"\0"
        caller = Caller(reader, writer, term="ansi-bbs", charset="cp437")
        await caller.wait_for("Your choice")
        await caller.hang_up()
    finally:
        await running.close()


async def test_a_flood_from_an_unlinked_address_is_logged_once_a_minute(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="door")
    elsewhere = dataclasses.replace(ABC, addresses=(ipaddress.ip_network("192.0.2.7/32"),))
    running = await open_rlogin_door(tmp_path, boards=(elsewhere,))
    try:
        for _ in range(50):
            said = await rlogin_refusal(running.port, handshake(ABC.secret, "[ABC]Bob"))
            assert said == b"\x01" + NOT_LINKED.encode() + b"\r\n"
        lines = [r for r in caplog.records if r.getMessage().startswith("refused RLOGIN from")]
        assert len(lines) == 1
    finally:
        await running.close()


async def test_a_linked_boards_calls_are_limited_by_its_max_calls_not_by_address(tmp_path):
    hub = dataclasses.replace(ABC, max_calls=6)
    running = await open_rlogin_door(tmp_path, boards=(hub, XYZ), max_per_address=4)
    callers = []
    try:
        for number in range(6):  # more than the address's 4
            callers.append(await linked_caller(running.port, hub, f"Caller{number}"))
            await callers[-1].wait_for("Your choice")
        said = await rlogin_refusal(running.port, handshake(hub.secret, "[ABC]Seventh"))
        assert said == b"\x01All 6 of Another Board's lines are busy. Please call again later.\r\n"
        # Another board from the same address has its own limit.
        callers.append(await linked_caller(running.port, XYZ, "Zed"))
        await callers[-1].wait_for("Your choice")
    finally:
        for caller in callers:
            await caller.hang_up()
        await running.close()


@pytest.fixture
async def linked(tmp_path):
    running = await open_rlogin_door(tmp_path)
    yield running
    await running.close()


async def linked_call_ends(port: int, board, alias: str) -> str:
    """What a linked board's caller sent as ``alias`` reads before the door hangs up."""
    caller = await linked_caller(port, board, alias)
    await caller.wait_closed()
    assert all(len(line) < 80 for line in caller.display().split("\n"))
    return " ".join(caller.display().split())


@pytest.mark.parametrize("alias", ["Sysop", "SYS0P", "Admin"])
async def test_a_linked_board_cannot_send_a_name_kept_for_the_door_or_its_sysop(linked, alias):
    door = linked
    screen = await linked_call_ends(door.port, ABC, alias)
    assert f"The door can't take the alias {alias}: that alias is kept for the" in screen
    assert await door.store.find_user(alias, ABC.name) is None


async def test_a_linked_boards_alias_is_shown_cleaned_or_refused(linked):
    door = linked
    screen = await linked_call_ends(door.port, ABC, "漢字")  # wide on every screen
    assert "can't take the alias" in screen and "can't be shown on every screen" in screen
    # Strokes drawn over the letters (combining marks) are taken off.
    caller = await linked_caller(door.port, ABC, "B\u0336o\u0336b\u0336")
    screen = await caller.wait_for("Your choice")
    assert "Hello, Bob." in screen
    [user] = await door.store.users_named("bob")
    assert (user.alias, user.bbs) == ("Bob", ABC.name)
    await caller.hang_up()


async def test_a_drop_file_alias_meets_the_screen_rules(tmp_path):
    store = await Store.open(tmp_path / "door.db")
    try:
        with pytest.raises(AliasRefused, match="can't be shown on every screen"):
            await store.drop_file_user("漢字", "Dark Realm")
        with pytest.raises(AliasRefused):
            await store.drop_file_user("\u0336\u0336", "Dark Realm")
        user = await store.drop_file_user("Zoe\u0308 B\u0336", "Dark Realm")
        assert user.alias == "Zoë B"
        # The BBS's own names are its business: its sysop plays as "Sysop".
        assert (await store.drop_file_user("Sysop", "Dark Realm")).alias == "Sysop"
    finally:
        await store.close()


def test_a_bbs_caller_whose_alias_no_screen_shows_is_told_and_let_go(tmp_path):
    from tests.support.door_caller import DoorCall, door32, door_args, write_config

    config = write_config(tmp_path, "Test Board")
    dropfile = tmp_path / "DOOR32.SYS"  # a BBS that writes its drop files in UTF-8
    dropfile.write_bytes("\r\n".join(door32(alias="漢字")).encode("utf-8") + b"\r\n")
    call, slave = DoorCall.on_pty(door_args(dropfile, config))
    try:
        call.wait_for("can't take the alias")
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    assert "can't be shown on every screen" in call.log()


def stored_hash(database, alias: str) -> str:
    with contextlib.closing(sqlite3.connect(database)) as db:
        return db.execute("SELECT password FROM users WHERE alias = ?", (alias,)).fetchone()[0]


@pytest.mark.slow
async def test_an_older_hash_is_made_again_at_its_owners_next_log_in(tmp_path):
    running = await open_ssh_door(ssh_config(tmp_path))
    database = tmp_path / "door.db"
    try:
        await running.store.create_user("Old", "hunter22")
        with contextlib.closing(sqlite3.connect(database)) as db, db:
            old = hash_password("hunter22", log2_n=14)  # as the door hashed before
            db.execute("UPDATE users SET password = ? WHERE alias = 'Old'", (old,))
        with pytest.raises(asyncssh.PermissionDenied):
            await ssh_connect(running.port, "Old", "a-wrong-guess")
        assert stored_hash(database, "Old") == old
        async with ssh_caller(running.port, "Old", "hunter22") as (caller, _):
            await caller.wait_for("Your choice")
        assert stored_hash(database, "Old").startswith("scrypt$16$8$1$")
        async with ssh_caller(running.port, "Old", "hunter22") as (caller, _):
            await caller.wait_for("Your choice")
    finally:
        await running.close()


async def test_a_linked_boards_caller_refused_is_told_in_the_boards_language(tmp_path):
    (tmp_path / "sysop.toml").write_text('[words]\nlanguage = "de"\n')
    door = await open_rlogin_door(tmp_path, source=tmp_path / "sysop.toml")
    try:
        screen = await linked_call_ends(door.port, ABC, "Sysop")
        assert "Der Name Sysop ist hier nicht möglich: " in screen
        assert "can't take" not in screen
    finally:
        await door.close()
