"""Collector: the objects one play leaves for the garbage collector's young pass, a caller.

A young collection looks at every object (of the kinds that can hold others) made since the
last one that is still alive, and every game waits while it does. Under load the objects a
caller's last play left are what it looks at: at 1,000 callers, tens of thousands of them,
and a pass of tens of milliseconds (benchmarks/load.py prints the longest).

The door runs as a subprocess under a small bootstrap that answers SIGUSR2. N callers sign
up, sit on a fresh deal and make two plays (the door's caches as after a while); the first
signal then collects, puts every object aside (``gc.freeze``) and stops the collector; each
caller makes one more play, chosen as benchmarks/load.py's callers choose them (undo too);
the second signal counts the objects made since that are still alive, by kind. Printed:
those objects a caller who played (a game may have no play left), and the kinds most of
them are.

With ``--compare REF`` the door at another git revision (as in benchmarks/load.py) is
measured the same way in the same run.

    python -m benchmarks.collector [--callers 200] [--arrival 5] [--compare main] [--top 12]
        [--json benchmarks/results/collector.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
from pathlib import Path

from benchmarks.callers import (
    ROOT,
    UPDATE,
    ServerProcess,
    TelnetCaller,
    choose_play,
    default_level,
    roomy_config,
    sign_up,
    start_game,
)
from benchmarks.load import Revision, extract_revision
from door.engine import Game
from door.engine.status import Status

PASSWORD = "collector-secret"
ARRIVAL = 5.0  # callers a second: each signs up with a scrypt hash
WARM_PLAYS = 2
WAIT = 120.0  # seconds for the door to answer a signal

# Run in the door's process: the first SIGUSR2 puts everything aside and stops the
# collector; the second counts what was made since and is still alive.
BOOTSTRAP = r"""
import collections, gc, json, os, runpy, signal, sys
out = sys.argv.pop(1)
frozen = []

def count(*_):
    if not frozen:
        gc.collect()
        gc.freeze()
        gc.disable()
        frozen.append(True)
        open(out + ".frozen", "w").close()
        return
    young = gc.get_objects(generation=0)
    kinds = collections.Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in young)
    del young
    gc.unfreeze()
    gc.enable()
    with open(out + ".part", "w") as file:
        json.dump(dict(kinds), file)
    os.replace(out + ".part", out)

signal.signal(signal.SIGUSR2, count)
sys.argv[0] = "door"
runpy.run_module("door", run_name="__main__", alter_sys=True)
"""


async def _seat(port: int, number: int, arrival: float) -> tuple[TelnetCaller, Game]:
    await asyncio.sleep(number / arrival)
    caller = await TelnetCaller.connect(port)
    await sign_up(caller, f"gc{number}", PASSWORD)
    rng = random.Random(number)
    game = await start_game(caller, default_level(), rng)
    for _ in range(WARM_PLAYS):
        await _play(caller, game, rng)
    return caller, game


async def _play(caller: TelnetCaller, game: Game, rng: random.Random) -> bool:
    """One play, if the game has one left (False: it has not)."""
    if game.status != Status.PLAYING or not game.legal():
        return False
    command = choose_play(game, rng)
    game.play(command)
    await caller.ask(command.encode() + b"\r\n", UPDATE)
    return True


def measure(name: str, root: Path, callers: int, folder: Path, arrival: float) -> dict:
    """One door: ``callers`` callers each make one play; what it left alive, by kind."""
    folder.mkdir(parents=True)
    config = roomy_config(folder, callers, shipped=root / "sysop.toml")
    out = folder / "young.json"
    launcher = ["-c", BOOTSTRAP, str(out)]
    server = ServerProcess.door(
        config, folder / "door.db", folder / "door.log", root=root, launcher=launcher
    )

    async def play_once_each() -> int:
        """How many callers made the play counted (a game may have none left)."""
        seats = await asyncio.gather(*(_seat(server.port, n, arrival) for n in range(callers)))
        await asyncio.sleep(1.0)
        await asyncio.to_thread(server.ask, Path(f"{out}.frozen"), WAIT)
        rngs = [random.Random(-number) for number in range(callers)]
        played = await asyncio.gather(
            *(_play(caller, game, rng) for (caller, game), rng in zip(seats, rngs, strict=True))
        )
        await asyncio.sleep(1.0)
        await asyncio.to_thread(server.ask, out, WAIT)
        for caller, _ in seats:
            caller.hang_up()
        return sum(played)

    try:
        players = asyncio.run(play_once_each())
        kinds = json.loads(out.read_text())
    finally:
        server.stop()
    return {
        "server": name,
        "callers": callers,
        "played": players,
        "per_caller": round(sum(kinds.values()) / players, 1),
        "kinds": sorted(((n / players, kind) for kind, n in kinds.items()), reverse=True),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callers", type=int, default=200)
    parser.add_argument("--compare", metavar="REF", action="append", default=[])
    parser.add_argument("--top", type=int, default=12, help="kinds of object shown")
    parser.add_argument("--arrival", type=float, default=ARRIVAL, help="callers a second")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/collector.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="door-collector-") as temporary:
        doors = [Revision("door", ROOT, True)]
        doors += [extract_revision(ref, Path(temporary) / "revisions") for ref in args.compare]
        results = [
            measure(door.name, door.root, args.callers, Path(temporary) / door.name, args.arrival)
            for door in doors
        ]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"{'':<14}{'calls':>6}{'played':>7}{'objects a play leaves, a caller':>34}")
    for result in results:
        print(
            f"{result['server']:<14}{result['callers']:>6}{result['played']:>7}"
            f"{result['per_caller']:>34.1f}"
        )
    for result in results:
        print(f"\n{result['server']}: the kinds most of them are, a caller")
        for share, kind in result["kinds"][: args.top]:
            print(f"{share:>8.2f}  {kind}")


if __name__ == "__main__":
    main()
