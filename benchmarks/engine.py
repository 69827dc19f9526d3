"""Engine speed: random play-outs over the shipped levels.

Each step lists the legal plays and makes one of them at random, as a caller or a solver
would. Prints plays per second per level and writes JSON.

    python -m benchmarks.engine [--games 300] [--max-plays 400] [--json FILE]

Target: at least 50,000 plays per second on one core. Seconds are the process's CPU time,
so that other work on the machine does not count against the engine; wall time is shown too.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path

from door.engine import Game
from door.levels import SHIPPED_LEVELS

TARGET = 50_000


def play_out(game: Game, rng: random.Random, max_plays: int) -> int:
    plays = 0
    while plays < max_plays:
        legal = game.legal()
        if not legal:
            break
        game.play(rng.choice(legal))
        plays += 1
    return plays


def measure(level, games: int, max_plays: int, seed: int) -> dict:
    rng = random.Random(seed)
    plays = 0
    won = 0
    started, wall_started = time.process_time(), time.perf_counter()
    for number in range(games):
        game = Game.deal(level.variant, number)
        plays += play_out(game, rng, max_plays)
        won += game.status == "won"
    seconds = time.process_time() - started  # CPU time: one core, whatever else runs
    wall = time.perf_counter() - wall_started
    return {
        "level": level.number,
        "name": level.name,
        "games": games,
        "plays": plays,
        "seconds": round(seconds, 3),
        "plays_per_second": round(plays / seconds),
        "wall_seconds": round(wall, 3),
        "won": won,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--max-plays", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/engine.json"))
    args = parser.parse_args()
    rows = [measure(level, args.games, args.max_plays, args.seed) for level in SHIPPED_LEVELS]
    print(f"{'level':<28} {'games':>6} {'plays':>8} {'cpu s':>8} {'wall s':>8} {'plays/s':>9}")
    for row in rows:
        print(
            f"{row['name']:<28} {row['games']:>6} {row['plays']:>8} {row['seconds']:>8.2f} "
            f"{row['wall_seconds']:>8.2f} {row['plays_per_second']:>9,}"
        )
    total_plays = sum(row["plays"] for row in rows)
    total_seconds = sum(row["seconds"] for row in rows)
    overall = round(total_plays / total_seconds)
    verdict = "meets" if overall >= TARGET else "misses"
    total_wall = sum(row["wall_seconds"] for row in rows)
    print(
        f"{'all levels':<28} {'':>6} {total_plays:>8} {total_seconds:>8.2f} {total_wall:>8.2f} "
        f"{overall:>9,}"
    )
    print(f"target {TARGET:,} plays/s: {verdict}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "levels": rows,
                "plays_per_second": overall,
                "target": TARGET,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
