"""A sysop's folder for tests of the sysop's commands: sysop.toml, the door's database,
the commands run in it, and games played into it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from door.engine import Game
from door.levels import Level
from door.store import Store

CONFIG = """\
[bbs]
name = "Test Board"
sysop = "Sysop"

[server]
database = "door.db"

[scoreboard]
high_scores = 5
standings = 10
"""


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def greedy(game: Game) -> str:
    """A simple player: send up, then reserve plays, column moves, waste plays, turn."""
    legal = game.legal()
    if "F" in legal:
        return "F"
    for wanted in (
        lambda p: p.startswith("S "),
        lambda p: p[0].isdigit() and p[2].isdigit(),
        lambda p: p.startswith("D "),
    ):
        for play in legal:
            if wanted(play):
                return play
    return legal[0]


async def deal_and_play(
    store: Store, user_id: int, level: Level, number: int, plays: int = 10_000
) -> Game:
    game = Game.deal(level.variant, number)
    game_id = await store.start_game(user_id, level, game)
    while game.status == "playing" and plays > 0:
        game.play(greedy(game))
        await store.record_play(game_id, game)
        plays -= 1
    return game


@dataclass(frozen=True)
class Board:
    """A sysop's folder: sysop.toml and the door's database beside it."""

    folder: Path

    @property
    def database(self) -> Path:
        return self.folder / "door.db"

    def sysop(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``python -m door sysop ARGS`` in the folder, with no terminal."""
        return subprocess.run(
            [sys.executable, "-m", "door", "sysop", *args],
            cwd=self.folder,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "TZ": "UTC"},
        )

    def store(self) -> AbstractAsyncContextManager[Store]:
        return Store.open(self.database, create=False)


def lines_of(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    return lines


def squeeze(line: str) -> list[str]:
    """The cells of a table's line (cells are two or more spaces apart; empty ones vanish)."""
    return re.split(r" {2,}", line.strip())
