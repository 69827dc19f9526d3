"""A test run fails if a test skipped for a reason not listed here.

The README's test command (and ``.ci/run``) installs every tool the tests use, so a test
that skips because one is missing is a test that did not run, and should not pass quietly.
Only these skips are allowed, each for a reason no install can mend (the README's "Run the
tests" lists them):
"""

from __future__ import annotations

import pytest

ALLOWED_SKIPS = (
    # Tests that act as another user on the machine (runuser): only root may.
    "needs root and runuser",
    # The full-disk test mounts a small filesystem: only root may (or in a container, only
    # one given the right to mount).
    "can't mount a small filesystem here",
)


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def unlisted_skips(config: pytest.Config) -> list[tuple[str, str]]:
    """(test, reason) for each test that skipped for a reason not allowed."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    return [
        (report.nodeid, _reason(report))
        for report in skipped
        if not any(allowed in _reason(report) for allowed in ALLOWED_SKIPS)
    ]


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    unlisted = unlisted_skips(config)
    if unlisted:
        terminalreporter.section("skips that are not allowed", red=True)
        for test, reason in unlisted:
            terminalreporter.line(f"{test}: {reason}")
        terminalreporter.line("Install what they need (see the README's \"Run the tests\").")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if exitstatus == pytest.ExitCode.OK and unlisted_skips(session.config):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
