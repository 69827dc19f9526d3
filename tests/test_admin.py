"""The sysop's commands, run as a sysop runs them (``python -m door sysop ...``) on a
database of real games."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from door.levels import SHIPPED_LEVELS
from door.store import Store
from tests.support.sysop_board import CONFIG, Board, Clock, deal_and_play, lines_of, squeeze

LEVEL_1, LEVEL_2, _ = SHIPPED_LEVELS
ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


async def play_games(path: Path) -> None:
    async with Store.open(path, clock=Clock()) as store:
        alice = await store.create_user("Alice", "secret")
        bob = await store.create_user("Bob", "secret")
        carol = await store.drop_file_user("Carol", "Dark Realm")
        realm_bob = await store.drop_file_user("Bob", "Dark Realm")
        assert (await deal_and_play(store, alice.id, LEVEL_1, 17)).status == "won"
        assert (await deal_and_play(store, alice.id, LEVEL_1, 1)).status == "stuck"
        assert (await deal_and_play(store, bob.id, LEVEL_1, 146)).status == "won"
        assert (await deal_and_play(store, bob.id, LEVEL_1, 4, plays=5)).status == "playing"
        assert (await deal_and_play(store, carol.id, LEVEL_2, 15)).status == "stuck"
        assert (await deal_and_play(store, realm_bob.id, LEVEL_2, 8)).status == "stuck"


@pytest.fixture(scope="module")
def games_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("games") / "door.db"
    asyncio.run(play_games(path))
    return path


@pytest.fixture
def board(games_file: Path, tmp_path: Path) -> Board:
    shutil.copyfile(games_file, tmp_path / "door.db")
    (tmp_path / "sysop.toml").write_text(CONFIG)
    return Board(tmp_path)


# -- tables ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_users(board: Board) -> None:
    lines = lines_of(board.sysop("users"))
    assert squeeze(lines[0]) == ["Alias", "BBS", "Created", "Last seen", "Games"]
    rows = [squeeze(line) for line in lines[1:-1]]
    assert [(row[0], row[1], row[2], row[4]) for row in rows] == [
        ("Alice", "(telnet)", "2026-03-01", "2"),
        ("Bob", "(telnet)", "2026-03-01", "2"),
        ("Bob", "Dark Realm", "2026-03-01", "1"),
        ("Carol", "Dark Realm", "2026-03-01", "1"),
    ]
    assert all(re.fullmatch(r"2026-03-01 12:\d\d", row[3]) for row in rows)
    assert lines[-1] == "4 users"


@pytest.mark.slow
def test_scores(board: Board) -> None:
    lines = lines_of(board.sysop("scores"))
    assert lines[0] == "Level 1 - Draw one"
    assert squeeze(lines[1]) == [
        "#",
        "Alias",
        "Score",
        "Won",
        "Moves",
        "Finished",
        "Hint",
        "Game",
    ]
    assert [squeeze(line) for line in lines[2:5]] == [
        ["1", "Bob", "260", "yes", "103", "2026-03-01", "3"],
        ["2", "Alice", "260", "yes", "107", "2026-03-01", "1"],
        ["3", "Alice", "65", "no", "76", "2026-03-01", "2"],
    ]
    assert lines[6] == "Level 2 - Draw three"
    assert squeeze(lines[7])[:3] == ["#", "Alias", "BBS"]
    assert [squeeze(line)[:5] for line in lines[8:10]] == [
        ["1", "Carol", "Dark Realm", "216", "no"],
        ["2", "Bob", "Dark Realm", "0", "no"],
    ]
    assert lines[11:] == ["Level 3 - One pass", "  No finished games yet."]
    only = lines_of(board.sysop("scores", "--level", "2", "--limit", "1"))
    assert only[0] == "Level 2 - Draw three" and len(only) == 3


@pytest.mark.slow
def test_standings(board: Board) -> None:
    lines = lines_of(board.sysop("standings"))
    assert squeeze(lines[0]) == ["#", "Alias", "BBS", "Games", "Wins", "Win %", "Best", "Hints"]
    assert [squeeze(line) for line in lines[1:-2]] == [
        ["1", "Bob", "*", "1", "1", "100.0", "260", "0"],
        ["2", "Alice", "2", "1", "50.0", "260", "0"],
        ["3", "Carol", "Dark Realm", "1", "0", "0.0", "216", "0"],
        ["4", "Bob", "Dark Realm", "1", "0", "0.0", "0", "0"],
    ]
    assert lines[-2] == "* has a game to resume"


@pytest.mark.slow
def test_aliases_are_cleaned_in_every_output(board: Board) -> None:
    # A database edited by hand could hold anything.
    with sqlite3.connect(board.database) as db:
        db.execute("UPDATE users SET alias = 'Al\x1b[2Jice\x07' WHERE alias = 'Alice'")
    outputs = [board.sysop(*command).stdout for command in (["users"], ["scores"], ["standings"])]
    for fmt in ("ansi", "ascii", "json"):
        assert board.sysop("bulletin", "--format", fmt, "--output", f"b.{fmt}").returncode == 0
        outputs.append((board.folder / f"b.{fmt}").read_bytes().decode("latin-1"))
    for output in outputs:
        assert "Alice" in output
        assert "\x07" not in output and "Al\x1b" not in output


# -- bulletins ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_ansi_bulletin(board: Board) -> None:
    result = board.sysop("bulletin", "--format", "ansi", "--output", "scores.ans")
    assert result.returncode == 0, result.stderr
    data = (board.folder / "scores.ans").read_bytes()
    assert b"\x1b[M" not in data  # SyncTERM would start ANSI music
    assert b"\xc9" in data and b"\xcd" in data and b"\xbb" in data  # ╔ ═ ╗ in CP437
    assert b"\xe2" not in data  # no UTF-8
    assert b"\x1b[0;1;34;40m" in data  # colours
    lines = data.split(b"\r\n")
    assert lines[-1] == b""
    visible = [ESCAPES.sub(b"", line) for line in lines[:-1]]
    assert all(len(line) <= 79 for line in visible)
    assert visible[0].startswith(b"\xc9") and b"Test Board" in visible[0]
    assert visible[-1].startswith(b"\xc8")  # ╚
    assert any(b"Bob" in line and b"260" in line for line in visible)
    assert any(b"Standings" in line for line in visible)


@pytest.mark.slow
def test_ascii_bulletin(board: Board) -> None:
    result = board.sysop("bulletin", "--format", "ascii", "--output", "scores.txt")
    assert result.returncode == 0, result.stderr
    data = (board.folder / "scores.txt").read_bytes()
    assert data.isascii() and b"\x1b" not in data
    lines = data.decode().split("\r\n")
    assert all(len(line) <= 79 for line in lines)
    assert lines[0] == "Test Board - Canfield scoreboards"
    assert squeeze(lines[5]) == ["1.", "Bob", "260", "yes", "103", "2026-03-01"]
    assert "Standings" in lines


@pytest.mark.slow
def test_json_bulletin(board: Board) -> None:
    result = board.sysop("bulletin", "--format", "json", "--output", "scores.json")
    assert result.returncode == 0, result.stderr
    document = json.loads((board.folder / "scores.json").read_text("utf-8"))
    assert document["bbs"] == "Test Board"
    assert [level["number"] for level in document["levels"]] == [1, 2, 3]
    first = document["levels"][0]
    assert first["rules"]["draw"] == 1 and first["since"] is None
    assert [(r["alias"], r["score"], r["won"], r["moves"]) for r in first["high_scores"]] == [
        ("Bob", 260, True, 103),
        ("Alice", 260, True, 107),
        ("Alice", 65, False, 76),
    ]
    assert document["standings"][0] == {
        "rank": 1,
        "alias": "Bob",
        "bbs": None,
        "games": 1,
        "wins": 1,
        "percentage": 100.0,
        "best": 260,
        "unfinished": True,
        "assisted": 0,
    }


@pytest.mark.slow
def test_one_levels_bulletin(board: Board) -> None:
    result = board.sysop("bulletin", "--format", "json", "--output", "-", "--level", "2")
    document = json.loads(result.stdout)
    assert [level["number"] for level in document["levels"]] == [2]
    assert "standings" not in document


# -- changes -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_backup(board: Board) -> None:
    result = board.sysop("backup", "copy.db")
    assert result.returncode == 0, result.stderr
    assert "4 users and 6 games" in result.stdout

    async def check() -> None:
        async with Store.open(board.folder / "copy.db", create=False) as copy:
            assert await copy.integrity_check() == ["ok"]
            assert await copy.counts() == (4, 6)
            assert len(await copy.high_scores(LEVEL_1)) == 3

    asyncio.run(check())


@pytest.mark.slow
def test_reset_scores_without_a_terminal_needs_yes(board: Board) -> None:
    refused = board.sysop("reset-scores", "--level", "1")
    assert refused.returncode == 1 and "--yes" in refused.stderr
    assert "Alice" in board.sysop("scores", "--level", "1").stdout
    done = board.sysop("reset-scores", "--level", "1", "--yes")
    assert done.returncode == 0, done.stderr
    assert "3 games left the list" in done.stdout
    lines = lines_of(board.sysop("scores"))
    assert lines[0].startswith("Level 1 - Draw one, since 2026-")
    assert lines[1] == "  No finished games yet."
    assert "Carol" in lines[5]  # level 2 keeps its list
    assert lines_of(board.sysop("standings"))[1].split()[1] == "Bob"  # standings keep all
    assert board.sysop("reset-scores", "--yes").returncode == 0
    assert "Carol" not in board.sysop("scores").stdout


@pytest.mark.slow
@pytest.mark.parametrize(("answer", "status"), [("yes", 0), ("no", 1)])
def test_reset_scores_asks_at_a_terminal(board: Board, answer: str, status: int) -> None:
    leader, follower = os.openpty()
    try:
        os.write(leader, answer.encode() + b"\n")
        result = subprocess.run(
            [sys.executable, "-m", "door", "sysop", "reset-scores"],
            cwd=board.folder,
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert "Type yes to confirm" in result.stdout
    assert result.returncode == status
    assert ("Alice" in board.sysop("scores").stdout) == (answer != "yes")


@pytest.mark.slow
def test_rename(board: Board) -> None:
    ambiguous = board.sysop("user", "rename", "bob", "Robert")
    assert ambiguous.returncode == 1
    assert "2 users are called" in ambiguous.stderr and "--bbs" in ambiguous.stderr
    done = board.sysop("user", "rename", "bob", "Robert", "--telnet")
    assert done.returncode == 0, done.stderr
    realm = board.sysop("user", "rename", "BOB", "Bobby", "--bbs", "dark realm")
    assert realm.returncode == 0, realm.stderr
    taken = board.sysop("user", "rename", "Carol", "bobby")
    assert taken.returncode == 1 and "taken" in taken.stderr
    short = board.sysop("user", "rename", "Carol", "C")
    assert short.returncode == 1 and "at least 2" in short.stderr
    aliases = [squeeze(line)[0] for line in lines_of(board.sysop("users"))[1:-1]]
    assert aliases == ["Alice", "Bobby", "Carol", "Robert"]


@pytest.mark.slow
def test_delete(board: Board) -> None:
    refused = board.sysop("user", "delete", "Alice")
    assert refused.returncode == 1 and "--yes" in refused.stderr
    done = board.sysop("user", "delete", "alice", "--yes")
    assert done.returncode == 0, done.stderr
    assert "2 games" in done.stdout
    users = board.sysop("users").stdout
    assert "Alice" not in users and "3 users" in users
    assert "Alice" not in board.sysop("scores").stdout


@pytest.mark.slow
def test_reset_password(board: Board) -> None:
    done = board.sysop("user", "reset-password", "alice", "--password-stdin", stdin="new pass\n")
    assert done.returncode == 0, done.stderr

    async def check() -> None:
        async with board.store() as store:
            assert await store.authenticate("Alice", "secret") is None
            assert await store.authenticate("Alice", "new pass") is not None

    asyncio.run(check())
    no_terminal = board.sysop("user", "reset-password", "alice")
    assert no_terminal.returncode == 1 and "--password-stdin" in no_terminal.stderr
    realm = board.sysop("user", "reset-password", "Carol", "--password-stdin", stdin="abcd\n")
    assert realm.returncode == 1 and "Dark Realm" in realm.stderr
    weak = board.sysop("user", "reset-password", "alice", "--password-stdin", stdin="ab\n")
    assert weak.returncode == 1 and "at least 8" in weak.stderr
    for poor in ("alice", "Password1"):  # the alias, or one of the commonest
        refused = board.sysop(
            "user", "reset-password", "alice", "--password-stdin", stdin=f"{poor}\n"
        )
        assert refused.returncode == 1 and "nothing was changed" in refused.stderr


# -- errors and help ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["user", "delete", "Nobody", "--yes"], 'no user called "Nobody"'),
        (["user", "rename", "Carol", "X2", "--bbs", "Elsewhere"], "from Elsewhere"),
        (["scores", "--level", "7"], "no level 7"),
        (["reset-scores", "--level", "4", "--yes"], "no level 4"),
        (["bulletin", "--format", "ansi", "--output", "x.ans", "--level", "0"], "no level 0"),
        (["--database", "missing.db", "users"], "no such database"),
        (["users", "--database", "missing.db"], "no such database"),
        (["--config", "nowhere.toml", "users"], "nowhere.toml: no such file"),
        (["backup", "no/such/folder/copy.db"], "no such folder"),
    ],
)
def test_errors_exit_with_status_1(board: Board, args: list[str], message: str) -> None:
    result = board.sysop(*args)
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_bad_config_is_named(board: Board) -> None:
    (board.folder / "sysop.toml").write_text("[server]\nport = -1\n")
    result = board.sysop("users")
    assert result.returncode == 1 and "server.port = -1" in result.stderr


@pytest.mark.slow
def test_the_database_option_works_without_a_config(board: Board) -> None:
    (board.folder / "sysop.toml").unlink()
    assert "4 users" in board.sysop("--database", "door.db", "users").stdout
    assert board.sysop("users").returncode == 1


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["users"],
        ["user"],
        ["user", "rename"],
        ["user", "delete"],
        ["user", "reset-password"],
        ["scores"],
        ["standings"],
        ["reset-scores"],
        ["bulletin"],
        ["backup"],
    ],
)
@pytest.mark.slow
def test_help(board: Board, command: list[str]) -> None:
    result = board.sysop(*command, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: canfield-door sysop")


# -- bulletins per board -----------------------------------------------------------------------


@pytest.mark.slow
def test_the_network_bulletin_shows_each_players_board(board: Board) -> None:
    result = board.sysop("bulletin", "--format", "ascii", "--output", "-")
    lines = lines_of(result)
    assert all(len(line) <= 79 for line in lines)
    carol = next(line for line in lines if "Carol" in line)
    assert "Dark Realm" in carol
    assert any("Board" in line and "Alias" in line for line in lines)


@pytest.mark.slow
def test_a_bulletin_for_one_board(board: Board) -> None:
    result = board.sysop("bulletin", "--format", "json", "--output", "-", "--board", "dark REALM")
    document = json.loads(result.stdout)
    assert document["bbs"] == "Dark Realm"
    rows = [row for level in document["levels"] for row in level["high_scores"]]
    assert {(row["alias"], row["bbs"]) for row in rows} == {
        ("Carol", "Dark Realm"),
        ("Bob", "Dark Realm"),
    }
    assert {row["bbs"] for row in document["standings"]} == {"Dark Realm"}
    text = board.sysop("bulletin", "--format", "ascii", "--output", "-", "--board", "Dark Realm")
    assert lines_of(text)[0] == "Dark Realm - Canfield scoreboards"
    assert "Alice" not in text.stdout


@pytest.mark.slow
def test_a_bulletin_for_a_board_nobody_calls_from(board: Board) -> None:
    result = board.sysop("bulletin", "--format", "ascii", "--output", "-", "--board", "Nowhere")
    assert result.returncode == 1
    assert "no board Nowhere" in result.stderr


def test_output_into_a_closed_pipe_ends_quietly(board: Board) -> None:
    # `canfield-door sysop users | head`: the reader is gone before the table is written.
    process = subprocess.Popen(
        [sys.executable, "-m", "door", "sysop", "users"],
        cwd=board.folder,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TZ": "UTC"},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in errors and "BrokenPipe" not in errors, errors
