"""``canfield-door sysop solve``, run as the sysop runs it: the verdict, a winning line that
the engine confirms, and a message with exit status 1 for bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from door.config import load_config
from door.engine import Game

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "sysop.toml"


def sysop_solve(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The door as checked out here, whether or not it is installed in this Python.
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return subprocess.run(
        [sys.executable, "-m", "door", "sysop", "solve", *args],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
    )


@pytest.mark.slow
def test_a_won_deal_prints_a_line_the_engine_confirms(tmp_path: Path) -> None:
    result = sysop_solve(tmp_path, "1", "--level", "1", "--config", str(SHIPPED))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Deal 1 at level 1 (Level 1 - Draw one): won."
    assert lines[1].startswith("A winning line of ")
    assert all(len(line) <= 79 for line in lines)
    plays = [play for line in lines[2:] for play in line.split("  ")]
    assert lines[1].startswith(f"A winning line of {len(plays)} plays")
    game = Game.deal(load_config(SHIPPED).level(1).variant, 1)
    for play in plays:
        game.play(play)
    assert game.status == "won"


@pytest.mark.slow
def test_a_lost_deal_without_a_settings_file_uses_the_shipped_levels(tmp_path: Path) -> None:
    result = sysop_solve(tmp_path, "1", "--level", "3", "--seconds", "20")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Deal 1 at level 3 (Level 3 - One pass): lost.",
        result.stdout.splitlines()[1],
    ]
    assert result.stdout.splitlines()[1].startswith("No line wins this deal (proved in ")


@pytest.mark.slow
def test_the_default_level_and_the_sysop_toml_of_the_folder(tmp_path: Path) -> None:
    (tmp_path / "sysop.toml").write_text(
        '[game]\ndefault_level = 1\n[[levels]]\nname = "Easy"\ndraw = 1\n', encoding="utf-8"
    )
    result = sysop_solve(tmp_path, "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Deal 2 at level 1 (Easy): won.\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["seven"], "'seven' is not a deal number: a whole number from 0 to"),
        (["-5"], "not a deal number"),
        (["18446744073709551616"], "not a deal number"),
        (["5", "--level", "4"], "no level 4: the levels are 1 to 3"),
        (["5", "--level", "one"], "no level one"),
        (["5", "--seconds", "0"], "--seconds 0 is not accepted"),
        (["5", "--seconds", "soon"], "--seconds soon is not accepted"),
        (["5", "--config", "missing.toml"], "missing.toml: no such file"),
    ],
)
def test_bad_input_is_refused_with_a_message(tmp_path: Path, args, message) -> None:
    result = sysop_solve(tmp_path, *args)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("canfield-door sysop: ")
    assert message in result.stderr
