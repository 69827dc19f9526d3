"""A door with the deal of the day, on a clock the test moves on."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from tests.support.door_server import door_config


class Clock:
    """The store's clock, moved on by the test."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def daily_config(tmp_path):
    config = door_config(tmp_path)
    # Draw one: the solver proves its deals won fast.
    solver = dataclasses.replace(config.solver, daily_level=1, seconds=3.0)
    return dataclasses.replace(config, solver=solver)
