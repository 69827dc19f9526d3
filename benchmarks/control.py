"""The sysop's control channel under load: who, status, send and reload while callers play.

The door runs as a subprocess (``python -m door serve``) on 127.0.0.1 with a fresh database.
N callers sign up and play a random legal play about every ``--interval`` seconds. For
``--duration`` seconds nobody asks the door anything (the quiet phase), then for as long the
sysop asks all the time: a control request every ``--every`` seconds, in turn ``who``,
``status``, ``send all`` and ``reload`` (SIGHUP's work: sysop.toml read and compared), plus
now and then the whole ``canfield-door sysop who`` command (a Python start-up included), and
a ``watch`` of node 1 throughout. Printed: each request's round trip, and the callers' play
latency in both phases, so any cost the sysop's requests put on callers shows.

    python -m benchmarks.control [--callers 100] [--interval 2] [--duration 30] [--every 0.25]
        [--json benchmarks/results/control.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.callers import (
    QUIET_SOLVER,
    UPDATE,
    CallerGone,
    ServerProcess,
    TelnetCaller,
    choose_play,
    default_level,
    leave_finished_game,
    percentile,
    sign_up,
    start_game,
    write_config,
)
from door.engine.status import Status
from door.running.control import control_path

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "control-secret"
REQUESTS = ({"command": "who"}, {"command": "status"}, {"command": "reload"})


async def _caller(port: int, number: int, delay: float) -> tuple[TelnetCaller, Any] | None:
    await asyncio.sleep(delay)
    try:
        caller = await TelnetCaller.connect(port)
        await sign_up(caller, f"sysop{number}", PASSWORD)
        return caller, await start_game(caller, default_level())
    except (OSError, TimeoutError, CallerGone, RuntimeError):
        return None


async def _play(seat: list[Any], rng: random.Random, interval: float, ends: float) -> list[float]:
    caller, game = seat
    latencies = []
    next_at = time.monotonic() + rng.uniform(0, interval)
    while next_at < ends:
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        command = choose_play(game, rng)
        game.play(command)
        try:
            latencies.append(await caller.ask(command.encode() + b"\r\n", UPDATE, 60.0))
            if game.status != Status.PLAYING:
                await leave_finished_game(caller)
                game = await start_game(caller, default_level())
        except (OSError, TimeoutError, CallerGone, RuntimeError):
            break
        next_at += interval * rng.uniform(0.5, 1.5)
    seat[1] = game
    return latencies


async def _request(path: Path, request: dict[str, Any]) -> float:
    started = time.monotonic()
    reader, writer = await asyncio.open_unix_connection(str(path))
    writer.write(json.dumps(request).encode() + b"\n")
    answer = json.loads(await asyncio.wait_for(reader.readline(), 60))
    writer.close()
    if not answer.get("ok"):
        raise RuntimeError(answer)
    return time.monotonic() - started


async def _cli(config: Path, database: Path) -> float:
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "door", "sysop", "--config", str(config),
        "--database", str(database), "who",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    _, err = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(err.decode())
    return time.monotonic() - started


async def _watch(path: Path, ends: float) -> int:
    reader, writer = await asyncio.open_unix_connection(str(path))
    writer.write(b'{"command": "watch", "node": 1}\n')
    await reader.readline()
    seen = 0
    while (left := ends - time.monotonic()) > 0:
        try:
            seen += len(await asyncio.wait_for(reader.read(65536), left))
        except TimeoutError:
            break
    writer.close()
    return seen


async def _sysop(config: Path, database: Path, every: float, ends: float) -> dict[str, Any]:
    path = control_path(database)
    times: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    watching = asyncio.create_task(_watch(path, ends))
    turn = 0
    while time.monotonic() < ends:
        if turn % 20 == 19:
            name, job = "sysop who (command)", _cli(config, database)
        elif turn % 4 == 3:
            name = "send all"
            job = _request(path, {"command": "send", "node": "all", "text": "Hello from the sysop"})
        else:
            request = REQUESTS[turn % 4]
            name, job = request["command"], _request(path, request)
        try:
            times[name].append(await job)
        except (OSError, RuntimeError, TimeoutError):
            errors[name] += 1
        turn += 1
        await asyncio.sleep(every)
    return {"times": dict(times), "errors": dict(errors), "watched_bytes": await watching}


async def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    config = write_config(
        folder,
        {"max_nodes": args.callers + 10, "max_per_address": args.callers + 10},
        QUIET_SOLVER,
    )
    database = folder / "door.db"
    server = ServerProcess.door(config, database, folder / "door.log")
    try:
        seats = await asyncio.gather(
            *(_caller(server.port, n, n / 20) for n in range(args.callers))
        )
        playing = [list(seat) for seat in seats if seat is not None]
        rng = random.Random(1)
        phases: dict[str, list[float]] = {}
        sysop: dict[str, Any] = {}
        for phase in ("quiet", "sysop busy"):
            ends = time.monotonic() + args.duration
            plays = [_play(seat, rng, args.interval, ends) for seat in playing]
            if phase == "sysop busy":
                results = await asyncio.gather(_sysop(config, database, args.every, ends), *plays)
                sysop, latencies = results[0], results[1:]
            else:
                latencies = await asyncio.gather(*plays)
            phases[phase] = sorted(t for seat in latencies for t in seat)
        for seat in playing:
            seat[0].hang_up()
    finally:
        status = server.stop()
    log = server.log_text()
    return {
        "callers": len(playing),
        "phases": {name: _ms(values) for name, values in phases.items()},
        "requests": {name: _ms(sorted(values)) for name, values in sysop["times"].items()},
        "errors": sysop["errors"],
        "watched_bytes": sysop["watched_bytes"],
        "reloads_logged": log.count("settings reloaded"),
        "exit_status": status,
        "tracebacks": log.count("Traceback"),
    }


def _ms(values: list[float]) -> dict[str, float]:
    return {
        "count": len(values),
        "p50": 1000 * percentile(values, 0.5),
        "p95": 1000 * percentile(values, 0.95),
        "max": 1000 * (values[-1] if values else 0.0),
    }


def show(result: dict[str, Any]) -> None:
    print(
        f"{result['callers']} callers playing; door exit status {result['exit_status']}, "
        f"{result['tracebacks']} tracebacks, {result['reloads_logged']} reloads logged"
    )
    print()
    print(f"{'callers play in phase':24} {'plays':>7} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, row in result["phases"].items():
        print(f"{name:24} {row['count']:7d} {row['p50']:8.1f} {row['p95']:8.1f} {row['max']:8.1f}")
    print()
    print(f"{'sysop request':24} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, row in sorted(result["requests"].items()):
        print(f"{name:24} {row['count']:7d} {row['p50']:8.1f} {row['p95']:8.1f} {row['max']:8.1f}")
    print()
    print(f"errors: {result['errors'] or 'none'}; watch received {result['watched_bytes']} bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--callers", type=int, default=100)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--every", type=float, default=0.25)
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/control.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        result = asyncio.run(run(args, Path(folder)))
    result["machine"] = {"python": platform.python_version(), "cores": os.cpu_count()}
    result["settings"] = {k: v for k, v in vars(args).items() if k != "json"}
    show(result)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
