"""What a new alias's checks cost on a board of many users: the look-alike search a sign-up
makes, as the board grows.

For each size, a real SQLite database of that many telnet users (made in one transaction,
their skeletons worked out as the door keeps them), then the door's own
``Store.look_alike`` for aliases that look like a user's and ones that don't, timed
(median and worst of ``--tries``), with the plan SQLite takes for the search.

    python -m benchmarks.aliases [--users 1000 10000 50000] [--tries 50]

Target: a look-alike search that does not grow with the board (an index, not a pass over
every user).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from door.store import Store
from door.store.accounts import alias_key, alias_skeleton
from door.store.users import LOOK_ALIKE


async def measure(users: int, tries: int) -> tuple[float, float, str]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "door.db"
        async with Store.open(path):
            pass  # made at this door's schema
        with sqlite3.connect(path) as db:
            aliases = [f"Caller{number}" for number in range(users)]
            db.executemany(
                "INSERT INTO users (alias, alias_key, skeleton, created, last_seen) "
                "VALUES (?, ?, ?, '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00')",
                ((alias, alias_key(alias), alias_skeleton(alias)) for alias in aliases),
            )
            plan = db.execute(f"EXPLAIN QUERY PLAN {LOOK_ALIKE}", ("x",)).fetchall()[-1][-1]
        async with Store.open(path) as store:
            times = []
            for number in range(tries):
                asked = f"Ca11er{number * 7 % users}" if number % 2 else f"Nobody{number}"
                started = time.perf_counter()
                await store.look_alike(asked)
                times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), max(times), plan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--tries", type=int, default=50)
    args = parser.parse_args()
    print(f"{'users':>8}  {'median ms':>9}  {'worst ms':>8}  plan")
    for users in args.users:
        median, worst, plan = asyncio.run(measure(users, args.tries))
        print(f"{users:>8}  {median:>9.2f}  {worst:>8.2f}  {plan}")


if __name__ == "__main__":
    main()
