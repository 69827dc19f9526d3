"""The contest's page as a caller reads it while the contest's clock moves on: a key is judged
by where the contest stands when it is pressed (not when the page was drawn) and the page is
drawn again; times carry their zone and the time left; the caller's own row is marked; one
move is one move."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from tests.support.contests import open_contest_door, resign, start
from tests.support.visits import sign_up


async def test_a_deal_pressed_after_the_close_says_the_contest_has_closed(tmp_path) -> None:
    door = await open_contest_door(tmp_path)
    try:
        now = door.clock.now
        contest = await door.store.declare_contest(
            "Winter Cup", door.config.level(1), 3, now, now + timedelta(hours=1)
        )
        alice = await sign_up(door.telnet, "Alice")
        await alice.key("C")
        page = await alice.wait_for(r"Contest - Winter Cup[\s\S]*Your choice")
        assert re.search(r"Open until \d{4}-\d\d-\d\d \d\d:\d\d \w+ \(1 hour left\)", page)
        # The contest closes while Alice reads its page; then she presses a deal she never
        # began.
        door.clock.now = contest.closes + timedelta(minutes=1)
        alice.forget_text()
        await alice.key("2")
        page = await alice.wait_for(r"The contest has closed: its deals are no longer played")
        assert "You have played deal" not in page
        assert "Closed " in page  # drawn again as it stands now
        assert re.search(r"Deal 2: not played\s*\n", page)
        assert "not played yet" not in page
        await alice.hang_up()
    finally:
        await door.close()


async def test_a_deal_pressed_after_the_opening_is_dealt(tmp_path) -> None:
    door = await open_contest_door(tmp_path)
    try:
        now = door.clock.now
        contest = await door.store.declare_contest(
            "Winter Cup", door.config.level(1), 3, now + timedelta(hours=2), now + timedelta(days=1)
        )
        alice = await sign_up(door.telnet, "Alice")
        await alice.key("C")
        page = await alice.wait_for(r"Contest - Winter Cup[\s\S]*Your choice")
        assert "(in 2 hours)" in page
        door.clock.now = contest.opens  # it opens while Alice reads the page
        await start(alice, 1)
        await alice.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_the_callers_own_row_is_marked_and_one_move_is_one_move(tmp_path) -> None:
    door = await open_contest_door(tmp_path)
    try:
        now = door.clock.now
        await door.store.declare_contest(
            "Winter Cup", door.config.level(1), 3, now, now + timedelta(days=1)
        )
        bob = await sign_up(door.telnet, "Bob")
        await bob.key("C")
        await bob.wait_for(r"Contest - Winter Cup[\s\S]*Your choice")
        await start(bob, 1)
        # The help says what N does in a contest: no new deal, and not counted as lost.
        await bob.type("?")
        page = await bob.wait_for("Press Enter to return to the game")
        assert "resign this deal: it counts with its score as it stands" in page
        assert "deal a new one" not in page and "counts as lost" not in page
        await bob.type("")
        await bob.wait_for(r"Command \(\? for help\)")
        await bob.type("V")
        await bob.wait_for(r"Command \(\? for help\)")
        await resign(bob)
        page = await bob.wait_for(r"Deal 1: resigned, score -?\d+ in 1 move\b")
        bob_row = next(line for line in page.splitlines() if re.match(r"\s+1\s+Bob\b", line))
        assert bob_row.rstrip().endswith("(you)")
        await bob.hang_up()
        # Another caller sees Bob's row unmarked.
        carol = await sign_up(door.telnet, "Carol")
        await carol.key("C")
        page = await carol.wait_for(r"Contest - Winter Cup[\s\S]*Your choice")
        assert "(you)" not in page
        await carol.hang_up()
    finally:
        await door.close()


async def test_the_main_menu_tells_of_the_contest_and_resumes_its_saved_game(tmp_path) -> None:
    door = await open_contest_door(tmp_path)
    try:
        now = door.clock.now
        await door.store.declare_contest(
            "Winter Cup", door.config.level(1), 3, now, now + timedelta(days=1)
        )
        dora = await sign_up(door.telnet, "Dora")
        menu = dora.display()
        assert re.search(r"C\s+Contests: Winter Cup, open until \d{4}-\d\d-\d\d \d\d:\d\d", menu)
        assert "Resume" not in menu
        await dora.key("C")
        await dora.wait_for(r"Contest - Winter Cup[\s\S]*Your choice")
        await start(dora, 2)
        await dora.type("Q")  # the game is saved; back on the contest's page, then the menu
        await dora.wait_for("Your game is saved: its number resumes it")
        await dora.key("Q")
        menu = await dora.wait_for(r"Contests: Winter Cup, your deal 2 is saved")
        assert "R  Resume your saved game (Winter Cup, deal 2)" in menu
        await dora.key("R")
        await dora.wait_for(r"Command \(\? for help\)")
        assert "Winter Cup, deal 2" in dora.row(1)
        await dora.type("Q")
        await dora.wait_for("Your game is saved: its number resumes it")
        # A saved game at a level besides: R asks which.
        await dora.key("Q")
        await dora.wait_for(r"Hello, Dora")
        await dora.key("P")
        await dora.wait_for("Level:")
        await dora.key("2")
        await dora.wait_for(r"Command \(\? for help\)")
        await dora.type("Q")
        menu = await dora.wait_for(
            r"Resume one of your saved games \(level 2 and Winter Cup, deal 2\)"
        )
        await dora.key("R")
        await dora.wait_for("Which saved game will you resume?")
        await dora.key("C")
        await dora.wait_for(r"Command \(\? for help\)")
        assert "Winter Cup, deal 2" in dora.row(1)
        await dora.hang_up()
    finally:
        await door.close()
