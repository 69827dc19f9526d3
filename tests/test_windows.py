"""Every window, from a phone's to a wall's: screens drawn for the size the caller has, and
drawn again when it changes."""

from __future__ import annotations

import re

import pytest

from tests.support.telnet_caller import Caller
from tests.support.visits import DEAL, sign_up, start_deal

WELCOME_END = "Type your alias to log in, or NEW to sign up."


def words_of(caller: Caller) -> str:
    """The screen's text as one line of words, as a reader follows it across rows."""
    return " ".join(caller.display().split())


@pytest.mark.parametrize("size", [(40, 25), (132, 43)])
async def test_a_page_is_drawn_for_the_window(door, size):
    columns, rows = size
    caller = await Caller.connect(door.port, size=size)
    await caller.wait_for("Your alias")
    shown = caller.screen.display
    assert caller.row(rows - 1).startswith(" Your alias")  # the prompt on the last row but one
    assert all(row[-1] == " " for row in shown)  # the last column is never written
    assert WELCOME_END in words_of(caller)  # every word whole, wrapped at the width
    widest = max(len(row.rstrip()) for row in shown)
    assert widest > 80 if columns > 80 else widest <= columns - 1
    await caller.hang_up()


async def test_a_change_of_size_draws_the_page_again_keeping_what_was_typed(door):
    caller = await Caller.connect(door.port, size=(80, 24))
    await caller.wait_for("Your alias")
    await caller.type("Ali", enter=False)
    await caller.wait_for("Your alias \\(or NEW\\): Ali")
    caller.stream.feed("\x1b[2J")  # what a terminal showed may be lost as its window changes
    await caller.resize(44, 30)
    await caller.wait_for(WELCOME_END.split()[-1])
    assert caller.row(29) == " Your alias (or NEW): Ali"
    assert WELCOME_END in words_of(caller)
    assert all(row[-1] == " " for row in caller.screen.display)
    await caller.type("ce")
    await caller.wait_for("Sign up\\?")  # the alias is the whole of what was typed: Alice
    assert "Alice" in caller.display()
    await caller.hang_up()


async def test_a_window_too_small_is_told_what_it_needs_until_it_grows(door):
    caller = await Caller.connect(door.port, size=(30, 15))
    await caller.wait_for("needs a window")
    assert words_of(caller) == "This door needs a window of at least 40 columns and 20 rows."
    assert all(len(row.rstrip()) < 30 for row in caller.screen.display)
    await caller.resize(40, 20)  # the smallest window: the welcome takes two pages there
    await caller.wait_for(r"Canfield \(1/2\)")
    await caller.key(" ")
    await caller.wait_for("Your alias")
    assert "needs a window" not in caller.display()
    await caller.hang_up()


async def test_a_change_of_size_draws_the_board_again(door):
    caller = await sign_up(door)
    await start_deal(caller, DEAL)
    await caller.type("S", enter=False)  # half a command
    await caller.wait_for(r"Command \(\? for help\): S")
    caller.stream.feed("\x1b[2J")
    await caller.resize(100, 30)
    await caller.wait_for(r"Command \(\? for help\): S")
    assert re.search(r"Reserve", caller.display())
    assert "Level 2" in caller.row(1)
    await caller.resize(30, 15)
    await caller.wait_for("needs a window")
    await caller.resize(80, 24)
    await caller.wait_for(r"Command \(\? for help\): S")
    await caller.type("\x1b", enter=False)
    await caller.hang_up()
