"""Three doors of one league on 127.0.0.1: a hub, a member serving telnet callers and a
member run in door mode by a BBS. A contest declared at the hub appears on both members,
callers on each play its deals, and every door's table agrees after a sync; a member stopped
mid-contest catches up, and a member killed with results waiting loses none."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from door.config import load_config
from door.league.member import HubUnreachable, league_member
from door.league.protocol import MAX_BODY
from door.running.ways import publish_scoreboards
from door.store import Store
from door.visit import contests as contests_visit
from tests.support.contests import Clock
from tests.support.door_caller import DoorCall, door32, door_args, write_dropfile
from tests.support.league import (
    contest_level_of,
    declare,
    door_mode_member,
    league_contest,
    open_hub,
    open_member,
    open_serving_member,
    play_league_deal,
    reopen_hub,
)
from tests.support.visits import play, sign_up

pytestmark = pytest.mark.slow


def _ranks(rows) -> list[tuple[str, int, int]]:
    return [(row.alias, row.score, row.moves) for row in rows]


async def test_three_doors_play_one_contest_and_agree_on_its_table(tmp_path):
    hub = await open_hub(tmp_path / "hub", Clock())
    abc = await open_serving_member(tmp_path / "abc", "ABC", hub)
    try:
        contest = await declare(hub, "League Cup", deals=2)
        config = await door_mode_member(tmp_path / "xyz", "XYZ", hub)
        await abc.sync.member.sync()
        # A caller of the serving member finds the league's contest under C and plays deal 1.
        alice = await sign_up(abc.telnet, "Alice")
        await alice.key("C")
        page = await alice.wait_for(r"League contest - League Cup[\s\S]*Your choice")
        assert "Deal 1" in page
        await alice.key("1")
        board = await alice.wait_for(r"Command \(\? for help\)")
        deals = await hub.store.contest_deals(contest.id)
        assert f"Seal {deals[0].seal}" in board  # the hub's seal; the deal never shown
        assert str(deals[0].deal) not in board
        await alice.type("N")
        await alice.wait_for("Resign this deal")
        await alice.key("Y")
        await alice.wait_for(r"Game resigned, score (-?\d+)")
        await alice.type("")
        await alice.wait_for("Its score is on the contest's table")
        await alice.hang_up()
        # A caller of the door-mode member plays deal 2 in one call.
        dropfile = write_dropfile(tmp_path / "xyz", "DOOR32.SYS", door32(alias="Joe"))
        await asyncio.to_thread(_door_call_resigns_deal, door_args(dropfile, config), 2)
        # The door-mode member synced at the call's end; the serving one is woken by its game.
        table_id = contest.id
        async with asyncio.timeout(20):
            while len(await hub.store.contest_table(table_id)) < 2:
                await asyncio.sleep(0.1)
        hub_rows = await hub.store.contest_table(table_id)
        assert {(r.alias, r.bbs) for r in hub_rows} == {("Alice", "ABC"), ("Joe", "XYZ")}
        await abc.sync.member.sync()
        abc_rows = await abc.store.contest_table((await league_contest_of(abc.store)).id)
        async with Store.open(tmp_path / "xyz" / "door.db") as xyz_store:
            xyz = await league_member(xyz_store, _config_of(config))
            assert xyz is not None
            await xyz.sync()
            xyz_rows = await xyz_store.contest_table((await league_contest_of(xyz_store)).id)
        assert _ranks(abc_rows) == _ranks(xyz_rows) == _ranks(hub_rows)
        # No deal number or salt on the members' web scoreboards before the close.
        at_hub = await publish_scoreboards(hub.store, hub.config)
        assert b"Alice" in at_hub["scores.json"].body and b"XYZ" in at_hub["scores.json"].body
        published = await publish_scoreboards(abc.store, abc.config)
        assert b"Joe" in published["scores.json"].body
        for document in published.values():
            for deal in deals:
                assert str(deal.deal).encode() not in document.body
                assert deal.salt.encode() not in document.body
    finally:
        await abc.close()
        await hub.close()


async def test_a_member_stopped_mid_contest_catches_up(tmp_path):
    hub = await open_hub(tmp_path / "hub", Clock())
    member = await open_member(tmp_path / "abc", "ABC", hub)
    try:
        await declare(hub, deals=3)
        await member.link.sync()
        user = await member.store.create_user("Ann", "secret words")
        copy = await league_contest(member)
        await member.link.fetch_deal(copy, 1)
        await member.link.fetch_deal(copy, 2)
        await hub.ways.close(grace=0.5)  # the hub goes away
        for number in (1, 2):
            await play_league_deal(member, user, copy, number)
        with pytest.raises(HubUnreachable):
            await member.link.sync()
        with pytest.raises(HubUnreachable, match="waiting"):  # backing off
            await member.link.sync()
        assert len(await member.store.unsent_league_results()) == 2
        # The hub comes back on the same database; the member catches up in order.
        hub = await reopen_hub(hub)
        member.link._url = hub.url
        report = await member.link.sync(force=True)
        assert (report.sent, report.waiting) == (2, 0)
        rows = await hub.store.contest_table(copy.hub_id)
        assert rows[0].alias == "Ann" and rows[0].played == 2
    finally:
        await member.close()
        await hub.close()


async def test_a_member_killed_with_results_waiting_loses_none(tmp_path):
    hub = await open_hub(tmp_path / "hub", Clock())
    member = await open_member(tmp_path / "abc", "ABC", hub)
    try:
        await declare(hub, deals=3)
        await member.link.sync()
        user = await member.store.create_user("Ann", "secret words")
        copy = await league_contest(member)
        for number in (1, 2, 3):
            await member.link.fetch_deal(copy, number)
    finally:
        await member.close()
    # A member process plays three deals with the hub unreachable, then is killed -9.
    child = subprocess.Popen(
        [sys.executable, "-c", _PLAY_OFFLINE, str(tmp_path / "abc" / "door.db"), str(user.id)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert child.stdout is not None
    line = await asyncio.to_thread(child.stdout.readline)
    assert line.strip() == b"played"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    member = await open_member(tmp_path / "abc", "ABC", hub, add=False)
    try:
        assert len(await member.store.unsent_league_results()) == 3
        report = await member.link.sync()
        assert (report.sent, report.refused, report.waiting) == (3, 0, 0)
        rows = await hub.store.contest_table(copy.hub_id)
        assert rows[0].played == 3
    finally:
        await member.close()
        await hub.close()


async def test_a_game_too_long_for_the_hub_is_refused_for_good_and_those_after_it_go_on(
    tmp_path,
):
    hub = await open_hub(tmp_path / "hub", Clock())
    member = await open_member(tmp_path / "abc", "ABC", hub)
    try:
        await declare(hub, deals=3)
        await member.link.sync()
        user = await member.store.create_user("Ann", "secret words")
        copy = await league_contest(member)
        # A game of 11,000 plays (kept by a board whose games had no cap): 66 KB to send.
        await member.link.fetch_deal(copy, 1)
        level = await contest_level_of(member, copy)
        game_id, game = await member.store.start_contest_game(user.id, copy, 1, level)
        for _ in range(11_000):
            game.play("V")
        game.resign()
        await member.store.finish_game(game_id, game)
        await play_league_deal(member, user, copy, 2)
        report = await member.link.sync()
        assert (report.sent, report.refused, report.waiting) == (1, 1, 0)
        answers = dict((game, (accepted, reason)) for game, accepted, reason in
                       await member.store.league_answers())  # fmt: skip
        assert answers[game_id] == (False, f"a request is {MAX_BODY} bytes at most")
        rows = await hub.store.contest_table(copy.hub_id)
        assert rows[0].alias == "Ann" and rows[0].played == 1
        assert (await member.link.sync()).sent == 0  # not sent again
    finally:
        await member.close()
        await hub.close()


async def test_a_league_game_ends_at_the_plays_a_result_can_carry(tmp_path, monkeypatch):
    monkeypatch.setattr(contests_visit, "MAX_PLAYS", 6)
    hub = await open_hub(tmp_path / "hub", Clock())
    abc = await open_serving_member(tmp_path / "abc", "ABC", hub)
    try:
        contest = await declare(hub, "League Cup", deals=2)
        await abc.sync.member.sync()
        ann = await sign_up(abc.telnet, "Ann")
        await ann.key("C")
        await ann.wait_for(r"League contest - League Cup[\s\S]*Your choice")
        await ann.key("1")
        await ann.wait_for(r"Command \(\? for help\)")
        for move in range(1, 6):
            await play(ann, "V", move)
        await ann.type("V")
        await ann.wait_for("A league game is 6 plays at most: this game counts as resigned")
        await ann.type("")
        await ann.wait_for("Your choice")
        await ann.hang_up()
        async with asyncio.timeout(20):
            while not await hub.store.contest_table(contest.id):
                await asyncio.sleep(0.1)
        row = (await hub.store.contest_table(contest.id))[0]
        assert (row.alias, row.bbs, row.moves) == ("Ann", "ABC", 6)
    finally:
        await abc.close()
        await hub.close()


_PLAY_OFFLINE = """
import asyncio, sys, time
from pathlib import Path
from door.engine import Game, Variant
from door.running.ways import publish_scoreboards
from door.store import Store

async def main():
    store = await Store.open(Path(sys.argv[1]))
    contest = [c for c in await store.contests() if c.mirrored][-1]
    knobs = next(r.knobs for r in await store.variants() if r.id == contest.variant_id)
    from door.levels import Level
    level = Level(contest.level, "League", Variant.from_dict(knobs))
    for number in (1, 2, 3):
        game_id, game = await store.start_contest_game(int(sys.argv[2]), contest, number, level)
        game.resign()
        await store.finish_game(game_id, game)
    print("played", flush=True)
    time.sleep(60)

asyncio.run(main())
"""


async def league_contest_of(store: Store):
    return [c for c in await store.contests() if c.mirrored][-1]


def _config_of(path):
    return load_config(path)


def _door_call_resigns_deal(args: list[str], number: int) -> None:
    call, slave = DoorCall.on_pty(args)
    try:
        call.wait_for("Your choice:")
        call.send("C")
        call.wait_for(r"League contest - League Cup")
        call.wait_for("Your choice:")
        call.send(str(number))
        call.wait_for(r"Command( \(\? for help\))?:")
        call.send("N")
        call.wait_for("Resign this deal")
        call.send("Y")
        call.wait_for(r"Game resigned")
        call.send("\r")
        call.wait_for("Its score is on the contest's table")
        call.send("Q")
        call.wait_for("Your choice:")
        call.send("G")
        call.wait_for("Goodbye")
        assert call.wait_exit(timeout=20) == 0
    finally:
        call.close()
        os.close(slave)
