"""A test whose door logs an error or a traceback it did not declare fails, and shows the
records; one that declares them, or logs only warnings, passes. The records a child wrote to
its log are judged as the in-process ones."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

from tests.support.door_log import DoorLog, entries_of

TESTS = Path(__file__).resolve().parent

CHILD_LOG = """\
2024-05-01 12:00:00,001 INFO listening on 127.0.0.1 port 2323
2024-05-01 12:00:01,002 WARNING node 1: slow
2024-05-01 12:00:02,003 ERROR Exception in callback StreamReaderProtocol
Traceback (most recent call last):
  File "x.py", line 1, in <module>
asyncio.exceptions.CancelledError
2024-05-01 12:00:03,004 INFO node 1 (Alice): hang-up
"""


def sample_logger(handler: DoorLog) -> logging.Logger:
    """A logger of its own, apart from the root's (where this test's own check listens)."""
    logger = logging.Logger("door")
    logger.addHandler(handler)
    return logger


def logged(*records: tuple[int, str], expected: tuple[str, ...] = ()) -> list[str]:
    """The texts of the unexpected records among ``records``."""
    handler = DoorLog(expected)
    logger = sample_logger(handler)
    for level, message in records:
        logger.log(level, message)
    return [entry.text for entry in handler.unexpected()]


def test_an_error_is_unexpected_a_warning_is_not() -> None:
    found = logged((logging.WARNING, "slow"), (logging.ERROR, "broke"))
    assert len(found) == 1 and found[0].endswith("ERROR broke")


def test_an_expected_error_passes_by_its_pattern() -> None:
    records = ((logging.ERROR, "backup failed: disk full"), (logging.CRITICAL, "store moved"))
    found = logged(*records, expected=("backup failed: .*full",))
    assert len(found) == 1 and found[0].endswith("CRITICAL store moved")


def test_a_warning_with_a_traceback_is_unexpected() -> None:
    handler = DoorLog()
    try:
        raise ValueError("odd")
    except ValueError:
        sample_logger(handler).warning("could not", exc_info=True)
    (entry,) = handler.unexpected()
    assert "Traceback (most recent call last)" in entry.text and "ValueError: odd" in entry.text


def test_a_childs_log_is_split_into_its_records() -> None:
    entries = entries_of(CHILD_LOG, "serve")
    assert [entry.alarming for entry in entries] == [False, False, True, False]
    assert entries[2].text.endswith("asyncio.exceptions.CancelledError")
    assert entries_of("Traceback (most recent call last):\nKeyError: 1\n", "x")[0].alarming


def test_a_childs_log_file_is_read_at_the_end(tmp_path: Path) -> None:
    handler = DoorLog(expected=("Exception in callback",))
    log = tmp_path / "door.log"
    handler.watch_file(log, "serve")
    log.write_text(CHILD_LOG + "2024-05-01 12:00:04,005 CRITICAL the store is gone\n")
    (entry,) = handler.unexpected()
    assert entry.source == "serve" and entry.text.endswith("CRITICAL the store is gone")


SAMPLE = """
import logging

import pytest

pytest_plugins = ["tests.support.door_log"]  # the autouse fixture, as in tests/


def test_logs_an_error():
    logging.getLogger("door").error("node 1: the visit failed")


@pytest.mark.expected_log_errors("the visit failed")
def test_declares_its_error():
    logging.getLogger("door").error("node 1: the visit failed")


def test_expects_its_error(door_log):
    door_log.expect("the visit failed")
    logging.getLogger("door").error("node 1: the visit failed")


def test_logs_a_warning():
    logging.getLogger("asyncio").warning("slow callback")
"""


def test_an_undeclared_error_fails_the_test_and_shows_the_record(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-rA"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(TESTS.parent)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout
    # The failing test's call passed; its teardown is the error.
    assert "4 passed" in done.stdout and "1 error in" in done.stdout, done.stdout
    assert "ERROR at teardown of test_logs_an_error" in done.stdout
    assert "--- logger 'door':" in done.stdout
    assert "ERROR node 1: the visit failed" in done.stdout
