"""The ways in compared: what a caller costs the door to reach the main menu, by telnet, SSH,
RLOGIN and the web's WebSocket, and what a caller waiting at the menu holds in memory.

The door runs as a subprocess (``python -m door serve``) on 127.0.0.1 with SSH and RLOGIN on
(one linked board, 127.0.0.1), a fresh database in which the callers' users already exist,
and nodes enough for everyone. For each way, N callers arrive at ``--arrival`` a second and
each goes from connecting to the main menu: telnet callers type their alias and password
(the scrypt check), SSH callers log in at SSH's password prompt (key exchange, then the same
check), RLOGIN callers are sent by the linked board (no password: the board vouches), web
callers open the WebSocket a browser's page opens and type as telnet callers do. Each
caller answers the door's ANSI probe as a BBS terminal does. Once all N wait at the menu,
the door's resident memory is read; then they all say goodbye.

    python -m benchmarks.ways [--callers 50] [--arrival 10] [--json benchmarks/results/ways.json]

Reported per way: seconds from connecting to the menu (median, 95th percentile), the door's
CPU milliseconds per caller (its CPU time over the phase, over the callers), and the rise of
its resident memory per caller waiting at the menu. The callers run in this process on the
same machine, so their CPU is taken from the door's on a small machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import asyncssh

from benchmarks.callers import (
    MENU_PROMPT,
    QUIET_SOLVER,
    ServerProcess,
    TelnetCaller,
    log_in,
    percentile,
    write_config,
)
from door.store import Store

PASSWORD = "ways-secret"
SECRET = "bench-linked-secret"
CPR_REQUEST, CPR_ANSWER = b"\x1b[6n", b"\x1b[24;80R"
PHASE_TIMEOUT = 300.0


@dataclass
class WayResult:
    way: str
    callers: int
    p50_seconds: float
    p95_seconds: float
    cpu_ms_per_caller: float
    kb_per_caller: float
    errors: int


def door_config(folder: Path, callers: int) -> Path:
    limits = {"max_nodes": callers + 10, "max_per_address": callers + 10}
    path = write_config(folder, limits, QUIET_SOLVER)
    text = path.read_text()
    text = text.replace("\n# port = 2222\n", "\nport = 0\n", 1)
    text = text.replace("\n# port = 5513\n", "\nport = 0\n", 1)
    text = text.replace(
        '# [[rlogin.boards]]\n# tag = "EXAMPLE"\n# name = "Example BBS"\n'
        '# addresses = ["192.0.2.7"]\n# secret = "change-this-secret"\n',
        f'[[rlogin.boards]]\ntag = "BENCH"\nname = "Bench Board"\n'
        f'addresses = ["127.0.0.1"]\nsecret = "{SECRET}"\n',
    )
    path.write_text(text)
    return path


async def make_users(database: Path, count: int) -> None:
    async with Store.open(database) as store:
        for number in range(count):
            await store.create_user(f"caller{number}", PASSWORD)


async def read_until(reader: asyncio.StreamReader | asyncssh.SSHReader, writer, marker: bytes):
    """Read until ``marker``, answering the ANSI probe on the way."""
    seen = b""
    while marker not in seen:
        data = await reader.read(4096)
        if not data:
            raise ConnectionError("the door hung up")
        if CPR_REQUEST in data:
            writer.write(CPR_ANSWER)
        seen = (seen + data)[-4096:]


async def telnet_caller(port: int, number: int, leave: asyncio.Event, menu: asyncio.Event) -> float:
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    _, caller = await loop.create_connection(TelnetCaller, "127.0.0.1", port)
    await log_in(caller, f"caller{number}", PASSWORD)
    took = time.perf_counter() - started
    menu.set()
    await leave.wait()
    caller.send(b"G")
    assert caller.transport is not None
    caller.transport.close()
    return took


async def web_caller(port: int, number: int, leave: asyncio.Event, menu: asyncio.Event) -> float:
    started = time.perf_counter()
    caller = await TelnetCaller.connect_web(port)
    await log_in(caller, f"caller{number}", PASSWORD)
    took = time.perf_counter() - started
    menu.set()
    await leave.wait()
    caller.send(b"G")
    caller.hang_up()
    await caller.wait_closed()
    return took


async def ssh_caller(port: int, number: int, leave: asyncio.Event, menu: asyncio.Event) -> float:
    started = time.perf_counter()
    connection = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=f"caller{number}",
        password=PASSWORD,
        known_hosts=None,
        agent_path=None,
        client_keys=None,
        preferred_auth="password",
    )
    try:
        process = await connection.create_process(
            term_type="ansi", term_size=(80, 24), encoding=None
        )
        await read_until(process.stdout, process.stdin, MENU_PROMPT)
        took = time.perf_counter() - started
        menu.set()
        await leave.wait()
        process.stdin.write(b"G")
    finally:
        connection.close()
    return took


async def rlogin_caller(port: int, number: int, leave: asyncio.Event, menu: asyncio.Event) -> float:
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"\0" + SECRET.encode() + b"\0[BENCH]caller%d\0ansi-bbs/38400\0" % number)
    await read_until(reader, writer, MENU_PROMPT)
    took = time.perf_counter() - started
    menu.set()
    await leave.wait()
    writer.write(b"G")
    writer.close()
    return took


class Arrivals:
    """Counts callers who reached the menu or gave up; set once all have."""

    def __init__(self, expected: int) -> None:
        self.expected, self.count = expected, 0
        self.all_in = asyncio.Event()

    def one(self) -> None:
        self.count += 1
        if self.count >= self.expected:
            self.all_in.set()


async def run_way(way: str, door: ServerProcess, port: int, callers: int, arrival: float):
    call = {
        "telnet": telnet_caller,
        "ssh": ssh_caller,
        "rlogin": rlogin_caller,
        "web": web_caller,
    }[way]
    leave = asyncio.Event()
    arrivals = Arrivals(callers)

    async def caller(number: int) -> float:
        menu = asyncio.Event()
        reached = asyncio.create_task(menu.wait())
        reached.add_done_callback(lambda _: arrivals.one())
        try:
            return await call(port, number, leave, menu)
        finally:
            if not menu.is_set():
                reached.cancel()  # counted all the same: it gave up

    before = door.sample()
    tasks = []
    for number in range(callers):
        tasks.append(asyncio.create_task(caller(number)))
        await asyncio.sleep(1 / arrival)
    await asyncio.wait_for(arrivals.all_in.wait(), PHASE_TIMEOUT)
    at_peak = door.sample()  # everyone waits at the menu
    leave.set()
    results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), PHASE_TIMEOUT)
    done = sorted(result for result in results if isinstance(result, float))
    errors = len(results) - len(done)
    after = door.sample()
    served = max(1, len(done))
    return WayResult(
        way=way,
        callers=callers,
        p50_seconds=round(percentile(done, 0.5), 3) if done else float("nan"),
        p95_seconds=round(percentile(done, 0.95), 3) if done else float("nan"),
        cpu_ms_per_caller=round(1000 * (after.cpu_seconds - before.cpu_seconds) / served, 1),
        kb_per_caller=round((at_peak.rss_kb - before.rss_kb) / served, 1),
        errors=errors,
    )


def ports(log: str) -> dict[str, int]:
    found = {
        "telnet": re.search(r"listening on \S+ port (\d+)", log),
        "ssh": re.search(r"listening for SSH on \S+ port (\d+)", log),
        "rlogin": re.search(r"listening for RLOGIN on \S+ port (\d+)", log),
        "web": re.search(r"listening for web on \S+ port (\d+)", log),
    }
    return {way: int(match.group(1)) for way, match in found.items() if match}


async def main(args: argparse.Namespace) -> list[WayResult]:
    with tempfile.TemporaryDirectory(prefix="canfield-ways-") as folder_name:
        folder = Path(folder_name)
        config = door_config(folder, args.callers)
        database = folder / "door.db"
        await make_users(database, args.callers)
        door = ServerProcess.door(config, database, folder / "door.log")
        try:
            deadline = time.monotonic() + 20
            while len(listening := ports(door.log_text())) < 4 and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            results = []
            for way in ("telnet", "ssh", "rlogin", "web"):
                results.append(await run_way(way, door, listening[way], args.callers, args.arrival))
                await asyncio.sleep(2)  # the hang-ups settle before the next way's callers
        finally:
            door.stop()
    return results


def table(results: list[WayResult]) -> str:
    lines = [
        f"{'way':<8}{'callers':>8}{'p50 s':>9}{'p95 s':>9}{'CPU ms/caller':>15}"
        f"{'KB/caller':>11}{'errors':>8}"
    ]
    for r in results:
        lines.append(
            f"{r.way:<8}{r.callers:>8}{r.p50_seconds:>9.3f}{r.p95_seconds:>9.3f}"
            f"{r.cpu_ms_per_caller:>15.1f}{r.kb_per_caller:>11.1f}{r.errors:>8}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--callers", type=int, default=50)
    parser.add_argument("--arrival", type=float, default=10.0, help="callers a second")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    arguments = parser.parse_args()
    figures = asyncio.run(main(arguments))
    print(table(figures))
    if arguments.json:
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        document = {"machine": platform.platform(), "results": [asdict(r) for r in figures]}
        arguments.json.write_text(json.dumps(document, indent=2) + "\n")
