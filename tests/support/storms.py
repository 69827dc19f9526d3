"""Storms against a door over real TCP: the door that weathers them, raw connections, and
a well-behaved player whose game must go on."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import socket
import struct
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

import pytest

from tests.support.door_server import RunningDoor, door_config, open_door
from tests.support.telnet_caller import Caller

IAC, DONT, DO, WONT, WILL, SB, SE, NOP, AYT = 255, 254, 253, 252, 251, 250, 240, 241, 246
ECHO, TTYPE, NAWS, MCCP2, MCCP3 = 1, 24, 31, 86, 87


PATIENT = 120  # seconds: the idle limit of the door that weathers storms
WAIT = 30.0  # seconds any one answer may take; far more than it needs
NEGOTIATE_SOON = 0.5  # seconds the storms' door waits for telnet negotiation answers


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What was logged at ERROR or worse, in every phase of the test so far."""
    records = caplog.get_records("setup") + caplog.get_records("call") + caplog.records
    return [f"{r.name}: {r.getMessage()}" for r in records if r.levelno >= logging.ERROR]


@contextlib.asynccontextmanager
async def hostile_door(
    tmp_path, caplog: pytest.LogCaptureFixture, **server: object
) -> AsyncIterator[RunningDoor]:
    """A door; on leaving, nothing may have been logged at ERROR."""
    # The door's own lines, and everyone's warnings; telnetlib3's connection lines hold on to
    # their connections, which would spoil the memory measurements.
    caplog.set_level(logging.WARNING)
    caplog.set_level(logging.INFO, logger="door")
    # Raw connections never answer telnet negotiation: waiting half a second for answers that
    # never come is as good as the door's two.
    running = await open_door(door_config(tmp_path, **server), negotiate_timeout=NEGOTIATE_SOON)
    try:
        yield running
    finally:
        await running.close()
        gc.collect()  # a task whose exception nobody retrieved is reported now
        assert _errors(caplog) == []


@dataclass
class Player:
    """A well-behaved caller at the board of deal 1, counting the moves it has seen."""

    caller: Caller
    moves: int = 0

    async def play(self) -> None:
        """Turn the deck (V) and wait for the board to show the move."""
        await self.caller.type("V")
        self.moves += 1
        await self.caller.wait_for(rf"Moves\s+{self.moves}\b", WAIT)


async def sign_up(port: int, alias: str, **options: object) -> Caller:
    caller = await Caller.connect(port, **options)
    await caller.wait_for("Your alias", WAIT)
    await caller.type(alias)
    await caller.wait_for(r"Sign up\?", WAIT)
    await caller.type("Y")
    await caller.wait_for("Password:", WAIT)
    await caller.type("secret-one1")
    await caller.wait_for("Password again", WAIT)
    await caller.type("secret-one1")
    await caller.wait_for("Your choice", WAIT)
    return caller


async def player(door: RunningDoor, alias: str = "Alice") -> Player:
    """A caller signed up and at the board of deal 1 (turning its deck never gets stuck)."""
    caller = await sign_up(door.port, alias)
    await caller.key("#")
    await caller.wait_for("Deal number", WAIT)
    await caller.type("1")
    await caller.wait_for("Level:", WAIT)
    await caller.key("\r")
    await caller.wait_for("Command", WAIT)
    return Player(caller)


@dataclass
class Raw:
    """A connection that speaks no telnet unless told to: bytes in, bytes out."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    @classmethod
    async def connect(cls, port: int, address: str | None = None) -> Raw:
        """A connection to ``port``, from ``address`` in 127.0.0.0/8 if given."""
        local = (address, 0) if address is not None else None
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=local), WAIT
        )
        return cls(reader, writer)

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        with contextlib.suppress(ConnectionError):
            await asyncio.wait_for(self.writer.drain(), WAIT)

    async def read_until(self, pattern: bytes, timeout: float = WAIT) -> bytes:
        """Everything received until ``pattern`` (AssertionError if it never comes)."""
        got = bytearray()
        async with asyncio.timeout(timeout):
            while pattern not in got:
                data = await self.reader.read(65536)
                if not data:
                    break
                got += data
        assert pattern in got, f"{pattern!r} not received; got {bytes(got[-500:])!r}"
        return bytes(got)

    async def read_to_end(self, timeout: float = WAIT) -> bytes:
        """Everything received until the door hangs up."""
        got = bytearray()
        async with asyncio.timeout(timeout):
            with contextlib.suppress(ConnectionError):
                while data := await self.reader.read(65536):
                    got += data
        return bytes(got)

    def close(self) -> None:
        self.writer.close()

    def reset(self) -> None:
        """Close with a TCP reset instead of a goodbye, dropping anything unsent."""
        with contextlib.suppress(OSError):  # already closed by the door
            sock = self.writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()


async def nodes_settle(door: RunningDoor, busy: int) -> None:
    """Wait until only ``busy`` nodes are taken (callers that left have been cleared)."""
    async with asyncio.timeout(WAIT):
        while len(door.server.nodes.calls) != busy:
            await asyncio.sleep(0.02)


def storm_door(
    tmp_path, caplog: pytest.LogCaptureFixture
) -> AbstractAsyncContextManager[RunningDoor]:
    """A door for storms, with room for many connections from 127.0.0.1."""
    return hostile_door(tmp_path, caplog, max_nodes=64, max_per_address=64, idle_timeout=PATIENT)


@contextlib.asynccontextmanager
async def playing(door: RunningDoor, alias: str = "Alice") -> AsyncIterator[Player]:
    """A player at the board of deal 1 who has played once, hung up on leaving."""
    someone = await player(door, alias)
    await someone.play()
    yield someone
    await someone.caller.hang_up()
