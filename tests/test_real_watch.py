"""The sysop's watch in a real terminal: a caller on Debian's telnet in one tmux pane, the
sysop's ``canfield-door sysop watch`` in another, ended by a key."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support.served_door import ROOT, start_door

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which("telnet") and shutil.which("tmux")),
        reason="needs Debian's telnet and tmux (.ci/run installs them)",
    ),
]


class Panes:
    """Sessions on a tmux server of our own, so no other is touched."""

    def __init__(self) -> None:
        self.socket = f"canfield-{uuid.uuid4().hex[:8]}"

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            check=True,
            capture_output=True,
            text=True,
            timeout=10,
            env={**os.environ, "TERM": "xterm-256color"},
        ).stdout

    def open(self, name: str, command: str) -> None:
        self.run("new-session", "-d", "-s", name, "-x", "80", "-y", "25", command)

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def wait_for(self, name: str, pattern: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen(name)
            if re.search(pattern, shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not in {name}:\n{shown}")
            time.sleep(0.1)

    def type(self, name: str, text: str, enter: bool = True) -> None:
        if text:
            self.run("send-keys", "-t", name, "-l", text)
        if enter:
            self.run("send-keys", "-t", name, "Enter")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], timeout=10, check=False)


def test_the_sysop_watches_a_telnet_caller_and_a_key_ends_it(tmp_path: Path):
    door, port = start_door(tmp_path)
    panes = Panes()
    try:
        panes.open("caller", f"telnet 127.0.0.1 {port}; sleep 30")
        panes.wait_for("caller", "Your alias")
        for typed, then in [
            ("Bob", r"Sign up\?"),
            ("Y", "Password:"),
            ("hunter22", "Password again"),
            ("hunter22", "Your choice"),
        ]:
            panes.type("caller", typed)
            panes.wait_for("caller", then)
        panes.type("caller", "#", enter=False)
        panes.wait_for("caller", "Deal number")
        panes.type("caller", "48213")
        panes.wait_for("caller", "Choose a level")
        panes.type("caller", "1", enter=False)
        panes.wait_for("caller", r"Command \(\? for help\)")

        sysop = [sys.executable, "-m", "door", "sysop", "--config", str(ROOT / "sysop.toml")]
        sysop += ["--database", str(tmp_path / "door.db"), "watch", "1"]
        command = f"cd {ROOT} && {' '.join(sysop)}; echo watch-ended-$?; sleep 30"
        panes.open("sysop", command)
        screen = panes.wait_for("sysop", r"Command \(\? for help\)")
        assert "Practice deal 48213" in screen and "♦" in screen  # the board as the caller has it
        panes.type("caller", "V")
        panes.wait_for("caller", r"Moves\s+1\b")
        panes.wait_for("sysop", r"Moves\s+1\b")  # and as it changes
        panes.type("sysop", "x", enter=False)
        screen = panes.wait_for("sysop", "watch-ended-0")
        assert "Stopped watching node 1." in screen
        panes.type("caller", "V")  # the caller never noticed
        panes.wait_for("caller", r"Moves\s+2\b")
    finally:
        panes.close()
        door.send_signal(signal.SIGTERM)
        try:
            door.wait(timeout=15)
        finally:
            if door.poll() is None:
                door.kill()
    assert door.returncode == 0
