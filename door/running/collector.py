"""How long Python's garbage collector held every game, watched while the door runs.

A collection stops the event loop, so every caller waits while it lasts. SIGUSR1 logs the
collections since the last report, by generation, with the longest of each:

    collector: 212 young (longest 4.1 ms), 10 middle (9.0 ms), 0 full (0.0 ms) since the
    last report

>>> watch = CollectorWatch()
>>> watch.start()
>>> _ = gc.collect()
>>> watch.stop()
>>> watch.report().split(", ")[2].startswith("1 full")
True
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from typing import Any

GENERATIONS = 3  # young, middle and full passes


@dataclass(slots=True)
class _Passes:
    count: int = 0
    longest: float = 0.0  # seconds


class CollectorWatch:
    """Counts the collector's passes and their longest, by generation, between reports."""

    def __init__(self) -> None:
        self._passes = [_Passes() for _ in range(GENERATIONS)]
        self._began = 0.0

    def start(self) -> None:
        gc.callbacks.append(self._observe)

    def stop(self) -> None:
        if self._observe in gc.callbacks:
            gc.callbacks.remove(self._observe)

    def _observe(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        passes = self._passes[info["generation"]]
        passes.count += 1
        passes.longest = max(passes.longest, time.perf_counter() - self._began)

    def report(self) -> str:
        """The passes since the last report (which this one ends)."""
        young, middle, full = self._passes
        self._passes = [_Passes() for _ in range(GENERATIONS)]
        return (
            f"collector: {young.count} young (longest {1000 * young.longest:.1f} ms), "
            f"{middle.count} middle ({1000 * middle.longest:.1f} ms), "
            f"{full.count} full ({1000 * full.longest:.1f} ms) since the last report"
        )
