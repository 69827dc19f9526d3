"""The web port held as the telnet port is: every connection counted per address and in all,
request heads timed, keep-alive short, accept failures logged once a minute."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging

import aiohttp
import pytest

from door.net import web as web_module
from door.net import web_guard
from door.net.nodes import TOO_MANY_MESSAGE
from door.net.web_guard import AcceptFailures
from tests.support.telnet_caller import Caller
from tests.support.web_caller import WebDoor, web_caller, web_config


@pytest.fixture
async def web(tmp_path):
    door = await WebDoor.open(web_config(tmp_path))
    yield door
    await door.close()


async def connect(port: int, address: str = "127.0.0.1"):
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bytes:
    """What the door sent before it closed the connection, within ``seconds``."""
    return await asyncio.wait_for(reader.read(), seconds)


async def telnet_answers(door: WebDoor) -> None:
    reader, writer = await connect(door.port, "127.0.9.1")
    caller = Caller(reader, writer)
    await caller.wait_for("Your alias")
    await caller.hang_up()


async def test_one_address_holds_no_more_web_connections_than_telnet_lets_it(web):
    limit = web.config.server.max_per_address
    held = [await connect(web.web_port) for _ in range(3 * limit)]
    await asyncio.sleep(0.2)
    assert web.ways.web.connections.held_by("127.0.0.1") == limit
    # The older connections, which sent nothing, were ended to make room for the newer.
    for reader, _ in held[: 2 * limit]:
        assert await closed_within(reader, 2) == b""
    for _, writer in held:
        writer.close()
    await telnet_answers(web)


async def test_a_burst_of_connections_from_one_address_is_held_to_its_limit_too(web):
    """Connections arriving together (asyncio accepts a batch, then makes each): each made
    room by ending an idle one, and one already ended makes no room again."""
    limit = web.config.server.max_per_address
    held = await asyncio.gather(*(connect(web.web_port) for _ in range(4 * limit)))
    await asyncio.sleep(0.3)
    assert web.ways.web.connections.held_by("127.0.0.1") <= limit
    for _, writer in held:
        writer.close()
    await telnet_answers(web)


async def test_a_connection_past_the_limit_is_refused_when_every_other_is_in_a_call(tmp_path):
    config = web_config(tmp_path)
    server = dataclasses.replace(config.server, max_per_address=2)
    door = await WebDoor.open(dataclasses.replace(config, server=server))
    try:
        callers = [await web_caller(door.web_port) for _ in range(2)]
        for caller in callers:
            await caller.wait_for("Your alias")
        reader, writer = await connect(door.web_port)
        answer = await closed_within(reader, 2)
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert TOO_MANY_MESSAGE.encode() in answer
        writer.close()
        for caller in callers:  # the calls go on
            await caller.type("NEW")
            await caller.wait_for("alias", timeout=10)
            await caller.hang_up()
    finally:
        await door.close()


async def test_a_head_sent_slowly_and_an_idle_keep_alive_are_ended(tmp_path, monkeypatch):
    monkeypatch.setattr(web_guard, "HEADER_SECONDS", 0.5)
    monkeypatch.setattr(web_module, "KEEPALIVE_SECONDS", 0.5)
    door = await WebDoor.open(web_config(tmp_path))
    try:
        reader, writer = await connect(door.web_port)
        for piece in (b"GET / HT", b"TP/1.1\r\n", b"Host: x\r\n"):
            writer.write(piece)
            await asyncio.sleep(0.2)
        assert await closed_within(reader, 2) == b""  # no whole head within the time
        reader, writer = await connect(door.web_port)
        writer.write(b"GET /favicon.svg HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = await closed_within(reader, 3)  # answered, then idle: ended
        assert answer.startswith(b"HTTP/1.1 200 ")
        writer.close()
    finally:
        await door.close()


async def test_all_web_connections_are_capped_and_telnet_still_answers(tmp_path, monkeypatch):
    monkeypatch.setattr(web_module, "connection_cap", lambda files, nodes: 4)
    door = await WebDoor.open(web_config(tmp_path))
    try:
        callers = [await web_caller(door.web_port) for _ in range(3)]
        idle = await connect(door.web_port, "127.0.7.1")
        await asyncio.sleep(0.1)
        assert len(door.ways.web.connections) == 4
        # Past the cap, the oldest idle connection, whoever holds it, makes room...
        newer = await connect(door.web_port, "127.0.7.2")
        assert await closed_within(idle[0], 2) == b""
        # ...and once only calls are left, a new connection is refused.
        newer[1].write(b"GET /telnet HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n")
        fourth = await web_caller(door.web_port)
        refused = await connect(door.web_port, "127.0.7.3")
        answer = await closed_within(refused[0], 2)
        assert answer.startswith(b"HTTP/1.1 503 ") and b"too many web connections" in answer
        await telnet_answers(door)
        for caller in (*callers, fourth):
            await caller.hang_up()
        newer[1].close()
    finally:
        await door.close()


async def test_accept_failures_are_logged_once_a_minute_with_a_count(caplog):
    caplog.set_level(logging.INFO, logger="door")
    loop = asyncio.get_running_loop()
    failures = AcceptFailures(loop)
    try:
        for _ in range(50):
            loop.call_exception_handler(
                {"message": AcceptFailures.MESSAGE, "exception": OSError(24, "Too many open files")}
            )
    finally:
        failures.remove()
    lines = [r for r in caplog.records if "could not accept" in r.getMessage()]
    assert len(lines) == 1
    assert "Too many open files" in lines[0].getMessage()
    with contextlib.suppress(AttributeError):
        assert lines[0].exc_info is None


async def open_socket(port: int, protocol: str = "binary"):
    session = aiohttp.ClientSession()
    socket = await session.ws_connect(f"http://127.0.0.1:{port}/telnet", protocols=(protocol,))
    return session, socket


async def ended_within(socket: aiohttp.ClientWebSocketResponse, seconds: float) -> None:
    async with asyncio.timeout(seconds):
        while not socket.closed:
            message = await socket.receive()
            if message.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                break


@pytest.mark.parametrize("frame", ["empty", "not base64", "ping", "pong"])
async def test_every_frame_costs_the_caller_s_allowance_and_a_flood_ends_the_call(
    web, frame, caplog
):
    caplog.set_level(logging.INFO, logger="door")
    session, socket = await open_socket(web.web_port, "base64")
    try:
        sent = 0
        with contextlib.suppress(ConnectionError, RuntimeError):
            for _ in range(5000):
                if frame == "empty":
                    await socket.send_bytes(b"")
                elif frame == "not base64":
                    await socket.send_str("!!")
                elif frame == "ping":
                    await socket.ping()
                else:
                    await socket.pong()
                sent += 1
                if sent % 100 == 0:
                    await asyncio.sleep(0)
        await ended_within(socket, 5)
        assert socket.closed
    finally:
        await session.close()
    assert any("a flood of input" in r.getMessage() for r in caplog.records)
    await asyncio.sleep(0.2)
    assert web.ways.nodes.calls == []
    await telnet_answers(web)


MALFORMED = {
    "a header with no colon": b"GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
    "a bad version": b"GET / HTTP/9.Z\r\nHost: x\r\n\r\n",
    "a bad Content-Length": b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    "a bare LF": b"GET / HTTP/1.1\nHost: x\n\n",
    "a NUL": b"GET / HTTP/1.1\r\nHost: x\x00y\r\n\r\n",
}


async def test_malformed_requests_are_refused_in_a_line_a_minute_without_a_traceback(web, caplog):
    caplog.set_level(logging.DEBUG)
    for _ in range(20):
        for request in MALFORMED.values():
            reader, writer = await connect(web.web_port)
            writer.write(request)
            answer = await closed_within(reader, 5)
            assert answer.startswith((b"HTTP/1.1 400 ", b"HTTP/1.0 400 "))
            writer.close()
    lines = [r for r in caplog.records if r.levelno >= logging.INFO]
    refused = [r for r in lines if "could not be read" in r.getMessage()]
    assert len(refused) == 1
    assert not [r for r in lines if r.exc_info or r.levelno >= logging.ERROR]
    assert sum(len(r.getMessage()) for r in lines) < 2000


UPGRADE_HEAD = (
    b"GET /telnet HTTP/1.1\r\nHost: x\r\n%s"
    b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    b"Sec-WebSocket-Protocol: binary\r\n\r\n"
)
PINGS = b"\x89\x80\x00\x00\x00\x00" * 2000  # masked, empty: only the frame reader pays for them


@pytest.mark.parametrize(
    "before",
    [
        b"",
        b"GET /favicon.svg HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /door.css HTTP/1.1\r\nHost: x\r\n\r\nGET /door.js HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /favicon.svg HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n\r\n\r\n",
    ],
    ids=["alone", "after a request", "after two requests", "after a body"],
)
async def test_every_frame_is_paid_for_whatever_requests_came_before_the_upgrade(
    web, before, caplog
):
    caplog.set_level(logging.INFO, logger="door")
    reader, writer = await connect(web.web_port)
    writer.write(before + UPGRADE_HEAD % b"" + PINGS)
    await writer.drain()
    with contextlib.suppress(ConnectionError):
        for _ in range(10):
            writer.write(PINGS)
            await writer.drain()
    with contextlib.suppress(ConnectionError):
        await closed_within(reader, 5)
    writer.close()
    assert any("a flood of input (WebSocket frames)" in r.getMessage() for r in caplog.records)
    await asyncio.sleep(0.2)
    assert web.ways.nodes.calls == []


async def test_a_request_s_head_past_16_kb_is_refused_with_a_short_answer(web):
    padding = b"".join(b"X-Padding-%d: %s\r\n" % (n, b"p" * 1000) for n in range(20))
    reader, writer = await connect(web.web_port)
    writer.write(UPGRADE_HEAD % padding + PINGS)
    answer = await closed_within(reader, 5)
    writer.close()
    assert answer.startswith(b"HTTP/1.1 431 ") and len(answer) < 500, answer[:200]
    await asyncio.sleep(0.2)
    assert web.ways.nodes.calls == []
    # Bodies are not heads: a body past 16 KB is the handler's to refuse, in its own words.
    body = b"x" * 40_000
    for framed in (
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body),
        b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(body), body),
    ):
        reader, writer = await connect(web.web_port)
        writer.write(b"POST / HTTP/1.1\r\nHost: x\r\n" + framed)
        writer.write(b"GET /favicon.svg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = await closed_within(reader, 5)
        writer.close()
        assert answer.startswith(b"HTTP/1.1 405 ") and b"HTTP/1.1 200 " in answer, answer[:300]


async def test_a_request_to_upgrade_not_taken_ends_its_connection_once_answered(web):
    """What follows a request to upgrade is the WebSocket's: not read as more requests."""
    reader, writer = await connect(web.web_port)
    asking = (UPGRADE_HEAD % b"").replace(b"/telnet", b"/favicon.svg")
    writer.write(asking + b"GET /door.css HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = await closed_within(reader, 5)
    writer.close()
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.count(b"HTTP/1.1 ") == 1, answer[:300]
