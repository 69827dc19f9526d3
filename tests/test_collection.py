"""The suite collects the same tests whenever it is collected: pytest-xdist's workers each
collect it at their own moment and refuse to run at all if they disagree, so no test's id
may hold the date or time of its collection. A real collection of the whole suite."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def collected_ids() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


@pytest.mark.slow
def test_no_test_id_holds_the_day_it_was_collected_on() -> None:
    before = datetime.now(UTC)
    ids = collected_ids()
    after = datetime.now(UTC)
    # The day by the machine's clock and by UTC, from a few hours before the collection (a
    # test may name a time past) to its end.
    days = {
        moment.astimezone(zone).strftime("%Y-%m-%d")
        for moment in (before - timedelta(hours=3), after)
        for zone in (UTC, None)
    }
    assert len(ids) > 1000
    dated = [test_id for test_id in ids if any(day in test_id for day in days)]
    assert dated == []
