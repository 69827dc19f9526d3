"""The store's connection: opening, closing, transactions and the helpers every part uses.

One aiosqlite connection in autocommit mode; each method that changes anything runs in one
``BEGIN IMMEDIATE`` ... ``COMMIT`` and returns only after the commit, so what it reports has
reached the disk (WAL with ``synchronous = FULL``). An :class:`asyncio.Lock` keeps the
statements of concurrent callers from landing in each other's transactions.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import aiosqlite

from door.store.records import NotFound, StoreError

Clock = Callable[[], datetime]
Row = Sequence[Any]

BUSY_TIMEOUT_MS = 5000


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(when: datetime) -> str:
    """A time as stored: UTC ISO 8601 with microseconds, so that text order is time order."""
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def moment(text: str) -> datetime:
    """A stored time read back (aware, in UTC)."""
    return datetime.fromisoformat(text)


async def execute(
    db: aiosqlite.Connection, sql: str, params: Iterable[Any] = ()
) -> tuple[int, int]:
    """Execute one statement; (rows changed, last row id)."""
    async with db.execute(sql, tuple(params)) as cursor:
        return cursor.rowcount, cursor.lastrowid or 0


async def fetch_all(db: aiosqlite.Connection, sql: str, params: Iterable[Any] = ()) -> list[Row]:
    return list(await db.execute_fetchall(sql, tuple(params)))


async def configure(db: aiosqlite.Connection, path: Path) -> None:
    await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    modes = await fetch_all(db, "PRAGMA journal_mode = WAL")
    if modes[0][0] != "wal":
        raise StoreError(f"{path}: the database can't use WAL mode (got {modes[0][0]})")
    # FULL: a commit survives a power cut too, not just a killed process.
    await db.execute("PRAGMA synchronous = FULL")
    await db.execute("PRAGMA foreign_keys = ON")


async def change_one(db: aiosqlite.Connection, sql: str, params: Sequence[Any]) -> None:
    """Run an UPDATE or DELETE of one row by id (the last parameter); NotFound if none."""
    changed, _ = await execute(db, sql, params)
    if changed == 0:
        raise NotFound(f"no such user or game ({params[-1]})")


class StoreBase:
    """The connection, the lock and the clock the parts of :class:`~door.store.Store` share."""

    def __init__(self, db: aiosqlite.Connection, path: Path, clock: Clock) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self._clock = clock
        self.path = path

    async def close(self) -> None:
        async with self._lock:
            await self._db.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    # -- transactions --------------------------------------------------------------------

    def _now(self) -> str:
        """Now, as stored."""
        return stamp(self._clock())

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction, committed when the block ends, rolled back if it raises."""
        async with self._lock:
            db = self._db
            await db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                await db.execute("COMMIT")
            except BaseException:
                # A cancelled COMMIT may still have run in the connection's thread.
                with suppress(sqlite3.OperationalError):
                    if db.in_transaction:
                        await db.execute("ROLLBACK")
                raise

    @asynccontextmanager
    async def _snapshot(self) -> AsyncIterator[aiosqlite.Connection]:
        """Several reads that see one state of the database."""
        async with self._lock:
            db = self._db
            await db.execute("BEGIN")
            try:
                yield db
            finally:
                with suppress(sqlite3.OperationalError):
                    if db.in_transaction:
                        await db.execute("COMMIT")

    async def _read(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        async with self._lock:
            return await fetch_all(self._db, sql, params)
