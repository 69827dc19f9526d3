"""Shared test settings."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# CI must not flake: there, every property test runs the same examples each time.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A run fails on a skip that is not on the short list the README explains.
pytest_plugins = ["tests.support.allowed_skips", "tests.support.door_log"]

# The tests' folders (tmp_path) go to memory-backed /dev/shm where there is one: their SQLite
# files are as real, and every commit still calls fsync, which there does not wait for a disk
# that other work keeps busy.
if os.access("/dev/shm", os.W_OK):
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", "/dev/shm")


# -- a door on 127.0.0.1 for end-to-end tests ----------------------------------------------------

from collections.abc import AsyncIterator  # noqa: E402

import pytest  # noqa: E402

from tests.support.door_server import RunningDoor, door_config, open_door  # noqa: E402


@pytest.fixture
async def door(tmp_path) -> AsyncIterator[RunningDoor]:
    running = await open_door(door_config(tmp_path))
    yield running
    await running.close()
