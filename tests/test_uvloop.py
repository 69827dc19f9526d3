"""The door on uvloop's event loop, not asyncio's own: it relies on no private state of
asyncio's loop or transports but where :mod:`door.net.library_internals` handles both."""

from __future__ import annotations

import asyncio
import logging

import pytest
import uvloop

from tests.support.door_server import door_config, open_door
from tests.support.visits import log_in, sign_up, start_deal


async def whole_calls(tmp_path) -> None:
    assert isinstance(asyncio.get_running_loop(), uvloop.Loop)
    door = await open_door(door_config(tmp_path))
    try:
        caller = await sign_up(door, "Looper")
        await start_deal(caller, 48213)
        await caller.key("V")
        await caller.wait_for(r"Moves\s+1\b")
        await caller.type("Q")
        await caller.wait_for("Your choice")
        await caller.key("G")
        await caller.wait_closed()
        caller = await log_in(door, "Looper")
        await caller.key("G")
        await caller.wait_closed()
        async with asyncio.timeout(5):
            while door.server.nodes.calls:
                await asyncio.sleep(0.05)
    finally:
        await door.close()


@pytest.mark.slow
def test_a_whole_call_on_uvloop(tmp_path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(whole_calls(tmp_path))
    faults = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert faults == [], [r.getMessage() for r in faults]
    messages = [r.getMessage() for r in caplog.records]
    assert sum("hang-up (goodbye)" in message for message in messages) == 2, messages
