"""Drawing: the event loop's time to update a caller's board after a play, without network.

Random play-outs over the shipped levels, as in benchmarks/engine.py; after each play the
board is drawn into the caller's screen buffer (``draw_board`` and the keys' reminder, as
the door draws an ANSI board) and the changes are rendered as the bytes the door would send
(``ScreenBuffer.render_changes``). The first ``--warm-up`` games fill the screen's caches,
as a door that has run a while has them, and are not counted. Prints each part's time per
play (mean, p50, p90, p99, in microseconds) and the bytes a play sends, and writes JSON.

    python benchmarks/drawing.py [--games 300] [--warm-up 100] [--max-plays 80] [--json FILE]

At 1,000 callers a play every 2 seconds, every 100 us a play spends here is 5 % of the
event loop's time, for every caller's latency.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path

from callers import percentile

from ansi.screen import ScreenBuffer
from door.config import SHIPPED_LEVELS, Level
from door.engine import Game
from door.views.board import PROMPT, Look, draw_board
from door.views.pointer import draw_keys_reminder

PARTS = ("board", "render", "both")


def play_out(
    level: Level, deal: int, rng: random.Random, max_plays: int, look: Look
) -> tuple[dict[str, list[float]], list[int]]:
    """One game played at random: each part's seconds and the bytes sent, a play each."""
    game = Game.deal(level.variant, deal)
    screen = ScreenBuffer(80, 24)
    draw_board(screen, game, level.name, look)
    screen.render_full()
    seconds: dict[str, list[float]] = {part: [] for part in PARTS}
    sent: list[int] = []
    for _ in range(max_plays):
        legal = game.legal()
        if not legal:
            break
        game.play(rng.choice(legal))
        began = time.perf_counter()
        draw_board(screen, game, level.name, look, prompt=PROMPT)
        draw_keys_reminder(screen, len(game.tableau), hot=False, hints=level.hints != "off")
        drawn = time.perf_counter()
        update = screen.render_changes()
        rendered = time.perf_counter()
        seconds["board"].append(drawn - began)
        seconds["render"].append(rendered - drawn)
        seconds["both"].append(rendered - began)
        sent.append(len(update.encode()))
    return seconds, sent


def measure(games: int, warm_up: int, max_plays: int, seed: int) -> dict:
    rng = random.Random(seed)
    look = Look()
    levels = SHIPPED_LEVELS
    for deal in range(warm_up):
        play_out(levels[deal % len(levels)], 1_000_000 + deal, rng, max_plays, look)
    seconds: dict[str, list[float]] = {part: [] for part in PARTS}
    sent: list[int] = []
    cpu = time.process_time()
    for deal in range(games):
        taken, bytes_sent = play_out(levels[deal % len(levels)], deal, rng, max_plays, look)
        for part in PARTS:
            seconds[part] += taken[part]
        sent += bytes_sent
    cpu = time.process_time() - cpu
    parts = {}
    for part, values in seconds.items():
        values.sort()
        parts[part] = {
            "mean_us": 1e6 * statistics.fmean(values),
            "p50_us": 1e6 * percentile(values, 0.50),
            "p90_us": 1e6 * percentile(values, 0.90),
            "p99_us": 1e6 * percentile(values, 0.99),
        }
    return {
        "plays": len(sent),
        "parts": parts,
        "bytes_mean": statistics.fmean(sent),
        "bytes_median": statistics.median(sent),
        "cpu_seconds": cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--warm-up", type=int, default=100)
    parser.add_argument("--max-plays", type=int, default=80)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/drawing.json"))
    args = parser.parse_args()
    result = measure(args.games, args.warm_up, args.max_plays, args.seed)
    print(f"{result['plays']} plays in {args.games} games (after {args.warm_up} to warm up)")
    print(f"{'part, us a play':<16}{'mean':>8}{'p50':>8}{'p90':>8}{'p99':>8}")
    names = {"board": "draw the board", "render": "render changes", "both": "together"}
    for part, figures in result["parts"].items():
        print(
            f"{names[part]:<16}"
            + "".join(f"{figures[key]:8.1f}" for key in ("mean_us", "p50_us", "p90_us", "p99_us"))
        )
    print(f"bytes a play: mean {result['bytes_mean']:.1f}, median {result['bytes_median']:.0f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    record = {"python": platform.python_version(), **vars(args), **result}
    record["json"] = str(args.json)
    args.json.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
