"""The running door's background jobs never die unseen: a failure is logged with its traceback
and the job starts again (or stops, loudly), and closing goes in order."""

from __future__ import annotations

import asyncio
import logging

import pytest

from door.tasks import Supervised, close_in_order

WAIT = 5.0


@pytest.mark.expected_log_errors(r"(?s)ERROR bulletin failed; .*OSError: disk full on run")
async def test_a_failing_job_is_logged_and_starts_again(caplog: pytest.LogCaptureFixture) -> None:
    runs: list[int] = []
    steady = asyncio.Event()

    async def job() -> None:
        runs.append(len(runs) + 1)
        if len(runs) < 3:
            raise OSError(f"disk full on run {len(runs)}")
        steady.set()
        await asyncio.Event().wait()

    supervised = Supervised("bulletin", job, restart_delay=0)
    with caplog.at_level(logging.ERROR, logger="door"):
        supervised.start()
        await asyncio.wait_for(steady.wait(), WAIT)
    assert runs == [1, 2, 3] and supervised.running and supervised.failures == 2
    failed = [record for record in caplog.records if "bulletin failed" in record.getMessage()]
    assert len(failed) == 2 and all(record.exc_info for record in failed)
    assert "disk full on run 1" in caplog.text
    await supervised.close()
    assert not supervised.running


@pytest.mark.expected_log_errors(r"(?s)CRITICAL backup failed and is stopped.*broken settings")
async def test_a_job_not_restarted_stops_loudly(caplog: pytest.LogCaptureFixture) -> None:
    async def job() -> None:
        raise ValueError("broken settings")

    supervised = Supervised("backup", job, restart=False, restart_delay=0)
    with caplog.at_level(logging.CRITICAL, logger="door"):
        supervised.start()
        for _ in range(100):
            if not supervised.running:
                break
            await asyncio.sleep(0.01)
    assert not supervised.running
    assert isinstance(supervised.failure, ValueError)
    assert "backup failed and is stopped" in caplog.text
    await supervised.close()


@pytest.mark.expected_log_errors(r"(?s)ERROR Part did not close cleanly.*RuntimeError: stuck")
async def test_closing_goes_in_order_and_past_a_part_that_fails(
    caplog: pytest.LogCaptureFixture,
) -> None:
    closed: list[str] = []

    class Part:
        def __init__(self, name: str, fails: bool = False) -> None:
            self.name, self.fails = name, fails

        async def close(self) -> None:
            await asyncio.sleep(0)
            closed.append(self.name)
            if self.fails:
                raise RuntimeError("stuck")

    with caplog.at_level(logging.ERROR, logger="door"):
        await close_in_order(Part("bulletin"), Part("backup", fails=True), Part("solver"))
    assert closed == ["bulletin", "backup", "solver"]
    assert "did not close cleanly" in caplog.text


async def test_a_job_started_twice_runs_once() -> None:
    runs = 0

    async def job() -> None:
        nonlocal runs
        runs += 1
        await asyncio.Event().wait()

    supervised = Supervised("solving", job)
    supervised.start()
    supervised.start()
    await asyncio.sleep(0.01)
    await supervised.close()
    assert runs == 1
