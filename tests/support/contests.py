"""A door for tests of contests, on the test's clock, and a caller's steps on a contest's
page."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

from door.config import RloginConfig
from door.running.ways import open_ways
from door.solving.pool import Solving
from door.store import Store
from tests.support.door_server import door_config, steady_app
from tests.support.rlogin import ABC, XYZ, RloginDoor
from tests.support.telnet_caller import Caller


class Clock:
    """The store's clock, moved on by the test; it starts at the real time (the sysop's
    command, on its own clock, declares the contest an hour ahead of it)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclasses.dataclass
class ContestDoor(RloginDoor):
    """A door listening for telnet callers and for two linked boards over RLOGIN, on the
    test's clock."""

    clock: Clock = dataclasses.field(default_factory=Clock)

    @property
    def telnet(self) -> SimpleNamespace:  # what the helpers of test_visit call
        return SimpleNamespace(port=self.ways.telnet.port)


async def open_contest_door(tmp_path: Path) -> ContestDoor:
    config = door_config(tmp_path)
    config = dataclasses.replace(config, rlogin=RloginConfig(port=0, boards=(ABC, XYZ)))
    clock = Clock()
    store = await Store.open(config.server.database, clock=clock)
    solving = Solving(store, config)
    app = steady_app(store, config, solving)
    ways = await open_ways(app, detect_timeout=0.5, handshake_timeout=5.0)
    return ContestDoor(ways, store, config, solving, clock)


async def start(caller: Caller, number: int, contest: str = "Winter Cup") -> int:
    """Deal ``number`` of the contest, from its page; the game's id from the board."""
    await caller.key(str(number))
    await caller.wait_for(r"Command \(\? for help\)")
    assert f"{contest}, deal {number}" in caller.row(1)
    found = re.search(r"Game (\d+)", caller.row(1))
    assert found is not None
    return int(found.group(1))


async def resign(caller: Caller) -> str:
    await caller.type("N")
    await caller.wait_for("Resign this deal\\? It counts with its score")
    await caller.key("Y")
    screen = await caller.wait_for(r"Game resigned, score (-?\d+)")
    await caller.type("")
    await caller.wait_for("Deal resigned. Its score is on the contest's table")
    return screen
