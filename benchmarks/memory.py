"""Memory: what each idle caller costs the door, and where it goes (tracemalloc).

The door runs as a subprocess under a small bootstrap that answers SIGUSR2: the first
signal, once the door listens, starts tracemalloc; the second, once N callers have signed up
and sit on a new game's board, compares a snapshot with the first and writes the allocation
sites that grew most. Printed: the memory traced per caller, the rise of the door's resident
memory per caller (tracing itself costs some), and the top sites, each named by its deepest
frame in the door's own code.

With ``--compare REF`` the door at another git revision (as in benchmarks/load.py) is
measured the same way in the same run.

    python -m benchmarks.memory [--callers 100] [--arrival 3] [--compare main] [--top 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.callers import (
    ROOT,
    ServerProcess,
    TelnetCaller,
    default_level,
    process_sample,
    roomy_config,
    sign_up,
    start_game,
)
from benchmarks.load import Revision, extract_revision

PASSWORD = "memory-secret"
ARRIVAL = 3.0  # callers a second: each signs up with a scrypt hash, and tracing slows the door
TRACE_FRAMES = 16
WAIT = 600.0  # seconds for the door to write its snapshot

# Run in the door's process: SIGUSR2 starts tracing, then writes what grew since.
BOOTSTRAP = r"""
import gc, json, os, runpy, signal, sys, tracemalloc
out, own, frames = sys.argv.pop(1), tuple(sys.argv.pop(1).split(",")), int(sys.argv.pop(1))
base = []

def snapshot(*_):
    gc.collect()
    if not base:
        tracemalloc.start(frames)
        base.append(tracemalloc.take_snapshot())
        open(out + ".started", "w").close()
        return
    stats = tracemalloc.take_snapshot().compare_to(base[0], "traceback")
    sites = []
    for stat in stats[:200]:
        mine = [f for f in stat.traceback if f.filename.startswith(own)] or list(stat.traceback)
        sites.append([stat.size_diff, stat.count_diff, f"{mine[-1].filename}:{mine[-1].lineno}"])
    with open(out + ".part", "w") as file:
        json.dump({"total": sum(s.size_diff for s in stats), "sites": sites}, file)
    os.replace(out + ".part", out)  # whole, for the benchmark waiting for it

signal.signal(signal.SIGUSR2, snapshot)
sys.argv[0] = "door"
runpy.run_module("door", run_name="__main__", alter_sys=True)
"""


async def _seat(port: int, number: int, arrival: float) -> TelnetCaller:
    await asyncio.sleep(number / arrival)
    caller = await TelnetCaller.connect(port)
    await sign_up(caller, f"mem{number}", PASSWORD)
    await start_game(caller, default_level(), random.Random(number))
    return caller


def measure(
    name: str, root: Path, callers: int, folder: Path, arrival: float = ARRIVAL
) -> dict[str, object]:
    """One door: ``callers`` callers idle on the board; the figures and the top sites."""
    folder.mkdir(parents=True)
    config = roomy_config(folder, callers, shipped=root / "sysop.toml")
    out = folder / "grown.json"
    own = ",".join(str(root / part) for part in ("door", "ansi"))
    launcher = ["-c", BOOTSTRAP, str(out), own, str(TRACE_FRAMES)]
    server = ServerProcess.door(
        config, folder / "door.db", folder / "door.log", root=root, launcher=launcher
    )

    async def seated() -> int:
        """The rise of the door's resident memory once everyone sits on the board (KB)."""
        idle = process_sample(server.pid).rss_kb
        seats = await asyncio.gather(*(_seat(server.port, n, arrival) for n in range(callers)))
        await asyncio.sleep(2.0)
        rise = process_sample(server.pid).rss_kb - idle
        await asyncio.to_thread(server.ask, out, WAIT)
        for caller in seats:
            caller.hang_up()
        return rise

    try:
        time.sleep(1.0)
        server.ask(folder / "grown.json.started", WAIT)
        rise = asyncio.run(seated())
        grown = json.loads(out.read_text())
    finally:
        server.stop()
    return {
        "server": name,
        "callers": callers,
        "traced_kb_per_caller": round(grown["total"] / 1024 / callers, 1),
        "rss_kb_per_caller": round(rise / callers, 1),
        "sites": _by_site(grown["sites"], callers, root),
    }


def _by_site(grown: list[list[Any]], callers: int, root: Path) -> list[tuple[float, float, str]]:
    """(KB, blocks) a caller by site, the most first: the tracebacks that end at one line of
    the door's code added up."""
    sites: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for size, count, where in grown:
        site = sites[where.split(f"{root}/")[-1]]
        site[0] += size / 1024 / callers
        site[1] += count / callers
    return sorted(((kb, blocks, where) for where, (kb, blocks) in sites.items()), reverse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callers", type=int, default=100)
    parser.add_argument("--compare", metavar="REF", action="append", default=[])
    parser.add_argument("--top", type=int, default=8, help="allocation sites shown")
    parser.add_argument("--arrival", type=float, default=ARRIVAL, help="callers a second")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="door-memory-") as temporary:
        doors = [Revision("door", ROOT, True)]
        doors += [extract_revision(ref, Path(temporary) / "revisions") for ref in args.compare]
        results = [
            measure(door.name, door.root, args.callers, Path(temporary) / door.name, args.arrival)
            for door in doors
        ]
    print(f"{'':<14}{'calls':>6}{'traced KB/caller':>18}{'RSS KB/caller':>15}")
    for result in results:
        print(
            f"{result['server']:<14}{result['callers']:>6}"
            f"{result['traced_kb_per_caller']:>18.1f}{result['rss_kb_per_caller']:>15.1f}"
        )
    for result in results:
        print(f"\n{result['server']}: what grew most, KB and blocks a caller, by its site")
        for size, count, where in result["sites"][: args.top]:
            print(f"{size:>8.2f}{count:>8.1f}  {where}")


if __name__ == "__main__":
    main()
