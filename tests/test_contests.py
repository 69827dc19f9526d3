"""Contests over real TCP: a contest declared with the sysop's command, played by a telnet
caller and two linked boards' callers over RLOGIN, its table on their screens at each step,
its deals kept out of every byte sent and every log line until it closes, and its seals
matching the deals revealed then."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from door.bulletin import gather, render
from door.commands.main import main
from door.config import Config
from door.contests import keep_contests_on_time
from door.engine import Game
from door.engine.solver import solve
from door.engine.status import Status
from door.fairness import seal
from door.store import Store
from door.store.contests import Contest
from tests.support.contests import Clock, ContestDoor, open_contest_door, resign, start
from tests.support.door_server import SHIPPED_CONFIG, door_config
from tests.support.rlogin import ABC, XYZ, linked_caller
from tests.support.telnet_caller import Caller
from tests.support.visits import sign_up

BOARDS = {"Another Board", "Xylophone BBS"}
TABLE_ROW = re.compile(
    r"^\s*(\d+)\s+(\w+)\s+(?:(Another Board|Xylophone BBS)\s*)?(\d+)(?: \+(\d+))?\s+(-?\d+)\s+(\d+)"
)


def sysop(database: Path, *words: str) -> int:
    """``canfield-door sysop ...`` on the door's database, as the sysop types it."""
    return main(["sysop", "--config", str(SHIPPED_CONFIG), "--database", str(database), *words])


async def run_sysop(capsys: pytest.CaptureFixture[str], database: Path, *words: str) -> str:
    capsys.readouterr()
    code = await asyncio.to_thread(sysop, database, *words)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def local_minute(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


async def open_contests(caller: Caller) -> str:
    await caller.key("C")
    return await caller.wait_for(r"Contest - Winter Cup[\s\S]*Your choice")


async def back_to_menu(caller: Caller) -> None:
    await caller.key("Q")
    await caller.wait_for("Contests")
    await caller.wait_for("Your choice")


def screen_table(screen: str) -> list[tuple[str, str | None, int, int, int, int]]:
    """The contest's table as the caller's screen shows it: (alias, board, deals finished,
    unfinished, score, moves), best first."""
    lines = screen.split("\n")
    start = next(i for i, line in enumerate(lines) if re.match(r"\s+#\s+Alias", line))
    rows = []
    for line in lines[start + 1 :]:
        found = TABLE_ROW.match(line)
        if found is None:
            break
        _, alias, board, played, unfinished, score, moves = found.groups()
        rows.append((alias, board, int(played), int(unfinished or 0), int(score), int(moves)))
    return rows


def expected_table(database: Path) -> list[tuple[str, str | None, int, int, int, int]]:
    """The table worked out here from the games in the database file: total score over the
    finished deals, then fewer moves, then who finished their last deal first."""
    with sqlite3.connect(database) as db:
        rows = db.execute(
            "SELECT u.alias, u.bbs, g.status, g.score, g.moves, g.finished, g.id FROM games g "
            "JOIN users u ON u.id = g.user_id WHERE g.contest_id IS NOT NULL"
        ).fetchall()
    players: dict[tuple[str, str | None], list[tuple]] = {}
    for row in rows:
        players.setdefault((row[0], row[1]), []).append(row)
    table = []
    for (alias, bbs), games in players.items():
        done = [game for game in games if game[2] != Status.PLAYING]
        last = max((game[5] for game in done), default="~")
        first = min(game[6] for game in games)
        entry = (
            alias,
            bbs,
            len(done),
            len(games) - len(done),
            sum(game[3] for game in done),
            sum(game[4] for game in done),
        )
        table.append((not done, -entry[4], entry[5], last, first, entry))
    return [entry[-1] for entry in sorted(table)]


async def check_table(door: ContestDoor, caller: Caller) -> None:
    """The caller opens the contest's page: its table is the one the games make."""
    screen = await open_contests(caller)
    assert screen_table(screen) == expected_table(door.config.server.database)
    await back_to_menu(caller)


async def play_some(door: ContestDoor, caller: Caller, game_id: int, plays: int) -> None:
    """Make ``plays`` plays, a scoring one where the cards allow (the test reads the game
    from the store; the caller sees only the board)."""
    for _ in range(plays):
        game = await door.store.load_game(game_id)
        if game.status != Status.PLAYING:
            return
        legal = game.legal()
        choice = next((play for play in legal if play != "V"), legal[0])
        await caller.type(choice)
        await caller.wait_for(rf"Moves\s+{game.moves + 1}\b|Press Enter")


@pytest.mark.slow
async def test_a_whole_contest_across_two_linked_boards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="door")
    door = await open_contest_door(tmp_path)
    database = door.config.server.database
    callers: list[Caller] = []
    try:
        # The sysop declares it: three deals at level 1, an hour from now, for a week.
        opens = door.clock.now + timedelta(hours=1)
        said = await run_sysop(
            capsys, database, "contest", "declare", "Winter Cup", "--level", "1",
            "--deals", "3", "--opens", local_minute(opens), "--for", "7d",
        )  # fmt: skip
        assert "Contest 'Winter Cup': 3 deals at level 1" in said
        contest = await door.store.contest("winter cup")
        deals = await door.store.contest_deals(contest.id)
        secrets = [word for deal in deals for word in (str(deal.deal), deal.salt)]
        listed = await run_sysop(capsys, database, "contest", "list")
        assert "Winter Cup" in listed and "coming" in listed

        alice = await sign_up(door.telnet, "Alice")
        bob = await linked_caller(door.port, ABC, "Bob")
        carol = await linked_caller(door.port, XYZ, "Carol")
        callers += [alice, bob, carol]
        for caller in (bob, carol):
            await caller.wait_for("Your choice")

        # Before it opens: when it opens, and no seal yet.
        screen = await open_contests(alice)
        assert f"Opens {local_minute(contest.opens)}" in screen
        assert "3 deals, dealt when the contest opens." in screen
        assert not any(deal.seal in screen for deal in deals)
        await alice.key("1")
        await alice.wait_for("The contest has not opened yet.")
        await back_to_menu(alice)

        # It opens: the seals of its deals are published, deals by their place only.
        door.clock.now = contest.opens + timedelta(minutes=1)
        screen = await open_contests(alice)
        assert "Open until" in screen
        for deal in deals:
            assert f"Deal {deal.number}: not played yet" in screen
        assert "Nobody has played a deal of this contest yet." in screen
        await alice.key("S")
        screen = await alice.wait_for("the deals' seals[\\s\\S]*Press any key")
        for deal in deals:
            assert f"Deal  {deal.number}  seal {deal.seal}" in screen
        await alice.key(" ")
        await alice.wait_for("Your choice")
        shown = await run_sysop(capsys, database, "contest", "show", "Winter Cup")
        assert all(f"{deal.number}. {deal.seal}" in shown for deal in deals)

        # Alice plays deal 1: no hints, the seal on the board, then she resigns it.
        game_id = await start(alice, 1)
        assert f"Seal {deals[0].seal} (deal and salt shown at the close)" in (alice.display())
        await play_some(door, alice, game_id, 4)
        await alice.type("HINT")
        await alice.wait_for("No hints in a contest")
        await resign(alice)
        assert (await door.store.game_record(game_id)).status == "resigned"
        # Its end shows the seal still, never the deal.
        await alice.wait_for("Deal 1: resigned, score")
        # A second attempt is refused.
        await alice.key("1")
        await alice.wait_for("You have played deal 1 of this contest: each deal is played once.")
        await back_to_menu(alice)
        await check_table(door, bob)

        # Bob (board ABC) plays deal 2, drops the line mid-deal, calls again and resumes.
        await open_contests(bob)
        bob_game = await start(bob, 2)
        await play_some(door, bob, bob_game, 3)
        before = await door.store.load_game(bob_game)
        await bob.hang_up()
        for _ in range(200):
            if not door.ways.nodes.calls or len(door.ways.nodes.calls) < 3:
                break
            await asyncio.sleep(0.05)
        bob = await linked_caller(door.port, ABC, "Bob")
        callers.append(bob)
        await bob.wait_for("Your choice")
        screen = await open_contests(bob)
        assert "Deal 2: your game is saved" in screen
        await check_table(door, carol)  # Bob's unfinished deal shows as +1, unscored
        await bob.key("2")
        await bob.wait_for("Welcome back.")
        assert re.search(rf"Moves\s+{before.moves}\b", bob.display())
        await play_some(door, bob, bob_game, 3)
        await resign(bob)
        await back_to_menu(bob)
        await check_table(door, alice)

        # Carol (board XYZ) plays deals 1 and 2 to their end and leaves deal 3 unfinished.
        await open_contests(carol)
        for number in (1, 2):
            carol_game = await start(carol, number)
            await play_some(door, carol, carol_game, 6)
            await resign(carol)
        carol_last = await start(carol, 3)
        await play_some(door, carol, carol_last, 2)
        await carol.type("Q")
        await carol.wait_for("Your game is saved: its number resumes it.")
        await back_to_menu(carol)
        await check_table(door, bob)
        rows = screen_table(await open_contests(alice))
        assert {row[1] for row in rows} == {*BOARDS, None}
        assert [row[0] for row in rows] == [row[0] for row in expected_table(database)]
        await back_to_menu(alice)

        # Before the close: no deal number, no salt, in any byte sent or any log line, and
        # the sysop's game check shows the seal only.
        checked = await run_sysop(capsys, database, "game", str(game_id))
        assert "the deal is shown once the contest has" in checked
        assert str(deals[0].deal) not in checked
        results = await run_sysop(capsys, database, "contest", "results", "Winter Cup")
        assert "Carol" in results and "Xylophone BBS" in results
        for caller in callers:
            sent = bytes(caller.received)
            assert not any(word.encode() in sent for word in secrets)
        logged = "\n".join(record.getMessage() for record in caplog.records)
        assert "contest Winter Cup is open" in logged
        assert not any(word in logged for word in secrets)

        # Practice of a contest's deal by number: refused until it closes. (Whoever types a
        # number sees it echoed; the door sends it nowhere else.)
        await alice.key("#")
        await alice.wait_for("Deal number")
        typed_from = len(alice.received)
        await alice.type(str(deals[0].deal))
        await alice.wait_for("That is a deal of a contest: practise it once the contest has")
        assert bytes(alice.received[typed_from:]).count(str(deals[0].deal).encode()) <= 1
        assert await door.store.games_of((await door.store.find_user("Alice")).id) != []
        assert len(await door.store.games_of((await door.store.find_user("Alice")).id)) == 1

        # The close: Carol's unfinished deal counts as resigned, the deals are revealed.
        door.clock.now = contest.closes + timedelta(minutes=1)
        screen = await open_contests(alice)
        assert "Closed" in screen
        assert (await door.store.game_record(carol_last)).status == "resigned"
        await alice.key("S")
        shown = await alice.wait_for("the deals' seals[\\s\\S]*Press any key")
        revealed = re.findall(r"deal (\d+) salt ([0-9a-f]{32})", shown)
        for deal in deals:
            assert f"seal {deal.seal}" in shown
        await alice.key(" ")
        await alice.wait_for("Your choice")
        assert [(int(deal), salt) for deal, salt in revealed] == [
            (deal.deal, deal.salt) for deal in deals
        ]
        for deal, salt in revealed:
            assert seal(int(deal), salt) in [d.seal for d in deals]
        await back_to_menu(alice)
        await check_table(door, bob)
        # The scoreboards show it too.
        await bob.key("S")
        await bob.wait_for("Which board")
        await bob.key("C")
        screen = await bob.wait_for("Winter Cup - the table[\\s\\S]*Press any key")
        assert screen_table(screen) == expected_table(database)
        await bob.key(" ")
        await bob.wait_for("Which board")

        # Every game of it can now be checked; its deals may be practised.
        checked = await run_sysop(capsys, database, "game", str(game_id))
        assert f"Deal {deals[0].deal}, salt {deals[0].salt}" in checked
        assert "Replay check: the plays, replayed from the deal" in checked
        results = await run_sysop(capsys, database, "contest", "results", "Winter Cup")
        assert f"deal {deals[2].deal}  salt {deals[2].salt}" in results
        await alice.key("#")
        await alice.wait_for("Deal number")
        await alice.type(str(deals[0].deal))
        await alice.wait_for("Choose a level")
    finally:
        for caller in callers:
            await caller.hang_up()
        await door.close()


async def test_a_contest_is_withdrawn_only_before_it_opens(tmp_path, capsys) -> None:
    database = tmp_path / "door.db"
    async with Store.open(database):
        pass
    opens = local_minute(datetime.now(UTC) + timedelta(days=1))
    await run_sysop(
        capsys, database, "contest", "declare", "Later", "--level", "2", "--deals", "3",
        "--opens", opens, "--for", "2d",
    )  # fmt: skip
    shown = await run_sysop(capsys, database, "contest", "show", "later")
    assert "Its deals are sealed; their seals are shown when it opens." in shown
    # One contest at a time.
    code = await asyncio.to_thread(
        sysop, database, "contest", "declare", "Clash", "--level", "1", "--deals", "3",
        "--opens", opens, "--for", "1d",
    )  # fmt: skip
    assert code == 1
    assert "the contest 'Later' runs then" in capsys.readouterr().err
    await run_sysop(capsys, database, "contest", "withdraw", "Later", "--yes")
    async with Store.open(database) as store:
        assert await store.contests() == []
    await run_sysop(
        capsys, database, "contest", "declare", "Now", "--level", "1", "--deals", "3",
        "--opens", "now", "--for", "1h",
    )  # fmt: skip
    code = await asyncio.to_thread(sysop, database, "contest", "withdraw", "Now", "--yes")
    assert code == 1
    assert "has opened: it stands" in capsys.readouterr().err


@contextlib.asynccontextmanager
async def a_contest(
    tmp_path: Path, name: str, opens_in: timedelta, length: timedelta
) -> AsyncIterator[tuple[Store, Clock, Config, Contest]]:
    """A store on the test's clock with a contest of three deals at level 1 declared."""
    config = door_config(tmp_path)
    clock = Clock()
    async with Store.open(config.server.database, clock=clock) as store:
        opens = clock.now + opens_in
        contest = await store.declare_contest(name, config.level(1), 3, opens, opens + length)
        yield store, clock, config, contest


async def test_the_bulletins_carry_the_contests_table_and_its_seals_then_its_deals(
    tmp_path: Path,
) -> None:
    hour, week = timedelta(hours=1), timedelta(days=7)
    async with a_contest(tmp_path, "Autumn Cup", hour, week) as (store, clock, config, contest):
        level = config.level(1)
        opens = contest.opens
        deals = await store.contest_deals(contest.id)
        secrets = [word for deal in deals for word in (str(deal.deal), deal.salt)]
        clock.now = opens + timedelta(minutes=1)
        await keep_contests_on_time(store)
        contest = await store.contest("Autumn Cup")
        ann = await store.create_user("Ann", "secret-one1")
        bob = await store.drop_file_user("Bob", "Another Board")
        for user, number, plays in ((ann, 1, 6), (bob, 1, 2), (bob, 2, 1)):
            game_id, game = await store.start_contest_game(user.id, contest, number, level)
            for _ in range(plays):
                legal = game.legal()
                game.play(next((play for play in legal if play != "V"), legal[0]))
                await store.record_play(game_id, game)
            game.resign()
            await store.finish_game(game_id, game)
        clock.now += timedelta(minutes=1)
        table = await store.contest_table(contest.id)

        def check(text: str) -> None:
            assert all(len(line) <= 79 for line in text.split("\r\n")), text
            assert "Contest: Autumn Cup (3 deals, level 1, " in " ".join(text.split())
            lines = text.split("\r\n")
            start = next(i for i, line in enumerate(lines) if "Contest: Autumn Cup" in line)
            end = next(i for i, line in enumerate(lines) if "Deals: finished (+ begun)" in line)
            section = lines[start:end]
            ranked = [line.split()[1] for line in section if re.match(r"\s*\d\.\s", line)]
            assert [row.alias for row in table] == ranked

        bulletin = await gather(store, config)
        ascii_text = render(bulletin, "ascii").decode("ascii")
        check(ascii_text)
        ansi = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", render(bulletin, "ansi").decode("cp437"))
        check(re.sub("[║╔╗╚╝═╟╢─]", " ", ansi))
        for deal in deals:
            assert deal.seal in ascii_text.replace("\r\n  ", " ")
        document = json.loads(render(bulletin, "json"))
        assert [row["alias"] for row in document["contest"]["table"]] == [r.alias for r in table]
        assert document["contest"]["seals"] == [deal.seal for deal in deals]
        assert document["contest"]["revealed"] == []
        for fmt in ("ascii", "ansi", "json"):
            sent = render(bulletin, fmt)
            assert not any(word.encode() in sent for word in secrets)
        # One board's bulletin: that board's callers only.
        mine = await gather(store, config, bbs="Another Board")
        assert [row.alias for row in mine.contest.rows] == ["Bob"]

        # Closed: the deals and salts are in the bulletins, and they match the seals.
        clock.now = contest.closes + timedelta(seconds=1)
        await keep_contests_on_time(store)
        document = json.loads(render(await gather(store, config), "json"))
        revealed = document["contest"]["revealed"]
        assert [(item["deal"], item["salt"]) for item in revealed] == [
            (deal.deal, deal.salt) for deal in deals
        ]
        assert [seal(item["deal"], item["salt"]) for item in revealed] == document["contest"][
            "seals"
        ]
        assert document["contest"]["state"] == "closed"
        ascii_text = render(await gather(store, config), "ascii").decode("ascii")
        assert f"{deals[0].deal} salt {deals[0].salt}" in ascii_text


@pytest.mark.slow
async def test_ten_deals_fit_one_page_and_0_plays_the_tenth(tmp_path: Path) -> None:
    door = await open_contest_door(tmp_path)
    try:
        level = door.config.level(1)
        now = door.clock.now
        await door.store.declare_contest("Ten", level, 10, now, now + timedelta(days=1))
        for options in ({}, {"ansi": False, "term": "dumb", "charset": "ascii"}):
            alias = "Ann" if options else "Cy"
            caller = await sign_up(door.telnet, alias, **options)
            in_text = bool(options)
            caller.forget_text()
            await caller.key("C")
            page = await caller.wait_for(r"Contest - Ten[\s\S]*Your choice", in_text=in_text)
            assert "0  Deal 10: not played yet" in page and "(1/2)" not in page
            await caller.key("0")
            await caller.wait_for(r"Ten, deal 10|Game \d+\.", in_text=in_text)
            await caller.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_the_table_ranks_by_score_then_fewer_moves_then_who_finished_first(
    tmp_path: Path,
) -> None:
    day = timedelta(days=1)
    async with a_contest(tmp_path, "Ladder", timedelta(0), day) as (store, clock, config, contest):
        level = config.level(1)

        async def finish(alias: str, plays: list[str], number: int = 1) -> None:
            user = await store.find_user(alias) or await store.create_user(alias, "secret-one1")
            game_id, game = await store.start_contest_game(user.id, contest, number, level)
            for play in plays:
                game.play(play)
                await store.record_play(game_id, game)
            game.resign()
            clock.now += timedelta(minutes=1)  # each finishes a minute after the last
            await store.finish_game(game_id, game)

        first = Game.deal(level.variant, (await store.contest_deals(contest.id))[0].deal)
        scoring = _scoring_line(first)
        await finish("Sooner", ["V", "V"])  # 0 points in 2 moves, finished first
        await finish("Later", ["V", "V"])  # the same, finished after: below Sooner
        await finish("Quick", ["V"])  # 0 points in 1 move: above both
        await finish("Best", scoring)  # points: first
        unfinished = await store.create_user("Slow", "secret-one1")
        await store.start_contest_game(unfinished.id, contest, 2, level)  # nothing finished
        table = await store.contest_table(contest.id)
        assert [(row.alias, row.played, row.playing) for row in table] == [
            ("Best", 1, 0),
            ("Quick", 1, 0),
            ("Sooner", 1, 0),
            ("Later", 1, 0),
            ("Slow", 0, 1),
        ]
        # A second deal adds to the total, and its moves.
        second = Game.deal(level.variant, (await store.contest_deals(contest.id))[1].deal)
        await finish("Later", ["V", second.legal()[-1]], number=2)
        later = next(row for row in await store.contest_table(contest.id) if row.alias == "Later")
        plays = await store.games_of((await store.find_user("Later")).id)
        assert (later.played, later.score, later.moves) == (
            2,
            sum(game.score for game in plays),
            sum(game.moves for game in plays),
        )


def _scoring_line(game: Game) -> list[str]:
    """Turns of the deck until a play scores, then that play: a line worth some points."""
    trial = Game.from_dict(game.to_dict())
    line: list[str] = []
    while True:
        for play in trial.legal():
            after = Game.from_dict(trial.to_dict())
            after.play(play)
            if after.score > 0:
                return [*line, play]
        trial.play("V")
        line.append("V")


async def test_a_won_contest_deal_goes_on_the_table_and_keeps_its_deal_sealed(
    tmp_path: Path,
) -> None:
    door = await open_contest_door(tmp_path)
    try:
        level = door.config.level(1)
        now = door.clock.now
        # A contest whose first deal the solver wins at once (most deals of level 1 are):
        # one that is not is withdrawn before it opens, as a sysop may.
        while True:
            contest = await door.store.declare_contest(
                "Sprint", level, 3, now + timedelta(hours=1), now + timedelta(days=1)
            )
            first = (await door.store.contest_deals(contest.id))[0]
            verdict = solve(Game.deal(level.variant, first.deal), max_seconds=10)
            if verdict.result == "won":
                break
            await door.store.withdraw_contest("Sprint")
        door.clock.now = contest.opens
        alice = await sign_up(door.telnet, "Alice")
        await alice.key("C")
        await alice.wait_for("Contest - Sprint[\\s\\S]*Your choice")
        game_id = await start(alice, 1, "Sprint")
        for command in verdict.line:
            await alice.type(command)
        screen = await alice.wait_for("You won! Final score", timeout=60)
        assert "It is on the contest's table." in screen
        assert f"Seal {first.seal} (deal and salt shown at the close)" in screen
        assert str(first.deal) not in screen and first.salt not in screen
        assert first.salt.encode() not in bytes(alice.received)
        assert str(first.deal).encode() not in bytes(alice.received)
        await alice.type("")
        screen = await alice.wait_for("Well played! Your win is on the contest's table.")
        record = await door.store.game_record(game_id)
        assert record.status == "won"
        assert f"Deal 1: won, score {record.score} in {record.moves} moves" in screen
        await alice.hang_up()
    finally:
        await door.close()
