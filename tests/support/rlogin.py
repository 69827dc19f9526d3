"""Boards linked over RLOGIN, a door that takes their callers, and a linked caller."""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
from pathlib import Path

from door.config import RloginConfig
from door.linked_board import LinkedBoard
from door.running.ways import open_ways
from door.solving.pool import Solving
from door.store import Store
from tests.support.door_server import SHIPPED_CONFIG, WaysDoor, door_config, steady_app
from tests.support.telnet_caller import Caller

LOCAL = (ipaddress.ip_network("127.0.0.0/8"),)
ABC = LinkedBoard("ABC", "Another Board", LOCAL, "abc-secret-1")
XYZ = LinkedBoard("XYZ", "Xylophone BBS", LOCAL, "xyz-secret-2")


class RloginDoor(WaysDoor):
    @property
    def port(self) -> int:
        assert self.ways.rlogin is not None
        return self.ways.rlogin.port


async def open_rlogin_door(
    tmp_path: Path,
    boards: tuple[LinkedBoard, ...] = (ABC, XYZ),
    source: Path = SHIPPED_CONFIG,
    **server_changes,
) -> RloginDoor:
    config = door_config(tmp_path, source, **server_changes)
    config = dataclasses.replace(config, rlogin=RloginConfig(port=0, boards=boards))
    store = await Store.open(config.server.database)
    solving = Solving(store, config)
    app = steady_app(store, config, solving)
    ways = await open_ways(app, detect_timeout=0.5, handshake_timeout=1.0)
    return RloginDoor(ways, store, config, solving)


def handshake(client_user: str, server_user: str, terminal: str = "ansi-bbs/38400") -> bytes:
    """RFC 1282: a NUL, then the client-user name, the server-user name and the terminal
    type/speed, each ending in a NUL."""
    return b"\0" + b"\0".join(f.encode() for f in (client_user, server_user, terminal)) + b"\0"


async def send(port: int, data: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
    writer.write(data)
    await writer.drain()
    return reader, writer


async def refusal(reader: asyncio.StreamReader) -> bytes:
    """Everything the door sends until it closes the connection."""
    async with asyncio.timeout(10):
        return await reader.read()


async def linked_caller(port: int, board: LinkedBoard, alias: str) -> Caller:
    """A caller ``board`` sends, as Synchronet's rlogin gate does: the secret as the
    client-user name, ``[TAG]alias`` as the server-user name."""
    reader, writer = await send(port, handshake(board.secret, f"[{board.tag}]{alias}"))
    accepted = await asyncio.wait_for(reader.readexactly(1), 10)
    assert accepted == b"\0"
    return Caller(reader, writer, term="ansi-bbs", charset="cp437")
