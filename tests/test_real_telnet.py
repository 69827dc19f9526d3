"""A real client: Debian's telnet inside tmux, against ``canfield-door serve``."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess

import pytest

from door.config import load_config
from door.engine import Game
from door.engine.solver import solve
from door.levels import SHIPPED_LEVELS
from door.views.pages import welcome_lines
from door.views.texts import help_lines, rules_lines
from tests.support import door_log
from tests.support.screens import words_of
from tests.support.served_door import ROOT, start_door
from tests.support.tmux import Tmux

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which("telnet") and shutil.which("tmux")),
        reason="needs Debian's telnet and tmux (.ci/run installs them)",
    ),
]


def test_telnet_in_tmux_signs_up_plays_and_quits(tmp_path):
    door, port = start_door(tmp_path)
    tmux = Tmux()
    try:
        env_term = {**os.environ, "TERM": "xterm-256color"}
        subprocess.run(
            [
                "tmux",
                "-L",
                tmux.socket,
                "new-session",
                "-d",
                "-s",
                "door",
                "-x",
                "80",
                "-y",
                "24",
                # The pane stays open after telnet ends, so its last words can be read.
                f"telnet 127.0.0.1 {port}; sleep 30",
            ],
            check=True,
            env=env_term,
            timeout=10,
        )
        tmux.wait_for("Your alias")
        tmux.type("Bob")
        tmux.wait_for(r"Sign up\?")
        tmux.type("Y")
        tmux.wait_for("Password:")
        tmux.type("hunter22")
        tmux.wait_for("Password again")
        tmux.type("hunter22")
        tmux.wait_for("Your choice")
        tmux.key("#")
        tmux.wait_for("Deal number")
        tmux.type("48213")
        tmux.wait_for("Choose a level")
        tmux.key("1")
        screen = tmux.wait_for(r"Command \(\? for help\)")
        assert "Practice deal 48213" in screen and "♦" in screen
        tmux.type("V")
        tmux.wait_for(r"Moves\s+1\b")
        tmux.type("Q")
        tmux.wait_for("Your game is saved")
        tmux.key("G")
        screen = tmux.wait_for("Connection closed by foreign host")
        assert "Goodbye" in screen
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], timeout=10, check=False)
        door.send_signal(signal.SIGTERM)
        try:
            door.wait(timeout=15)
        finally:
            if door.poll() is None:
                door.kill()
    assert door.returncode == 0


def page_words(screen: str) -> list[str]:
    """The words of a page's text rows (3 to 20), as the real client shows them."""
    return [word for line in screen.splitlines()[2:20] for word in line.split()]


def test_telnet_in_tmux_shows_the_welcome_the_rules_and_the_help_with_no_word_cut(tmp_path):
    config = load_config(ROOT / "sysop.toml")
    door, port = start_door(tmp_path)
    tmux = Tmux()
    try:
        subprocess.run(
            [
                "tmux",
                "-L",
                tmux.socket,
                "new-session",
                "-d",
                "-s",
                "door",
                "-x",
                "80",
                "-y",
                "24",
                f"telnet 127.0.0.1 {port}; sleep 30",
            ],
            check=True,
            env={**os.environ, "TERM": "xterm-256color"},
            timeout=10,
        )
        screen = tmux.wait_for("Your alias")
        assert page_words(screen) == words_of(welcome_lines(config.bbs.name, config.bbs.sysop, 1))
        tmux.type("Carol")
        tmux.wait_for(r"Sign up\?")
        tmux.type("Y")
        tmux.wait_for("Password:")
        tmux.type("hunter22")
        tmux.wait_for("Password again")
        tmux.type("hunter22")
        tmux.wait_for("Your choice")
        tmux.key("I")
        screen = tmux.wait_for(r"The rules of Canfield \(1/\d+\)")
        pages = int(re.search(r"\(1/(\d+)\)", screen)[1])
        shown: list[str] = []
        for page in range(1, pages + 1):
            shown += page_words(tmux.wait_for(rf"\({page}/{pages}\)"))
            tmux.key(" ")
        assert shown == words_of(rules_lines(config.levels))
        tmux.wait_for("Your choice")
        tmux.key("#")
        tmux.wait_for("Deal number")
        tmux.type("48213")
        tmux.wait_for("Choose a level")
        tmux.key("1")
        tmux.wait_for(r"Command \(\? for help\)")
        tmux.type("?")
        screen = tmux.wait_for("Canfield commands")
        assert page_words(screen) == words_of(help_lines(config.level(1).hints))
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], timeout=10, check=False)
        door.send_signal(signal.SIGTERM)
        try:
            door.wait(timeout=15)
        finally:
            if door.poll() is None:
                door.kill()
    assert door.stderr is not None
    logged = door.stderr.read()
    door_log.current().read(logged, "serve's stderr")
    assert "listening on" not in logged  # said once, before the port was read


def test_telnet_in_tmux_plays_by_hot_keys(tmp_path):
    """Keys reach the door one by one (telnet in character mode) and act without Enter."""
    variant = SHIPPED_LEVELS[1].variant
    verdict = solve(Game.deal(variant, 10), max_seconds=20)
    assert verdict.result == "won"
    door, port = start_door(tmp_path)
    tmux = Tmux()
    try:
        subprocess.run(
            [
                "tmux",
                "-L",
                tmux.socket,
                "new-session",
                "-d",
                "-s",
                "door",
                "-x",
                "80",
                "-y",
                "24",
                f"telnet 127.0.0.1 {port}; sleep 30",
            ],
            check=True,
            env={**os.environ, "TERM": "xterm-256color"},
            timeout=10,
        )
        tmux.wait_for("Your alias")
        tmux.type("Cat")
        tmux.wait_for(r"Sign up\?")
        tmux.key("Y")  # one key, no Enter
        tmux.wait_for("Password:")
        tmux.type("hunter22")
        tmux.wait_for("Password again")
        tmux.type("hunter22")
        tmux.wait_for("Your choice")
        tmux.key("#")
        tmux.wait_for("Deal number")
        tmux.type("10")
        tmux.wait_for("Choose a level")
        tmux.key("2")
        tmux.wait_for(r"Command \(\? for help\)")
        game = Game.deal(variant, 10)
        for move, command in enumerate(verdict.line[:25], start=1):
            tmux.key(command.replace(" ", "").lower())
            game.play(command)
            tmux.wait_for(rf"Moves\s+{move}\b")
        screen = tmux.screen()
        assert f"Up        {game.cards_on_foundations} of 52" in screen
        tmux.key("s")
        tmux.wait_for("S → \\?")  # half typed: the prompt shows it
        tmux.run("send-keys", "-t", "door", "Escape")
        tmux.key("q")
        tmux.wait_for("Your game is saved")
        tmux.key("g")
        tmux.wait_for("Connection closed by foreign host")
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], timeout=10, check=False)
        door.send_signal(signal.SIGTERM)
        try:
            door.wait(timeout=15)
        finally:
            if door.poll() is None:
                door.kill()
    assert door.returncode == 0
