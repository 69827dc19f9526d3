"""A door that takes callers over SSH, and a caller over SSH, its screen read through
pyte."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh

from door.config import Config, SshConfig
from door.running.ways import open_ways
from door.solving.pool import Solving
from door.store import Store
from tests.support.door_server import WaysDoor, door_config, steady_app
from tests.support.telnet_caller import Caller


class SshDoor(WaysDoor):
    @property
    def port(self) -> int:
        assert self.ways.ssh is not None
        return self.ways.ssh.port


def ssh_config(tmp_path: Path, **server_changes) -> Config:
    config = door_config(tmp_path, **server_changes)
    return dataclasses.replace(config, ssh=SshConfig(port=0))


async def open_ssh_door(config: Config, login_timeout: float = 10.0) -> SshDoor:
    store = await Store.open(config.server.database)
    solving = Solving(store, config)
    app = steady_app(store, config, solving)
    ways = await open_ways(app, detect_timeout=0.5, login_timeout=login_timeout)
    return SshDoor(ways, store, config, solving)


class _Input:
    """The session's standard output as the reader :class:`Caller` expects: a line that drops
    (the door's process killed) ends as one the door closed does."""

    def __init__(self, stdout: asyncssh.SSHReader) -> None:
        self._stdout = stdout

    async def read(self, n: int) -> bytes:
        try:
            return await self._stdout.read(n)
        except asyncssh.ConnectionLost:
            return b""


class _Output:
    """The session's standard input as the writer :class:`Caller` expects."""

    def __init__(self, process: asyncssh.SSHClientProcess, connection) -> None:
        self._process, self._connection = process, connection

    def write(self, data: bytes) -> None:
        self._process.stdin.write(data)

    async def drain(self) -> None:
        await self._process.stdin.drain()

    def close(self) -> None:
        self._connection.close()

    async def wait_closed(self) -> None:
        await self._connection.wait_closed()


@contextlib.asynccontextmanager
async def ssh_caller(
    port: int,
    username: str,
    password: str | None = None,
    *,
    key: asyncssh.SSHKey | None = None,
    term: str = "xterm",
    address: str = "127.0.0.1",
) -> AsyncIterator[tuple[Caller, asyncssh.SSHClientProcess]]:
    """A caller logged in over SSH with a pty, its screen read through pyte, calling from
    ``address`` (any address of the loopback network)."""
    connection = await asyncio.wait_for(
        asyncssh.connect(
            "127.0.0.1",
            port,
            username=username,
            password=password,
            client_keys=[key] if key else None,
            known_hosts=None,
            agent_path=None,
            preferred_auth="publickey" if key else "password",
            local_addr=(address, 0),
        ),
        10,
    )
    try:
        process = await connection.create_process(term_type=term, term_size=(80, 24), encoding=None)
        caller = Caller(_Input(process.stdout), _Output(process, connection), term=term)
        yield caller, process
    finally:
        connection.close()


async def sign_up_as_new(caller: Caller, alias: str, password: str) -> None:
    await caller.wait_for("Alias:")
    await caller.type(alias)
    await caller.wait_for("Password:")
    await caller.type(password)
    await caller.wait_for("Password again")
    await caller.type(password)
    await caller.wait_for("Your choice")


class WrongEveryTime(asyncssh.SSHClient):
    """A client that keeps answering SSH's password prompt wrongly."""

    tries = 0

    def password_auth_requested(self) -> str:
        WrongEveryTime.tries += 1
        return f"wrong-{WrongEveryTime.tries}"
