"""Backups under faults: a backup cancelled (the door shutting down) stops writing its copy
before the cancel returns and leaves nothing behind; the rename that puts a backup in place is
followed by a sync of the folder; a door killed during a large backup leaves either the old
backup or the whole new one. Real SQLite files, a real process killed."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from door.store import Store

BIG_MB = 48
ROOT = Path(__file__).resolve().parent.parent


def make_big(database: Path, megabytes: int = BIG_MB) -> None:
    """A door database with ``megabytes`` of rows beside the door's own tables."""
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE ballast (data BLOB)")
        db.executemany("INSERT INTO ballast VALUES (randomblob(1048576))", [()] * megabytes)


def open_files_under(folder: Path) -> list[str]:
    """The files under ``folder`` this process holds open (removed ones included)."""
    found = []
    for entry in os.scandir("/proc/self/fd"):
        try:
            target = os.readlink(entry.path)
        except OSError:
            continue
        if target.startswith(str(folder)):
            found.append(target)
    return found


@pytest.mark.slow
async def test_a_cancelled_backup_stops_writing_its_copy(tmp_path: Path) -> None:
    database = tmp_path / "door.db"
    async with Store.open(database) as store:
        await store.create_user("Alice", "secret-one1")
    make_big(database)
    folder = tmp_path / "backups"
    folder.mkdir()
    async with Store.open(database) as store:
        backup = asyncio.create_task(store.backup(folder / "door-copy.db"))
        while not list(folder.iterdir()):
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.02)
        if backup.done():
            pytest.fail("the backup ended before it could be cancelled: make the database bigger")
        backup.cancel()
        with pytest.raises(asyncio.CancelledError):
            await backup
        # Once the cancel returns, nothing writes into the copy any more, and it is gone.
        assert open_files_under(folder) == []
        assert list(folder.iterdir()) == []
        # The store reads on.
        assert (await store.find_user("Alice")) is not None
    # Closed, the store has let every thread finish: none wrote a copy after all.
    assert list(folder.iterdir()) == []


BACKUP_SCRIPT = """
import asyncio, sys
from door.store import Store

async def main():
    async with Store.open(sys.argv[1]) as store:
        print("copying", flush=True)
        await store.backup(sys.argv[2])

asyncio.run(main())
"""


def backup_process(database: Path, target: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", BACKUP_SCRIPT, str(database), str(target)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


def aliases_in(backup: Path) -> set[str]:
    with sqlite3.connect(f"file:{backup}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {row[0] for row in db.execute("SELECT alias FROM users")}


@pytest.mark.slow
async def test_a_door_killed_during_a_large_backup_leaves_the_old_one_or_the_new(
    tmp_path: Path,
) -> None:
    database = tmp_path / "door.db"
    target = tmp_path / "backups" / "door-backup.db"
    target.parent.mkdir()
    async with Store.open(database) as store:
        await store.create_user("Old", "secret-one1")
        await store.backup(target)
        await store.create_user("New", "secret-one1")
    make_big(database)
    seen = set()
    for delay in (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6):
        process = backup_process(database, target)
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "copying"
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        aliases = aliases_in(target)
        assert aliases in ({"Old"}, {"Old", "New"})
        seen.add(frozenset(aliases))
    assert frozenset({"Old"}) in seen  # at least one kill came during the copy
    process = backup_process(database, target)
    assert process.wait() == 0
    assert aliases_in(target) == {"Old", "New"}


@pytest.mark.slow
def test_a_backup_put_in_place_has_its_folder_synced(tmp_path: Path) -> None:
    """strace shows the rename into the folder, then an fsync of the folder itself."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed")
    database = tmp_path / "door.db"
    sqlite3.connect(database).close()
    folder = tmp_path / "backups"
    folder.mkdir()
    target = folder / "door-backup.db"
    trace = tmp_path / "trace.txt"
    traced = [strace, "-f", "-qq", "-e", "trace=openat,rename,renameat,renameat2,fsync"]
    subprocess.run(
        [
            *traced,
            "-o",
            str(trace),
            sys.executable,
            "-c",
            BACKUP_SCRIPT,
            str(database),
            str(target),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    lines = trace.read_text().splitlines()
    renamed = next(i for i, line in enumerate(lines) if "rename" in line and str(target) in line)
    opened = re.compile(
        rf'openat\(AT_FDCWD, "{re.escape(str(folder))}", O_RDONLY[^)]*O_DIRECTORY.*= (\d+)$'
    )
    folder_fds = {match.group(1) for line in lines[renamed:] if (match := opened.search(line))}
    synced = [line for line in lines[renamed:] if any(f"fsync({fd})" in line for fd in folder_fds)]
    assert synced, "no fsync of the folder after the rename"
