"""Reading sysop.toml again in a running ``canfield-door serve``: SIGHUP under load, a bad
file, settings that need a restart, and a clean stop afterwards (no leaked semaphores)."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import signal
import subprocess
from pathlib import Path

import pytest

from door.config import Config, ServerConfig, load_config
from door.running.reload import compare
from door.store import Store
from tests.support.live_door import ROOT, write_config
from tests.support.served_door import WAIT, check_config, serve
from tests.support.visits import DEAL, play, sign_up, start_deal

LEVEL_4 = """
[[levels]]
name = "Level 4 - Draw one, one pass"
draw = 1
passes = 1
"""


async def level_menu(caller) -> str:
    await caller.key("P")
    screen = await caller.wait_for("Level:")
    await caller.key("Q")
    await caller.wait_for("Your choice")
    return screen


# The test's last reload is of a file that does not check, refused as an error.
@pytest.mark.slow
@pytest.mark.expected_log_errors(r"ERROR settings not reloaded; .*levels\[\d+\]\.draw = 2")
async def test_sighup_under_load_drops_nobody_and_offers_the_new_level(tmp_path):
    config = write_config(tmp_path)
    door = await serve(config)
    try:
        callers = [await sign_up(door, f"Caller{n}", "secret-one1") for n in range(4)]
        for caller in callers:
            await start_deal(caller, DEAL)
            await play(caller, "V", 1)

        async def keep_playing(caller, first: int, last: int) -> None:
            for move in range(first, last + 1):
                await play(caller, "V", move)

        playing = [asyncio.create_task(keep_playing(c, 2, 12)) for c in callers]
        # The sysop edits the file while they play: a new level, level 2 worth more, fewer
        # nodes, a shorter idle time, and a port that only a restart can change.
        text = config.read_text() + LEVEL_4
        text = text.replace("multiplier = 2", "multiplier = 5").replace("port = 0", "port = 2424")
        text = text.replace("max_nodes = 32", "max_nodes = 8").replace(
            "idle_timeout = 300", "idle_timeout = 200"
        )
        config.write_text(text)
        mark = door.signal(signal.SIGHUP)
        async with asyncio.timeout(WAIT):
            await asyncio.gather(*playing)
        log = (await door.wait_logged("settings reloaded", mark))[mark:]
        assert "server.max_nodes: 32 -> 8" in log
        assert "level 4 (Level 4 - Draw one, one pass) added" in log
        assert "level 2 (Level 2 - Draw three): new rules" in log
        assert "server.port: 0 -> 2424: not changed; takes a restart" in log

        # Nobody was dropped; each game goes on under the rules it was dealt under.
        for caller in callers:
            await play(caller, "V", 13)
            assert "Level 2 - Draw three" in caller.display()
        # The next menu offers the new level, to callers already on and to a new one.
        await callers[0].type("Q")
        await callers[0].wait_for("Your choice")
        assert "Level 4 - Draw one, one pass" in await level_menu(callers[0])
        newcomer = await sign_up(door, "Newcomer", "secret-one1")
        assert "Level 4 - Draw one, one pass" in await level_menu(newcomer)

        # A file that does not check is refused with check-config's words; nothing changes.
        config.write_text(text.replace("draw = 1\npasses = 1", "draw = 2\npasses = 1"))
        checked = check_config(config, timeout=WAIT)
        assert checked.returncode == 1
        mark = door.signal(signal.SIGHUP)
        log = (await door.wait_logged("settings not reloaded", mark))[mark:]
        assert checked.stderr.strip() in log
        assert "Level 4 - Draw one, one pass" in await level_menu(newcomer)
        for caller in callers[1:]:
            await play(caller, "V", 14)

        for caller in [*callers, newcomer]:
            await caller.hang_up()
    finally:
        door.process.send_signal(signal.SIGTERM)
        try:
            status = door.process.wait(WAIT)
        except subprocess.TimeoutExpired:
            door.process.kill()
            raise
    log = door.logged()
    assert status == 0, log
    assert "Traceback" not in log and "leaked" not in log, log

    # Every play the callers saw is in the database, under level 2's first rules.
    async with Store.open(tmp_path / "door.db", create=False) as store:
        moves = {}
        for n in range(4):
            user = await store.find_user(f"Caller{n}")
            assert user is not None
            saved = await store.resume(user.id, 2)
            assert saved is not None
            moves[n] = saved[1].moves
        variants = await store.variants()
    assert moves == {0: 13, 1: 14, 2: 14, 3: 14}
    assert [v.level for v in variants].count(2) == 1  # nobody has dealt under the new rules


def test_compare_keeps_what_needs_a_restart_and_names_each_change():
    running = Config()
    fresh = dataclasses.replace(
        running,
        server=ServerConfig(host="127.0.0.1", database=Path("/elsewhere.db"), idle_timeout=100),
        daily_games=3,
        levels=running.levels[:2],
    )
    reloaded = compare(running, fresh)
    assert reloaded.config.server.host == running.server.host
    assert reloaded.config.server.database == running.server.database
    assert reloaded.config.server.idle_timeout == 100
    assert reloaded.config.levels == running.levels[:2]
    assert set(reloaded.changes) == {
        "server.idle_timeout: 300 -> 100",
        "limits.daily_games: 0 -> 3",
        "level 3 (Level 3 - One pass) removed",
    }
    assert [line.split(":")[0] for line in reloaded.restart] == ["server.host", "server.database"]


def test_the_shipped_file_reloads_as_itself():
    shipped = load_config(ROOT / "sysop.toml")
    assert compare(shipped, load_config(ROOT / "sysop.toml")).changes == ()


@pytest.mark.slow
async def test_sigusr1_logs_the_commits_and_the_collectors_passes_since_the_last(tmp_path):
    door = await serve(write_config(tmp_path))
    try:
        caller = await sign_up(door, "Caller", "secret-one1")
        await start_deal(caller, DEAL)
        mark = door.signal(signal.SIGUSR1)
        await door.wait_logged(r"collector: \d+ young", mark)
        await play(caller, "V", 1)
        mark = door.signal(signal.SIGUSR1)
        log = (await door.wait_logged(r"collector: .* since the last report", mark))[mark:]
        assert re.search(r"store: \d+ writes in \d+ commits", log)
        passes = re.search(
            r"collector: (\d+) young \(longest [\d.]+ ms\), (\d+) middle \([\d.]+ ms\), "
            r"(\d+) full \([\d.]+ ms\) since the last report",
            log,
        )
        assert passes, log
        await caller.hang_up()
    finally:
        door.process.send_signal(signal.SIGTERM)
        door.process.wait(WAIT)
