"""A door on 127.0.0.1 for end-to-end tests: the shipped sysop.toml made fit for them, and
the door's parts started and closed in this process."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from door.app import App, SteadyDoor
from door.config import Config, load_config
from door.net.nodes import Nodes
from door.net.telnet import NEGOTIATE_TIMEOUT, DoorServer, start_server
from door.running.ways import Ways
from door.solving.pool import Solving
from door.store import Clock, Store
from door.store.base import BUSY_TIMEOUT_MS
from door.visit.session import telnet_visit

SHIPPED_CONFIG = Path(__file__).resolve().parents[2] / "sysop.toml"


def door_config(tmp_path: Path, source: Path = SHIPPED_CONFIG, **server_changes) -> Config:
    """The shipped sysop.toml (or ``source``), listening on 127.0.0.1 port 0 with a database
    in tmp_path, the web off (the shipped port is a fixed one; tests that want the web take a
    free port)."""
    config = load_config(source)
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
    app = steady_app(store, config, solving)

    async def visit(terminal, node):
        await telnet_visit(app, terminal, node)

    server = await start_server(
        config.server,
        visit,
        detect_timeout=0.5,
        negotiate_timeout=negotiate_timeout,
        nodes=app.nodes,
    )
    if background:
        solving.start()
    return RunningDoor(server, store, config, solving)


def with_level(config: Config, number: int, **changes) -> Config:
    levels = list(config.levels)
    levels[number - 1] = dataclasses.replace(levels[number - 1], **changes)
    return dataclasses.replace(config, levels=tuple(levels))


def steady_app(store: Store, config: Config, solving: Solving) -> App:
    """The door's services as a test's door holds them: settings read once, a node table."""
    return App(store, SteadyDoor(config), solving, Nodes(config.server))


@dataclasses.dataclass
class WaysDoor:
    """A door opened as ``serve`` opens its ways (:func:`door.running.ways.open_ways`)."""

    ways: Ways
    store: Store
    config: Config
    solving: Solving

    async def close(self) -> None:
        await self.ways.close("The door is shutting down.", grace=2.0)
        await self.solving.close()
        await self.store.close()
