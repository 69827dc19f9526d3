"""A door served by ``python -m door serve`` in a subprocess, as a sysop runs it."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.support import door_log

ROOT = Path(__file__).resolve().parents[2]


def check_config(config: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``canfield-door check-config`` on ``config``, run from its folder as a sysop runs it."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return subprocess.run(
        [sys.executable, "-m", "door", "check-config", "--config", config.name],
        cwd=config.parent,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(paths)),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start_door(
    tmp_path: Path, config: Path = ROOT / "sysop.toml", listening: str = "listening on"
) -> tuple[subprocess.Popen, int]:
    """``serve`` on ``config``, port 0; the port from the log line that begins ``listening``."""
    door = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "door",
            "serve",
            "--config",
            str(config),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--web-port",
            "0",
            "--database",
            str(tmp_path / "door.db"),
        ],
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    deadline = time.monotonic() + 20
    assert door.stderr is not None
    while time.monotonic() < deadline:
        line = door.stderr.readline()
        found = re.search(listening + r" \S+ port (\d+)", line)
        if found:
            door_log.current().watch_process(door, "serve's stderr")
            return door, int(found.group(1))
    door.kill()
    raise AssertionError(f"the door did not say {listening!r}")


WAIT = 30.0


@dataclasses.dataclass
class Serving:
    process: subprocess.Popen
    log: Path
    port: int

    def logged(self) -> str:
        return self.log.read_text()

    async def wait_logged(self, pattern: str, after: int = 0) -> str:
        deadline = time.monotonic() + WAIT
        while not re.search(pattern, self.logged()[after:]):
            assert self.process.poll() is None, f"the door stopped:\n{self.logged()}"
            assert time.monotonic() < deadline, f"{pattern!r} not logged:\n{self.logged()}"
            await asyncio.sleep(0.05)
        return self.logged()

    def signal(self, number: int) -> int:
        """Send a signal; how much of the log there was before it."""
        mark = len(self.logged())
        self.process.send_signal(number)
        return mark


async def serve(config: Path) -> Serving:
    log = config.parent / "door.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "door", "serve", "--config", str(config)],
            stderr=stderr,
            stdin=subprocess.DEVNULL,
            cwd=config.parent,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    serving = Serving(process, log, 0)
    door_log.current().watch_file(log, "serve's log")
    text = await serving.wait_logged(r"listening on \S+ port \d+")
    serving.port = int(re.search(r"listening on \S+ port (\d+)", text).group(1))
    return serving
