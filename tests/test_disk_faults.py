"""A disk that refuses writes, under a running door: the caller whose play could not be
stored is told so and their game stays at its last stored play; the sysop's log says what
happened; nothing acknowledged is lost; once the disk is back, everyone plays on.

Three ways a disk fails, all real:

- a file that can't grow: the door's limit on file size (RLIMIT_FSIZE, set on the running
  door with ``prlimit``) is lowered below the size of the WAL's first frame, so the next
  commit can't write it (SQLite: "disk I/O error"); then raised again;
- a full filesystem: the database lives on a small tmpfs that the test fills with a file
  (SQLite: "database or disk is full"), then empties. This needs the right to mount
  filesystems (root), and is skipped without it;
- a disk whose writes are taken but not synced: every fsync fails with EIO (as a failing
  disk's, or a network filesystem's that lost its server, would) while a file exists, by a
  small library loaded with LD_PRELOAD (benchmarks/fsync_delay.c); then the file is removed.

The first two first empty the WAL. Once a checkpoint has copied the WAL into the database,
the next commit writes the WAL again from its start, over room the disk has already given
it: that commit needs nothing new from the disk, and is stored, full disk or not.
"""

from __future__ import annotations

import random
import resource
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pyte
import pytest

from ansi.screen import ScreenBuffer
from benchmarks.callers import (
    FRAME_HEADER,
    MENU_PROMPT,
    QUIET_SOLVER,
    UPDATE,
    WAL_HEADER,
    ServerProcess,
    TelnetCaller,
    default_level,
    empty_the_wal,
    lasting_play,
    sign_up,
    start_game,
    stored_histories,
    write_config,
)
from benchmarks.slow_disk import NO_COMPILER, build_fsync_shim, failing_disk_environment
from door.engine import Game
from door.store import DiskFault
from door.views.board import LABEL_ROW, LAST_COLUMN_ROW, SIDEBAR, Look, draw_board
from door.visit.play import not_saved

pytestmark = pytest.mark.slow

NOT_SAVED_TEXT = not_saved(DiskFault("disk I/O error")).encode()  # in English
Fault = tuple[Callable[[], None], Callable[[], None]]  # break the disk, mend it


class Player:
    """A caller, its copy of the game, and its screen (the door's boards, drawn on pyte)."""

    def __init__(self, caller: TelnetCaller, game: Game, seed: int) -> None:
        self.caller = caller
        self.game = game
        self.rng = random.Random(seed)
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)
        self._show()  # the board as the game began

    def _show(self) -> None:
        # The probe's cursor report says the screen draws no suit: letters, in CP437.
        self.stream.feed(bytes(self.caller.buffer).decode("cp437"))

    async def play(self) -> bool:
        """One random legal play; True if the door stored it, False if it said it could not
        (the copy then goes back to the game as it was)."""
        before = self.game.to_dict()
        command = lasting_play(self.game, self.rng)
        self.game.play(command)
        await self.caller.ask(command.encode() + b"\r\n", UPDATE, timeout=30.0)
        self._show()
        if NOT_SAVED_TEXT in self.caller.buffer:
            self.game = Game.from_dict(before)
            return False
        return True

    def piles_shown(self) -> list[str]:
        """The piles and the sidebar's counts on the caller's screen."""
        return piles(lambda row: self.screen.display[row - 1])

    def piles_of(self, game: Game) -> list[str]:
        """The piles and counts a board of ``game`` shows."""
        board = ScreenBuffer(80, 24)
        draw_board(board, game, default_level().name, Look(suit_letters=True))
        return piles(board.text_at)


def piles(text_at: Callable[[int], str]) -> list[str]:
    """The piles and the sidebar's counts (score, moves, ... above the keys' reminder) of a
    screen whose row ``row`` reads ``text_at(row)``."""
    shown = [text_at(row)[: SIDEBAR - 1] for row in range(LABEL_ROW, LAST_COLUMN_ROW + 1)]
    return shown + [text_at(row)[SIDEBAR - 1 :] for row in range(LABEL_ROW, LABEL_ROW + 8)]


@contextmanager
def file_size_limit(door: ServerProcess, database: Path) -> Iterator[Fault]:
    _, hard = resource.prlimit(door.pid, resource.RLIMIT_FSIZE)

    def break_disk() -> None:
        page_size = empty_the_wal(database)
        limit = len(door.log_text()) + 2048  # the log can still say what went wrong
        assert limit < WAL_HEADER + FRAME_HEADER + page_size
        resource.prlimit(door.pid, resource.RLIMIT_FSIZE, (limit, hard))

    def mend_disk() -> None:
        resource.prlimit(door.pid, resource.RLIMIT_FSIZE, (hard, hard))

    yield break_disk, mend_disk


def mount_small_disk(folder: Path) -> None:
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"can't mount a small filesystem here: {done.stderr.strip()}")


@contextmanager
def full_filesystem(folder: Path, database: Path) -> Iterator[Fault]:
    filler = folder / "filler"

    def break_disk() -> None:
        empty_the_wal(database)
        try:
            with filler.open("wb", buffering=0) as file:  # nothing left to flush at close
                while True:
                    file.write(b"\0" * 65536)
        except OSError:
            pass  # full

    def mend_disk() -> None:
        filler.unlink()

    yield break_disk, mend_disk


@contextmanager
def failing_fsync(flag: Path) -> Iterator[Fault]:
    def break_disk() -> None:
        flag.touch()

    def mend_disk() -> None:
        flag.unlink()

    yield break_disk, mend_disk


async def test_a_disk_whose_fsync_fails(tmp_path: Path) -> None:
    library = build_fsync_shim(tmp_path)
    if library is None:
        pytest.skip(NO_COMPILER)
    flag = tmp_path / "fsync-fails"
    await disk_fails_under_a_running_door(
        tmp_path,
        tmp_path / "door.db",
        lambda door, database: failing_fsync(flag),
        failing_disk_environment(library, flag),
    )


async def test_a_file_that_cannot_grow(tmp_path: Path) -> None:
    database = tmp_path / "door.db"
    await disk_fails_under_a_running_door(tmp_path, database, file_size_limit)


async def test_a_full_filesystem(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    mount_small_disk(disk)
    try:
        await disk_fails_under_a_running_door(
            tmp_path, disk / "door.db", lambda door, database: full_filesystem(disk, database)
        )
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


async def disk_fails_under_a_running_door(
    folder: Path,
    database: Path,
    fault: Callable[[ServerProcess, Path], AbstractContextManager[Fault]],
    env: dict[str, str] | None = None,
) -> None:
    config = write_config(folder, {"max_nodes": 4, "time_limit": 0}, QUIET_SOLVER)
    door = ServerProcess.door(config, database, folder / "door.log", env)
    players: list[Player] = []
    try:
        for number in range(2):
            caller = await TelnetCaller.connect(door.port)
            await sign_up(caller, f"disk{number}", "secret-disk")
            players.append(Player(caller, await start_game(caller, default_level()), number))
        alice, bob = players
        for _ in range(8):
            for player in players:
                assert await player.play()
        with fault(door, database) as (break_disk, mend_disk):
            break_disk()
            alice_before = alice.game.to_dict()["history"]
            assert alice.piles_shown() == alice.piles_of(alice.game)
            assert not await alice.play()
            # The board Alice sees is her game as stored; the door goes on serving Bob.
            assert stored_histories(database)["disk0"] == alice_before
            assert alice.piles_shown() == alice.piles_of(alice.game)
            assert not await bob.play()
            assert "a play in game" in door.log_text()
            assert "was not stored" in door.log_text()
            mend_disk()
            for _ in range(3):
                for player in players:
                    assert await player.play()
        await alice.caller.ask(b"Q\r\n", MENU_PROMPT)
    finally:
        for player in players:
            player.caller.hang_up()
        assert door.stop() == 0
    # Every play a caller was shown stored, and nothing else.
    stored = stored_histories(database)
    for number, player in enumerate(players):
        assert stored[f"disk{number}"] == player.game.to_dict()["history"]
