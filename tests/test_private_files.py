"""The sysop's files: the database, its WAL, backups, bulletins and logs are owner-only; a
backup never replaces the live database's own files, and asks before replacing any file;
files are replaced through temporary files nobody can guess or plant a symlink at."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from door.store import Store

pytestmark = pytest.mark.usefixtures("public_umask")


@pytest.fixture
def public_umask():
    """The usual umask, under which files are made readable by everyone unless asked not."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def sysop(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "door", "sysop", "--database", str(folder / "door.db"), *args],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def make_users(path: Path) -> None:
    async with Store.open(path) as store:
        await store.create_user("Alice", "a-long-secret")
        await store.drop_file_user("Bob", "Dark Realm")


async def test_the_database_and_its_wal_are_owner_only(tmp_path: Path) -> None:
    database = tmp_path / "door.db"
    async with Store.open(database) as store:
        await store.create_user("Alice", "a-long-secret")
        for part in ("", "-wal", "-shm"):
            assert mode(Path(f"{database}{part}")) == 0o600, part


async def test_a_database_made_readable_before_is_made_owner_only(tmp_path: Path) -> None:
    database = tmp_path / "door.db"
    await make_users(database)
    os.chmod(database, 0o644)
    async with Store.open(database) as store:
        assert await store.counts() == (2, 0)
    assert mode(database) == 0o600


@pytest.mark.slow
def test_a_backup_is_owner_only(tmp_path: Path) -> None:
    asyncio.run(make_users(tmp_path / "door.db"))
    result = sysop(tmp_path, "backup", "copy.db")
    assert result.returncode == 0, result.stderr
    assert mode(tmp_path / "copy.db") == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.slow
@pytest.mark.parametrize("part", ["-wal", "-shm", "-journal"])
async def test_a_backup_never_replaces_the_databases_own_files(tmp_path: Path, part: str) -> None:
    database = tmp_path / "door.db"
    async with Store.open(database) as store:  # the door, serving: its WAL is live
        await store.create_user("Alice", "a-long-secret")
        result = await asyncio.to_thread(sysop, tmp_path, "backup", f"door.db{part}", "--force")
        assert result.returncode == 1
        assert f"door.db{part} is the live database's own {part[1:]} file" in result.stderr
        assert "Backed up" not in result.stdout
        await store.create_user("Carol", "another-secret")
    async with Store.open(database) as store:  # after a restart, everyone is there
        assert await store.counts() == (2, 0)
        assert await store.integrity_check() == ["ok"]


@pytest.mark.slow
def test_a_backup_asks_before_replacing_a_file(tmp_path: Path) -> None:
    asyncio.run(make_users(tmp_path / "door.db"))
    kept = tmp_path / "precious.txt"
    kept.write_text("keep me")
    refused = sysop(tmp_path, "backup", "precious.txt")
    assert refused.returncode == 1
    assert "precious.txt exists" in refused.stderr and "--force" in refused.stderr
    assert kept.read_text() == "keep me"
    forced = sysop(tmp_path, "backup", "precious.txt", "--force")
    assert forced.returncode == 0, forced.stderr
    assert kept.read_bytes().startswith(b"SQLite format 3")


@pytest.mark.slow
def test_a_bulletin_is_owner_only_and_never_written_through_a_symlink(tmp_path: Path) -> None:
    asyncio.run(make_users(tmp_path / "door.db"))
    victim = tmp_path / "victim.txt"
    victim.write_text("not the bulletin's")
    bulletin = tmp_path / "canfield.txt"
    bulletin.symlink_to(victim)
    # The temporary names the door used to write through, planted for its next few pids.
    for pid in range(os.getpid(), os.getpid() + 200):
        (tmp_path / f".canfield.txt.partial-{pid}").symlink_to(victim)
    result = sysop(tmp_path, "bulletin", "--format", "ascii", "--output", str(bulletin))
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "not the bulletin's"
    assert not bulletin.is_symlink() and "scoreboards" in bulletin.read_text()
    assert mode(bulletin) == 0o600


def test_door_modes_log_file_is_owner_only(tmp_path: Path) -> None:
    from door.commands.door import set_up_logging
    from door.config import Config

    log = tmp_path / "door.log"
    set_up_logging(Config(), str(log))
    try:
        assert mode(log) == 0o600
    finally:
        import logging

        root = logging.getLogger()
        for handler in root.handlers[:]:
            if isinstance(handler, logging.FileHandler):
                root.removeHandler(handler)
                handler.close()
