"""What the running door keeps up by itself: bulletin files rewritten when a game ends, and
nightly backups, integrity checked, owner-only and rotated."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import stat
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from door.config import BackupConfig, BulletinConfig, ConfigError, load_config
from door.running.upkeep import BackupKeeper, BulletinKeeper, backup_name, backups
from door.store import Store
from tests.support.live_door import BULLETIN, start_live, wait_until
from tests.support.visits import play, sign_up


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.slow
async def test_the_door_rewrites_its_bulletins_when_a_game_ends(tmp_path, caplog):
    door = await start_live(tmp_path, bulletin_interval=0.05, edits=BULLETIN)
    text_file = tmp_path / "bulletins" / "canfield.txt"
    try:
        # Written at start, so the files match the database from the first minute; the
        # shipped folder "bulletins", missing, made owner-only as the files are.
        files = [tmp_path / name for name in ("bulletins/canfield.ans", "canfield.json")]
        await wait_until(lambda: all(f.exists() for f in [*files, text_file]), "the bulletins")
        assert "Alice" not in text_file.read_text()
        for path in files:
            assert mode(path) == 0o600
        assert mode(tmp_path / "bulletins") == 0o700
        assert "bulletin" not in caplog.text
        first = text_file.stat().st_mtime_ns
        # A game that ends (a resigned one will do) brings Alice onto the standings.
        # (A scored one: a numbered deal is practice, on no list.)
        alice = await sign_up(door)
        await alice.key("P")
        await alice.wait_for("Level:")
        await alice.key("2")
        await alice.wait_for(r"Command \(\? for help\)")
        await play(alice, "V", 1)
        await alice.type("N")
        await alice.wait_for("Resign this game")
        await alice.key("Y")
        await alice.wait_for("Game resigned, score")
        await alice.type("")
        await alice.wait_for(r"Game \d+\.\s")
        await wait_until(lambda: "Alice" in text_file.read_text(), "Alice on the bulletin")
        assert text_file.stat().st_mtime_ns != first
        assert not [p.name for p in text_file.parent.iterdir() if p.name.startswith(".")]
        await alice.hang_up()
    finally:
        await door.service.stop()
        await door.task


async def test_the_bulletin_is_written_at_most_once_an_interval(tmp_path):
    config = dataclasses.replace(
        load_config(Path(__file__).resolve().parent.parent / "sysop.toml"),
        bulletin=BulletinConfig((("ascii", tmp_path / "board.txt"),)),
    )
    async with Store.open(tmp_path / "door.db") as store:
        keeper = BulletinKeeper(store, lambda: config, interval=3600)
        keeper.start()
        try:
            await wait_until(lambda: keeper.writes == 1, "the first write")
            for _ in range(5):
                keeper.game_ended()
            await asyncio.sleep(0.2)
            assert keeper.writes == 1  # the next one waits for the hour to pass
        finally:
            await keeper.close()
        # With a short interval, games ending meanwhile make one write after it.
        keeper = BulletinKeeper(store, lambda: config, interval=0.05)
        keeper.start()
        try:
            await wait_until(lambda: keeper.writes == 1, "the first write")
            keeper.game_ended()
            await wait_until(lambda: keeper.writes == 2, "a write after a game")
        finally:
            await keeper.close()


async def test_a_bulletin_that_cannot_be_written_is_logged_and_the_door_goes_on(tmp_path, caplog):
    (tmp_path / "plain").write_text("")  # a file where its folder would be
    config = dataclasses.replace(
        load_config(Path(__file__).resolve().parent.parent / "sysop.toml"),
        bulletin=BulletinConfig(
            (("ascii", tmp_path / "plain" / "board.txt"), ("json", tmp_path / "b.json"))
        ),
    )
    async with Store.open(tmp_path / "door.db") as store:
        keeper = BulletinKeeper(store, lambda: config)
        await keeper.write()
    assert "board.txt can't be written" in caplog.text
    assert (tmp_path / "b.json").exists()


class Clock:
    """A wall clock the test moves."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.mark.slow
async def test_backups_are_checked_owner_only_and_rotated(tmp_path):
    folder = tmp_path / "backups"
    base = load_config(Path(__file__).resolve().parent.parent / "sysop.toml")
    config = dataclasses.replace(base, backup=BackupConfig(folder=folder, keep=2))
    clock = Clock(datetime(2026, 11, 30, 3, 30))
    async with Store.open(tmp_path / "door.db") as store:
        await store.create_user("Alice", "secret-one1")
        keeper = BackupKeeper(store, lambda: config, clock=clock)
        made = []
        for day in range(3):
            clock.now = datetime(2026, 11, 30, 3, 30) + timedelta(days=day)
            made.append(await keeper.back_up())
        assert mode(folder) == 0o700
        kept = backups(folder, store.path)
        assert [b.path for b in kept] == [m.path for m in made[1:]]  # the oldest went
        assert [b.path.name for b in kept] == ["door-2026-12-01-0330.db", "door-2026-12-02-0330.db"]
        for backup in kept:
            assert mode(backup.path) == 0o600
            copy = sqlite3.connect(backup.path)
            try:
                assert copy.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
                assert copy.execute("SELECT alias FROM users").fetchall() == [("Alice",)]
            finally:
                copy.close()
        assert keeper.last() == kept[-1]


async def test_the_backup_is_made_when_its_time_comes(tmp_path):
    folder = tmp_path / "backups"
    base = load_config(Path(__file__).resolve().parent.parent / "sysop.toml")
    config = dataclasses.replace(base, backup=BackupConfig(folder=folder, time=(3, 30), keep=7))
    clock = Clock(datetime(2026, 11, 30, 3, 29, 30))
    async with Store.open(tmp_path / "door.db") as store:
        keeper = BackupKeeper(store, lambda: config, clock=clock, poll=0.01)
        keeper.start()
        try:
            await asyncio.sleep(0.1)
            assert not folder.exists()  # not yet 03:30
            clock.now = datetime(2026, 11, 30, 3, 30, 5)
            await wait_until(lambda: len(backups(folder, store.path)) == 1, "the backup")
            clock.now = datetime(2026, 11, 30, 9, 0)
            await asyncio.sleep(0.1)
            assert len(backups(folder, store.path)) == 1  # once a day
            clock.now = datetime(2026, 12, 1, 3, 31)
            await wait_until(lambda: len(backups(folder, store.path)) == 2, "the next night's")
        finally:
            await keeper.close()
    assert backup_name(store.path, clock.now) == "door-2026-12-01-0331.db"


def test_bulletin_and_backup_settings_are_checked(tmp_path):
    path = tmp_path / "sysop.toml"
    path.write_text(
        '[bulletin]\nascii = "b/board.txt"\n[backup]\nfolder = "saves"\ntime = "4:05"\nkeep = 3\n'
    )
    config = load_config(path)
    assert config.bulletin.files == (("ascii", tmp_path / "b" / "board.txt"),)
    assert config.backup == BackupConfig(folder=tmp_path / "saves", time=(4, 5), keep=3)
    for text, words in [
        ('[backup]\ntime = "25:00"', 'backup.time = "25:00" is not accepted: a time of day'),
        ("[backup]\nkeep = 0", "backup.keep = 0 is not accepted: a whole number from 1 to 1000"),
        ('[bulletin]\nhtml = "b.html"', 'bulletin.html = "b.html" is not a setting'),
        ("[bulletin]\nansi = 3", "bulletin.ansi = 3 is not accepted: a file name in quotes"),
    ]:
        path.write_text(text + "\n")
        with pytest.raises(ConfigError) as error:
            load_config(path)
        assert words in str(error.value)
    path.write_text("[backup]\ntime = 04:05:00\n")
    assert load_config(path).backup.time == (4, 5)
