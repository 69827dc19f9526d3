"""The caller's language: chosen in Terminal settings among the board's languages (or left to
the board's), the page drawn again in it at once, and kept for the next call; a board whose
sysop.toml says ``language = "de"`` speaks German to callers who have not chosen, from the
first page on; and a game's screen speaks the caller's language."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from door.config import load_config
from tests.support.door_server import RunningDoor, door_config, open_door
from tests.support.telnet_caller import Caller
from tests.support.visits import sign_up

BOARD = "The Canfield Door"  # the shipped sysop.toml's board name, on the welcome page
PASSWORD = "secret-one1"


@pytest.fixture
async def german_board(tmp_path: Path):
    """A door whose sysop.toml says ``[words] language = "de"``."""
    (tmp_path / "sysop.toml").write_text('[words]\nlanguage = "de"\n')
    words = load_config(tmp_path / "sysop.toml").words
    running = await open_door(dataclasses.replace(door_config(tmp_path), words=words))
    yield running
    await running.close()


async def stored_language(door: RunningDoor, alias: str = "Alice") -> str | None:
    user = await door.store.find_user(alias)
    assert user is not None
    return user.language


async def log_in_in_german(door: RunningDoor, alias: str = "Alice") -> Caller:
    """Call a German board, and log in as its welcome asks."""
    caller = await Caller.connect(door.port)
    await caller.wait_for("Dein Name \\(oder NEW\\):")
    await caller.type(alias)
    await caller.wait_for(f"Passwort für {alias}:")
    await caller.type(PASSWORD)
    return caller


@pytest.mark.slow
async def test_a_caller_who_picks_deutsch_reads_the_door_in_it_now_and_on_the_next_call(door):
    caller = await sign_up(door, password=PASSWORD)
    await caller.key("T")
    await caller.wait_for("W  Language: the board's \\(English\\)")
    assert "Terminal settings" in caller.display()
    await caller.key("W")
    await caller.wait_for("Q  Back, nothing changed")
    shown = caller.display()
    assert "A  The board's language: English" in shown
    assert "1  English" in shown and "2  Deutsch" in shown  # each by its own name
    assert "Now: the board's (English)." in shown
    await caller.key("2")
    # The settings page again at once, all of it in German.
    shown = await caller.wait_for("W  Sprache: Deutsch")
    assert "Terminal-Einstellungen" in shown
    assert "Gespeichert, auch für deinen nächsten Anruf." in shown
    assert "A  ANSI-Farbbildschirm: an" in shown
    assert "S  Zeichensatz: automatisch (dieser Anruf: utf-8)" in shown
    assert "Q  Zurück zum Menü" in shown
    assert "Deine Wahl:" in shown
    assert "Terminal settings" not in shown and "Your choice" not in shown
    assert await stored_language(door) == "de"
    await caller.key("Q")
    shown = await caller.wait_for("P  Ein Spiel spielen")  # the main menu, in German too
    assert "T  Terminal-Einstellungen" in shown and "Deine Wahl:" in shown
    assert "Play a game" not in shown
    await caller.hang_up()

    # The next call: English until the caller is known (the board's), German from the log-in.
    again = await Caller.connect(door.port)
    await again.wait_for("Your alias")
    await again.type("Alice")
    await again.wait_for("Password for")
    await again.type(PASSWORD)
    shown = await again.wait_for("P  Ein Spiel spielen")
    assert "Deine Wahl:" in shown
    await again.key("T")
    shown = await again.wait_for("W  Sprache: Deutsch")
    assert "Terminal-Einstellungen" in shown and "Deine Wahl:" in shown
    await again.hang_up()


async def test_a_german_board_greets_a_new_caller_in_german_before_they_log_in(german_board):
    caller = await Caller.connect(german_board.port)
    shown = await caller.wait_for("Dein Name \\(oder NEW\\):")
    assert "Your alias" not in shown
    await caller.hang_up()
    # A window too short for the welcome on one page: its first page asks for more.
    caller = await Caller.connect(german_board.port, size=(40, 20))
    shown = await caller.wait_for(BOARD)
    assert "Eine Taste für mehr, Q hört auf." in shown
    assert "Any key for more" not in shown
    # A wider window: the page drawn again for it (by the connection's code), still German.
    caller.forget_text()
    await caller.resize(42, 20)
    sent = await caller.wait_for("Eine Taste für mehr, Q hört auf.", in_text=True)
    assert "Any key for more" not in sent
    await caller.hang_up()


@pytest.mark.slow
async def test_a_caller_on_a_german_board_may_choose_english_or_the_boards_again(german_board):
    await german_board.store.create_user("Alice", PASSWORD)
    caller = await log_in_in_german(german_board)
    shown = await caller.wait_for("P  Ein Spiel spielen")
    assert "Deine Wahl:" in shown
    await caller.key("T")
    shown = await caller.wait_for("W  Sprache: die der Mailbox \\(Deutsch\\)")
    assert "Terminal-Einstellungen" in shown
    await caller.key("W")
    shown = await caller.wait_for("Q  Zurück, nichts geändert")
    assert "A  Die Sprache der Mailbox: Deutsch" in shown
    assert "1  English" in shown and "2  Deutsch" in shown
    await caller.key("1")
    shown = await caller.wait_for("W  Language: English")
    assert "Terminal settings" in shown and "Your choice:" in shown
    assert "Saved for your next call." in shown
    assert await stored_language(german_board) == "en"
    await caller.key("Q")
    shown = await caller.wait_for("P  Play a game")
    assert "Your choice:" in shown
    await caller.hang_up()

    # Kept for the next call: the welcome in the board's German, then English at once.
    again = await log_in_in_german(german_board)
    shown = await again.wait_for("P  Play a game")
    assert "Your choice:" in shown
    await again.key("T")
    await again.wait_for("W  Language: English")
    await again.key("W")
    await again.wait_for("A  The board's language: Deutsch")
    await again.key("A")
    shown = await again.wait_for("W  Sprache: die der Mailbox \\(Deutsch\\)")
    assert "Terminal-Einstellungen" in shown
    assert await stored_language(german_board) is None
    await again.hang_up()


async def test_a_caller_who_chose_german_plays_a_deal_in_german(door):
    caller = await sign_up(door, password=PASSWORD)
    await caller.key("T")
    await caller.wait_for("W  Language")
    await caller.key("W")
    await caller.wait_for("2  Deutsch")
    await caller.key("2")
    await caller.wait_for("W  Sprache: Deutsch")
    await caller.key("Q")
    await caller.wait_for("P  Ein Spiel spielen")
    await caller.key("#")
    await caller.wait_for("Spielnummer \\(Eingabe geht zurück\\):")
    await caller.type("48213")
    shown = await caller.wait_for("Stufe:")
    assert "Spiel 48213 (Übung): auf welcher Stufe?" in shown
    await caller.key("\r")
    shown = await caller.wait_for("Übungsspiel 48213\\.")  # the game's first message
    assert "Übung: dieses Spiel kommt nie in die Bestenlisten." in shown  # under the columns
    await caller.key("L")
    await caller.key("9")
    await caller.wait_for('Kein Stapel "9": L 1 bis L 4, L S, L D oder L F')
    await caller.key("N")
    await caller.wait_for("Dieses Spiel aufgeben und ein neues geben\\? \\(Y/N\\)")
    await caller.key("N")
    await caller.wait_for("Du spielst weiter\\.")
    await caller.key("Q")
    shown = await caller.wait_for("Dein Spiel ist gespeichert: R setzt es fort\\.")
    assert "P  Ein Spiel spielen" in shown
    await caller.hang_up()
