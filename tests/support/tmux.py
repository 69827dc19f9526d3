"""A real terminal client (``telnet``, ``ssh``) run in a tmux of the test's own, its screen
read back."""

from __future__ import annotations

import re
import subprocess
import time
import uuid


class Tmux:
    """A tmux server of our own, so no other session is touched."""

    def __init__(self) -> None:
        self.socket = f"canfield-{uuid.uuid4().hex[:8]}"

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            check=True,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "door")

    def wait_for(self, pattern: str, timeout: float = 15) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if re.search(pattern, shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not on the screen:\n{shown}")
            time.sleep(0.1)

    def type(self, text: str) -> None:
        if text:
            self.run("send-keys", "-t", "door", "-l", text)
        self.run("send-keys", "-t", "door", "Enter")

    def key(self, key: str) -> None:
        self.run("send-keys", "-t", "door", "-l", key)
