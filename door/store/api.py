"""The :class:`Store`: every question and change the door and the sysop's tools have for the
database, so that nothing outside ``door.store`` writes SQL.

Its methods come in parts: users (:mod:`door.store.users`), variants and games
(:mod:`door.store.games`), statistics and scoreboards (:mod:`door.store.scoreboards`), the
deal of the day (:mod:`door.store.daily`), winnable deals (:mod:`door.store.winnable`) and
contests (:mod:`door.store.contests`), over the connection and transactions of
:mod:`door.store.base`; opening and upkeep are here.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Awaitable, Coroutine
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

from door.files import create_private, make_private, private_temp, sync_folder
from door.store.base import (
    BUSY_TIMEOUT_MS,
    Clock,
    configure_writer,
    local_midnight,
    stamp,
    utc_now,
)
from door.store.contests import ContestStore
from door.store.daily import DailyStore
from door.store.games import GameStore
from door.store.group_commit import Writer, as_store_error
from door.store.league import LeagueStore
from door.store.reading import Reader
from door.store.records import NotFound, StoreError
from door.store.schema import migrate, schema_version
from door.store.scoreboards import ScoreStore
from door.store.users import UserStore
from door.store.winnable import WinnableStore

T = TypeVar("T")


class _Opening:
    """What :meth:`Store.open` gives: await it for a store, or use it in ``async with``,
    which closes the store at the end."""

    def __init__(self, opening: Coroutine[Any, Any, Store]) -> None:
        self._opening = opening
        self._store: Store | None = None

    def __await__(self) -> Any:
        return self._opening.__await__()

    async def __aenter__(self) -> Store:
        self._store = await self._opening
        return self._store

    async def __aexit__(self, *exc: object) -> None:
        if self._store is not None:
            await self._store.close()


class Store(UserStore, LeagueStore, ContestStore, GameStore, ScoreStore, DailyStore, WinnableStore):
    """Users, games, variants, scoreboards, the deals of the day, the winnable deals kept
    ready and the contests, in one SQLite file.

    Each part is a mixin over :class:`~door.store.base.StoreBase` rather than an object the
    store holds, because the parts share everything but their SQL: one writer, one reader, one
    clock. A caller asks the store, not a part (``store.create_user``,
    ``store.start_game``), so no caller needs to know which part answers; and a part that needs
    another's answer (the scoreboards, the deal of the day and the winnable deals ask the
    games part for a level's variant) calls it on ``self``, with no wiring between parts.

    >>> import asyncio, tempfile, pathlib
    >>> async def demo(folder):
    ...     async with Store.open(pathlib.Path(folder) / "door.db") as store:
    ...         user = await store.create_user("Bob", "secret")
    ...         return (await store.authenticate("BOB", "secret")).alias
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     asyncio.run(demo(folder))
    'Bob'
    """

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        clock: Clock | None = None,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> _Opening:
        """Open (and with ``create``, create) the database, migrating it to this version.

        ``clock`` gives the current time (tests set it); ``busy_timeout_ms`` how long one
        try waits for another program's write lock. StoreError if the file is missing
        (``create=False``), not a database, or from a newer door.
        """
        return _Opening(cls._open(Path(path), create, clock or utc_now, busy_timeout_ms))

    @classmethod
    async def _open(cls, path: Path, create: bool, clock: Clock, busy_timeout_ms: int) -> Store:
        if not create and not path.is_file():
            raise NotFound(f"{path}: no such database")
        # The database holds password hashes: owner-only, and SQLite gives its -wal and -shm
        # files the database's own permissions. A database made before is tightened too.
        try:
            if not create_private(path):
                for part in ("", "-wal", "-shm", "-journal"):
                    make_private(Path(f"{path}{part}"))
        except OSError as error:
            raise StoreError(f"{path}: can't be opened: {error.strerror or error}") from None
        writer, reader = Writer("door-store-writer"), Reader()
        try:
            await writer.open(str(path), configure_writer(path, busy_timeout_ms))
            await writer.before_writes(migrate)
            writer.expect_schema(await writer.before_writes(schema_version))
            await reader.open(str(path), BUSY_TIMEOUT_MS)
        except StoreError:
            await _close(writer, reader)
            raise
        except sqlite3.DatabaseError as error:
            await _close(writer, reader)
            if isinstance(error, sqlite3.OperationalError) and "unable to open" in str(error):
                raise StoreError(f"{path}: can't be opened: {error}") from None
            raise StoreError(f"{path}: not a Canfield door database ({error})") from None
        except BaseException:
            await _close(writer, reader)
            raise
        store = cls(writer, reader, path, clock)
        try:
            await store.daily_secret()  # made on the door's first start
        except BaseException:
            await _close(writer, reader)
            raise
        return store

    # -- upkeep --------------------------------------------------------------------------

    async def counts(self) -> tuple[int, int]:
        """(users, games) in the database."""
        rows = await self._read("SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM games)")
        return int(rows[0][0]), int(rows[0][1])

    async def games_today(self) -> int:
        """Games started since midnight, the server's local time, by anyone."""
        midnight = local_midnight(self._clock())
        rows = await self._read("SELECT count(*) FROM games WHERE started >= ?", (stamp(midnight),))
        return int(rows[0][0])

    async def integrity_check(self) -> list[str]:
        """SQLite's ``PRAGMA integrity_check``: ``["ok"]`` for a sound database."""
        return [row[0] for row in await self._read("PRAGMA integrity_check")]

    async def backup(self, path: str | Path) -> Path:
        """Write a consistent copy of the live database to ``path`` (SQLite's online backup).

        The copy is written beside ``path``, checked with ``PRAGMA integrity_check`` and
        only then renamed into place, so ``path`` is either what it was or the whole new
        copy. The copy is a plain single file (not WAL) that opens anywhere.
        """
        target = Path(path)
        refusal = self.backup_refusal(target)
        if refusal is not None:
            raise StoreError(refusal)
        partial = private_temp(target)  # owner-only, like the database it copies
        stop = threading.Event()
        try:
            # On a connection of its own: a copy of the last commit, while writes and
            # other reads go on.
            try:
                await _to_the_end(asyncio.to_thread(_copy, self.path, partial, stop), stop)
            except sqlite3.DatabaseError as error:
                raise as_store_error(error) from None
            problems = await _to_the_end(asyncio.to_thread(_settle_copy, partial, stop), stop)
            if problems != ["ok"]:
                raise StoreError(f"the copy fails SQLite's integrity check: {problems[0]}")
            os.replace(partial, target)
            await asyncio.to_thread(sync_folder, target.parent)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        return target

    def backup_refusal(self, target: Path) -> str | None:
        """Why a backup may not be written to ``target``, or None if it may: the database
        itself, its own -wal, -shm and -journal files, or a database SQLite has open."""
        live = self.path.resolve()
        where = target.resolve()
        if where == live:
            return f"{target} is the live database itself"
        for part in ("-wal", "-shm", "-journal"):
            if where == live.with_name(live.name + part):
                return f"{target} is the live database's own {part[1:]} file"
        if Path(f"{target}-wal").exists():
            return f"{target} is in use by SQLite ({target}-wal exists)"
        return None


async def _close(writer: Writer, reader: Reader) -> None:
    await writer.close()
    await reader.close()


BACKUP_STEP_PAGES = 256
"""Pages a backup copies between two looks at whether it was cancelled (1 MB of 4 KB pages)."""


class _Stopped(Exception):
    """A backup cancelled: its thread stops copying."""


async def _to_the_end(work: Awaitable[T], stop: threading.Event) -> T:
    """Await ``work`` (a thread's); if cancelled meanwhile, tell the thread to ``stop`` and
    wait until it has, so nothing is written into the copy once it is removed."""
    running = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        stop.set()
        with suppress(Exception):
            await running
        raise


def _copy(database: Path, partial: Path, stop: threading.Event) -> None:
    """Copy ``database`` into ``partial``, a step at a time, in one read transaction (one
    state of the database throughout); stop early once ``stop`` is set."""

    def progress(status: int, remaining: int, total: int) -> None:
        if stop.is_set():
            raise _Stopped

    db = sqlite3.connect(database, isolation_level=None)
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA query_only = ON")
        copy = sqlite3.connect(partial)
        try:
            db.execute("BEGIN")
            db.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # the snapshot, taken
            db.backup(copy, pages=BACKUP_STEP_PAGES, progress=progress)
        finally:
            copy.close()
    finally:
        db.close()


def _settle_copy(partial: Path, stop: threading.Event) -> list[str]:
    """Make a fresh copy a plain single file and check it; the integrity check's lines."""
    copy = sqlite3.connect(partial)
    try:
        copy.execute("PRAGMA journal_mode = DELETE")
        if stop.is_set():
            return ["cancelled"]
        return [row[0] for row in copy.execute("PRAGMA integrity_check")]
    finally:
        copy.close()
