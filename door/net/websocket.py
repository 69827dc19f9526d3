"""Telnet over WebSocket: an asyncio transport whose bytes travel as WebSocket messages.

A web caller's telnet stream is the same as a telnet caller's; only the carrier differs. So
the door hands each WebSocket to the telnet server's own protocol
(:meth:`door.net.telnet.DoorServer.connection`) through a :class:`WebSocketTransport`, and
the negotiation, the guards, the node table and the visit are the telnet ones.

The subprotocols are those of the web terminals that speak to BBSes: fTelnet offers
``binary``, ``base64`` and ``plain`` in that order of preference, MUD clients
``telnet.mudstandards.org``; a client that names none gets binary messages.

- ``binary`` and ``telnet.mudstandards.org``: each message's payload is telnet bytes;
- ``base64``: text messages holding the bytes in base64;
- ``plain``: text messages whose characters are the bytes (U+0000 to U+00FF).

>>> codec = codec_for("base64")
>>> codec.decode_text("//s=")
b'\\xff\\xfb'
>>> codec_for("plain").encode(b"\\xff\\xfb\\x01")
'ÿû\\x01'
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
from dataclasses import dataclass
from gettext import NullTranslations
from typing import Any

from aiohttp import ClientWebSocketResponse, WSCloseCode, WSMsgType, web

from ansi.charset import encode
from door.words import _
from door.words.speaking import ENGLISH_WORDS, speaking

log = logging.getLogger("door")

SUBPROTOCOLS = ("binary", "base64", "plain", "telnet.mudstandards.org")
# Bytes queued for a caller before the visit is asked to wait (as a socket's buffer does).
HIGH_WATER = 64 * 1024
LOW_WATER = 16 * 1024


@dataclass(frozen=True, slots=True)
class Codec:
    """How telnet bytes ride in one subprotocol's messages."""

    name: str
    text: bool  # sent as text messages

    def encode(self, data: bytes) -> bytes | str:
        if self.name == "base64":
            return base64.b64encode(data).decode("ascii")
        if self.name == "plain":
            return data.decode("latin-1")
        return data

    def decode_text(self, text: str) -> bytes:
        """A text message's bytes; b"" for one that holds none."""
        if self.name == "base64":
            try:
                return base64.b64decode(text, validate=True)
            except (binascii.Error, ValueError):
                return b""
        if self.name == "plain" and all(ord(char) < 256 for char in text):
            return text.encode("latin-1")
        return text.encode("utf-8")  # a client typing text, as a browser would send it


def codec_for(subprotocol: str | None) -> Codec:
    """The codec of an agreed subprotocol (None: binary)."""
    name = subprotocol or "binary"
    return Codec(name, name in ("base64", "plain"))


class WebSocketTransport(asyncio.Transport):
    """The transport a telnet protocol writes to when its caller is on a WebSocket.

    Writes are queued and sent in order by one task; past :data:`HIGH_WATER` bytes the
    protocol is asked to pause writing, as a socket transport does, so a visit writing to a
    browser that stopped reading waits in ``drain()`` instead of filling memory.
    """

    def __init__(
        self,
        socket: web.WebSocketResponse | ClientWebSocketResponse,
        codec: Codec,
        peer: tuple[str, int],
        local: Any,
    ) -> None:
        super().__init__()
        self._socket = socket
        self._codec = codec
        self._peer = peer
        self._local = local
        self._protocol: asyncio.Protocol | None = None
        self._pending = bytearray()
        self._queued = asyncio.Event()
        self._closing = False
        self._close_code = WSCloseCode.OK
        self._paused = False  # the protocol has been asked to pause writing
        self.reading = asyncio.Event()
        self.reading.set()
        self._sender = asyncio.get_running_loop().create_task(self._send())

    # --- asyncio.Transport ----------------------------------------------------------------

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {
            "peername": self._peer,
            "sockname": self._local,
            "websocket_protocol": self._codec.name,
        }.get(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        assert isinstance(protocol, asyncio.Protocol)
        self._protocol = protocol

    def get_protocol(self) -> asyncio.BaseProtocol:
        assert self._protocol is not None
        return self._protocol

    def is_closing(self) -> bool:
        return self._closing

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing or not data:
            return
        self._pending += data
        self._queued.set()
        if not self._paused and len(self._pending) > HIGH_WATER and self._protocol is not None:
            self._paused = True
            self._protocol.pause_writing()

    def get_write_buffer_size(self) -> int:
        return len(self._pending)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return LOW_WATER, HIGH_WATER

    def can_write_eof(self) -> bool:
        return False

    def pause_reading(self) -> None:
        self.reading.clear()

    def resume_reading(self) -> None:
        self.reading.set()

    def is_reading(self) -> bool:
        return self.reading.is_set()

    def close(self) -> None:
        """Send what is queued, then close the WebSocket."""
        if not self._closing:
            self._closing = True
            self._queued.set()
            self.reading.set()  # nothing more is read: the reading side must not wait

    def close_with(self, code: WSCloseCode) -> None:
        """Close as :meth:`close` does, the WebSocket closed with ``code``."""
        self._close_code = code
        self.close()

    def abort(self) -> None:
        """Close the WebSocket now, dropping what is queued."""
        self._pending.clear()
        self.close()

    async def closed(self) -> None:
        """Wait until what was queued is sent and the WebSocket is closed."""
        await self._sender

    # --- the sending task -----------------------------------------------------------------

    async def _send(self) -> None:
        try:
            while self._pending or not self._closing:
                if not self._pending:
                    self._queued.clear()
                    await self._queued.wait()
                    continue
                data = bytes(self._pending)
                self._pending.clear()
                message = self._codec.encode(data)
                if isinstance(message, str):
                    await self._socket.send_str(message)
                else:
                    await self._socket.send_bytes(message)
                if self._paused and len(self._pending) <= LOW_WATER:
                    self._paused = False
                    if self._protocol is not None:
                        self._protocol.resume_writing()
        except (ConnectionError, RuntimeError):
            pass  # the browser has gone: connection_lost follows from the reading side
        finally:
            self._closing = True
            self._pending.clear()
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self._socket.close(code=self._close_code)


async def carry(
    socket: web.WebSocketResponse | ClientWebSocketResponse,
    subprotocol: str | None,
    protocol: asyncio.Protocol,
    peer: tuple[str, int],
    local: Any,
    *,
    max_message: int | None = None,
    words: NullTranslations = ENGLISH_WORDS,
) -> None:
    """Run one telnet connection over an open WebSocket, whose agreed ``subprotocol`` says
    how the bytes ride, until either end closes it. ``protocol`` is the telnet end (the
    door's server, or a client's), ``peer`` the address it is told the other end has.

    A message of more than ``max_message`` bytes (a paste far beyond any the door asks
    for) ends the call: the other end is told why in ``words`` (the board's language), and
    the WebSocket closed as too big."""
    codec = codec_for(subprotocol)
    transport = WebSocketTransport(socket, codec, peer, local)
    transport.set_protocol(protocol)
    protocol.connection_made(transport)
    error: Exception | None = None
    try:
        while not socket.closed:
            await transport.reading.wait()
            message = await socket.receive()
            if message.type == WSMsgType.BINARY:
                data = message.data
            elif message.type == WSMsgType.TEXT:
                data = codec.decode_text(message.data)
            else:  # closing, closed or an error (a message too big, a broken frame)
                if message.type == WSMsgType.ERROR:
                    log.info("%s: WebSocket closed: %s", peer[0], message.data)
                break
            if max_message is not None and len(data) > max_message:
                log.info(
                    "hung up on %s: a WebSocket message of %d bytes, over %d",
                    peer[0],
                    len(data),
                    max_message,
                )
                with speaking(words):
                    transport.write(too_big_notice(max_message))
                transport.close_with(WSCloseCode.MESSAGE_TOO_BIG)
                break
            if data and not transport.is_closing():
                protocol.data_received(data)
    except ConnectionError as lost:
        error = lost
    finally:
        transport.close()
        protocol.connection_lost(error)
        await transport.closed()


def too_big_notice(max_message: int) -> bytes:
    """What a caller is told as a message too big ends the call, in the language spoken now.

    >>> too_big_notice(16384)
    b'\\r\\n\\r\\nThat was more than the door takes at once (16 KB at most). Goodbye.\\r\\n'
    """
    text = _("That was more than the door takes at once ({kilobytes} KB at most). Goodbye.")
    return encode(f"\r\n\r\n{text.format(kilobytes=max_message // 1024)}\r\n", "ascii")
