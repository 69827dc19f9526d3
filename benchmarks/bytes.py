"""Bytes sent per game command, over real TCP, for ANSI and plain-ASCII callers.

A caller signs up, starts deal 1 at level 1 and plays a winning line found by the solver;
every byte the door sends for each command is counted until the board update is complete.
Beside it: what a full redraw of the same board would cost.

    python benchmarks/bytes.py [--commands 200] [--json FILE]

Target: an ANSI mean of at most 120 bytes per command.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from client import Caller  # noqa: E402
from conftest import door_config, open_door  # noqa: E402

from ansi.charset import encode  # noqa: E402
from ansi.screen import ScreenBuffer  # noqa: E402
from door.engine import Game  # noqa: E402
from door.engine.solver import solve  # noqa: E402
from door.views.board import Look, draw_board  # noqa: E402

TARGET = 120
DEAL, LEVEL = 1, 1


async def settle(caller: Caller, pattern: str) -> None:
    """Wait for ``pattern``, then until the door has stopped sending."""
    await caller.wait_for(pattern, in_text=not caller.ansi)
    size = -1
    while size != len(caller.received):
        size = len(caller.received)
        await asyncio.sleep(0.03)


async def measure(door, line: list[str], ansi: bool) -> list[int]:
    options = (
        {"term": "xterm", "charset": "utf-8"}
        if ansi
        else {"ansi": False, "term": "dumb", "charset": "ascii"}
    )
    caller = await Caller.connect(door.port, **options)
    alias = "ansi" if ansi else "plain"
    for prompt, answer in (
        ("Your alias", alias),
        ("Sign up", "Y"),
        ("Password:", "secret1"),
        ("Password again", "secret1"),
    ):
        await settle(caller, prompt)
        await caller.type(answer)
    await settle(caller, "Your choice")
    await caller.key("#")
    await settle(caller, "Deal number")
    await caller.type(str(DEAL))
    await settle(caller, "Level:")
    await caller.key(str(LEVEL))
    await settle(caller, "Command")
    sizes = []
    for move, command in enumerate(line, start=1):
        before = len(caller.received)
        caller.forget_text()
        await caller.type(command)
        await settle(caller, rf"Moves\s+{move}\b|You won")
        sizes.append(len(caller.received) - before)
    await caller.hang_up()
    return sizes


def full_redraws(variant, line: list[str]) -> list[int]:
    game = Game.deal(variant, DEAL)
    sizes = []
    for command in line:
        game.play(command)
        screen = ScreenBuffer()
        draw_board(screen, game, "Level 1 - Draw one", Look())
        sizes.append(len(encode(screen.render_full(), "utf-8")))
    return sizes


def row(name: str, sizes: list[int]) -> dict:
    return {
        "caller": name,
        "commands": len(sizes),
        "mean": round(statistics.mean(sizes), 1),
        "median": statistics.median(sizes),
        "max": max(sizes),
        "total": sum(sizes),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=200, help="at most this many commands")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/bytes.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        door = await open_door(door_config(Path(folder)))
        variant = door.config.level(LEVEL).variant
        verdict = solve(Game.deal(variant, DEAL), max_seconds=30)
        if verdict.result != "won":
            raise SystemExit(f"deal {DEAL} did not solve: {verdict.result}")
        line = list(verdict.line[: args.commands])
        try:
            rows = [
                row("ANSI, only what changed", await measure(door, line, ansi=True)),
                row("plain ASCII, board reprinted", await measure(door, line, ansi=False)),
                row("ANSI, full redraw (for scale)", full_redraws(variant, line)),
            ]
        finally:
            await door.server.close("done", grace=1.0)
            await door.store.close()
    print(f"{'caller':<32} {'commands':>8} {'mean':>8} {'median':>8} {'max':>6} {'total':>8}")
    for item in rows:
        print(
            f"{item['caller']:<32} {item['commands']:>8} {item['mean']:>8} {item['median']:>8} "
            f"{item['max']:>6} {item['total']:>8}"
        )
    verdict_text = "meets" if rows[0]["mean"] <= TARGET else "misses"
    print(f"target: ANSI mean at most {TARGET} bytes per command: {verdict_text}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"deal": DEAL, "level": LEVEL, "rows": rows}, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
