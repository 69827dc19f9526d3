"""A door run as ``serve`` runs it, in this process or as a subprocess, and the sysop's
commands against it."""

from __future__ import annotations

import asyncio
import os
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from door.config import load_config
from door.running.control import control_path
from door.running.service import Service

ROOT = Path(__file__).resolve().parents[2]


WAIT = 20.0


def write_config(
    folder: Path, *, extra: str = "", max_nodes: int = 32, edits: dict[str, str] | None = None
) -> Path:
    """The shipped sysop.toml, on 127.0.0.1 port 0, with its database in ``folder``; each
    of ``edits`` replaced, and ``extra`` added at the end."""
    text = (ROOT / "sysop.toml").read_text()
    for old, new in (edits or {}).items():
        assert old in text, old
        text = text.replace(old, new)
    text = text.replace('host = "0.0.0.0"', 'host = "127.0.0.1"').replace("port = 2323", "port = 0")
    text = text.replace("max_nodes = 32", f"max_nodes = {max_nodes}")
    text = text.replace("max_per_address = 4", "max_per_address = 16")  # callers share 127.0.0.1
    # ... and the limits that tell addresses apart are out of the way.
    text = text.replace("reserved_nodes = 4", "reserved_nodes = 0")
    text = text.replace("connections_per_minute = 20", "connections_per_minute = 10000")
    text = text.replace("signups_per_hour = 3", "signups_per_hour = 0")
    text = text.replace('database = "canfield.db"', 'database = "door.db"')
    text = text.replace("\nport = 8080\n", "\nport = 0\n")  # the web, on a free port
    path = folder / "sysop.toml"
    path.write_text(text + extra)
    return path


@dataclass
class LiveDoor:
    service: Service
    task: asyncio.Task[None]
    config_path: Path

    @property
    def port(self) -> int:
        assert self.service.server is not None
        return self.service.server.port

    @property
    def store(self):
        return self.service._store

    @property
    def config(self):
        return self.service.config

    @property
    def socket(self) -> Path:
        return control_path(self.service.config.server.database)


async def start_live(folder: Path, bulletin_interval: float | None = None, **options) -> LiveDoor:
    path = write_config(folder, **options)
    service = Service(
        load_config(path),
        lambda: load_config(path),
        detect_timeout=0.5,
        bulletin_interval=bulletin_interval,
    )
    task = asyncio.create_task(service.run())
    async with asyncio.timeout(WAIT):
        await service.ready.wait()
    return LiveDoor(service, task, path)


async def sysop(door: LiveDoor, *args: str, user: str | None = None) -> tuple[int, str, str]:
    """Run ``canfield-door sysop ARGS`` against the door; (exit status, stdout, stderr)."""
    python, path = sys.executable, str(ROOT)
    if user is not None:
        python, path = python_for(user)
    command = [python, "-m", "door", "sysop", "--config", str(door.config_path), *args]
    if user is not None:
        command = ["runuser", "-u", user, "--", *command]
    process = await asyncio.create_subprocess_exec(
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": path},
    )
    async with asyncio.timeout(WAIT):
        out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def python_for(user: str) -> tuple[str, str]:
    """A Python that ``user`` may run, with this door and its packages on its path: the
    tests' own, or (when it lives where only root may go, as pyenv's under /root do) the
    system's, given the same packages (pure Python, read from the virtual environment)."""
    path = os.pathsep.join([str(ROOT), *site.getsitepackages()])
    for python in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if python is None:
            continue
        probe = subprocess.run(
            ["runuser", "-u", user, "--", python, "-c", "import door.running.control, telnetlib3"],
            env={**os.environ, "PYTHONPATH": path},
            capture_output=True,
            timeout=WAIT,
        )
        if probe.returncode == 0:
            return python, path
    pytest.skip(f"no Python that {user} may run with the door's packages")


async def wait_until(check, what: str) -> None:
    async with asyncio.timeout(WAIT):
        while not check():
            await asyncio.sleep(0.02)


BULLETIN = {
    '# ansi = "bulletins/canfield.ans"': 'ansi = "bulletins/canfield.ans"',
    '# ascii = "bulletins/canfield.txt"': 'ascii = "bulletins/canfield.txt"',
    '# json = "bulletins/canfield.json"': 'json = "canfield.json"',
}
