"""Shared test settings."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# CI must not flake: there, every property test runs the same examples each time.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A run fails on a skip that is not on the short list the README explains.
pytest_plugins = ["allowed_skips"]

# The tests' folders (tmp_path) go to memory-backed /dev/shm where there is one: their SQLite
# files are as real, and every commit still calls fsync, which there does not wait for a disk
# that other work keeps busy.
if os.access("/dev/shm", os.W_OK):
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", "/dev/shm")


# -- a door on 127.0.0.1 for end-to-end tests ----------------------------------------------------

import dataclasses  # noqa: E402
from collections.abc import AsyncIterator, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from door.config import Config, load_config  # noqa: E402
from door.net.nodes import Nodes  # noqa: E402
from door.net.telnet import NEGOTIATE_TIMEOUT, DoorServer, start_server  # noqa: E402
from door.solving.pool import Solving  # noqa: E402
from door.store import Clock, Store  # noqa: E402
from door.store.base import BUSY_TIMEOUT_MS  # noqa: E402
from door.visit.session import telnet_visit  # noqa: E402

SHIPPED_CONFIG = Path(__file__).resolve().parent.parent / "sysop.toml"


def door_config(tmp_path: Path, **server_changes) -> Config:
    """The shipped sysop.toml, listening on 127.0.0.1 port 0 with a database in tmp_path, the
    web off (the shipped port is a fixed one; tests that want the web take a free port)."""
    config = load_config(SHIPPED_CONFIG)
    # Every test caller comes from 127.0.0.1: the limits that tell addresses apart are set
    # out of the way unless a test sets them.
    server_changes.setdefault("connections_per_minute", 100_000)
    server_changes.setdefault("reserved_nodes", 0)
    server_changes.setdefault("signups_per_hour", 0)
    server = dataclasses.replace(
        config.server, host="127.0.0.1", port=0, database=tmp_path / "door.db", **server_changes
    )
    web = dataclasses.replace(config.web, port=None)
    return dataclasses.replace(config, server=server, web=web)


@dataclasses.dataclass
class RunningDoor:
    server: DoorServer
    store: Store
    config: Config
    solving: Solving

    @property
    def port(self) -> int:
        return self.server.port

    async def close(self, reason: str = "The door is shutting down.", grace: float = 2.0) -> None:
        """Close the server, then the solver's workers and background, then the store."""
        await self.server.close(reason, grace=grace)
        await self.solving.close()
        await self.store.close()


async def open_door(
    config: Config,
    *,
    clock: Clock | None = None,
    background: bool = False,
    negotiate_timeout: float = NEGOTIATE_TIMEOUT,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> RunningDoor:
    """A door on config's port; ``clock`` for the store, ``background`` to start the solver's
    background search (winnable deals kept ready, the day's deal chosen) as serve does;
    ``negotiate_timeout`` shorter for tests whose callers never answer telnet negotiation;
    ``busy_timeout_ms`` how long the store's writer waits for another program's lock."""
    store = await Store.open(config.server.database, clock=clock, busy_timeout_ms=busy_timeout_ms)
    solving = Solving(store, config)
    nodes = Nodes(config.server)

    async def visit(terminal, node):
        await telnet_visit(terminal, node, store, config, solving, nodes=nodes)

    server = await start_server(
        config.server,
        visit,
        detect_timeout=0.5,
        negotiate_timeout=negotiate_timeout,
        nodes=nodes,
    )
    if background:
        solving.start()
    return RunningDoor(server, store, config, solving)


# -- no error in the door's log but those a test causes on purpose ------------------------------

import door_log as door_logs  # noqa: E402


@pytest.fixture(autouse=True)
def door_log(request: pytest.FixtureRequest) -> Iterator[door_logs.DoorLog]:
    """Every test: the door's records at WARNING and above, in-process and from the children
    given to it; an ERROR, CRITICAL or traceback the test did not declare (the marker
    ``expected_log_errors`` or ``door_log.expect``) fails it at teardown."""
    with door_logs.capturing(request.node) as log:
        yield log
    door_logs.check(log)


@pytest.fixture
async def door(tmp_path) -> AsyncIterator[RunningDoor]:
    running = await open_door(door_config(tmp_path))
    yield running
    await running.close()
