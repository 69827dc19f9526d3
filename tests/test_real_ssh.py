"""A real client: OpenSSH's ssh inside tmux, against ``canfield-door serve`` with SSH on."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.support.served_door import start_door as start_telnet_door
from tests.support.tmux import Tmux

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which("ssh") and shutil.which("tmux")),
        reason="needs OpenSSH's ssh and tmux (.ci/run installs them)",
    ),
]


def start_door(tmp_path: Path) -> tuple[subprocess.Popen, int]:
    """``serve`` on the shipped sysop.toml with its one SSH line turned on (port 0)."""
    shipped = (ROOT / "sysop.toml").read_text()
    assert "\n# port = 2222\n" in shipped
    config = tmp_path / "sysop.toml"
    config.write_text(shipped.replace("\n# port = 2222\n", "\nport = 0\n"))
    return start_telnet_door(tmp_path, config, listening="listening for SSH on")


def ssh_command(port: int, user: str) -> str:
    options = [
        "-o StrictHostKeyChecking=no",
        "-o UserKnownHostsFile=/dev/null",
        "-o PubkeyAuthentication=no",
        "-o PreferredAuthentications=password",
        "-F /dev/null",
    ]
    # The pane stays open after ssh ends, so its last words can be read.
    return f"ssh -tt {' '.join(options)} -p {port} {user}@127.0.0.1; sleep 30"


def open_pane(tmux: Tmux, command: str) -> None:
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
            command,
        ],
        check=True,
        env={**os.environ, "TERM": "xterm-256color"},
        timeout=10,
    )


def test_openssh_in_tmux_signs_up_plays_drops_and_resumes(tmp_path):
    door, port = start_door(tmp_path)
    tmux = Tmux()
    try:
        open_pane(tmux, ssh_command(port, "new"))
        tmux.wait_for("password:")
        tmux.type("anything")
        tmux.wait_for("Alias:")
        tmux.type("Bob")
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
        # Drop the line as a caller whose client dies does: ssh's escape, Enter ~ .
        tmux.type("")
        tmux.key("~.")
        tmux.wait_for("Connection to 127.0.0.1 closed")
        tmux.run("kill-server")

        tmux = Tmux()
        open_pane(tmux, ssh_command(port, "bob"))
        tmux.wait_for("password:")
        tmux.type("wrong-password")
        tmux.wait_for(r"Permission denied, please try again|password:.*\n.*password:")
        tmux.type("hunter22")
        screen = tmux.wait_for("Your choice")
        assert "Hello, Bob." in screen and "Resume your saved game (level 1)" in screen
        tmux.key("R")
        screen = tmux.wait_for(r"Command \(\? for help\)")
        assert "Practice deal 48213" in screen and re.search(r"Moves\s+1\b", screen)
        tmux.type("Q")
        tmux.wait_for("Your game is saved")
        tmux.key("G")
        screen = tmux.wait_for("Connection to 127.0.0.1 closed")
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
