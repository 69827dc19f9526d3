"""The node table's rules against callers who would hold the door: a time to log in, keys
that change nothing are not activity, nodes kept for callers who have logged in,
connections per address over time (IPv6 by /64), and taking over one's own call on
another node, its game saved."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator

import pytest

from door.config import ServerConfig, load_config
from door.net.nodes import (
    LOGIN_TIMEOUT_MESSAGE,
    TAKEN_OVER_MESSAGE,
    TOO_MANY_MESSAGE,
    TOO_OFTEN_MESSAGE,
    Nodes,
    address_key,
)
from tests.support.door_server import RunningDoor, door_config, open_door
from tests.support.storms import NEGOTIATE_SOON, WAIT, Raw, sign_up
from tests.support.telnet_caller import Caller

CTRL_U, UP = b"\x15", b"\x1b[A"


@contextlib.asynccontextmanager
async def door_with(tmp_path, **server: object) -> AsyncIterator[RunningDoor]:
    running = await open_door(door_config(tmp_path, **server), negotiate_timeout=NEGOTIATE_SOON)
    try:
        yield running
    finally:
        await running.close()


async def keep_pressing(raw: Raw, keys: bytes, every: float = 0.4) -> None:
    """Keys that change nothing, pressed more often than any limit, until hung up."""
    with contextlib.suppress(ConnectionError, OSError):
        for _ in range(100):
            raw.writer.write(keys)
            await asyncio.sleep(every)


async def logged(caplog, text: str) -> None:
    """Wait until the door's log has ``text`` (a visit logs its end once it has hung up)."""
    for _ in range(100):
        if text in caplog.text:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{text!r} not in the log:\n{caplog.text}")


@pytest.mark.slow
async def test_a_caller_who_never_logs_in_is_hung_up(tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="door")
    async with door_with(tmp_path, login_timeout=2, idle_timeout=300) as door:
        raw = await Raw.connect(door.port)
        await raw.read_until(b"Your alias (or NEW):")
        await raw.send(b"Some")  # typing, but never logging in
        pressing = asyncio.create_task(keep_pressing(raw, b"x\x08"))
        seen = await raw.read_to_end()
        pressing.cancel()
        assert seen.endswith(f"{LOGIN_TIMEOUT_MESSAGE}\r\n".encode())
        assert b"saved" not in seen
        # The log gives the real reason, not the sysop's.
        await logged(caplog, "node 1: hang-up (not logged in in time)")
        assert "ended by the sysop" not in caplog.text


@pytest.mark.slow
async def test_a_caller_who_logs_in_in_time_stays(tmp_path) -> None:
    async with door_with(tmp_path, login_timeout=3, idle_timeout=300) as door:
        caller = await sign_up(door.port, "Stayer")
        await asyncio.sleep(4)  # past the log-in limit, logged in
        await caller.key("M")
        await caller.wait_for("Your statistics", WAIT)
        assert not caller.closed.is_set()
        await caller.hang_up()


@pytest.mark.slow
async def test_keys_that_change_nothing_are_not_activity(tmp_path) -> None:
    async with door_with(tmp_path, idle_timeout=3, idle_warning=1) as door:
        for keys in (CTRL_U, UP):
            raw = await Raw.connect(door.port)
            await raw.read_until(b"Your alias (or NEW):")
            pressing = asyncio.create_task(keep_pressing(raw, keys))
            seen = await raw.read_to_end()
            pressing.cancel()
            assert seen.endswith(b"No input for 3 seconds. Goodbye.\r\n"), keys


@pytest.mark.slow
async def test_callers_not_logged_in_leave_the_reserved_nodes_free(tmp_path) -> None:
    async with door_with(tmp_path, max_nodes=3, reserved_nodes=1, max_per_address=10) as door:
        guests = []
        for _ in range(2):
            guest = await Raw.connect(door.port)
            await guest.read_until(b"Your alias (or NEW):")
            guests.append(guest)
        third = await Raw.connect(door.port)
        said = await third.read_to_end()  # the two for callers not logged in, truly said
        assert b"All 2 nodes for callers not yet logged in are busy." in said
        assert len(door.server.nodes.calls) == 2  # one node left, for a caller logged in
        assert door.server.nodes.refusal("127.0.0.1", logged_in=True, count=False) is None
        # A guest who logs in leaves the guests' share: another guest may come.
        guests[0].close()
        member = await sign_up(door.port, "Member")
        fourth = await Raw.connect(door.port)
        await fourth.read_until(b"Your alias (or NEW):")
        await member.hang_up()
        for raw in (guests[1], fourth):
            raw.close()


@pytest.mark.slow
async def test_connections_per_address_are_limited_over_time(tmp_path) -> None:
    async with door_with(tmp_path, connections_per_minute=5, max_per_address=10) as door:
        for _ in range(5):
            raw = await Raw.connect(door.port)
            await raw.read_until(b"Your alias (or NEW):")
            raw.close()
        refused = await Raw.connect(door.port)
        assert TOO_OFTEN_MESSAGE.encode() in await refused.read_to_end()
        again = await Raw.connect(door.port)  # knocking again keeps the address refused
        assert TOO_OFTEN_MESSAGE.encode() in await again.read_to_end()


def test_ipv6_callers_count_by_their_64() -> None:
    limits = dataclasses.replace(ServerConfig(), max_per_address=1, connections_per_minute=3)
    nodes = Nodes(limits)
    block = "2001:db8:5:7:"
    assert address_key(block + ":1") == address_key(block + "ffff:1:2:3") == "2001:db8:5:7::/64"
    assert address_key("::ffff:198.51.100.4") == "198.51.100.4"
    answers = [nodes.refusal(f"{block}{n}::1") for n in range(1, 5)]
    assert answers == [None, None, None, TOO_OFTEN_MESSAGE]
    assert nodes.refusal("2001:db8:5:8::1") is None  # the next /64 is someone else


@pytest.mark.slow
async def test_at_most_max_per_address_at_once_counts_the_64(tmp_path) -> None:
    async with door_with(tmp_path, max_per_address=1) as door:
        first = await Raw.connect(door.port)
        await first.read_until(b"Your alias (or NEW):")
        second = await Raw.connect(door.port)
        assert TOO_MANY_MESSAGE.encode() in await second.read_to_end()
        first.close()


@pytest.mark.slow
async def test_logging_in_again_takes_over_the_other_node_with_the_game_saved(
    tmp_path, caplog
) -> None:
    caplog.set_level(logging.INFO, logger="door")
    async with door_with(tmp_path) as door:
        first = await sign_up(door.port, "Twice")
        await first.type("P")  # P and Enter: the Enter is the key's own, swallowed
        await first.wait_for("Level:", WAIT)
        await first.key("\r")
        await first.wait_for("Command", WAIT)
        await first.type("V")
        await first.wait_for(r"Moves\s+1\b", WAIT)

        second = await Caller.connect(door.port)
        await second.wait_for("Your alias", WAIT)
        await second.type("twice")
        await second.wait_for("Password", WAIT)
        await second.type("secret-one1")
        await second.wait_for("You are logged in on node 1 already", WAIT)
        await second.key("Y")  # one key, no Enter
        await first.wait_closed(WAIT)
        assert TAKEN_OVER_MESSAGE in first.text
        await logged(caplog, "node 1 (Twice): hang-up (taken over by a log-in on another node)")
        await second.wait_for("Resume your saved game", WAIT)
        await second.key("R")
        await second.wait_for(r"Moves\s+1\b", WAIT)  # the move made on node 1 was kept
        assert [call.node for call in door.server.nodes.calls] == [2]
        await second.hang_up()


@pytest.mark.slow
async def test_declining_to_take_over_leaves_the_other_call_alone(tmp_path) -> None:
    async with door_with(tmp_path) as door:
        first = await sign_up(door.port, "Once")
        second = await Caller.connect(door.port)
        await second.wait_for("Your alias", WAIT)
        await second.type("Once")
        await second.wait_for("Password", WAIT)
        await second.type("secret-one1")
        await second.wait_for("Take over", WAIT)
        await second.key("N")  # one key, no Enter
        await second.wait_closed(WAIT)
        await first.key("M")
        await first.wait_for("Your statistics", WAIT)
        await first.hang_up()


async def test_a_flood_of_refused_connections_is_logged_once_a_minute(tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="door")
    async with door_with(tmp_path, connections_per_minute=2, max_per_address=10) as door:
        for _ in range(2):  # admitted
            (await Raw.connect(door.port)).close()
        for _ in range(40):
            raw = await Raw.connect(door.port)
            assert TOO_OFTEN_MESSAGE.encode() in await raw.read_to_end()
        refusals = [r for r in caplog.records if r.getMessage().startswith("refused 127.0.0.1")]
        assert len(refusals) == 1


def test_reserved_nodes_always_leave_a_node_to_log_in_on(tmp_path) -> None:
    path = tmp_path / "sysop.toml"
    path.write_text("[server]\nmax_nodes = 4\nreserved_nodes = 4\n")
    assert load_config(path).server.reserved_nodes == 3
    path.write_text("[server]\nmax_nodes = 2\n")  # the shipped 4 kept: 1 left for log-ins
    assert load_config(path).server.reserved_nodes == 1
