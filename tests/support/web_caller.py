"""A telnet caller whose line is a WebSocket, for tests: the telnet :class:`telnet_caller.Caller`
(its negotiation, its pyte screen) reading and writing through aiohttp's WebSocket client
in one of the door's subprotocols."""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import Mapping
from pathlib import Path

import aiohttp

from door.config import Config
from door.running.ways import Ways, open_ways
from door.solving.pool import Solving
from door.store import Store
from door.store.base import Clock
from tests.support.door_server import door_config, steady_app
from tests.support.telnet_caller import Caller

ROOT = Path(__file__).resolve().parents[2]
# The pinned xterm.js, fetched by .ci/run (the README says how): the page's local copy.
ASSETS = ROOT / "web-assets" / "node_modules" / "@xterm"


class WebSocketLine:
    """What :class:`telnet_caller.Caller` reads and writes, carried over a WebSocket: messages
    encoded for ``socket.protocol``, sent in order by one task."""

    def __init__(self, session: aiohttp.ClientSession, socket: aiohttp.ClientWebSocketResponse):
        self.session, self.socket = session, socket
        self.protocol = socket.protocol or "binary"
        self._outgoing: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._sender = asyncio.create_task(self._send())

    # -- as an asyncio.StreamReader ------------------------------------------------------------

    async def read(self, _: int = -1) -> bytes:
        while True:
            message = await self.socket.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                return message.data
            if message.type == aiohttp.WSMsgType.TEXT:
                if self.protocol == "base64":
                    return base64.b64decode(message.data)
                return message.data.encode("latin-1")
            # The door hung up: nothing more comes, and nothing more can be sent.
            self._sender.cancel()
            await self.session.close()
            return b""

    # -- as an asyncio.StreamWriter ------------------------------------------------------------

    def write(self, data: bytes) -> None:
        self._outgoing.put_nowait(bytes(data))

    async def drain(self) -> None:
        await self._outgoing.join()

    def close(self) -> None:
        self._outgoing.put_nowait(None)

    async def wait_closed(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._sender), 5)
        self._sender.cancel()  # one still sending after that is given up, not left pending
        with contextlib.suppress(asyncio.CancelledError):
            await self._sender
        await self.session.close()

    def get_extra_info(self, name: str, default: object = None) -> object:
        return default

    async def _send(self) -> None:
        while True:
            data = await self._outgoing.get()
            try:
                if data is None:
                    await self.socket.close()
                    return
                if self.protocol == "base64":
                    await self.socket.send_str(base64.b64encode(data).decode())
                elif self.protocol == "plain":
                    await self.socket.send_str(data.decode("latin-1"))
                else:
                    await self.socket.send_bytes(data)
            except (ConnectionError, RuntimeError):
                pass
            finally:
                self._outgoing.task_done()


async def web_caller(
    port: int,
    protocol: str | None = "binary",
    *,
    path: str = "/telnet",
    headers: Mapping[str, str] | None = None,
    **options: object,
) -> Caller:
    """A caller on ``ws://127.0.0.1:port/path`` offering ``protocol`` (None: none)."""
    session = aiohttp.ClientSession()
    try:
        socket = await session.ws_connect(
            f"http://127.0.0.1:{port}{path}",
            protocols=() if protocol is None else (protocol,),
            headers=headers,
            max_msg_size=0,
        )
    except BaseException:
        await session.close()
        raise
    line = WebSocketLine(session, socket)
    return Caller(line, line, **options)  # type: ignore[arg-type]


def web_config(tmp_path: Path, **web: object) -> Config:
    """The shipped settings on 127.0.0.1, the web on a free port, and ``web``'s changes."""
    import dataclasses

    config = door_config(tmp_path)
    return dataclasses.replace(config, web=dataclasses.replace(config.web, port=0, **web))


class WebDoor:
    """A door opened as ``serve`` opens its ways, with the web on."""

    def __init__(self, ways: Ways, store: Store, solving: Solving, config: Config) -> None:
        self.ways, self.store, self.solving, self.config = ways, store, solving, config

    @property
    def port(self) -> int:
        return self.ways.telnet.port

    @property
    def web_port(self) -> int:
        assert self.ways.web is not None
        return self.ways.web.port

    @classmethod
    async def open(cls, config: Config, clock: Clock | None = None) -> WebDoor:
        """The door on ``config``; its store on ``clock`` (the real time if None)."""
        store = await Store.open(config.server.database, clock=clock)
        solving = Solving(store, config)
        app = steady_app(store, config, solving)
        ways = await open_ways(app, detect_timeout=0.5)
        return cls(ways, store, solving, config)

    async def close(self, reason: str = "The door is shutting down.") -> None:
        await self.ways.close(reason, grace=2.0)
        await self.solving.close()
        await self.store.close()
