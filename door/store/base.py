"""The store's connections, and the helpers every part uses.

Every change is a *write*: a function of the connection that :meth:`StoreBase._write` hands
to the writer (:mod:`door.store.group_commit`), which commits writes in groups and returns only
after the commit holding this one, so what it reports has reached the disk (WAL with
``synchronous = FULL``). Reads go to a second connection beside it, on aiosqlite
(:mod:`door.store.reading`, which says why the two sides use two libraries):
:meth:`StoreBase._read`, one statement at a time; reads that must agree are one statement.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from door.store.accounts import alias_skeleton
from door.store.group_commit import CommitCounts, Writer
from door.store.reading import PAGE_CACHE_KIB, Reader
from door.store.records import NotFound, StoreError

Clock = Callable[[], datetime]
Row = Sequence[Any]
T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000


def utc_now() -> datetime:
    return datetime.now(UTC)


def local_midnight(now: datetime) -> datetime:
    """The last midnight before ``now`` on the server's local clock, with the offset the
    clock had then (on the days the clocks change, not the offset it has now).

    >>> import os, time
    >>> os.environ["TZ"] = "Europe/London"; time.tzset()
    >>> local_midnight(datetime(2026, 3, 29, 11, 0, tzinfo=UTC)).isoformat()
    '2026-03-29T00:00:00+00:00'
    >>> del os.environ["TZ"]; time.tzset()
    """
    midnight = now.astimezone().replace(tzinfo=None, hour=0, minute=0, second=0, microsecond=0)
    return midnight.astimezone()  # a naive time is read as local, with that moment's offset


def stamp(when: datetime) -> str:
    """A time as stored: UTC ISO 8601 with microseconds, so that text order is time order."""
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def moment(text: str) -> datetime:
    """A stored time read back (aware, in UTC)."""
    return datetime.fromisoformat(text)


def execute(db: sqlite3.Connection, sql: str, params: Iterable[Any] = ()) -> tuple[int, int]:
    """Execute one statement; (rows changed, last row id)."""
    cursor = db.execute(sql, tuple(params))
    return cursor.rowcount, cursor.lastrowid or 0


def fetch_all(db: sqlite3.Connection, sql: str, params: Iterable[Any] = ()) -> list[Row]:
    return db.execute(sql, tuple(params)).fetchall()


def configure_writer(
    path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> Callable[[sqlite3.Connection], None]:
    def configure(db: sqlite3.Connection) -> None:
        db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            raise StoreError(f"{path}: the database can't use WAL mode (got {mode})")
        # FULL: a commit survives a power cut too, not just a killed process. Not NORMAL with
        # an fsync of the WAL after each COMMIT: a failed fsync would come after readers saw
        # the commit, and it was no faster under load (benchmarks/load.py, 1,000 callers).
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
        db.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
        add_functions(db)

    return configure


def add_functions(db: sqlite3.Connection) -> None:
    """The door's own SQL functions: ``alias_skeleton(alias)``, so that a look-alike alias is
    found by one statement, in SQLite, rather than by a pass over every alias in Python."""
    db.create_function("alias_skeleton", 1, alias_skeleton, deterministic=True)


def change_one(db: sqlite3.Connection, sql: str, params: Sequence[Any]) -> None:
    """Run an UPDATE or DELETE of one row by id (the last parameter); NotFound if none."""
    changed, _ = execute(db, sql, params)
    if changed == 0:
        raise NotFound(f"no such user or game ({params[-1]})")


class StoreBase:
    """The connections and the clock the parts of :class:`~door.store.Store` share."""

    def __init__(self, writer: Writer, reader: Reader, path: Path, clock: Clock) -> None:
        self._writer = writer
        self._reader = reader
        self._clock = clock
        self.path = path

    async def close(self) -> None:
        """Commit the writes under way, then close both connections."""
        try:
            await self._writer.close()
        finally:
            await self._reader.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def commit_counts(self) -> CommitCounts:
        """How many commits the store made since it opened, and how many writes they held."""
        return self._writer.counts

    # -- writes and reads ----------------------------------------------------------------

    def _now(self) -> str:
        """Now, as stored."""
        return stamp(self._clock())

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` in a write transaction; returns once it is committed.

        ``work`` runs in the event loop inside the group's transaction, beside other
        writes: it must only use the connection and the values it closes over, and may run
        twice if its group could not be committed. If it raises, nothing it did is stored,
        and its caller alone gets the error.
        """
        return await self._writer.run(work)

    async def _read(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        """Every row ``sql`` gives, on the read connection (the last commit)."""
        return await self._reader.rows(sql, params)
