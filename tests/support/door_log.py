"""A test fails when the door logged an ERROR, a CRITICAL or a traceback it did not expect.

A door that logs an error in ordinary use is broken, whatever its screens show. The autouse
fixture ``door_log`` (conftest.py) keeps every record at WARNING and above that reaches
Python's logging while the test runs (the door's logger "door", and the libraries' own:
asyncio, telnetlib3, aiohttp, asyncssh), and reads the logs of the doors the test ran as
subprocesses (``watch`` and ``read``); at teardown, an ERROR or CRITICAL record, or a
traceback at any level, that the test did not declare fails it, the records printed.

A test that causes a fault on purpose (a full disk, a crash, hostile traffic) declares what
it expects, as narrowly as it can: each pattern is a regular expression searched for in the
record as the log shows it (level, message, then its traceback)::

    @pytest.mark.expected_log_errors(r"ERROR backup failed: .*No space left")
    def test_...(...): ...

or, from within the test, ``door_log.expect(r"...")``.
"""

from __future__ import annotations

import contextlib
import logging
import re
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

MARKER = "expected_log_errors"
TRACEBACK = "Traceback (most recent call last)"
# A log line as ``serve`` and ``door`` write it: "2024-05-01 12:00:00,123 ERROR ...".
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?P<level>[A-Z]+) ")
ALARMING_LEVELS = ("ERROR", "CRITICAL")


@dataclass(frozen=True)
class Entry:
    """One record: where it was logged, and its text as a log shows it."""

    source: str
    text: str

    @property
    def alarming(self) -> bool:
        level = LOG_LINE.match(self.text)
        return TRACEBACK in self.text or (level is not None and level["level"] in ALARMING_LEVELS)


def entries_of(text: str, source: str) -> list[Entry]:
    """The records of a child's log: each log line with the lines under it (its traceback,
    or an exception nothing caught)."""
    entries: list[list[str]] = []
    for line in text.splitlines():
        if LOG_LINE.match(line) or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    return [Entry(source, "\n".join(lines)) for lines in entries]


class DoorLog(logging.Handler):
    """What the test's doors logged, kept to be judged at teardown."""

    def __init__(self, expected: Iterable[str] = ()) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        self._expected = [re.compile(pattern) for pattern in expected]
        self._entries: list[Entry] = []
        self._children: list[tuple[str, Callable[[], str]]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # a record that can't be formatted still shows what it was
            text = f"{record.levelname} {record.msg!r} {record.args!r}"
        self._entries.append(Entry(f"logger {record.name!r}", text))

    def expect(self, *patterns: str) -> None:
        """Allow the records in which any of ``patterns`` (regular expressions) is found."""
        self._expected += [re.compile(pattern) for pattern in patterns]

    def read(self, text: str, source: str) -> None:
        """A child's log, read now: ``text`` as its log file or stderr holds it."""
        self._entries += entries_of(text, source)

    def watch(self, source: str, read: Callable[[], str]) -> None:
        """A child's log, read at teardown by ``read`` (after the test has stopped it)."""
        self._children.append((source, read))

    def watch_file(self, path: Path, source: str | None = None) -> None:
        """A child's log file, read at teardown (nothing if the child never wrote it)."""
        self.watch(source or str(path), lambda: _read_file(path))

    def watch_process(self, process: subprocess.Popen, source: str) -> None:
        """The rest of what a child writes to its stderr pipe, read at teardown once it
        has exited (what the test read from the pipe itself it gives to ``read``)."""
        self.watch(source, lambda: _rest_of_stderr(process))

    def unexpected(self) -> list[Entry]:
        """The alarming records no expectation allows, the children's logs read now."""
        for source, read in self._children:
            self.read(read(), source)
        self._children.clear()
        return [
            entry
            for entry in self._entries
            if entry.alarming and not any(p.search(entry.text) for p in self._expected)
        ]


def _read_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def _rest_of_stderr(process: subprocess.Popen) -> str:
    stream: IO | None = process.stderr
    if process.poll() is None or stream is None or stream.closed:
        return ""
    rest = stream.read()
    return rest.decode("utf-8", "replace") if isinstance(rest, bytes) else rest


def report(entries: list[Entry]) -> str:
    shown = "\n".join(f"--- {entry.source}:\n{entry.text}" for entry in entries)
    return (
        f"the door logged {len(entries)} error(s) or traceback(s) the test did not expect "
        f"(declare one it causes on purpose with @pytest.mark.{MARKER}(...) or "
        f"door_log.expect(...)):\n{shown}"
    )


_current: DoorLog | None = None


def current() -> DoorLog:
    """The running test's DoorLog, for helpers that start doors outside any fixture."""
    assert _current is not None, "no test is running"
    return _current


@contextlib.contextmanager
def capturing(node: pytest.Item) -> Iterator[DoorLog]:
    """A DoorLog on the root logger while the test runs, with the patterns its
    ``expected_log_errors`` markers declare."""
    global _current
    expected = [pattern for marker in node.iter_markers(MARKER) for pattern in marker.args]
    handler = DoorLog(expected)
    root = logging.getLogger()
    root.addHandler(handler)
    _current = handler
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        _current = None


def check(handler: DoorLog) -> None:
    """Fail the test on the alarming records it did not expect, each shown."""
    unexpected = handler.unexpected()
    if unexpected:
        pytest.fail(report(unexpected), pytrace=False)


@pytest.fixture(autouse=True)
def door_log(request: pytest.FixtureRequest) -> Iterator[DoorLog]:
    """Every test: the door's records at WARNING and above, in-process and from the children
    given to it; an ERROR, CRITICAL or traceback the test did not declare (the marker
    ``expected_log_errors`` or ``door_log.expect``) fails it at teardown. (A pytest plugin:
    tests/conftest.py loads this module.) A module's examples (its doctests) run no door: one
    may show how a failure is logged."""
    if not isinstance(request.node, pytest.Function):
        yield DoorLog()
        return
    with capturing(request.node) as log:
        yield log
    check(log)
