"""A killed server loses nothing a caller has seen.

This file is also the child process: run as a script, it plays random legal moves through the
store (undos and resignations included) and prints a line for each play once ``record_play``
has returned, the moment a caller would be shown it. The test kills it with SIGKILL at random
moments, 20 times over one database, and after each kill checks that the database is sound
and holds every play that was printed.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from door.engine import Game
from door.levels import SHIPPED_LEVELS
from door.store import Store
from tests.support.door_log import DoorLog

ROOT = Path(__file__).resolve().parent.parent
TRIALS = 20
SEED = 20260314
READY_TIMEOUT = 15.0  # seconds for a child to open the database; far more than it needs
# Each child lives at most 0.5 s after it is ready (or after it starts), so the 20 trials
# take about 15 s: 20 interpreter starts, under 10 s of play, and the checks.
LONGEST_LIFE = 0.5


# -- the child ------------------------------------------------------------------------------


def _next_play(rng: random.Random, game: Game) -> str:
    """A random legal play; now and then an undo or a resignation (``N``)."""
    roll = rng.random()
    if roll < 0.02:
        return "N"
    if roll < 0.12 and game.is_legal("U"):
        return "U"
    return rng.choice(game.legal())


async def _play_forever(path: Path, seed: int) -> None:
    rng = random.Random(seed)
    async with Store.open(path) as store:
        user = await store.drop_file_user("Crash Tester", "Test BBS")
        print("ready", flush=True)
        while True:
            level = rng.choice(SHIPPED_LEVELS)
            resumed = await store.resume(user.id, level.number)
            if resumed is None:
                game = Game.deal(level.variant, rng.randrange(1_000_000))
                game_id = await store.start_game(user.id, level, game)
            else:
                game_id, game = resumed
            # Leave the game after a while, as a caller who quits with Q would.
            for _ in range(rng.randint(1, 40)):
                if game.status != "playing":
                    break
                play = _next_play(rng, game)
                if play == "N":
                    game.resign()
                    await store.finish_game(game_id, game)
                    print(f"resign {game_id}", flush=True)
                    break
                game.play(play)
                await store.record_play(game_id, game)
                print(f"play {game_id} {len(game.history)} {play}", flush=True)


# -- the test -------------------------------------------------------------------------------


@dataclass
class Printed:
    """What the children said they had stored, game by game."""

    plays: dict[int, dict[int, str]] = field(default_factory=dict)
    resigned: set[int] = field(default_factory=set)

    def read(self, line: str) -> None:
        words = line.split(" ", 3)
        if words[0] == "play":
            game_id, length = int(words[1]), int(words[2])
            self.plays.setdefault(game_id, {})[length] = words[3]
        elif words[0] == "resign":
            self.resigned.add(int(words[1]))

    @property
    def count(self) -> int:
        return sum(len(plays) for plays in self.plays.values())


class Child:
    """One run of the child, its complete output lines collected by a thread."""

    def __init__(self, database: Path, seed: int, log: Path) -> None:
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.process = subprocess.Popen(
            [sys.executable, __file__, str(database), str(seed)],
            stdout=subprocess.PIPE,
            stderr=log.open("ab"),
            cwd=database.parent,
            # The child imports the tests' helpers as the tests do: from the repository.
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            if not raw.endswith(b"\n"):
                break  # cut off by the kill: never printed whole, so never shown
            line = raw.decode().rstrip("\n")
            if line == "ready":
                self.ready.set()
            else:
                self.lines.append(line)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.reader.join(timeout=10)
        assert self.process.returncode == -signal.SIGKILL, "the child ended by itself"


async def _check(database: Path, printed: Printed) -> None:
    async with Store.open(database, create=False) as store:
        assert await store.integrity_check() == ["ok"]
        for game_id, plays in printed.plays.items():
            record = await store.game_record(game_id)
            for length, play in plays.items():
                assert len(record.history) >= length, f"game {game_id} lost play {length}"
                assert record.history[length - 1] == play
            game = await store.load_game(game_id)  # the position agrees with its history
            assert (game.moves, game.score, game.status) == (
                record.moves,
                record.score,
                record.status,
            )
        for game_id in printed.resigned:
            assert (await store.game_record(game_id)).status == "resigned"


@pytest.mark.slow
def test_sigkill_loses_no_play_that_was_reported(tmp_path: Path, door_log: DoorLog) -> None:
    database = tmp_path / "door.db"
    log = tmp_path / "children.log"
    door_log.watch_file(log, "the children's stderr")
    rng = random.Random(SEED)
    printed = Printed()
    for trial in range(TRIALS):
        child = Child(database, rng.randrange(2**32), log)
        if trial > 0 and rng.random() < 0.25:
            # Sometimes while it is still opening the database.
            time.sleep(rng.uniform(0.0, LONGEST_LIFE))
        else:
            assert child.ready.wait(READY_TIMEOUT), log.read_text()
            time.sleep(rng.uniform(0.0, LONGEST_LIFE))
        child.kill()
        for line in child.lines:
            printed.read(line)
        asyncio.run(_check(database, printed))
    # The trials must have exercised something, however slow the disk.
    assert printed.count > 20


if __name__ == "__main__":
    asyncio.run(_play_forever(Path(sys.argv[1]), int(sys.argv[2])))
