"""The menus in German: a board whose sysop.toml says ``[words] language = "de"`` signs a
caller up (refusing an alias and a password in German), shows the main menu, the contest's
page and the deal of the day in German, each fitting the caller's window, every menu key
beside its words."""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta
from pathlib import Path

import pytest

from door.config import Config, load_config
from door.engine import Game
from tests.support.door_server import door_config, open_door
from tests.support.telnet_caller import Caller
from tests.support.visits import DEAL


def german_config(tmp_path: Path) -> Config:
    """The tests' door, speaking the language its sysop.toml names."""
    (tmp_path / "sysop.toml").write_text('[words]\nlanguage = "de"\n')
    words = load_config(tmp_path / "sysop.toml").words
    return dataclasses.replace(door_config(tmp_path), words=words)


def words_of(caller: Caller) -> str:
    """The screen's text as one line of words, as a reader follows it across rows."""
    return " ".join(caller.display().split())


async def wait_for_words(caller: Caller, text: str) -> str:
    """Wait for ``text`` on the screen, wrapped there at any of its spaces."""
    await caller.wait_for(r"\s+".join(map(re.escape, text.split())))
    return words_of(caller)


def assert_fits(caller: Caller, texts: list[str]) -> None:
    """Every text on the screen whole (no word cut where a row ends), and nothing in the
    window's last column (the layout keeps it free)."""
    shown = words_of(caller)
    for text in texts:
        assert text in shown, f"{text!r} not on the screen:\n{caller.display()}"
    assert all(row[-1] == " " for row in caller.screen.display), caller.display()


async def last_page(caller: Caller, title: str) -> None:
    """Wait for the page called ``title``, and turn its pages (a narrow window may take
    more than one) to its last, where its menu and question are."""
    await caller.wait_for(re.escape(title))
    while (pages := re.search(r"\((\d+)/(\d+)\)\s*$", caller.row(1))) and pages[1] != pages[2]:
        assert_fits(caller, [])
        await caller.key(" ")
        await caller.wait_for(rf"{re.escape(title)} \({int(pages[1]) + 1}/{pages[2]}\)")
    await caller.wait_for("Deine Wahl:")


def assert_beside_its_key(caller: Caller, key: str, text: str) -> None:
    """A menu entry's key and the first word of its text on one row."""
    first = re.escape(text.split()[0])
    rows = caller.display().splitlines()
    assert any(re.match(rf"\s*{re.escape(key)}\s+{first}", row) for row in rows), (
        f"{key} {text!r} not on one row:\n{caller.display()}"
    )


MENU = {
    "P": "Ein Spiel spielen",
    "D": "Spiel des Tages",
    "#": "Ein Spiel nach Nummer spielen",
    "S": "Bestenlisten",
    "M": "Meine Statistik",
    "I": "Anleitung: die Regeln von Canfield",
    "T": "Terminal-Einstellungen",
    "G": "Auf Wiedersehen",
}


@pytest.mark.parametrize("size", [(40, 25), (80, 24)])
async def test_sign_up_the_menu_the_contest_and_the_deal_of_the_day_in_german(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    door = await open_door(german_config(tmp_path))
    try:
        now = door.store.now()
        opened, closes = now - timedelta(minutes=1), now + timedelta(days=1)
        await door.store.declare_contest("Winter Cup", door.config.level(1), 3, opened, closes)
        today = door.store.today()
        await door.store.choose_daily_deal(today, door.config.level(1), DEAL)
        caller = await Caller.connect(door.port, size=size)
        await caller.wait_for("Dein Name")
        assert_fits(caller, ["Dein Name (oder NEW):"])

        # A name kept for the door, refused in German.
        await caller.type("Admin")
        await wait_for_words(caller, "Hier gibt es niemanden namens Admin. Neu anmelden? (Y/N)")
        assert_fits(caller, ["Hier gibt es niemanden namens Admin. Neu anmelden? (Y/N)"])
        await caller.key("Y")
        await wait_for_words(caller, "Dieser Name ist für die Door reserviert.")
        assert_fits(
            caller,
            [
                "Ein neuer Anrufer! Wähl einen Namen aus 2 bis 20 Buchstaben, Ziffern oder "
                "Zeichen und ein Passwort, das du bei jedem Anruf eingibst.",
                "Dieser Name ist für die Door reserviert.",
                "Name:",
            ],
        )
        assert "Anmelden" in caller.row(1)

        # A password too short, refused in German with its count.
        await caller.type("Alice")
        await caller.wait_for("Passwort:")
        await caller.type("kurz")
        await wait_for_words(caller, "Passwort noch einmal:")
        await caller.type("kurz")
        await wait_for_words(caller, "Ein Passwort braucht mindestens 8 Zeichen.")
        assert_fits(caller, ["Ein Passwort braucht mindestens 8 Zeichen.", "Passwort:"])
        await caller.type("sieben gruene Aepfel")
        await wait_for_words(caller, "Passwort noch einmal:")
        await caller.type("sieben gruene Aepfel")

        # The main menu, with a saved game to resume (shown again after a key it lacks).
        await caller.wait_for("Deine Wahl:")
        alice = await door.store.find_user("Alice")
        assert alice is not None
        level = door.config.level(2)
        await door.store.start_game(alice.id, level, Game.deal(level.variant, DEAL))
        await caller.key("X")
        await wait_for_words(caller, "Drück eine der gezeigten Tasten.")
        shown = await wait_for_words(caller, "Dein gespeichertes Spiel fortsetzen (Stufe 2)")
        assert re.search(r"Wettbewerbe: Winter Cup, offen bis \d{4}-\d\d-\d\d \d\d:\d\d", shown)
        assert_fits(
            caller,
            [
                "Hallo, Alice.",
                *MENU.values(),
                "Dein gespeichertes Spiel fortsetzen (Stufe 2)",
                "Drück eine der gezeigten Tasten.",
                "Deine Wahl:",
            ],
        )
        for key, text in {**MENU, "R": "Dein gespeichertes Spiel", "C": "Wettbewerbe:"}.items():
            assert_beside_its_key(caller, key, text)
        assert "Your choice" not in shown and "Play a game" not in shown

        # The contest's page.
        await caller.key("C")
        await wait_for_words(caller, "Jedes Spiel nur einmal: Schon der Start ist dein Versuch.")
        assert_fits(caller, ["Jedes Spiel nur einmal: Schon der Start ist dein Versuch."])
        await last_page(caller, "Wettbewerb - Winter Cup")
        contest_menu = {
            "T": "Die ganze Tabelle",
            "E": "Frühere Wettbewerbe",
            "Q": "Zurück zum Menü",
            "S": "Die Siegel der Spiele (nach dem Ende auch Spiele und Salze)",
        }
        assert_fits(caller, [*contest_menu.values(), "Deine Wahl:"])
        for key, text in contest_menu.items():
            assert_beside_its_key(caller, key, text)
        await caller.key("E")
        await wait_for_words(caller, "Noch ist kein früherer Wettbewerb zu Ende.")
        assert "Frühere Wettbewerbe" in caller.row(1)
        assert_fits(caller, ["Zurück", "Deine Wahl:"])
        await caller.key("Q")
        await last_page(caller, "Wettbewerb - Winter Cup")
        await caller.key("Q")
        await wait_for_words(caller, "Hallo, Alice.")

        # The deal of the day's page.
        await caller.key("D")
        await caller.wait_for(f"Spiel des Tages - {today.isoformat()}")
        day_texts = [
            "Das heutige Spiel (Level 1 - Draw one) ist nachweislich lösbar.",
            "Jeder Anrufer bekommt heute dieses Spiel und spielt es einmal.",
            "Du hast das Spiel des Tages noch nicht gespielt.",
        ]
        day_menu = {
            "P": "Das Spiel des Tages spielen",
            "E": "Bestenlisten früherer Tage",
            "Q": "Zurück zum Menü",
        }
        await wait_for_words(caller, day_menu["Q"])
        assert_fits(caller, [*day_texts, *day_menu.values(), "Deine Wahl:"])
        for key, text in day_menu.items():
            assert_beside_its_key(caller, key, text)
        assert str(DEAL) not in caller.display()  # the deal stays secret until played
        await caller.key("Q")
        await wait_for_words(caller, "Hallo, Alice.")
        await caller.hang_up()
    finally:
        await door.close()
