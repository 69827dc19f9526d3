"""The store's reader: scoreboards, statistics, log-in look-ups and resuming, on aiosqlite's
connection (a backup copies on a connection of its own, see :meth:`door.store.Store.backup`).

Why two libraries for one file: the writer (:mod:`door.store.group_commit`) runs each group's
statements in the event loop between ``BEGIN IMMEDIATE`` and ``COMMIT``, on plain
``sqlite3``, because a trip to a thread per statement costs a handover of Python's GIL (up to
5 ms while the loop is busy) and a group holds hundreds of statements; only the ``COMMIT``
(the fsync) goes to its thread. A read is one or a few statements whose answer the caller
waits for anyway, and may take long (a scoreboard over every game): it fits
aiosqlite's public API, a connection with a thread of its own, where it never holds up the
event loop. In WAL mode this reader sees the last commit and never waits for the writer.

Reads that must see one state of the database are one statement (subqueries, not several
reads in a transaction): a transaction held open across several awaits would take in other
callers' reads, sent meanwhile, which would then see the database as it was when it began,
older than a commit their caller has just been told of; and each await is a round trip to
the connection's thread, so one statement is also the quicker.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import aiosqlite

from door.store.accounts import alias_skeleton
from door.store.group_commit import as_store_error
from door.store.records import StoreError

Row = Sequence[Any]

# Pages of the database each connection keeps, in KiB (SQLite's default: 2,000), the
# writer's and the reader's: the system's file cache holds them anyway. At the default, the
# door held 3 MB more at 1,000 callers (benchmarks/load.py, 60 s: 40.5 KB a caller over the
# bare shell, 37.4 at 256), and its plays were no faster (p99 3.4 ms both).
PAGE_CACHE_KIB = 256


class Reader:
    """The connection reads run on, one after another, each seeing the last commit."""

    def __init__(self) -> None:
        self._db: aiosqlite.Connection | None = None

    async def open(self, path: str, busy_timeout_ms: int) -> None:
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            await db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await db.execute("PRAGMA query_only = ON")
            await db.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
            # The look-alike aliases' pass runs here, in the reader's thread, not the loop.
            await db.create_function("alias_skeleton", 1, alias_skeleton, deterministic=True)
        except BaseException:
            await db.close()
            raise
        self._db = db

    def _connection(self) -> aiosqlite.Connection:
        if self._db is None:
            raise StoreError("the store is closed")
        return self._db

    async def rows(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        """Every row ``sql`` gives, as of the last commit."""
        try:
            return list(await self._connection().execute_fetchall(sql, tuple(params)))
        except sqlite3.DatabaseError as error:
            raise as_store_error(error) from None

    async def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            await db.close()
