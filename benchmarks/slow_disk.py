"""A slow disk for a door in a subprocess: every fsync made N ms slower by a small
``LD_PRELOAD`` library (benchmarks/fsync_delay.c), built here with the system's C compiler;
or a failing one, whose every fsync fails while a file exists.

    shim = build_fsync_shim(folder)          # None where there is no cc
    environment = slow_disk_environment(shim, 10)
    environment = failing_disk_environment(shim, folder / "fail")  # fails while it exists
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).resolve().with_name("fsync_delay.c")
ANNOUNCED = "fsync delay: every fsync"  # the line the library writes at start-up
NO_COMPILER = "no C compiler (cc) on this machine: the slow-disk library can't be built"


def build_fsync_shim(folder: Path) -> Path | None:
    """The library built into ``folder``; None if there is no C compiler (``cc``)."""
    compiler = shutil.which("cc")
    if compiler is None:
        return None
    library = folder / "fsync_delay.so"
    command = [compiler, "-shared", "-fPIC", "-O2", "-o", str(library), str(SOURCE), "-ldl"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr}")
    return library


def slow_disk_environment(library: Path, delay_ms: float) -> dict[str, str]:
    """The environment of a process whose every fsync takes ``delay_ms`` longer."""
    preload = " ".join(p for p in (str(library), os.environ.get("LD_PRELOAD", "")) if p)
    return {**os.environ, "LD_PRELOAD": preload, "FSYNC_DELAY_MS": f"{delay_ms:g}"}


def failing_disk_environment(library: Path, flag: Path) -> dict[str, str]:
    """The environment of a process whose every fsync fails (EIO) while ``flag`` exists."""
    return {**slow_disk_environment(library, 0), "FSYNC_FAIL_FLAG": str(flag)}
