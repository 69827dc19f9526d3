"""The disk alone: how long SQLite's ``COMMIT`` takes on it when commits come as the door
makes them (WAL, ``synchronous = FULL``, a play's row and its game's counts a commit, a
passive checkpoint a second on a connection of its own), at a given rate.

The door answers a play only once the commit holding it is on the disk, so its latency
stands on this floor as it stands on the bare telnet shell's (the network's and Python's):
a disk that now and then takes tens of milliseconds for an fsync, as a shared machine's
may, shows here, and in every play that was waiting for that commit.
``benchmarks/load.py`` runs this beside each round of its rows, at the door's commit rate.

    python -m benchmarks.disk [--rate 300] [--seconds 30] [--folder DIR]
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.callers import milliseconds

GAMES = 1000
CHECKPOINT_PAUSE = 1.0  # seconds, as the door's writer


def _checkpoints(path: Path, stop: threading.Event) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        while not stop.wait(CHECKPOINT_PAUSE):
            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    finally:
        db.close()


def commit_times(folder: Path, rate: float, seconds: float) -> dict[str, Any]:
    """Commits at ``rate`` a second for ``seconds`` into a new database in ``folder``: how
    many, and their durations in ms (p50, p95, p99, max)."""
    path = folder / "disk.db"
    db = sqlite3.connect(path, isolation_level=None)
    stop = threading.Event()
    checkpointer = threading.Thread(target=_checkpoints, args=(path, stop), daemon=True)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, moves INTEGER, score INTEGER)")
        db.execute("CREATE TABLE plays (game_id INTEGER, number INTEGER, command TEXT)")
        db.execute("CREATE INDEX plays_of_game ON plays (game_id, number)")
        db.executemany("INSERT INTO games VALUES (?, 0, 0)", [(n,) for n in range(GAMES)])
        checkpointer.start()
        took: list[float] = []
        due = time.monotonic()
        end = due + seconds
        play = 0
        while due < end:
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            game = play % GAMES
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO plays VALUES (?, ?, 'V')", (game, play // GAMES))
            db.execute("UPDATE games SET moves = moves + 1, score = ? WHERE id = ?", (play, game))
            began = time.perf_counter()
            db.execute("COMMIT")
            took.append(time.perf_counter() - began)
            play += 1
            due += 1 / rate
    finally:
        stop.set()
        if checkpointer.is_alive():
            checkpointer.join()
        db.close()
    return {"server": "disk", "commits": len(took), "rate": rate, "commit_ms": milliseconds(took)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=300.0, help="commits a second")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--folder", type=Path, help="where the database goes (a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="door-disk-", dir=args.folder) as folder:
        result = commit_times(Path(folder), args.rate, args.seconds)
    figures = result["commit_ms"]
    names = ("p50", "p95", "p99", "max")
    print(f"{result['commits']} commits at {args.rate:g} a second; a commit took, in ms:")
    print("".join(f"{name:>8}" for name in names))
    print("".join(f"{figures[name]:8.2f}" for name in names))


if __name__ == "__main__":
    main()
