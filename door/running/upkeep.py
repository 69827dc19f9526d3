"""What the running door keeps up by itself: the bulletin files and the nightly backups.

:class:`BulletinKeeper` rewrites the ``[bulletin]`` files of sysop.toml when a game ends, at
most once every :data:`BULLETIN_INTERVAL` seconds, each replaced whole so a BBS showing one
never sees half of it. :class:`BackupKeeper` makes a backup of the database each day at
``[backup] time`` into ``[backup] folder`` (SQLite's online backup, checked with ``PRAGMA
integrity_check``, owner-only) and keeps the newest ``keep``. Both read the settings afresh
each time, so a reload counts from their next run. Each runs as a supervised job
(:class:`door.tasks.Supervised`): a failure is logged and the job starts again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sqlite3
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from door import bulletin
from door.config import BackupConfig, Config
from door.files import PRIVATE_FILE, private_folder, replace_file
from door.store import Store, StoreError
from door.tasks import Supervised

log = logging.getLogger("door")

BULLETIN_INTERVAL = 60.0
"""Seconds between two writes of the bulletin files, at least."""

BACKUP_POLL = 30.0
"""How often the backup keeper looks at the clock (the time of day may jump: DST, NTP)."""

Settings = Callable[[], Config]
Clock = Callable[[], datetime]


class BulletinKeeper:
    """Keeps the ``[bulletin]`` files up to date while the door runs; see the module."""

    def __init__(
        self, store: Store, settings: Settings, *, interval: float = BULLETIN_INTERVAL
    ) -> None:
        self._store = store
        self._settings = settings
        self._interval = interval
        self._due = asyncio.Event()
        self._due.set()  # the first write, at start: the files match the database at once
        self._job = Supervised("bulletin", self._keep)
        self.writes = 0

    def game_ended(self) -> None:
        """A game has ended: the files are rewritten soon (at once, if the last write is a
        minute old)."""
        self._due.set()

    def start(self) -> None:
        self._job.start()

    async def _keep(self) -> None:
        while True:
            await self._due.wait()
            self._due.clear()
            await self.write()
            await asyncio.sleep(self._interval)

    async def write(self) -> None:
        """Write every bulletin file now; a file that can't be written is logged and skipped."""
        config = self._settings()
        if not config.bulletin.files:
            return
        try:
            board = await bulletin.gather(self._store, config)
        except StoreError as error:
            log.warning("bulletin not written: %s", error)
            return
        for fmt, path in config.bulletin.files:
            data = bulletin.render(board, fmt)
            try:
                await asyncio.to_thread(_write_bulletin, path, data)
            except OSError as error:
                log.warning("bulletin %s can't be written: %s", path, error.strerror or error)
        self.writes += 1

    async def close(self) -> None:
        await self._job.close()


def _write_bulletin(path: Path, data: bytes) -> None:
    """Replace the bulletin at ``path``, its folder made (owner-only) if it is missing: the
    shipped sysop.toml names a folder of its own, ``bulletins``, that nobody has made yet."""
    private_folder(path.parent)
    replace_file(path, data)


@dataclass(frozen=True, slots=True)
class Backup:
    """A backup file and when it was made."""

    path: Path
    made: datetime
    size: int


def backup_name(database: Path, when: datetime) -> str:
    """``canfield-2026-11-30-0330.db`` for ``canfield.db``: names sort by time.

    >>> backup_name(Path("/srv/canfield.db"), datetime(2026, 11, 30, 3, 30))
    'canfield-2026-11-30-0330.db'
    """
    return f"{database.stem}-{when:%Y-%m-%d-%H%M}.db"


def backups(folder: Path, database: Path) -> list[Backup]:
    """The door's backups of ``database`` in ``folder``, oldest first."""
    pattern = re.compile(re.escape(database.stem) + r"-\d{4}-\d\d-\d\d-\d{4}\.db")
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if pattern.fullmatch(entry.name))
    except OSError:
        return []
    found = []
    for name in names:
        path = folder / name
        with suppress(OSError):
            info = path.stat()
            found.append(Backup(path, datetime.fromtimestamp(info.st_mtime), info.st_size))
    return found


def next_backup(after: datetime, settings: BackupConfig) -> datetime:
    """The first backup time of day strictly after ``after``.

    >>> next_backup(datetime(2026, 11, 30, 3, 29), BackupConfig(time=(3, 30)))
    datetime.datetime(2026, 11, 30, 3, 30)
    >>> next_backup(datetime(2026, 11, 30, 3, 30), BackupConfig(time=(3, 30)))
    datetime.datetime(2026, 12, 1, 3, 30)
    """
    hour, minute = settings.time
    moment = after.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return moment if moment > after else moment + timedelta(days=1)


class BackupKeeper:
    """Makes the nightly backup while the door runs; see the module."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        clock: Clock = datetime.now,
        poll: float = BACKUP_POLL,
    ) -> None:
        self._store = store
        self._settings = settings
        self._clock = clock
        self._poll = poll
        self._job = Supervised("backup", self._keep)
        self._lock = asyncio.Lock()

    def start(self) -> None:
        self._job.start()

    async def _keep(self) -> None:
        planned = self._settings().backup
        due = next_backup(self._clock(), planned)
        while True:
            await asyncio.sleep(self._poll)
            settings = self._settings().backup
            if settings.time != planned.time:  # a reload moved the time
                planned, due = settings, next_backup(self._clock(), settings)
            now = self._clock()
            if now < due:
                continue
            due = next_backup(now, settings)
            if settings.folder is not None:
                try:
                    await self.back_up()
                except (OSError, sqlite3.Error, StoreError) as error:
                    log.error("backup failed: %s", error)

    async def back_up(self) -> Backup:
        """Make a backup now into the configured folder and delete the oldest beyond
        ``keep``. OSError or StoreError if it can't be made (nothing is deleted then)."""
        settings = self._settings().backup
        database = self._store.path
        if settings.folder is None:
            raise StoreError("no [backup] folder in sysop.toml")
        async with self._lock:
            folder = private_folder(settings.folder)
            target = folder / backup_name(database, self._clock())
            await self._store.backup(target)
            os.chmod(target, PRIVATE_FILE)
            made = backups(folder, database)
            for old in made[: max(0, len(made) - settings.keep)]:
                old.path.unlink(missing_ok=True)
                log.info("backup %s deleted (keeping %d)", old.path, settings.keep)
        info = target.stat()
        log.info("backup written to %s (%d bytes, integrity checked)", target, info.st_size)
        return Backup(target, datetime.fromtimestamp(info.st_mtime), info.st_size)

    def last(self) -> Backup | None:
        """The newest backup in the configured folder, if any."""
        folder = self._settings().backup.folder
        found = backups(folder, self._store.path) if folder is not None else []
        return found[-1] if found else None

    async def close(self) -> None:
        await self._job.close()
