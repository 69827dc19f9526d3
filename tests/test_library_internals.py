"""Each reach of :mod:`door.net.library_internals` into telnetlib3's, asyncio's or
aiohttp's private state, checked on the installed versions: a release that moves what one
relies on fails here, by name. Where a reach exists to work around a library's fault (a
cycle, a waiter not woken), the fault is shown too, so that a release that mends it says the
reach may go."""

from __future__ import annotations

import asyncio
import collections
import gc
import logging
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import telnetlib3
import uvloop
from aiohttp import web

from door.net.library_internals import (
    CompressedInputRefused,
    break_cycles,
    drop_subnegotiation,
    forget_read_callback,
    held_after_upgrade,
    mark_closed,
    subnegotiation_kept,
    wake_drain_waiters,
)

IAC, SB, SE, NAWS = 255, 250, 240, 31


class Line(asyncio.Transport):
    """A transport that keeps what is written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = bytearray()
        self.closing = False

    def write(self, data: Any) -> None:
        self.sent += data

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 2323)}.get(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


class Refusing(CompressedInputRefused, telnetlib3.TelnetServer):
    refusals = 0

    def compressed_input_refused(self) -> None:
        self.refusals += 1


def connected(protocol_class: type[telnetlib3.TelnetServer] = telnetlib3.TelnetServer) -> Any:
    """A server protocol as the door makes one (no window size until the client sends one),
    on a :class:`Line` whose client never answers."""
    protocol = protocol_class(
        encoding=False, compression=False, connect_maxwait=0.05, cols=0, rows=0
    )
    protocol.connection_made(Line())
    return protocol


async def negotiated(protocol: Any) -> Any:
    """``protocol`` once its negotiation has given up waiting for answers, as a call's has
    by the time it ends."""
    await asyncio.wait_for(asyncio.shield(protocol._waiter_connected), 1)
    await asyncio.sleep(0)
    return protocol


@contextmanager
def no_collector() -> Iterator[None]:
    """No collector, and no log records: on a slow machine telnetlib3 logs its negotiation
    giving up, and the test's log capture would keep the record, and the protocol in its
    arguments, alive."""
    gc.collect()
    gc.disable()
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)
        gc.enable()


def feed(writer: telnetlib3.TelnetWriter, data: bytes) -> None:
    for byte in data:
        writer.feed_byte(bytes([byte]))


# --- telnetlib3's reading of a sub-negotiation ----------------------------------------------


async def test_a_subnegotiation_under_way_is_seen_as_it_grows_and_can_be_dropped() -> None:
    writer = connected().writer
    assert subnegotiation_kept(writer) is None
    feed(writer, bytes([IAC, SB, NAWS, 0, 80]))
    assert isinstance(writer._sb_buffer, collections.deque)
    assert subnegotiation_kept(writer) == 3  # the option and two bytes of the size
    assert drop_subnegotiation(writer) == NAWS
    assert subnegotiation_kept(writer) is None  # the rest is dropped...
    feed(writer, bytes([0, 24, IAC, SE]))
    assert writer.get_extra_info("cols") == 0  # ...never read as a window size
    assert subnegotiation_kept(writer) is None and not writer._sb_overflow
    feed(writer, bytes([IAC, SB, NAWS, 0, 100, 0, 30, IAC, SE]))  # the next is read whole
    assert (writer.get_extra_info("cols"), writer.get_extra_info("rows")) == (100, 30)


# --- telnetlib3's server protocol -----------------------------------------------------------


async def test_compressed_input_is_refused_before_anything_is_inflated() -> None:
    protocol = connected(Refusing)
    protocol.writer.mccp3_active = True  # as a client's MCCP3 announcement leaves it
    protocol.data_received(b"x")
    assert protocol.refusals == 1
    assert protocol._mccp3_decompressor is None and not protocol.writer.mccp3_active


async def test_a_drain_under_way_wakes_only_through_the_flow_control_mixin() -> None:
    assert issubclass(telnetlib3.TelnetServer, asyncio.streams.FlowControlMixin)
    protocol = connected()
    protocol.pause_writing()
    drain = asyncio.ensure_future(protocol.writer.drain())
    await asyncio.sleep(0.01)
    assert not drain.done()
    telnetlib3.TelnetServer.connection_lost(protocol, None)
    await asyncio.sleep(0.01)
    assert not drain.done()  # telnetlib3's own loss leaves it waiting
    wake_drain_waiters(protocol, None)
    await asyncio.wait_for(drain, 1)


async def test_a_protocol_marked_closed_leaves_the_server_s_clients_and_loses_once() -> None:
    protocol = connected()
    server = telnetlib3.Server(None)
    server._protocols = [protocol]
    assert server.clients == [protocol]
    mark_closed(protocol)
    assert server.clients == [] and protocol._transport is None
    telnetlib3.TelnetServer.connection_lost(protocol, None)  # returns at once: nothing left
    assert not protocol.reader.at_eof()


async def test_a_connection_let_go_of_is_freed_without_the_collector() -> None:
    async def lost_connection() -> tuple[Any, list[weakref.ref[Any]]]:
        protocol = await negotiated(connected())
        protocol.connection_lost(None)
        parts = [protocol, protocol.writer, protocol.reader]
        return protocol, [weakref.ref(part) for part in parts]

    with no_collector():
        protocol, refs = await lost_connection()
        del protocol
        assert all(ref() is not None for ref in refs)  # telnetlib3's own cycles keep them
        protocol, refs = await lost_connection()
        break_cycles(protocol)
        assert protocol._closing and protocol._transport is None  # what telnetlib3 reads
        assert repr(protocol) == "<Peer - closing>"  # in its log lines, formatted after
        del protocol
        assert [ref() for ref in refs] == [None, None, None]


# --- asyncio's socket transport -------------------------------------------------------------


async def closed_client_transport() -> tuple[asyncio.BaseTransport, weakref.ref[Any]]:
    """A client's socket transport that has been closed, and a weak reference to it."""
    server = await asyncio.start_server(lambda reader, writer: writer.close(), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.close()
    await writer.wait_closed()
    server.close()
    await server.wait_closed()
    return writer.transport, weakref.ref(writer.transport)


async def test_asyncio_s_closed_transport_is_freed_once_its_callback_is_forgotten() -> None:
    with no_collector():
        transport, ref = await closed_client_transport()
        callback = vars(transport)["_read_ready_cb"]
        assert vars(transport)["_sock"] is None and callback.__self__ is transport
        del transport, callback
        assert ref() is not None  # the bound method keeps it
        transport, ref = await closed_client_transport()
        forget_read_callback(transport)
        assert "_read_ready_cb" not in vars(transport)
        del transport
        assert ref() is None


def test_uvloop_s_transports_are_left_alone() -> None:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        transport, _ = runner.run(closed_client_transport())
        assert not hasattr(transport, "__dict__")
        forget_read_callback(transport)


@pytest.mark.parametrize("transport", [Line(), None])
def test_other_transports_are_left_alone(transport: Any) -> None:
    forget_read_callback(transport)


# --- aiohttp's request handler --------------------------------------------------------------


async def test_the_bytes_after_a_request_to_upgrade_wait_until_its_websocket() -> None:
    """Whatever came before on the connection (a request, a body), the bytes after the head
    asking to upgrade are held, and those alone, until the WebSocket reads them."""
    held: list[bytes] = []

    async def handler(request: web.Request) -> web.StreamResponse:
        held.append(held_after_upgrade(request.protocol))
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        held.append(held_after_upgrade(request.protocol))
        return socket

    async def answer(request: web.Request) -> web.StreamResponse:
        return web.Response(text=(await request.text()).strip() or "nothing")

    app = web.Application()
    app.router.add_get("/", handler)
    app.router.add_post("/", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        frames = b"\x89\x80\x00\x00\x00\x00" * 3
        writer.write(
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n\r\n\r\n"
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            + frames
        )
        async with asyncio.timeout(5):
            while len(held) < 2:
                await asyncio.sleep(0.01)
        writer.close()
    finally:
        await runner.cleanup()
    assert held == [frames, b""]
