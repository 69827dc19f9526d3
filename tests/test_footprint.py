"""What a caller costs the server, found under load (benchmarks/load.py): memory, and the
garbage collector's pauses.

Bounds are generous (about twice what the door needs, half of what it needed before), so
that they hold on any machine while still catching a return of the old costs.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import dataclasses
import gc
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from ansi.screen import ScreenBuffer
from door.commands.serve import calm_garbage_collector
from door.engine import Game
from door.engine.moves import UNDO
from door.levels import SHIPPED_LEVELS
from door.store import Store
from door.store.accounts import hash_password
from door.store.users import _hashing
from door.views.board import BoardPainter, Look, _frame, draw_board
from tests.support.door_server import door_config, open_door
from tests.support.telnet_caller import Caller

WAIT = 30.0


@pytest.mark.slow
def test_boards_share_their_cells() -> None:
    # A board used to hold a tuple per character drawn: about 60 KB each.
    level = SHIPPED_LEVELS[1]
    games = [
        game for n in range(1, 101) if (game := Game.deal(level.variant, n)).status == "playing"
    ]
    boards = []
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for game in games:
            board = ScreenBuffer(80, 24)
            draw_board(board, game, level.name, Look(ansi=True), "Welcome back.")
            board.render_full()
            game.play("V")
            draw_board(board, game, level.name, Look(ansi=True))
            board.render_changes()
            boards.append(board)
        gc.collect()
        per_board = (tracemalloc.get_traced_memory()[0] - start) / len(games)
    finally:
        tracemalloc.stop()
    assert per_board < 30_000


def test_a_play_leaves_few_objects_for_the_collector() -> None:
    # A young collection looks at every object made since the last that is still alive:
    # under load, what the last play of each of a thousand callers left, and every game
    # stops while it lasts (20-50 ms at 1,000 callers; benchmarks/collector.py counts
    # what a whole play leaves, reading its key and storing it too).
    level = SHIPPED_LEVELS[1]
    games = [
        game for n in range(1, 201) if (game := Game.deal(level.variant, n)).status == "playing"
    ]
    boards = [ScreenBuffer(80, 24) for _ in games]
    painters = [BoardPainter() for _ in games]

    def play_each() -> None:
        for game, board, painter in zip(games, boards, painters, strict=True):
            if game.status == "playing":
                game.play(game.legal()[0])
            painter.draw(board, game, level.name, Look(ansi=True))
            board.render_changes()

    play_each()  # the boards and caches as a door that has run a while holds them
    play_each()
    gc.collect()
    gc.freeze()
    enabled = gc.isenabled()
    gc.disable()
    try:
        play_each()
        left = len(gc.get_objects(generation=0)) / len(games)
        gc.collect(0)
        kept = len(gc.get_objects(generation=1)) / len(games)
    finally:
        if enabled:
            gc.enable()
        gc.unfreeze()
    assert left < 5  # the play's targets and the board's plan; 9.8, then 5.7, now 2.5
    # What outlives a young collection, to be looked at again by every older one: undo's
    # snapshot of each play was among it, a game's worth for every caller (4.3, now 1.2).
    assert kept < 2.5


def _screens() -> int:
    """The screens alive, but for the boards' frames (drawn once a look for every caller:
    the first board this process draws makes one) and the board a game's screen keeps
    under it (its ``BoardPainter``'s)."""
    things = gc.get_objects()
    screens = sum(1 for thing in things if isinstance(thing, ScreenBuffer))
    kept = sum(1 for thing in things if isinstance(thing, BoardPainter))
    return screens - _frame.cache_info().currsize - kept


@pytest.mark.slow
async def test_a_caller_at_the_board_holds_one_screen(tmp_path: Path) -> None:
    # The main menu's page used to stay alive under the game for as long as it lasted.
    door = await open_door(door_config(tmp_path))
    try:
        gc.collect()
        before = _screens()
        caller = await Caller.connect(door.port)
        await caller.wait_for("Your alias", WAIT)
        for typed, then in [("Zed", r"Sign up\?"), ("Y", "Password:"), ("secret-one1", "again")]:
            await caller.type(typed)
            await caller.wait_for(then, WAIT)
        await caller.type("secret-one1")
        await caller.wait_for("Your choice", WAIT)
        await caller.type("P")  # P and Enter: the Enter is the key's own, swallowed
        await caller.wait_for("Level:", WAIT)
        await caller.key("\r")
        await caller.wait_for("Command", WAIT)
        gc.collect()
        assert _screens() == before + 1
        await caller.hang_up()
    finally:
        await door.close()


def _resident_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.slow
async def test_password_hashing_gives_its_memory_back() -> None:
    # scrypt took 16 MiB a hash then (64 MiB now); asyncio's default pool ran six at once here
    # and glibc kept each thread's 16 MiB (about 96 MiB in all) after they were done.
    await _hashing(hash_password, "warm-up")
    gc.collect()
    before = _resident_kb()
    await asyncio.gather(*(_hashing(hash_password, f"secret{n}") for n in range(24)))
    gc.collect()
    assert _resident_kb() - before < 40 * 1024


def full_collections_while_callers_arrive() -> int:
    """Full collections while the door gathers half a million lasting objects, as a
    thousand callers' visits and games do."""
    before = gc.get_stats()[2]["collections"]
    kept = [[number] for number in range(500_000)]
    after = gc.get_stats()[2]["collections"]
    del kept
    return after - before


@pytest.mark.slow
def test_the_server_collects_garbage_seldom() -> None:
    # With Python's defaults, a full collection over a thousand callers' objects stopped
    # every game for a tenth of a second or more, about once a minute.
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)  # Python's defaults
        gc.collect()
        assert full_collections_while_callers_arrive() > 0
        calm_garbage_collector()
        assert full_collections_while_callers_arrive() == 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def _sqlite_heap() -> int:
    """Bytes SQLite holds in this process, every connection's (its own count)."""
    library = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
    library.sqlite3_memory_used.restype = ctypes.c_int64
    return int(library.sqlite3_memory_used())


def _seed_finished_games(path: Path, times: int) -> None:
    """The database's games copied until there are ``times`` (a power of two) as many, each
    copy finished."""
    with sqlite3.connect(path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(games)") if row[1] != "id"]
        finished = {"status": "'stuck'", "finished": "started"}
        picked = ", ".join(finished.get(name, name) for name in columns)
        for _ in range(times.bit_length() - 1):
            db.execute(f"INSERT INTO games ({', '.join(columns)}) SELECT {picked} FROM games")


@pytest.mark.slow
async def test_the_database_holds_little_of_itself_in_memory(tmp_path: Path) -> None:
    # SQLite kept up to 2 MB of a big database's pages per connection, which the system's
    # file cache holds anyway: about 3 KB a caller at 1,000 callers, past the 40 KB target.
    path = tmp_path / "door.db"
    level = SHIPPED_LEVELS[1]
    async with Store.open(path) as store:
        user = await store.create_user("Bob", "secret-one1")
        await store.start_game(user.id, level, Game.deal(level.variant, 7))
    _seed_finished_games(path, 4096)
    assert path.stat().st_size > 4_000_000
    before = _sqlite_heap()
    assert before > 0, "this Python's sqlite3 is not the system's libsqlite3"
    async with Store.open(path) as store:
        assert await store.integrity_check() == ["ok"]  # the reader reads every page
        assert await store.delete_user(user.id) == 4096  # the writer, every game's page
        held = _sqlite_heap() - before
    assert held < 1_500_000


def _position(game: Game) -> tuple[object, ...]:
    piles = (game.reserve, game.deck, game.waste, *game.foundations, *game.tableau)
    return (
        tuple(tuple(pile) for pile in piles),
        game.base_rank,
        game.passes_started,
        game.score,
    )


def test_undo_s_snapshots_are_bytes_that_give_back_each_position() -> None:
    # Undo kept a tuple of lists of cards a play, every one looked at by every collection.
    variant = dataclasses.replace(SHIPPED_LEVELS[0].variant, undo="unlimited")
    for number in range(1, 21):
        game, before = Game.deal(variant, number), []
        while game.status == "playing" and len(before) < 40:
            before.append(_position(game))
            game._unpack(game._pack())
            assert _position(game) == before[-1]
            game.play(game.legal()[-1])
        assert len(game._snapshots) == len(before) > 10
        assert all(type(snapshot) is bytes for snapshot in game._snapshots)
        while before:
            game.play(UNDO)
            assert _position(game) == before.pop()
