"""The solver's processes of a door, found in /proc; and a door started whose solver lanes
let their process go sooner than the shipped :data:`door.solving.pool.IDLE_SECONDS`."""

from __future__ import annotations

from pathlib import Path

from benchmarks.callers import process_tree
from door.solving.pool import CHILD_MODULE

# Run as ``python -c SHORT_IDLE SECONDS serve ...``: the door, its lanes idle after SECONDS.
SHORT_IDLE = r"""
import runpy, sys
from door.solving.pool import SolverPool
SolverPool.__init__.__kwdefaults__["idle_seconds"] = float(sys.argv.pop(1))
sys.argv[0] = "door"
runpy.run_module("door", run_name="__main__", alter_sys=True)
"""


def short_idle(seconds: float) -> list[str]:
    """Python's arguments (a ``launcher`` of ``ServerProcess.door``) that run the door with
    its solver processes let go after ``seconds`` without a search."""
    return ["-c", SHORT_IDLE, str(seconds)]


def solver_processes(pid: int) -> list[int]:
    """The solver processes among those ``pid`` started (and they started), running ones."""
    return [member for member in process_tree(pid)[1:] if is_solver(member)]


def is_solver(pid: int) -> bool:
    """Whether ``pid`` is a solver process still running (not ended, nor left a zombie)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ProcessLookupError):
        return False
    return CHILD_MODULE.encode() in command  # a zombie's command line is empty
