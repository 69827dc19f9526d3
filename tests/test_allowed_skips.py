"""A test run with a skip not on the short list of allowed skips fails, and says which;
one whose skips are all allowed passes. A real pytest run of small test files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_pytest(folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_sample.py").write_text(source)
    return subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            *("-p", "tests.support.allowed_skips"),
        ],
        cwd=folder,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


SAMPLE = """
import pytest

def test_runs():
    pass

def test_skips():
    pytest.skip({reason!r})
"""


@pytest.mark.slow
def test_a_skip_for_a_missing_tool_fails_the_run(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, SAMPLE.format(reason="needs systemd-analyze"))
    assert done.returncode == 1, done.stdout
    assert "skips that are not allowed" in done.stdout
    assert "test_sample.py::test_skips: needs systemd-analyze" in done.stdout


@pytest.mark.slow
def test_an_allowed_skip_passes(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, SAMPLE.format(reason="needs root and runuser"))
    assert done.returncode == 0, done.stdout
    assert "not allowed" not in done.stdout
