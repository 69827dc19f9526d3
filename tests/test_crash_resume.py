"""A door killed with SIGKILL mid-play loses no play a caller was shown, and every caller
resumes at the last play it saw.

These are benchmarks/crash.py's trials, smaller: 10 callers over real TCP against the door
in a subprocess, killed 3 times at random moments (a fixed seed) while they play.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.crash import CrashSettings, run_trials, summary

pytestmark = pytest.mark.slow

SETTINGS = CrashSettings(callers=10, trials=3, seed=20261129, kill_after=(0.3, 1.0))


async def test_killed_door_loses_nothing_shown_and_callers_resume(tmp_path: Path) -> None:
    trials = await run_trials(SETTINGS, tmp_path)
    totals = summary(trials)
    assert totals["acknowledged_plays_lost"] == 0
    assert totals["mismatched_games"] == 0
    assert totals["integrity"] == ["ok"]
    # Every caller came back after every kill, and each board drawn was its stored game.
    assert [trial.callers_playing for trial in trials] == [SETTINGS.callers] * (SETTINGS.trials + 1)
    assert totals["boards_checked"] == SETTINGS.callers * (SETTINGS.trials + 1)
    assert totals["boards_wrong"] == 0
    assert totals["plays_shown"] > 0  # the kills came while callers played
