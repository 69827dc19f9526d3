"""The store's clock for tests of contests."""

from __future__ import annotations

from datetime import UTC, datetime


class Clock:
    """The store's clock, moved on by the test; it starts at the real time (the sysop's
    command, on its own clock, declares the contest an hour ahead of it)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now
