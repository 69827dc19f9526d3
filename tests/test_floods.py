"""Floods that would cost the door its CPU or memory, over real TCP on 127.0.0.1.

Each flood stays within what the door's first guards let through (the input allowance, the
telnet command budget) and so must be answered cheaply by the rest of the door: what it sends
back, what it keeps in memory and the work it does are bounded, not the flood's size.
"""

from __future__ import annotations

import asyncio
import gc
import re
import tracemalloc
from collections.abc import AsyncIterator

import pytest

from door.net.telnet import INPUT_BURST
from door.visit.play import GameScreen
from tests.support.door_server import RunningDoor
from tests.support.storms import (
    IAC,
    SB,
    TTYPE,
    WAIT,
    Player,
    Raw,
    hostile_door,
    nodes_settle,
    playing,
    storm_door,
)
from tests.support.telnet_caller import Caller

ALIAS_PROMPT = b"Your alias (or NEW):"
NOISE = 6000  # bytes of input that do nothing: more than any paste


@pytest.fixture
async def door(tmp_path, caplog) -> AsyncIterator[RunningDoor]:
    """A door with room for many calls from 127.0.0.1."""
    async with storm_door(tmp_path, caplog) as running:
        yield running


@pytest.fixture
async def alice(door: RunningDoor) -> AsyncIterator[Player]:
    """A player at the board of deal 1."""
    async with playing(door) as alice:
        yield alice


async def quiet_screen(caller: Caller, still: float = 1.0) -> str:
    """The caller's screen once the door has sent nothing new for ``still`` seconds."""
    async with asyncio.timeout(WAIT + 60):
        seen = -1
        while seen != len(caller.received):
            seen = len(caller.received)
            await asyncio.sleep(still)
    return caller.display()


def moves_on(screen: str) -> int:
    found = re.search(r"Moves\s+(\d+)", screen)
    assert found, screen
    return int(found.group(1))


# -- the alias prompt ---------------------------------------------------------------------------


@pytest.mark.slow
async def test_enter_at_the_alias_prompt_redraws_nothing(door: RunningDoor) -> None:
    raw = await Raw.connect(door.port)
    await raw.read_until(ALIAS_PROMPT)
    await raw.send(b"\r\n" * 500 + b"NEW\r\n")
    seen = await raw.read_until(b"Alias:")
    before_signing_up = seen[: seen.index(b"Sign up")]
    assert ALIAS_PROMPT not in seen  # the welcome page was not drawn again
    assert len(before_signing_up) < 100  # 500 Enters cost the door no page each
    raw.close()


# -- the input allowance, and noise -------------------------------------------------------------


@pytest.mark.slow
async def test_more_than_a_paste_at_once_is_a_flood(
    door: RunningDoor, caplog: pytest.LogCaptureFixture
) -> None:
    raw = await Raw.connect(door.port)
    await raw.read_until(ALIAS_PROMPT)
    raw.writer.write(b"a" * 64_000)  # within what the door used to take in one go
    await raw.read_to_end()
    assert "hung up on 127.0.0.1: a flood of input" in caplog.text
    raw.reset()


@pytest.mark.parametrize(
    "noise",
    [b"\x00", b"\x1b[99~", b"\r\n"],
    ids=["nul", "unknown-keys", "empty-lines"],
)
@pytest.mark.slow
async def test_a_call_of_only_noise_is_hung_up(
    door: RunningDoor, caplog: pytest.LogCaptureFixture, noise: bytes
) -> None:
    raw = await Raw.connect(door.port)
    await raw.read_until(ALIAS_PROMPT)
    flood = noise * (NOISE // len(noise))
    assert len(flood) < INPUT_BURST  # within the allowance: the door itself must tell
    await raw.send(flood)
    seen = await raw.read_to_end()
    assert b"Only noise came down the line. Goodbye." in seen
    assert "hang-up (line noise)" in caplog.text
    raw.reset()


# -- keys at the board ----------------------------------------------------------------------------


@pytest.mark.slow
async def test_plays_faster_than_a_person_are_dropped_with_a_word(
    door: RunningDoor, alice: Player
) -> None:
    caller = alice.caller
    await caller.key("V" * 4000)  # turn the deck, 4,000 times at once
    screen = await quiet_screen(caller)
    moves = moves_on(screen)
    assert 1 < moves <= 2000, moves  # not a play (and a stored game) a key
    assert "faster than the door can answer" in screen
    alice.moves = moves
    await alice.play()  # and the next key, on its own, plays as ever


@pytest.mark.slow
async def test_enter_at_the_board_draws_it_once(
    door: RunningDoor, alice: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    draws = 0
    draw = GameScreen.draw

    def counted(screen: GameScreen, *args: object, **kwargs: bool) -> None:
        nonlocal draws
        draws += 1
        draw(screen, *args, **kwargs)

    monkeypatch.setattr(GameScreen, "draw", counted)
    caller = alice.caller
    await caller.key("\r" * 3000)
    await quiet_screen(caller)
    assert draws <= 64, draws  # not a board drawn for every Enter
    await alice.play()


# -- telnet sub-negotiations ----------------------------------------------------------------------


async def held_by(door: RunningDoor, first: bytes) -> int:
    """Memory the door holds for 24 connections that each sent ``first``, while they last
    (or once it has hung up on them)."""
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        raws = [await Raw.connect(door.port) for _ in range(24)]
        for raw in raws:
            await raw.send(first)
        for raw in raws:  # the door has read it all by the time it welcomes the caller
            seen = await raw.read_until(ALIAS_PROMPT) if not first else await raw.read_to_end()
            assert first or ALIAS_PROMPT in seen
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    for raw in raws:
        raw.reset()
    await nodes_settle(door, 0)
    return held


@pytest.mark.slow
async def test_unterminated_subnegotiations_keep_no_memory(
    door: RunningDoor, caplog: pytest.LogCaptureFixture
) -> None:
    plain = await held_by(door, b"")
    body = b"x" * (INPUT_BURST * 3 // 4)  # within the input allowance, and no IAC SE, ever
    endless = await held_by(door, bytes([IAC, SB, TTYPE]) + body)
    assert endless - plain < 24 * 16384, (plain, endless)  # cut short: a few KB a caller
    assert "hung up on 127.0.0.1: a sub-negotiation that never ends" in caplog.text


# -- slow callers who never log in -------------------------------------------------------------

LOGIN_TIMEOUT = 12  # seconds; a caller who has answered nothing may be let go after a third


async def guests(door: RunningDoor, answer: bytes = b"") -> list[Raw]:
    """Four callers at the alias prompt (connected at once: each waits for negotiation),
    each having typed ``answer``; then a third of the log-in time goes by."""

    async def one(delay: float) -> Raw:
        await asyncio.sleep(delay)
        raw = await Raw.connect(door.port)
        await raw.read_until(ALIAS_PROMPT)
        if answer:
            await raw.send(answer)
            await raw.read_until(b"Sign up?")
        return raw

    raws = await asyncio.gather(*(one(0.1 * n) for n in range(4)))
    await asyncio.sleep(LOGIN_TIMEOUT / 3 + 0.5)
    return list(raws)


@pytest.fixture
async def small_door(tmp_path, caplog) -> AsyncIterator[RunningDoor]:
    """Six nodes, two of them kept for callers who have logged in."""
    async with hostile_door(
        tmp_path,
        caplog,
        max_nodes=6,
        reserved_nodes=2,
        max_per_address=64,
        login_timeout=LOGIN_TIMEOUT,
        idle_timeout=120,
    ) as running:
        yield running


@pytest.mark.slow
async def test_a_new_caller_ends_the_oldest_silent_call(
    small_door: RunningDoor, caplog: pytest.LogCaptureFixture
) -> None:
    silent = await guests(small_door)  # every node open to callers not yet logged in
    caller = await Caller.connect(small_door.port)
    await caller.wait_for("Your alias", WAIT)  # welcomed, not refused
    ended = await silent[0].read_to_end()
    assert ended.endswith(b"A new caller needed your node. Goodbye.\r\n")
    assert len(small_door.server.nodes.calls) == 4
    assert "hang-up (ended for a new caller)" in caplog.text
    await caller.hang_up()
    for raw in silent:
        raw.reset()


@pytest.mark.slow
async def test_busy_nodes_are_counted_truly(small_door: RunningDoor) -> None:
    answering = await guests(small_door, b"Somebody\r\n")  # not to be ended for a newcomer
    refused = await Raw.connect(small_door.port)
    said = await refused.read_to_end()
    assert b"All 4 nodes for callers not yet logged in are busy." in said
    assert b"All 6 nodes" not in said
    for raw in answering:
        raw.reset()


async def test_addresses_filling_the_nodes_make_room_for_a_caller_from_another(
    small_door: RunningDoor, caplog: pytest.LogCaptureFixture
) -> None:
    """Four answering callers from one address hold every node open to callers not logged
    in; a caller from another address gets one of theirs, and they cannot take it back."""

    async def guest(address: str, delay: float) -> Raw:
        await asyncio.sleep(delay)
        raw = await Raw.connect(small_door.port, address)
        await raw.read_until(ALIAS_PROMPT)
        await raw.send(b"Somebody\r\n")
        await raw.read_until(b"Sign up?")
        return raw

    crowd = await asyncio.gather(*(guest("127.0.11.1", 0.1 * n) for n in range(4)))
    newcomer = await guest("127.0.11.2", 0)  # welcomed, not refused
    ended = await crowd[0].read_to_end()
    assert ended.endswith(b"A new caller needed your node. Goodbye.\r\n")
    again = await Raw.connect(small_door.port, "127.0.11.1")
    assert b"nodes for callers not yet logged in are busy" in await again.read_to_end()
    assert sorted(call.address for call in small_door.server.nodes.calls) == [
        "127.0.11.1", "127.0.11.1", "127.0.11.1", "127.0.11.2"
    ]
    for raw in (*crowd[1:], newcomer):
        raw.reset()
