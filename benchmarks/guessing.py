"""Password guessing against a live door: what one hash costs, and how long an honest caller
waits for their password to be checked while guesses pour in.

First, one scrypt hash at the door's costs and at others, each in a fresh process: its time
(the median of three) and the memory it takes (the process's peak over a bare one's).

Then the door runs as a subprocess (``python -m door serve``) on 127.0.0.1 with SSH on, and
an honest caller (from 127.0.0.2) logs in by SSH, timed from connecting until SSH says the
password was right (the key exchange included), in three phases:

- ``quiet``: nothing else, to measure against;
- ``one alias``: 20 connections from 127.0.0.1 each send a wrong password for one alias at
  once, and the honest caller connects 50 ms later;
- ``many addresses``: 20 addresses (127.0.3.1 to .20) that each guessed wrong once before
  each send another wrong password at once, and the honest caller connects 50 ms later.

For each phase: the honest caller's wait (median and worst of ``--tries``), how long the
burst took to be answered, and the door's CPU seconds over the phase. All traffic goes to
127.0.0.1, is bounded in count, and stops by itself.

    python -m benchmarks.guessing [--tries 3] [--json benchmarks/results/guessing.json]

Target: the honest caller's wait during a burst within one hash of the quiet wait.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import asyncssh

from benchmarks.callers import QUIET_SOLVER, ServerProcess, write_config
from door.store import Store

PASSWORD = "honest-secret"
BURST = 20
COSTS = (14, 16, 17)  # log2 of scrypt's N: the door's old one, its own, OWASP's
R, P = 8, 1  # the door's (door.store.accounts)


@dataclass
class HashCost:
    log2_n: int
    ms: float
    mib: float


@dataclass
class Phase:
    name: str
    honest_p50_ms: float
    honest_worst_ms: float
    burst_s: float
    door_cpu_s: float


def one_hash(log2_n: int) -> HashCost:
    """Time and memory of one hash at ``log2_n``, measured in a fresh process."""
    # Nothing imported but hashlib, so that the peak is the hash's: the door's own call. The
    # peak is the process's own (VmHWM), which, unlike ru_maxrss, a child does not inherit.
    script = (
        "import hashlib, re, time\n"
        "def kib(field):\n"
        "    status = open('/proc/self/status').read()\n"
        "    return int(re.search(field + r':\\s+(\\d+)', status).group(1))\n"
        "base = kib('VmRSS'); times = []\n"
        "for _ in range(3):\n"
        "    started = time.perf_counter()\n"
        f"    hashlib.scrypt(b'x', salt=b's' * 16, n={1 << log2_n}, r={R}, p={P}, "
        f"maxmem={2 * 128 * R * (1 << log2_n)}, dklen=32)\n"
        "    times.append(time.perf_counter() - started)\n"
        "print(sorted(times)[1], kib('VmHWM') - base)"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    seconds, kib = out.stdout.split()
    return HashCost(log2_n, round(float(seconds) * 1000, 1), round(int(kib) / 1024, 1))


async def connect(port: int, username: str, password: str, address: str) -> bool:
    """Log in by SSH from ``address``; whether the password was taken."""
    try:
        connection = await asyncssh.connect(
            "127.0.0.1",
            port,
            username=username,
            password=password,
            known_hosts=None,
            agent_path=None,
            client_keys=None,
            preferred_auth="password",
            local_addr=(address, 0),
        )
    except (asyncssh.PermissionDenied, asyncssh.DisconnectError):
        return False
    connection.close()
    return True


async def honest(port: int) -> float:
    started = time.perf_counter()
    assert await connect(port, "Honest", PASSWORD, "127.0.0.2"), "the honest caller was refused"
    return time.perf_counter() - started


async def phase(name: str, port: int, door: ServerProcess, tries: int) -> Phase:
    waits, bursts = [], []
    before = door.sample()
    for attempt in range(tries):
        if name == "one alias":
            guesses = [("Victim", "127.0.0.1")] * BURST
        elif name == "many addresses":
            guesses = [(f"Nobody{attempt}x{n}", f"127.0.3.{n + 1}") for n in range(BURST)]
        else:
            guesses = []
        started = time.perf_counter()
        burst = [asyncio.create_task(connect(port, u, "wrong", a)) for u, a in guesses]
        await asyncio.sleep(0.05 if burst else 0)
        waits.append(await honest(port))
        await asyncio.gather(*burst)
        bursts.append(time.perf_counter() - started)
    after = door.sample()
    return Phase(
        name,
        round(statistics.median(waits) * 1000, 1),
        round(max(waits) * 1000, 1),
        round(statistics.median(bursts), 2),
        round(after.cpu_seconds - before.cpu_seconds, 2),
    )


async def run(tries: int) -> list[Phase]:
    with tempfile.TemporaryDirectory(prefix="canfield-guessing-") as folder_name:
        folder = Path(folder_name)
        limits = {"max_nodes": 64, "max_per_address": BURST + 5, "connections_per_minute": 1000}
        config = write_config(folder, limits, QUIET_SOLVER)
        config.write_text(config.read_text().replace("\n# port = 2222\n", "\nport = 0\n", 1))
        database = folder / "door.db"
        async with Store.open(database) as store:
            for alias in ("Honest", "Victim"):
                await store.create_user(alias, PASSWORD)
        door = ServerProcess.door(config, database, folder / "door.log")
        try:
            port = 0
            deadline = time.monotonic() + 20
            while not port and time.monotonic() < deadline:
                found = re.search(r"listening for SSH on \S+ port (\d+)", door.log_text())
                port = int(found.group(1)) if found else 0
                await asyncio.sleep(0.1)
            # The many addresses' earlier wrong guesses.
            await asyncio.gather(
                *(connect(port, f"Before{n}", "wrong", f"127.0.3.{n + 1}") for n in range(BURST))
            )
            return [await phase(name, port, door, tries) for name in PHASES]
        finally:
            door.stop()


PHASES = ("quiet", "one alias", "many addresses")


def table(costs: list[HashCost], phases: list[Phase]) -> str:
    lines = [f"{'scrypt N':<10}{'ms a hash':>11}{'MiB':>7}"]
    lines += [f"{'2**' + str(c.log2_n):<10}{c.ms:>11.1f}{c.mib:>7.1f}" for c in costs]
    lines.append("")
    lines.append(
        f"{'phase':<16}{'honest p50 ms':>15}{'worst ms':>10}{'burst s':>9}{'door CPU s':>12}"
    )
    for p in phases:
        lines.append(
            f"{p.name:<16}{p.honest_p50_ms:>15.1f}{p.honest_worst_ms:>10.1f}"
            f"{p.burst_s:>9.2f}{p.door_cpu_s:>12.2f}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    costs = [one_hash(log2_n) for log2_n in COSTS]
    phases = asyncio.run(run(args.tries))
    print(table(costs, phases))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        document = {
            "machine": platform.platform(),
            "load_average": os.getloadavg(),
            "hash_costs": [asdict(c) for c in costs],
            "phases": [asdict(p) for p in phases],
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
