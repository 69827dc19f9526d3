"""``canfield-door sysop contest declare`` as a sysop types it: every wrong time refused in
words (never a traceback, never recorded), and a contest that opens now opened by the running
door, so that its log and its bulletins tell of it at once."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest

from door.store import Store
from tests.support.live_door import BULLETIN, start_live, sysop

LEVEL = ("--level", "1", "--deals", "3")


def local_minute(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


@pytest.fixture
async def live(tmp_path):
    (tmp_path / "bulletins").mkdir()
    door = await start_live(tmp_path, bulletin_interval=0.05, edits=BULLETIN)
    yield door
    await door.service.stop()
    async with asyncio.timeout(30):
        await door.task


async def no_contests(door) -> bool:
    async with Store.open(door.config.server.database, create=False) as store:
        return await store.contests() == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("opens", "length", "said"),
    [
        # An opening already past: its seals exist only from now. The time is worked out
        # as the test runs, not in its id: every xdist worker must collect the same ids.
        pytest.param(timedelta(hours=-2), "1d", "has passed", id="two hours ago-1d-has passed"),
        ("9999-12-31 23:00", "1d", "too far ahead"),
        ("now", "9999999d", "longer than a contest may run (90 days at most)"),
        ("now", "99999d", "longer than a contest may run"),
        ("now", "99999999999999999999d", "longer than a contest may run"),
        ("now", "91d", "longer than a contest may run"),
        ("now", "-5m", "can't stay open for less than no time"),
    ],
)
async def test_a_wrong_time_is_refused_in_words_and_nothing_is_declared(
    live, opens: str | timedelta, length, said
) -> None:
    if isinstance(opens, timedelta):
        opens = local_minute(datetime.now(UTC) + opens)
    status, _, err = await sysop(
        live, "contest", "declare", "Cup", *LEVEL, "--opens", opens, "--for", length
    )
    assert status != 0
    assert said in err
    assert "Traceback" not in err
    assert "expected one argument" not in err
    assert await no_contests(live)


async def test_the_running_door_opens_a_contest_declared_to_open_now(live, caplog) -> None:
    text_file = live.config_path.parent / "bulletins" / "canfield.txt"
    async with asyncio.timeout(20):
        while not text_file.exists():
            await asyncio.sleep(0.05)
    with caplog.at_level(logging.INFO, logger="door"):
        status, _, err = await sysop(
            live, "contest", "declare", "Now Cup", *LEVEL, "--opens", "now", "--for", "90d"
        )
        assert status == 0, err
        # By the time the command answers, the door has opened it: its log says so...
        opened = [r for r in caplog.records if "contest Now Cup is open until" in r.getMessage()]
        assert len(opened) == 1
    # ... and the bulletins follow at once, not at the door's next look a minute on.
    async with asyncio.timeout(5):
        while "Contest: Now Cup" not in text_file.read_text():
            await asyncio.sleep(0.05)
