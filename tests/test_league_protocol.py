"""The league's protocol between a hub and its members, on 127.0.0.1: keys and signatures,
contests copied, deals given when a caller starts one, results replayed at the hub, and
every forged, replayed, late or foreign request refused, with its reason at both ends."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from datetime import datetime, timedelta, timezone

import aiohttp
import pytest

from door.contests import contest_board
from door.engine.status import Status
from door.league.protocol import MAX_ALIAS, MAX_BODY, MAX_PLAYS, request
from door.league.signing import new_private_key, private_key_file
from door.store.league import LeagueResult
from tests.support.contests import Clock
from tests.support.league import (
    contest_level_of,
    declare,
    league_contest,
    open_hub,
    open_member,
    play_league_deal,
)

pytestmark = pytest.mark.slow


@pytest.fixture
async def league(tmp_path):
    clock = Clock()
    hub = await open_hub(tmp_path / "hub", clock)
    members = [await open_member(tmp_path / tag, tag, hub) for tag in ("ABC", "XYZ")]
    yield hub, members
    for member in members:
        await member.close()
    await hub.close()


async def test_a_contest_declared_at_the_hub_reaches_every_member(league):
    hub, members = league
    contest = await declare(hub)
    for member in members:
        report = await member.link.sync()
        assert report.contests == 1
        copy = await league_contest(member)
        assert copy.hub_id == contest.id and copy.deals == 3 and copy.league
        seals = await member.store.contest_seals(copy)
        assert seals == [deal.seal for deal in await hub.store.contest_deals(contest.id)]
        # No deal is known to the member before a caller starts one.
        assert await member.store.contest_deals(copy.id) == []


async def test_results_are_replayed_and_the_tables_agree(league):
    hub, (abc, xyz) = league
    await declare(hub)
    for member, alias in ((abc, "Ann"), (xyz, "Bob")):
        await member.link.sync()
        user = await member.store.create_user(alias, "secret words")
        copy = await league_contest(member)
        for number in (1, 2):
            await play_league_deal(member, user, copy, number)
        report = await member.link.sync()
        assert (report.sent, report.refused, report.waiting) == (2, 0, 0)
    await abc.link.sync()  # the table now has both boards' callers
    hub_rows = await hub.store.contest_table((await hub.store.league_contests())[0].id)
    assert {(row.alias, row.bbs) for row in hub_rows} == {("Ann", "ABC"), ("Bob", "XYZ")}
    for member, own in ((abc, "Ann"), (xyz, "Bob")):
        rows = await member.store.contest_table((await league_contest(member)).id)
        assert [(r.alias, r.score, r.moves) for r in rows] == [
            (r.alias, r.score, r.moves) for r in hub_rows
        ]
        mine = next(r for r in rows if r.alias == own)
        assert mine.bbs is None  # the board's own callers show as its own


async def test_a_forged_play_list_is_refused_with_its_reason(league, caplog):
    hub, (abc, _) = league
    await declare(hub)
    await abc.link.sync()
    user = await abc.store.create_user("Ann", "secret words")
    copy = await league_contest(abc)
    game = await play_league_deal(abc, user, copy, 1)
    # The member's sysop edits the score before it goes out.
    unsent = (await abc.store.unsent_league_results())[0]
    forged = dataclasses.replace(unsent.result, score=unsent.result.score + 500)
    answer = await _post_result(abc, forged)
    assert answer["accepted"] is False and "do not replay" in answer["reason"]
    assert "refused" in caplog.text and "do not replay" in caplog.text
    # The genuine result still goes through.
    report = await abc.link.sync()
    assert report.sent == 1
    rows = await hub.store.contest_table((await hub.store.league_contests())[0].id)
    assert rows[0].score == game.score


async def test_a_second_attempt_and_a_game_after_the_close_are_refused(league):
    hub, (abc, _) = league
    contest = await declare(hub)
    await abc.link.sync()
    user = await abc.store.create_user("Ann", "secret words")
    copy = await league_contest(abc)
    await play_league_deal(abc, user, copy, 1)
    await abc.link.sync()
    sent = (await abc.store.league_answers())[0]
    assert sent[1] is True
    result = await _a_result(abc, copy.hub_id, 1)
    other = dataclasses.replace(result, plays=(), status=Status.RESIGNED, score=0, moves=0)
    answer = await _post_result(abc, other)
    assert answer["accepted"] is False and "second attempt" in answer["reason"]
    # Deal 2 fetched while open, its game claimed to end well after the close.
    await abc.link.fetch_deal(copy, 2)
    late = dataclasses.replace(other, number=2, finished=contest.closes + timedelta(minutes=30))
    hub.clock.now = contest.closes + timedelta(minutes=31)
    answer = await _post_result(abc, late)
    assert answer["accepted"] is False and "after the close" in answer["reason"]


async def test_a_request_signed_by_another_key_or_sent_twice_is_refused(league):
    hub, (abc, _) = league
    contest = await declare(hub)
    await abc.link.sync()
    fields = {"contest": contest.id, "number": 1}
    wrong_key = new_private_key()
    body, _ = request("deal", "ABC", fields, wrong_key, hub.clock.now)
    status, answer = await _raw(hub.url + "/league/deal", body)
    assert status == 403 and "not signed by the key" in answer["reason"]
    body, _ = request("deal", "ABC", fields, private_key_file(abc.config.league_key), hub.clock.now)
    first, _ = await _raw(hub.url + "/league/deal", body)
    again, answer = await _raw(hub.url + "/league/deal", body)
    assert (first, again) == (200, 403) and "sent before" in answer["reason"]


async def test_a_suspended_board_is_refused(league):
    hub, (abc, _) = league
    await declare(hub)
    await abc.link.sync()
    await hub.store.suspend_league_board("ABC", True)
    copy = await league_contest(abc)
    from door.league.member import LeagueRefusal

    with pytest.raises(LeagueRefusal, match="suspended"):
        await abc.link.fetch_deal(copy, 1)


async def _a_result(member, hub_id, number) -> LeagueResult:
    return LeagueResult(hub_id, number, "Ann", (), Status.RESIGNED, 0, 0, member.store.now())


async def _post_result(member, result: LeagueResult) -> dict:
    fields = {
        "contest": result.contest,
        "number": result.number,
        "alias": result.alias,
        "plays": list(result.plays),
        "status": str(result.status),
        "score": result.score,
        "moves": result.moves,
        "finished": result.finished.isoformat(),
    }
    return await member.link._post("/league/result", "result", fields)


async def _raw(url: str, body: bytes) -> tuple[int, dict]:
    async with aiohttp.ClientSession() as session, session.post(url, data=body) as response:
        envelope = await response.json(content_type=None)
        return response.status, json.loads(envelope["message"])


async def test_the_deals_and_salts_reach_the_members_only_after_the_close(league):
    hub, (abc, _) = league
    contest = await declare(hub, deals=2)
    await abc.link.sync()
    user = await abc.store.create_user("Ann", "secret words")
    copy = await league_contest(abc)
    await play_league_deal(abc, user, copy, 1)
    await abc.link.sync()
    board = await contest_board(abc.store, copy)
    assert board is not None and board.deals == () and len(board.seals) == 2
    hub.clock.now = contest.closes + timedelta(seconds=1)
    await hub.store.settle_contests()
    await abc.store.settle_contests()
    await abc.link.sync()
    board = await contest_board(abc.store, await league_contest(abc))
    assert board is not None
    hub_deals = await hub.store.contest_deals(contest.id)
    assert [(d.number, d.deal, d.salt) for d in board.deals] == [
        (d.number, d.deal, d.salt) for d in hub_deals
    ]
    assert [deal.seal for deal in board.deals] == list(board.seals)


async def test_the_hub_bounds_a_request_and_a_board_s_rate(league):
    hub, (abc, _) = league
    contest = await declare(hub)
    key = private_key_file(abc.config.league_key)
    fields = {"contest": contest.id, "number": 1, "padding": "x" * 70_000}
    body, _ = request("deal", "ABC", fields, key, hub.clock.now)
    status, answer = await _raw(hub.url + "/league/deal", body)
    assert status == 413 and "bytes at most" in answer["reason"]
    statuses = []
    for _ in range(260):
        body, _ = request("deal", "ABC", {"contest": contest.id, "number": 1}, key, hub.clock.now)
        statuses.append((await _raw(hub.url + "/league/deal", body))[0])
    assert 429 in statuses and statuses.count(200) >= 150


async def test_a_result_s_numbers_are_whole_numbers_refused_in_words(league):
    hub, (abc, _) = league
    contest = await declare(hub)
    await abc.link.sync()
    key = private_key_file(abc.config.league_key)
    fields = {
        "contest": contest.id,
        "number": 1,
        "alias": "Ann",
        "plays": [],
        "status": "resigned",
        "score": float("inf"),  # JSON's Infinity: int() of it raised OverflowError
        "moves": 0,
        "finished": hub.clock.now.isoformat(),
    }
    body, _ = request("result", "ABC", fields, key, hub.clock.now)
    status, answer = await _raw(hub.url + "/league/result", body)
    assert (status, answer["accepted"]) == (200, False), answer
    assert "its status, score, moves" in answer["reason"]


def test_a_result_of_the_most_plays_a_league_game_holds_fits_in_a_request():
    fields = {
        "contest": 2**31,
        "number": 999,
        "alias": "\U0001f0a1" * MAX_ALIAS,  # 4 bytes a character in UTF-8
        "plays": ["10 10"] * MAX_PLAYS,  # longer than any play is
        "status": "resigned",
        "score": -(10**9),
        "moves": MAX_PLAYS,
        "finished": "2026-12-31T23:59:59.999999+14:00",
    }
    now = datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=14)))
    body, _ = request("result", "X" * 16, fields, new_private_key(), now)
    assert len(body) <= MAX_BODY
    fields["plays"] = ["10 10"] * (MAX_PLAYS + 600)
    assert len(request("result", "X" * 16, fields, new_private_key(), now)[0]) > MAX_BODY


async def test_a_game_of_the_most_plays_is_replayed_and_accepted(league):
    hub, (abc, _) = league
    await declare(hub)
    await abc.link.sync()
    user = await abc.store.create_user("Ann", "secret words")
    copy = await league_contest(abc)
    await abc.link.fetch_deal(copy, 1)
    level = await contest_level_of(abc, copy)
    game_id, game = await abc.store.start_contest_game(user.id, copy, 1, level)
    for _ in range(MAX_PLAYS):  # turning the stock over and over, passes unlimited
        game.play("V")
    game.resign()
    await abc.store.finish_game(game_id, game)
    report = await abc.link.sync()
    assert (report.sent, report.refused) == (1, 0)
    assert (await hub.store.contest_table(copy.hub_id))[0].moves == MAX_PLAYS


async def test_a_body_sent_in_pieces_is_read_whole(league):
    hub, (abc, _) = league
    contest = await declare(hub)
    key = private_key_file(abc.config.league_key)
    body, _ = request("deal", "ABC", {"contest": contest.id, "number": 1}, key, hub.clock.now)

    async def pieces():  # chunked, as a slow line brings it: read(n) gives each as it comes
        for start in range(0, len(body), 40):
            yield body[start : start + 40]
            await asyncio.sleep(0.01)

    async with (
        aiohttp.ClientSession() as session,
        session.post(hub.url + "/league/deal", data=pieces()) as response,
    ):
        assert response.status == 200


async def test_junk_naming_a_board_spends_none_of_its_allowance(league):
    hub, (abc, _) = league
    contest = await declare(hub)
    wrong_key = new_private_key()
    for _ in range(260):
        body, _ = request(
            "deal", "ABC", {"contest": contest.id, "number": 1}, wrong_key, hub.clock.now
        )
        assert (await _raw(hub.url + "/league/deal", body))[0] == 403
    key = private_key_file(abc.config.league_key)
    body, _ = request("deal", "ABC", {"contest": contest.id, "number": 1}, key, hub.clock.now)
    assert (await _raw(hub.url + "/league/deal", body))[0] == 200


async def test_a_flood_of_a_stranger_s_refused_requests_logs_a_bounded_number_of_lines(
    league, caplog
):
    hub, _ = league
    contest = await declare(hub)
    caplog.set_level(logging.INFO, logger="door")
    wrong_key = new_private_key()
    fields = {"contest": contest.id, "number": 1}
    for number in range(200):  # a key the hub does not have for ABC, or a board it lacks
        tag = "ABC" if number % 2 else f"Z{number}"
        body, _ = request("deal", tag, fields, wrong_key, hub.clock.now)
        assert (await _raw(hub.url + "/league/deal", body))[0] == 403
    lines = [r for r in caplog.records if "league: a request from" in r.getMessage()]
    assert 1 <= len(lines) <= 2, [r.getMessage() for r in lines]
    assert lines[0].levelno == logging.WARNING and "127.0.0.1" in lines[0].getMessage()
    assert sum(len(r.getMessage()) for r in lines) < 1000
