"""Drawing: the event loop's time to update a caller's board after a play, without network.

Random play-outs over the shipped levels, as in benchmarks/engine.py; after each play the
board is drawn into the caller's screen buffer by the caller's ``BoardPainter`` as the door
draws it after a typed play on an ANSI board (only the parts the play changed): the play on
the message line, the game's number in the title and its seal under the columns, the hot
keys' reminder beside them. The changes are then rendered as the bytes the door would send
(``ScreenBuffer.render_changes``).
The first ``--warm-up`` games fill the screen's caches, as a door that has run a while has
them, and are not counted. Prints each part's time per play (mean, p50, p90, p99, in
microseconds) and the bytes a play sends, and writes JSON.

With ``--callers N``, N games are played side by side, a play of each in turn, as N callers
play on one door: the screen's caches (plans, rows) then serve N boards at once, as under
load, rather than one.

    python -m benchmarks.drawing [--games 300] [--warm-up 100] [--max-plays 80]
        [--callers 1] [--language de] [--json FILE]

With ``--language de`` the boards are drawn in German, as for a caller who reads it: the
catalog must cost a play no more time than English does.

At 1,000 callers a play every 2 seconds, every 100 us a play spends here is 5 % of the
event loop's time, for every caller's latency. Inside the door under that load
(benchmarks/load.py) the same drawing took about one and a half times as long as here:
between two plays of a caller the door does everything else for a thousand callers, so the
tables and rows a board is drawn from are no longer in the processor's caches. Drawing that
touches less memory gains more in the door than it shows here.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ansi.screen import ScreenBuffer
from benchmarks.callers import percentile
from door.engine import Game
from door.levels import SHIPPED_LEVELS, Level
from door.store import GameRecord
from door.views.board import PROMPT, BoardPainter, Look
from door.views.pointer import reminder_lines
from door.visit.play import GameLabels, labels_of
from door.words import ENGLISH, Catalogs, speak

PARTS = ("board", "render", "both")


@dataclass
class Seat:
    """One caller's game and screen, and how many plays it has made."""

    level: Level
    game: Game
    screen: ScreenBuffer
    painter: BoardPainter
    labels: GameLabels  # the game's number and seal, as the door shows a scored game
    counted: bool
    plays: int = 0


def sit_down(level: Level, deal: int, look: Look, counted: bool) -> Seat:
    """A fresh deal on a fresh screen, drawn whole once."""
    game = Game.deal(level.variant, deal)
    # A scored game, as the door shows it: "Game N" in the title, its seal under the columns.
    record = GameRecord(
        id=deal,
        user_id=1,
        level=level.number,
        variant_id=1,
        deal=deal,
        status="playing",
        score=0,
        moves=0,
        cards_up=0,
        assisted=False,
        started=datetime(2026, 1, 1),
        finished=None,
        history=(),
        salt=f"{deal:016x}",
    )
    labels = labels_of(record, game)
    seat = Seat(level, game, ScreenBuffer(80, 24), BoardPainter(), labels, counted)
    seat.painter.draw(
        seat.screen, game, level.name, look, caption=labels.caption, footnote=labels.footnote
    )
    seat.screen.render_full()
    return seat


def play_once(seat: Seat, rng: random.Random, look: Look) -> tuple[float, float, int] | None:
    """A random play and the board after it: the seconds drawing and rendering took, and
    the bytes sent; None once the game is over."""
    legal = seat.game.legal()
    if not legal:
        return None
    command = rng.choice(legal)
    seat.game.play(command)
    seat.plays += 1
    level, game, screen, labels = seat.level, seat.game, seat.screen, seat.labels
    began = time.perf_counter()
    reminder = reminder_lines(len(game.tableau), hot=True, hints=level.hints != "off")
    seat.painter.draw(
        screen,
        game,
        level.name,
        look,
        command,  # a typed play is said back on the message line
        prompt=PROMPT,
        caption=labels.caption,
        footnote=labels.footnote,
        reminder=reminder,
    )
    drawn = time.perf_counter()
    update = screen.render_changes()
    rendered = time.perf_counter()
    return drawn - began, rendered - drawn, len(update.encode())


def measure(games: int, warm_up: int, max_plays: int, seed: int, callers: int = 1) -> dict:
    """Play ``warm_up`` then ``games`` games, ``callers`` at a time; the latter are timed."""
    rng = random.Random(seed)
    look = Look()
    levels = SHIPPED_LEVELS
    # (level, deal, timed): the warm-up's deals are apart from the timed ones
    deals = iter(
        [(index, 1_000_000 + index, False) for index in range(warm_up)]
        + [(index, index, True) for index in range(games)]
    )

    def next_seat() -> Seat | None:
        taken = next(deals, None)
        if taken is None:
            return None
        index, deal, counted = taken
        return sit_down(levels[index % len(levels)], deal, look, counted)

    seats = [seat for seat in (next_seat() for _ in range(callers)) if seat is not None]
    seconds: dict[str, list[float]] = {part: [] for part in PARTS}
    sent: list[int] = []
    cpu = time.process_time()
    while seats:
        for index, seat in enumerate(seats):
            taken = play_once(seat, rng, look) if seat.plays < max_plays else None
            if taken is None:
                seats[index] = next_seat()
                continue
            if seat.counted:
                board, render, bytes_sent = taken
                seconds["board"].append(board)
                seconds["render"].append(render)
                seconds["both"].append(board + render)
                sent.append(bytes_sent)
        seats = [seat for seat in seats if seat is not None]
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
    parser.add_argument("--callers", type=int, default=1, help="games played side by side")
    parser.add_argument("--language", choices=Catalogs.read().languages, default=ENGLISH)
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/drawing.json"))
    args = parser.parse_args()
    speak(Catalogs.read(args.language).words(args.language))
    result = measure(args.games, args.warm_up, args.max_plays, args.seed, args.callers)
    side_by_side = f", {args.callers} side by side" if args.callers > 1 else ""
    print(
        f"{result['plays']} plays in {args.games} games{side_by_side}"
        f" (after {args.warm_up} to warm up)"
    )
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
