"""Hostile callers: floods against a live door while one caller plays and measures.

The door runs as a subprocess (``python -m door serve``) on the shipped sysop.toml (its
limits as shipped: 32 nodes, 4 per address, 20 connections a minute per address), listening
on 127.0.0.1. One caller (from 127.0.0.1) signs up, deals a game and turns the deck over and
over, timing each play from the key to the complete board update; every second a new caller
(each from an address of its own) times its wait for the welcome screen. Meanwhile, in a
process of their own, the floods of each phase run, from addresses in 127.0.0.0/8 that the
door tells apart:

- ``quiet``: nothing, to measure against;
- ``malformed``: connections that each send ``IAC SB NAWS 01 IAC SE`` (a window size of one
  byte) over and over, 120 KB at a time, reconnecting as soon as they are hung up;
- ``connections``: short connections, opened and closed as fast as the door takes them
  (1,000 a second asked for) from ``--sources`` addresses (16), most of them refused by the
  limit per address (with many sources, most are let in: a harsher test);
- ``enter``: two callers who never log in, pressing Enter at the alias prompt 2,000 times a
  second each, calling again as soon as they are hung up;
- ``keys``: a caller who signed up, at the board of a game, sending 100,000 carriage
  returns, then 120 KB of ``7`` over 5 s, logging in again as soon as they are hung up;
- ``subnegotiation``: 24 connections from 24 addresses, each sending ``IAC SB TTYPE`` and
  600 KB with no ``IAC SE``, as fast as the door takes it, reconnecting when hung up;
- ``slow-logins``: 28 connections from 28 addresses, enough for every node open to callers
  not logged in, each typing a letter every 10 s and never logging in, calling again when
  hung up; this phase lasts at least 30 s (the door's log-in time is 30 s here, so a silent
  call may be ended for a new caller after 10 s);
- ``web-idle``: 8 addresses opening 50 connections each to the web port and sending
  nothing (or half a request head), opening another as soon as one is closed;
- ``web-frames``: 4 addresses, each a WebSocket sending empty binary messages, texts that
  are not base64 and pings as fast as it can, calling again when hung up;
- ``web-malformed``: 8 addresses sending malformed HTTP requests (a header with no colon, a
  bad version, a bad Content-Length, a bare LF, a NUL) on connection after connection;
- ``web-rebinding``: 4 addresses opening WebSockets from a page of another site (a DNS
  rebinding page), and with frames they did not mask, over and over;
- ``crowd``: 7 addresses with 4 telnet connections each, answering at the alias prompt and
  typing a letter every 10 s, calling again when hung up (every node open to callers not
  logged in held by callers who answer; at least 30 s, as ``slow-logins``);
- ``settle``: nothing again, to see the memory come back.

For each phase: the plays' median, 95th percentile and worst latency (a play with no answer
within 30 s counts as 30 s, and as lost), the worst wait for a welcome (and how many
welcomes failed), how much the door's log grew, the door's CPU seconds in the phase, and its
resident memory at the phase's end (its peak within the phase for the floods). All traffic
goes to 127.0.0.1, is bounded in time, and stops by itself.

    python -m benchmarks.hostile [--seconds 20] [--rate 1000] [--sources 16]
        [--json benchmarks/results/hostile.json]

Targets: a new caller welcomed within 2 s under the malformed flood, the log growing by less
than 1 MB, the player's p95 under 100 ms while connections flood in, and the memory after
the floods within 10% of where it was before them. Under each web flood, and the
crowd, the player's p95 under 250 ms, the log growing by less than 100 KB, and every new
caller welcomed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import statistics
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmarks.callers import (
    ALIAS_PROMPT,
    GAME_PROMPT,
    LEVEL_PROMPT,
    QUIET_SOLVER,
    UPDATE,
    CallerGone,
    ServerProcess,
    TelnetCaller,
    log_in,
    percentile,
    sign_up,
    write_config,
)

IAC, SB, SE, NAWS = 255, 250, 240, 31
MALFORMED_NAWS = bytes([IAC, SB, NAWS, 1, IAC, SE])
MALFORMED_CHUNK = MALFORMED_NAWS * (120_000 // len(MALFORMED_NAWS))
MALFORMED_ADDRESSES = [f"127.0.1.{n}" for n in range(1, 9)]  # 8 attackers

def connecting_addresses(count: int) -> list[str]:
    """Where the short connections come from: ``count`` addresses of 127.0.2.0 on."""
    return [f"127.0.{2 + n // 250}.{1 + n % 250}" for n in range(count)]

ENTER_ADDRESSES = ["127.0.3.1", "127.0.3.2"]
KEYS_ADDRESS = "127.0.4.1"
SUBNEGOTIATION_ADDRESSES = [f"127.0.5.{n}" for n in range(1, 25)]
SUBNEGOTIATION_CHUNK = bytes([IAC, SB, 24]) + b"x" * 600_000  # TTYPE, and no IAC SE
SLOW_ADDRESSES = [f"127.0.6.{n}" for n in range(1, 29)]
SLOW_EVERY = 10.0  # seconds between a slow caller's letters
SLOW_PHASE = 30.0  # seconds the slow log-ins phase lasts at least
LOGIN_TIMEOUT = 30  # seconds: the door's log-in time here (90 as shipped)
PHASES = (
    "quiet",
    "malformed",
    "connections",
    "enter",
    "keys",
    "subnegotiation",
    "slow-logins",
    "web-idle",
    "web-frames",
    "web-malformed",
    "web-rebinding",
    "crowd",
    "settle",
)
FLOODS = frozenset(PHASES) - {"quiet", "settle"}

WEB_IDLE_ADDRESSES = [f"127.0.7.{n}" for n in range(1, 9)]
WEB_FRAMES_ADDRESSES = [f"127.0.8.{n}" for n in range(1, 5)]
WEB_MALFORMED_ADDRESSES = [f"127.0.9.{n}" for n in range(1, 9)]
WEB_REBINDING_ADDRESSES = [f"127.0.10.{n}" for n in range(1, 5)]
CROWD_ADDRESSES = [f"127.0.11.{n}" for n in range(1, 8) for _ in range(4)]  # 7 x 4
MALFORMED_REQUESTS = (
    b"GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
    b"GET / HTTP/9.Z\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    b"GET / HTTP/1.1\nHost: x\n\n",
    b"GET / HTTP/1.1\r\nHost: x\x00y\r\n\r\n",
)
UPGRADE = (
    b"GET /telnet HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
)

PLAY_EVERY = 0.2  # seconds between the player's plays
WELCOME_EVERY = 1.0  # seconds between new callers
WAIT = 30.0  # seconds any one answer may take before it counts as failed
PASSWORD = "hostile-bench"


@dataclass
class Phase:
    name: str
    plays: list[float] = field(default_factory=list)  # seconds per play
    play_failures: int = 0  # plays not answered within WAIT
    welcomes: list[float] = field(default_factory=list)  # seconds to the welcome screen
    welcome_failures: int = 0
    log_growth: int = 0  # bytes
    rss_kb: int = 0  # at the end, or the peak within the phase for a flood
    cpu_seconds: float = 0.0  # the door's, within the phase
    flood: dict[str, int] = field(default_factory=dict)


# -- the floods, in a process of their own -------------------------------------------------------


async def _malformed(port: int, seconds: float) -> dict[str, int]:
    counts = {"connections": 0, "bytes": 0}
    end = time.monotonic() + seconds

    async def attacker(address: str) -> None:
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), 5
                )
            except OSError:
                await asyncio.sleep(0.1)
                continue
            counts["connections"] += 1
            with contextlib.suppress(OSError, TimeoutError):
                while time.monotonic() < end and not writer.is_closing():
                    writer.write(MALFORMED_CHUNK)
                    await asyncio.wait_for(writer.drain(), 2)
                    counts["bytes"] += len(MALFORMED_CHUNK)
                    if reader.at_eof():
                        break
            writer.transport.abort()
            await asyncio.sleep(0.05)

    await asyncio.gather(*(attacker(address) for address in MALFORMED_ADDRESSES))
    return counts


async def _connections(port: int, seconds: float, rate: int, sources: int) -> dict[str, int]:
    counts = {"connections": 0, "failed": 0}
    addresses = connecting_addresses(sources)
    end = time.monotonic() + seconds
    tick = 0.05
    per_tick = max(1, int(rate * tick))
    index = 0

    async def one(address: str) -> None:
        try:
            _, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), 5
            )
        except (OSError, TimeoutError):
            counts["failed"] += 1
            return
        counts["connections"] += 1
        writer.transport.abort()

    pending: set[asyncio.Task[None]] = set()
    while time.monotonic() < end:
        started = time.monotonic()
        if len(pending) < 2000:  # never more than this many at once
            for _ in range(per_tick):
                task = asyncio.create_task(one(addresses[index]))
                index = (index + 1) % len(addresses)
                pending.add(task)
                task.add_done_callback(pending.discard)
        await asyncio.sleep(max(0.0, tick - (time.monotonic() - started)))
    if pending:
        await asyncio.wait(pending, timeout=10)
    return counts


async def _connect(port: int, address: str) -> TelnetCaller | None:
    """A telnet caller from ``address``, or None when the door would not take the call."""
    loop = asyncio.get_running_loop()
    try:
        _, caller = await asyncio.wait_for(
            loop.create_connection(TelnetCaller, "127.0.0.1", port, local_addr=(address, 0)), 5
        )
    except (OSError, TimeoutError):
        return None
    return caller


async def _keep_sending(
    port: int, addresses: list[str], seconds: float, send: Callable[..., Awaitable[int]]
) -> dict[str, int]:
    """From each address, call and ``send(caller, end)`` (the bytes it sent) until hung up,
    then call again, until ``seconds`` have passed."""
    counts = {"connections": 0, "bytes": 0}
    end = time.monotonic() + seconds

    async def attacker(address: str) -> None:
        while time.monotonic() < end:
            caller = await _connect(port, address)
            if caller is None:
                await asyncio.sleep(0.5)
                continue
            counts["connections"] += 1
            with contextlib.suppress(OSError, TimeoutError, CallerGone):
                counts["bytes"] += await send(caller, end)
            caller.hang_up()
            await asyncio.sleep(0.2)  # refused (too often, say): wait a little, and again

    await asyncio.gather(*(attacker(address) for address in addresses))
    return counts


async def _enters(caller: TelnetCaller, end: float) -> int:
    """Enter at the alias prompt, 2,000 times a second, until hung up."""
    await caller.expect(ALIAS_PROMPT, 10)
    sent = 0
    while time.monotonic() < end and not caller.closed.done():
        caller.send(b"\r\n" * 20)
        sent += 40
        await asyncio.sleep(0.01)
    return sent


async def _board_keys(caller: TelnetCaller, end: float, first: list[bool]) -> int:
    """Signed up (the first time) or logged in, at the board: 100,000 carriage returns at
    once, then 120 KB of ``7`` over 5 s, until hung up."""
    if first[0]:
        first[0] = False
        await sign_up(caller, "Flooder", PASSWORD)
    else:
        await log_in(caller, "Flooder", PASSWORD)
    await caller.ask(b"#", b"Deal number")
    await caller.ask(b"1\r\n", LEVEL_PROMPT)
    await caller.ask(b"\r", GAME_PROMPT)
    caller.send(b"\r" * 100_000)
    sent = 100_000
    while time.monotonic() < end and not caller.closed.done():
        caller.send(b"7" * 240)  # 24 KB a second
        sent += 240
        await asyncio.sleep(0.01)
    return sent


async def _subnegotiation(caller: TelnetCaller, end: float) -> int:
    """A sub-negotiation that never ends, as fast as the door takes it, until hung up."""
    assert caller.transport is not None
    sent = 0
    while time.monotonic() < end and not caller.closed.done():
        caller.transport.write(SUBNEGOTIATION_CHUNK)
        sent += len(SUBNEGOTIATION_CHUNK)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(caller.closed), 1.0)
    return sent


async def _answering(caller: TelnetCaller, end: float) -> int:
    """An alias at the prompt, then a letter every 10 s, never logged in, until hung up."""
    await caller.expect(ALIAS_PROMPT, 10)
    caller.send(b"Somebody\r\n")
    return 10 + await _slow(caller, end)


async def _slow(caller: TelnetCaller, end: float) -> int:
    """A letter every 10 s, never an Enter, until hung up."""
    sent = 0
    while time.monotonic() < end and not caller.closed.done():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(caller.closed), SLOW_EVERY)
        if not caller.closed.done():
            caller.send(b"a")
            sent += 1
    return sent


async def _web_idle(port: int, seconds: float) -> dict[str, int]:
    """Connections to the web port that send nothing or half a head, held until closed."""
    counts = {"connections": 0, "closed by the door": 0}
    end = time.monotonic() + seconds

    async def holder(address: str, index: int) -> None:
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), 5
                )
            except (OSError, TimeoutError):
                await asyncio.sleep(0.5)
                continue
            counts["connections"] += 1
            if index % 2:
                writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(reader.read(), max(0.1, end - time.monotonic()))
                counts["closed by the door"] += 1
            writer.transport.abort()
            await asyncio.sleep(0.05)

    await asyncio.gather(
        *(holder(address, n) for address in WEB_IDLE_ADDRESSES for n in range(50))
    )
    return counts


async def _web_frames(port: int, seconds: float) -> dict[str, int]:
    import aiohttp

    counts = {"calls": 0, "frames": 0}
    end = time.monotonic() + seconds

    async def flooder(address: str) -> None:
        while time.monotonic() < end:
            connector = aiohttp.TCPConnector(local_addr=(address, 0))
            async with aiohttp.ClientSession(connector=connector) as session:
                try:
                    socket = await session.ws_connect(
                        f"http://127.0.0.1:{port}/telnet", protocols=("base64",)
                    )
                except (aiohttp.ClientError, OSError):
                    await asyncio.sleep(0.5)
                    continue
                counts["calls"] += 1
                with contextlib.suppress(ConnectionError, RuntimeError, aiohttp.ClientError):
                    while time.monotonic() < end and not socket.closed:
                        await socket.send_bytes(b"")
                        await socket.send_str("!!")
                        await socket.ping()
                        counts["frames"] += 3
                        await asyncio.sleep(0)
            await asyncio.sleep(0.2)

    await asyncio.gather(*(flooder(address) for address in WEB_FRAMES_ADDRESSES))
    return counts


async def _web_requests(
    port: int, seconds: float, addresses: list[str], requests: list[bytes]
) -> dict[str, int]:
    """Each request of ``requests`` in turn, on a connection of its own, from each address."""
    counts = {"requests": 0}
    end = time.monotonic() + seconds

    async def sender(address: str) -> None:
        index = 0
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), 5
                )
            except (OSError, TimeoutError):
                await asyncio.sleep(0.2)
                continue
            writer.write(requests[index % len(requests)])
            index += 1
            counts["requests"] += 1
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(reader.read(), 2)
            writer.transport.abort()
            await asyncio.sleep(0.01)

    await asyncio.gather(*(sender(address) for address in addresses))
    return counts


def _rebinding_requests(port: int) -> list[bytes]:
    host = f"rebound.example:{port}".encode()
    upgrade = UPGRADE.replace(b"{host}", host)
    foreign = upgrade + b"Origin: http://" + host + b"\r\n\r\n"
    unmasked = upgrade + b"\r\n" + b"\x82\x01a" * 64
    return [foreign, unmasked]


def _flood(
    kind: str,
    ports: tuple[int, int],
    seconds: float,
    rate: int,
    sources: int,
    results: multiprocessing.Queue,
) -> None:
    port, web_port = ports  # telnet's and the web's
    if kind == "web-idle":
        counts = asyncio.run(_web_idle(web_port, seconds))
    elif kind == "web-frames":
        counts = asyncio.run(_web_frames(web_port, seconds))
    elif kind == "web-malformed":
        counts = asyncio.run(
            _web_requests(web_port, seconds, WEB_MALFORMED_ADDRESSES, list(MALFORMED_REQUESTS))
        )
    elif kind == "web-rebinding":
        counts = asyncio.run(
            _web_requests(web_port, seconds, WEB_REBINDING_ADDRESSES, _rebinding_requests(web_port))
        )
    elif kind == "crowd":
        counts = asyncio.run(_keep_sending(port, CROWD_ADDRESSES, seconds, _answering))
    elif kind == "malformed":
        counts = asyncio.run(_malformed(port, seconds))
    elif kind == "connections":
        counts = asyncio.run(_connections(port, seconds, rate, sources))
    elif kind == "enter":
        counts = asyncio.run(_keep_sending(port, ENTER_ADDRESSES, seconds, _enters))
    elif kind == "keys":
        first = [True]

        async def keys(caller: TelnetCaller, end: float) -> int:
            return await _board_keys(caller, end, first)

        counts = asyncio.run(_keep_sending(port, [KEYS_ADDRESS], seconds, keys))
    elif kind == "subnegotiation":
        counts = asyncio.run(
            _keep_sending(port, SUBNEGOTIATION_ADDRESSES, seconds, _subnegotiation)
        )
    else:
        counts = asyncio.run(_keep_sending(port, SLOW_ADDRESSES, seconds, _slow))
    results.put(counts)


# -- the player and the newcomers -----------------------------------------------------------------


async def _player(port: int) -> TelnetCaller:
    caller = await TelnetCaller.connect(port)
    await sign_up(caller, "Player", PASSWORD)
    await caller.ask(b"#", b"Deal number")
    await caller.ask(b"1\r\n", LEVEL_PROMPT)
    await caller.ask(b"\r", GAME_PROMPT)
    return caller


async def _play(caller: TelnetCaller, phase: Phase, end: float) -> None:
    while time.monotonic() < end:
        try:
            phase.plays.append(await caller.ask(b"V\r\n", UPDATE, timeout=WAIT))
        except TimeoutError:  # no answer in WAIT seconds: counted as that long, and failed
            phase.plays.append(WAIT)
            phase.play_failures += 1
        await asyncio.sleep(PLAY_EVERY)


async def _welcomes(port: int, phase: Phase, end: float, addresses: list[str]) -> None:
    """A new caller a second, each from an address of its own, answering negotiation as a
    telnet client does: the seconds from connecting to the welcome screen."""
    loop = asyncio.get_running_loop()
    while time.monotonic() < end:
        started = time.perf_counter()
        address = addresses.pop()
        try:
            _, caller = await asyncio.wait_for(
                loop.create_connection(
                    TelnetCaller, "127.0.0.1", port, local_addr=(address, 0)
                ),
                WAIT,
            )
            await caller.expect(ALIAS_PROMPT, WAIT)
            phase.welcomes.append(time.perf_counter() - started)
            caller.hang_up()
        except (OSError, TimeoutError, CallerGone):
            phase.welcome_failures += 1
        await asyncio.sleep(max(0.0, WELCOME_EVERY - (time.perf_counter() - started)))


class PeakMemory:
    """The door's resident memory, sampled every 0.2 s in a thread: the peak since reset."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            with contextlib.suppress(OSError, ValueError):
                self.peak = max(self.peak, self.server.sample().rss_kb)

    def reset(self) -> None:
        self.peak = 0

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)


async def run(seconds: float, rate: int, sources: int) -> list[Phase]:
    with tempfile.TemporaryDirectory(prefix="hostile-") as folder_name:
        folder = Path(folder_name)
        shipped = {
            "reserved_nodes": 4,
            "connections_per_minute": 20,
            "signups_per_hour": 3,
            "login_timeout": LOGIN_TIMEOUT,
        }
        config = write_config(folder, {"host": "127.0.0.1", "port": 0, **shipped}, QUIET_SOLVER)
        log = folder / "door.log"
        server = ServerProcess.door(config, folder / "door.db", log)
        memory = PeakMemory(server)
        newcomers = [f"127.1.{n // 250}.{1 + n % 250}" for n in range(5000)]
        phases: list[Phase] = []
        try:
            player = await _player(server.port)
            for name in PHASES:
                phase = Phase(name)
                log_before = log.stat().st_size
                cpu_before = server.sample().cpu_seconds
                memory.reset()
                flood = None
                spawning = multiprocessing.get_context("spawn")
                results: multiprocessing.Queue = spawning.Queue()
                slow = name in ("slow-logins", "crowd")
                length = max(seconds, SLOW_PHASE) if slow else seconds
                if name in FLOODS:
                    ports = (server.port, server.web_port())
                    flood = spawning.Process(
                        target=_flood, args=(name, ports, length, rate, sources, results)
                    )
                    flood.start()
                end = time.monotonic() + length
                await asyncio.gather(
                    _play(player, phase, end), _welcomes(server.port, phase, end, newcomers)
                )
                if flood is not None:
                    flood.join(30)
                    phase.flood = results.get(timeout=5) if not results.empty() else {}
                    phase.rss_kb = memory.peak
                else:
                    phase.rss_kb = server.sample().rss_kb
                phase.log_growth = log.stat().st_size - log_before
                phase.cpu_seconds = server.sample().cpu_seconds - cpu_before
                phases.append(phase)
                print(row(phase), flush=True)
            player.hang_up()
        finally:
            memory.stop()
            server.stop()
    return phases


def _ms(value: float) -> str:
    return f"{value * 1000:8.1f}"


HEADER = (
    "phase            plays  p50 ms  p95 ms  worst ms  lost  welcomes  worst wait ms  failed"
    "  log KB  CPU s   RSS MB  flood"
)


def row(phase: Phase) -> str:
    plays = sorted(phase.plays)
    flood = ", ".join(f"{key} {value}" for key, value in phase.flood.items())
    return (
        f"{phase.name:<14} {len(plays):7d} {_ms(statistics.median(plays) if plays else 0)}"
        f" {_ms(percentile(plays, 0.95))} {_ms(max(plays, default=0)):>9} {phase.play_failures:5d}"
        f" {len(phase.welcomes):9d} {_ms(max(phase.welcomes, default=0)):>14}"
        f" {phase.welcome_failures:7d} {phase.log_growth / 1024:7.1f}"
        f" {phase.cpu_seconds:6.1f} {phase.rss_kb / 1024:8.1f}  {flood}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--rate", type=int, default=1000, help="connections a second asked for")
    parser.add_argument(
        "--sources", type=int, default=16, help="addresses the short connections come from"
    )
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/hostile.json"))
    args = parser.parse_args()
    print(
        f"{args.seconds:g} s per phase; short connections asked for: {args.rate} a second "
        f"from {args.sources} addresses"
    )
    print(HEADER)
    phases = asyncio.run(run(args.seconds, args.rate, args.sources))
    before, after = phases[0].rss_kb, phases[-1].rss_kb
    print(f"memory after the floods: {100 * (after - before) / before:+.1f}% of before")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "seconds": args.seconds,
                "rate": args.rate,
                "sources": args.sources,
                "phases": [asdict(p) for p in phases],
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
