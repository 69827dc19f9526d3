"""The marks on every list a sysop publishes, and the sysop's tools for checking a game:
``sysop scores``, ``standings``, the bulletins, ``sysop game ID`` and ``sysop solve`` run on
a deal being played. Run as a sysop runs them, on a database of real games."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from door.engine import Game
from door.fairness import seal
from door.levels import SHIPPED_LEVELS
from door.store import Store
from door.store.records import DailyResult
from door.views.daily import board_lines
from tests.support.sysop_board import CONFIG, Board, Clock, deal_and_play, lines_of, squeeze

LEVEL_1 = SHIPPED_LEVELS[0]


@dataclass(frozen=True)
class Games:
    hinted: int  # Alice's win, with a hint taken
    clean: int  # Bob's win
    practice: int  # Carol's win of a deal she chose
    playing: int  # Dave's game, still being played


async def play_games(path: Path) -> Games:
    async with Store.open(path, clock=Clock()) as store:
        alice, bob, carol, dave = [
            await store.create_user(name, "secret") for name in ("Alice", "Bob", "Carol", "Dave")
        ]
        assert (await deal_and_play(store, alice.id, LEVEL_1, 17)).status == "won"
        assert (await deal_and_play(store, bob.id, LEVEL_1, 146)).status == "won"
        assert (await deal_and_play(store, dave.id, LEVEL_1, 4, plays=5)).status == "playing"
        hinted, clean, playing = [
            (await store.games_of(user.id))[0].id for user in (alice, bob, dave)
        ]
        await store.mark_assisted(hinted)
        practice_game = Game.deal(LEVEL_1.variant, 17)
        practice = await store.start_game(carol.id, LEVEL_1, practice_game, practice=True)
        for play in (await store.game_record(hinted)).history:
            practice_game.play(play)
            await store.record_play(practice, practice_game)
        assert practice_game.status == "won"
    return Games(hinted, clean, practice, playing)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Games]:
    path = tmp_path_factory.mktemp("fair") / "door.db"
    return path, asyncio.run(play_games(path))


@pytest.fixture
def board(played: tuple[Path, Games], tmp_path: Path) -> Board:
    shutil.copyfile(played[0], tmp_path / "door.db")
    (tmp_path / "sysop.toml").write_text(CONFIG)
    return Board(tmp_path)


@pytest.fixture
def games(played: tuple[Path, Games]) -> Games:
    return played[1]


@pytest.mark.slow
def test_sysop_scores_mark_hints_number_games_and_leave_practice_out(
    board: Board, games: Games
) -> None:
    lines = lines_of(board.sysop("scores", "--level", "1"))
    assert squeeze(lines[1]) == ["#", "Alias", "Score", "Won", "Moves", "Finished", "Hint", "Game"]
    rows = {squeeze(line)[1]: squeeze(line) for line in lines[2:]}
    assert set(rows) == {"Alice", "Bob"}  # Carol's win was practice
    assert rows["Alice"][-2:] == ["yes", str(games.hinted)]
    assert rows["Bob"][-1] == str(games.clean) and "yes" not in rows["Bob"][-2:]


@pytest.mark.slow
def test_sysop_standings_have_the_hints_column(board: Board) -> None:
    lines = lines_of(board.sysop("standings"))
    assert squeeze(lines[0]) == ["#", "Alias", "Games", "Wins", "Win %", "Best", "Hints"]
    rows = {squeeze(line)[1]: squeeze(line) for line in lines[1:] if line[:3].strip().isdigit()}
    assert set(rows) == {"Alice", "Bob", "Dave"}  # practice is not counted
    assert rows["Alice"][-1] == "1" and rows["Bob"][-1] == "0"
    assert lines[-1].startswith("Hints: finished games in which a hint was taken")


@pytest.mark.slow
def test_bulletins_mark_hints_on_both_lists(board: Board) -> None:
    for fmt in ("ascii", "ansi", "json"):
        assert board.sysop("bulletin", "--format", fmt, "--output", f"b.{fmt}").returncode == 0
    text = (board.folder / "b.ascii").read_text("ascii")
    ansi = re.sub(
        r"\x1b\[[0-9;]*[A-Za-z]", "", (board.folder / "b.ansi").read_bytes().decode("cp437")
    )
    for shown in (text, ansi):
        alice = [line for line in shown.splitlines() if " Alice " in line]
        assert len(alice) == 2  # her high score and her standing, both marked
        assert alice[0].rstrip(" ║").endswith("yes")
        assert alice[1].rstrip(" ║").endswith("1")
        assert "Hints" in shown and "Carol" not in shown
    document = json.loads((board.folder / "b.json").read_text("utf-8"))
    first = {row["alias"]: row for row in document["levels"][0]["high_scores"]}
    assert first["Alice"]["assisted"] is True and first["Bob"]["assisted"] is False
    standings = {row["alias"]: row for row in document["standings"]}
    assert standings["Alice"]["assisted"] == 1 and standings["Bob"]["assisted"] == 0


def test_the_daily_board_marks_a_hint() -> None:
    rows = [
        DailyResult("Alice", None, "won", 300, 90, True, None),
        DailyResult("Bob", None, "won", 280, 95, False, None),
    ]
    lines = [str(line) for line in board_lines(rows, 9)]
    assert any("Alice" in line and line.endswith("(hint)") for line in lines)
    assert not any("Bob" in line and "(hint)" in line for line in lines)


@pytest.mark.slow
def test_sysop_game_shows_the_deal_the_plays_and_a_replay_check(board: Board, games: Games) -> None:
    result = board.sysop("game", str(games.hinted))
    lines = lines_of(result)
    text = "\n".join(lines)
    assert lines[0] == f"Game {games.hinted}: Alice, level 1, scored"
    assert "Result: won, score 260" in text and "a hint was taken" in text
    found = re.search(r"Deal 17, salt ([0-9a-f]{32})", text)
    assert found is not None, text
    assert f"Seal {seal(17, found.group(1))} (shown at its start)" in text
    assert "Replay check: the plays, replayed from the deal through the rules, give the" in text
    practice = lines_of(board.sysop("game", str(games.practice)))
    assert "practice (a deal the player chose)" in practice[0] and "Deal 17" in practice


@pytest.mark.slow
def test_sysop_game_keeps_a_game_in_plays_deal_sealed(board: Board, games: Games) -> None:
    text = "\n".join(lines_of(board.sysop("game", str(games.playing))))
    assert re.search(r"Seal [0-9a-f]{32}; the deal is shown once the game is over", text)
    assert "Deal 4" not in text and "salt" not in text
    assert "Replay check: the plays" in text


@pytest.mark.slow
def test_sysop_game_finds_a_tampered_score_and_an_old_game(board: Board, games: Games) -> None:
    with sqlite3.connect(board.database) as db:
        db.execute("UPDATE games SET score = score + 100 WHERE id = ?", (games.clean,))
        db.execute("UPDATE games SET salt = NULL WHERE id = ?", (games.hinted,))
    tampered = board.sysop("game", str(games.clean))
    assert tampered.returncode == 1
    assert "Replay check FAILED: the replay gives won with score 260" in tampered.stdout
    old = lines_of(board.sysop("game", str(games.hinted)))
    assert "Deal 17 (no seal: dealt before deals were sealed)" in old
    missing = board.sysop("game", "999")
    assert missing.returncode == 1 and "no game 999" in missing.stderr


@pytest.mark.slow
def test_sysop_solve_on_a_deal_in_play_marks_its_game(board: Board, games: Games) -> None:
    result = board.sysop("solve", "4", "--level", "1", "--seconds", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        f"Game {games.playing} is being played on this deal: it is now marked as hinted.\n"
    )
    with sqlite3.connect(board.database) as db:
        assisted = dict(db.execute("SELECT id, assisted FROM games").fetchall())
    assert assisted[games.playing] == 1
    assert assisted[games.clean] == 0  # finished games are as they were
    # Another deal marks nothing.
    again = board.sysop("solve", "17", "--level", "1", "--seconds", "2")
    assert again.returncode == 0 and "marked" not in again.stdout
