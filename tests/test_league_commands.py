"""The league from the sysop's side: [league] in sysop.toml checked, a board's key made once
and owner-only, and the hub's member boards added, listed, suspended and removed."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest

from door.commands.main import main
from door.config import ConfigError, load_config
from door.store import Store
from tests.support.door_caller import write_config


def league_config(folder: Path, league: str) -> Path:
    path = write_config(folder)
    path.write_text(path.read_text(encoding="utf-8") + "\n[league]\n" + league, encoding="utf-8")
    return path


def test_a_member_names_its_hub_and_a_hub_turns_the_league_on(tmp_path):
    member = load_config(league_config(tmp_path, 'hub = "https://hub.example.org/"\ntag = "ABC"\n'))
    assert member.league.hub_url == "https://hub.example.org" and member.league.tag == "ABC"
    assert member.league_key == tmp_path / "canfield-league-key"
    hub = load_config(league_config(tmp_path, 'hub = true\ntag = "HUB"\nname = "The Hub"\n'))
    assert hub.league.hub and hub.league.name == "The Hub"
    assert not load_config(write_config(tmp_path)).league.on


@pytest.mark.parametrize(
    ("league", "key"),
    [
        ('hub = "http://hub.example.org"\ntag = "ABC"\n', "league.hub"),  # http off this machine
        ('hub = "ftp://x"\ntag = "ABC"\n', "league.hub"),
        ('hub = true\ntag = "no spaces"\n', "league.tag"),
        ("hub = true\n", "league.tag"),
        ('hub = "https://h.org"\ntag = "A"\nhub_key = "ed25519:short"\n', "league.hub_key"),
    ],
)
def test_a_wrong_league_setting_is_refused_by_name(tmp_path, league, key):
    with pytest.raises(ConfigError) as refused:
        load_config(league_config(tmp_path, league))
    assert refused.value.key == key


def test_the_key_is_made_once_owner_only_and_boards_are_managed(tmp_path, capsys):
    config = league_config(tmp_path, 'hub = true\ntag = "HUB"\n')
    asyncio.run(_create(tmp_path / "door.db"))

    def sysop(*words: str) -> tuple[int, str]:
        code = main(["sysop", "--config", str(config), *words])
        return code, capsys.readouterr().out

    code, first = sysop("league", "key")
    assert code == 0
    public = next(line for line in first.splitlines() if line.startswith("ed25519:"))
    key_file = tmp_path / "canfield-league-key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert sysop("league", "key")[1] == first  # the same key, not a new one
    assert sysop("league", "add", "ABC", "Another Board", public)[0] == 0
    assert sysop("league", "add", "ABD", "Same key", public)[0] == 1
    code, listed = sysop("league", "list")
    assert "ABC" in listed and "in play" in listed
    assert sysop("league", "suspend", "abc")[0] == 0
    assert "suspended" in sysop("league", "list")[1]
    assert sysop("league", "remove", "ABC", "--yes")[0] == 0
    assert "No member boards" in sysop("league", "list")[1]


def test_a_league_contest_is_declared_on_the_hub_only(tmp_path, capsys):
    config = league_config(tmp_path, 'hub = "https://h.org"\ntag = "ABC"\n')
    asyncio.run(_create(tmp_path / "door.db"))
    words = ["sysop", "--config", str(config), "contest", "declare", "Cup", "--league"]
    code = main([*words, "--level", "1", "--deals", "2", "--opens", "now", "--for", "1d"])
    assert code == 1 and "declared on the league's hub" in capsys.readouterr().err


async def _create(database: Path) -> None:
    async with Store.open(database):
        pass
