"""sysop.toml as a sysop meets it: the shipped file, the messages for mistakes, check-config."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from door.config import Config, ConfigError, SolverConfig, WebConfig, load_config
from door.engine.variant import Variant
from door.levels import SHIPPED_LEVELS
from door.xterm import ASSETS as PINNED_XTERM

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "sysop.toml"


def write(tmp_path: Path, text: str, name: str = "sysop.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return caught.value


# --- the shipped file ------------------------------------------------------------------------


def test_shipped_file_has_big_blue_disks_three_levels() -> None:
    config = load_config(SHIPPED)
    rules = [
        (lv.number, lv.variant.draw, lv.variant.passes, lv.variant.multiplier)
        for lv in config.levels
    ]
    assert rules == [(1, 1, 0, 1), (2, 3, 0, 2), (3, 3, 1, 3)]
    assert [lv.name for lv in config.levels] == [
        "Level 1 - Draw one",
        "Level 2 - Draw three",
        "Level 3 - One pass",
    ]
    assert config.default_level == 2
    assert config.level(2).variant.draw == 3


def test_shipped_file_shows_the_defaults() -> None:
    # The header promises that a deleted line falls back to the value shown in the file,
    # except the web's port: on as shipped, off when its line goes, as the header says.
    shipped = load_config(SHIPPED)
    assert "(the web's port: off)" in SHIPPED.read_text(encoding="utf-8")
    defaults = Config(path=shipped.path, server=shipped.server, web=WebConfig(port=8080))
    assert shipped == defaults
    assert shipped.levels == SHIPPED_LEVELS
    assert shipped.server.port == 2323
    assert shipped.server.idle_timeout == 300
    assert shipped.server.idle_warning == 60
    assert (shipped.scoreboard.high_scores, shipped.scoreboard.standings) == (10, 20)
    assert shipped.daily_games == 0


def test_shipped_file_lists_every_knob() -> None:
    text = SHIPPED.read_text(encoding="utf-8")
    for knob in Variant.knob_names():
        assert f"#   {knob} " in text, knob


def test_commented_example_level_works_once_uncommented(tmp_path: Path) -> None:
    text = SHIPPED.read_text(encoding="utf-8")
    example = text[text.index("# [[levels]]") :]
    uncommented = "\n".join(line.removeprefix("# ") for line in example.splitlines())
    config = load_config(write(tmp_path, text + "\n" + uncommented))
    assert len(config.levels) == 5
    assert config.level(4).variant.scoring == "vegas"
    assert config.level(4).name.startswith("Vegas")
    assert config.level(5).winnable_only and config.level(5).hints == "solver"
    assert config.level(5).variant == Variant(draw=3, passes=0, multiplier=2)


def test_shipped_hints_and_solver_settings() -> None:
    config = load_config(SHIPPED)
    assert [(lv.hints, lv.winnable_only) for lv in config.levels] == [
        ("visible", False),
        ("off", False),
        ("off", False),
    ]
    assert config.solver == SolverConfig(seconds=10.0, tell_winnable=True, ready=5)
    assert config.daily_level == config.default_level == 2
    text = SHIPPED.read_text(encoding="utf-8")
    for key in ("hints", "winnable_only"):
        assert f"#   {key} " in text, key


def test_door_settings_of_a_level_and_the_solver_section(tmp_path: Path) -> None:
    text = (
        "[solver]\nseconds = 2.5\ntell_winnable = false\ndaily_level = 1\nready = 0\n"
        '[[levels]]\nname = "Easy"\ndraw = 1\nhints = "solver"\nwinnable_only = true\n'
        '[[levels]]\nname = "Hard"\n[game]\ndefault_level = 2\n'
    )
    config = load_config(write(tmp_path, text))
    easy, hard = config.levels
    assert (easy.hints, easy.winnable_only, easy.variant) == ("solver", True, Variant(draw=1))
    assert (hard.hints, hard.winnable_only) == ("off", False)
    assert config.solver == SolverConfig(2.5, False, 1, 0)
    assert config.daily_level == 1


# --- defaults and paths -----------------------------------------------------------------------


def test_empty_file_gives_the_shipped_settings(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""))
    assert config.levels == SHIPPED_LEVELS
    assert config.server.host == "0.0.0.0"
    assert config.server.database == tmp_path / "canfield.db"


def test_a_level_takes_rules_md_defaults_for_knobs_not_given(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[game]\ndefault_level = 1\n[[levels]]\nname = "Only"\n'))
    assert config.levels[0].variant == Variant()
    assert config.level(1).name == "Only"
    with pytest.raises(KeyError):
        config.level(2)


def test_relative_database_is_beside_the_file_wherever_the_door_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "bbs"
    folder.mkdir()
    write(folder, '[server]\ndatabase = "data/door.db"\n')
    monkeypatch.chdir(tmp_path)
    assert load_config("bbs/sysop.toml").server.database == folder / "data" / "door.db"


def test_absolute_database_is_kept(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "scores.db"
    path = write(tmp_path, f'[server]\ndatabase = "{elsewhere}"\n')
    assert load_config(path).server.database == elsewhere


def test_control_characters_are_removed_from_names(tmp_path: Path) -> None:
    text = (
        '[bbs]\nname = "Bob\'s \\u001b[31mBBS\\u0007"\nsysop = "Bob\\tSmith"\n'
        '[[levels]]\nname = "\\u001b[2JEasy"\ndraw = 1\n[game]\ndefault_level = 1\n'
    )
    config = load_config(write(tmp_path, text))
    assert config.bbs.name == "Bob's BBS"
    assert config.bbs.sysop == "Bob Smith"
    assert config.level(1).name == "Easy"


# --- mistakes ---------------------------------------------------------------------------------

MISTAKES = [
    # (file text, key, what the message shows, what it says would be accepted)
    ("[server]\nport = -1\n", "server.port", "server.port = -1", "0 to 65535"),
    ("[server]\nport = 70000\n", "server.port", "server.port = 70000", "0 to 65535"),
    ('[server]\nport = "2323"\n', "server.port", 'server.port = "2323"', "without quotes"),
    ("[server]\nport = true\n", "server.port", "server.port = true", "not true or false"),
    ("[server]\nport = 23.5\n", "server.port", "server.port = 23.5", "a whole number"),
    (
        "[server]\nprot = 2323\n",
        "server.prot",
        "server.prot = 2323 is not a setting",
        "host, port, max_nodes",
    ),
    (
        "[server]\nidle_warning = 300\n",
        "server.idle_warning",
        "server.idle_warning = 300",
        "fewer seconds than server.idle_timeout (300)",
    ),
    (
        "[server]\nidle_timeout = 30\n",
        "server.idle_warning",
        "server.idle_warning = 60",
        "server.idle_timeout (30)",
    ),
    ('[server]\nhost = ""\n', "server.host", 'server.host = ""', "an address or host name"),
    ("[server]\nmax_nodes = 0\n", "server.max_nodes", "server.max_nodes = 0", "at least 1"),
    ('[bbs]\nname = "\\u001b[2J"\n', "bbs.name", 'bbs.name = "\\u001b[2J"', "1 to 60"),
    ("[bbs]\nsysop = 7\n", "bbs.sysop", "bbs.sysop = 7", "in quotes"),
    (
        "[limits]\ndaily_games = -1\n",
        "limits.daily_games",
        "limits.daily_games = -1",
        "0 for no limit",
    ),
    ("[scoreboard]\nhigh_scores = 0\n", "scoreboard.high_scores", "high_scores = 0", "at least 1"),
    (
        "[game]\ndefault_level = 4\n",
        "game.default_level",
        "game.default_level = 4",
        "one of the levels, 1 to 3",
    ),
    ('[[levels]]\nname = "A"\ndraw = 2\n', "levels[1].draw", "levels[1].draw = 2", "1 or 3"),
    (
        '[[levels]]\nname = "A"\n[[levels]]\nname = "B"\ndraw = 2\n',
        "levels[2].draw",
        "levels[2].draw = 2",
        "1 or 3",
    ),
    (
        '[[levels]]\nname = "A"\ndraw = "3"\n',
        "levels[1].draw",
        'levels[1].draw = "3"',
        "without quotes",
    ),
    (
        '[[levels]]\nname = "A"\nmultiplier = true\n',
        "levels[1].multiplier",
        "levels[1].multiplier = true",
        "not true or false",
    ),
    (
        '[[levels]]\nname = "A"\nbase = 1\n',
        "levels[1].base",
        "levels[1].base = 1",
        '"dealt" or "ace" or "choose", in quotes',
    ),
    (
        '[[levels]]\nname = "A"\ntournament = "yes"\n',
        "levels[1].tournament",
        'levels[1].tournament = "yes"',
        "true or false",
    ),
    (
        '[[levels]]\nname = "A"\ndrow = 1\n',
        "levels[1].drow",
        "levels[1].drow = 1 is not a setting",
        "name, draw, passes, reserve_size",
    ),
    (
        '[[levels]]\nname = "A"\n[[levels]]\ndraw = 1\n',
        "levels[2].name",
        "levels[2].name is missing",
        "needs a name",
    ),
    ('[[levels]]\nname = ""\n', "levels[1].name", 'levels[1].name = ""', "1 to 40"),
    (
        '[[levels]]\nname = "Easy"\n[[levels]]\nname = "easy"\n',
        "levels[2].name",
        'levels[2].name = "easy"',
        "level 1 is called that",
    ),
    ("levels = []\n", "levels", "levels = []", "at least one [[levels]] table"),
    (
        '[[levels]]\nname = "A"\nhints = "yes"\n',
        "levels[1].hints",
        'levels[1].hints = "yes"',
        '"off" or "visible" or "solver"',
    ),
    (
        '[[levels]]\nname = "A"\nhints = true\n',
        "levels[1].hints",
        "levels[1].hints = true",
        '"off" or "visible" or "solver", in quotes',
    ),
    (
        '[[levels]]\nname = "A"\nwinnable_only = "true"\n',
        "levels[1].winnable_only",
        'levels[1].winnable_only = "true"',
        "true or false, without quotes",
    ),
    (
        '[[levels]]\nname = "A"\nwinnable_only = 1\n',
        "levels[1].winnable_only",
        "levels[1].winnable_only = 1",
        "true or false",
    ),
    ("[solver]\nseconds = 0\n", "solver.seconds", "solver.seconds = 0", "from 0.1 to 600"),
    (
        '[solver]\nseconds = "10"\n',
        "solver.seconds",
        'solver.seconds = "10"',
        "a number of seconds from 0.1 to 600, without quotes",
    ),
    (
        "[solver]\ntell_winnable = 1\n",
        "solver.tell_winnable",
        "solver.tell_winnable = 1",
        "true or false",
    ),
    (
        "[solver]\ndaily_level = 4\n",
        "solver.daily_level",
        "solver.daily_level = 4",
        "one of the levels, 1 to 3",
    ),
    ("[solver]\nready = 101\n", "solver.ready", "solver.ready = 101", "from 0 to 100"),
    (
        "[solver]\nsecond = 10\n",
        "solver.second",
        "solver.second = 10 is not a setting",
        "seconds, tell_winnable, daily_level, ready",
    ),
    (
        '[door]\ncharset = "utf8"\n',
        "door.charset",
        'door.charset = "utf8"',
        '"auto" or "cp437" or "utf-8" or "ascii"',
    ),
    ('[levels]\nname = "A"\n', "levels", 'levels = {name = "A"}', "[[levels]] tables"),
    (
        "[sever]\nport = 2323\n",
        "sever",
        "sever = {port = 2323} is not a setting",
        "[bbs], [server]",
    ),
    ('server = "big"\n', "server", 'server = "big"', "a [server] section"),
]


@pytest.mark.parametrize(("text", "key", "shown", "accepted"), MISTAKES)
def test_each_mistake_names_file_key_value_and_what_would_do(
    tmp_path: Path, text: str, key: str, shown: str, accepted: str
) -> None:
    path = write(tmp_path, text)
    error = refused(path)
    message = str(error)
    assert message.startswith(f"{path}: ")
    assert shown in message
    assert accepted in message
    assert error.key == key
    assert isinstance(error, ValueError)


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    message = str(refused(path))
    assert message == f"{path}: no such file (looked for {path})"


def test_toml_syntax_error_gives_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, '[bbs]\nname = "Board"\nsysop = Bob\n')
    message = str(refused(path))
    assert message.startswith(f"{path}: not valid TOML: ")
    assert "line 3" in message


def test_file_not_in_utf8_gives_the_line(tmp_path: Path) -> None:
    path = tmp_path / "sysop.toml"
    path.write_bytes(b'[bbs]\nname = "Caf\x82 BBS"\n')
    message = str(refused(path))
    assert message.startswith(f"{path}: line 2: byte 0x82 is not UTF-8")


def test_number_too_long_for_python(tmp_path: Path) -> None:
    path = write(tmp_path, "[server]\nport = " + "9" * 5000 + "\n")
    assert str(refused(path)).startswith(f"{path}: not valid TOML: ")


def test_the_first_mistake_is_the_one_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "[bbs]\nname = 1\n[server]\nport = -1\n")
    assert refused(path).key == "bbs.name"


# --- check-config, run as the sysop runs it ------------------------------------------------------


def check_config(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return canfield_door(cwd, "check-config", *args)


def canfield_door(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The door as checked out here, whether or not it is installed in this Python.
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    return subprocess.run(
        [sys.executable, "-m", "door", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_check_config_on_a_good_file(tmp_path: Path) -> None:
    path = write(tmp_path, SHIPPED.read_text(encoding="utf-8"), "board.toml")
    result = check_config(tmp_path, "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"{path} is good: 3 levels, port 2323, database {tmp_path / 'canfield.db'}\n"
        "The web page loads xterm.js from cdn.jsdelivr.net: a caller whose network blocks "
        "that site gets no terminal, only the telnet port offered instead. Name your own copy "
        "in [web] assets to serve it from the door.\n"
    )
    assert result.stderr == ""


@pytest.mark.slow
def test_check_config_says_nothing_of_the_cdn_when_the_door_serves_xterm_itself(
    tmp_path: Path,
) -> None:
    assets = tmp_path / "xterm-copy"
    for asset in PINNED_XTERM:
        (assets / asset.path).parent.mkdir(parents=True, exist_ok=True)
        (assets / asset.path).write_text("// a copy\n")
    for web in ("port = 8080\nassets = " + json.dumps(str(assets)), "# the web off"):
        write(tmp_path, f"[web]\n{web}\n")
        result = check_config(tmp_path)
        assert result.returncode == 0, result.stderr
        assert "is good" in result.stdout and "xterm" not in result.stdout


@pytest.mark.slow
def test_check_config_reads_sysop_toml_in_the_current_folder(tmp_path: Path) -> None:
    write(tmp_path, '[server]\nport = 2424\n[[levels]]\nname = "Only"\n[game]\ndefault_level = 1\n')
    result = check_config(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("sysop.toml is good: 1 level, port 2424, database ")


def test_check_config_on_a_bad_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[[levels]]\nname = "A"\ndraw = 2\n')
    result = check_config(tmp_path, "--config", str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip() == f"{path}: levels[1].draw = 2 is not accepted: 1 or 3"


def test_check_config_without_a_file(tmp_path: Path) -> None:
    result = check_config(tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("sysop.toml: no such file")


@pytest.mark.slow
def test_serve_on_a_port_already_taken_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = canfield_door(
            tmp_path, "serve", "--config", str(SHIPPED), "--host", "127.0.0.1",
            "--port", str(port), "--database", str(tmp_path / "door.db"), "--web-port", "0",
        )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("canfield-door: cannot listen: ")
    assert "address already in use" in result.stderr


def test_workers_are_counted_with_every_way_on(tmp_path) -> None:
    path = tmp_path / "sysop.toml"
    path.write_text("[server]\nworkers = 2\n")
    assert load_config(path).server.workers == 2
    path.write_text("[server]\nworkers = 2\n[ssh]\nport = 2222\n[web]\nport = 8080\n")
    assert load_config(path).server.workers == 2
    path.write_text("")
    assert load_config(path).server.workers == 1
    path.write_text("[server]\nworkers = 0\n")
    with pytest.raises(ConfigError, match=r"server\.workers = 0 is not accepted"):
        load_config(path)
