"""Every window, from a phone's to a wall's: screens drawn for the size the caller has, and
drawn again when it changes."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.support.telnet_caller import Caller
from tests.support.tour import Tour, tour
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


# -- every screen of a visit, in every window ---------------------------------------------------

# The callers: terminal type and charset.
CHARSETS = {"utf-8": "xterm", "cp437": "syncterm", "ascii": "vt100"}
# The windows: a phone's, the classic, a wide one; the classic's words are the reference.
SIZES = ((40, 25), (80, 24), (132, 43))
# What a page's title says of its number, which the windows differ in.
PAGE_NUMBER = re.compile(r"^\(\d+/\d+\)$")


def screen_words(visit: Tour, size: tuple[int, int]) -> set[str]:
    """Every word on the screens the caller kept, or, for a plain caller (whose pages
    scroll), in everything they were sent; each caller's alias as "Caller"."""
    if visit.caller.ansi:
        text = "\n".join(row for screen in visit.screens.values() for row in screen)
    else:
        text = visit.caller.text
    return set(re.sub(r"Caller\d", "Caller", text).split())


def overflowing(visit: Tour, size: tuple[int, int]) -> list[str]:
    """The rows, of the screens kept or (plain callers) of every line sent, that reach the
    window's last column or past it: the door never writes there (a terminal may wrap)."""
    columns = size[0]
    if not visit.caller.ansi:
        lines = visit.caller.text.replace("\r", "").split("\n")
        return [line for line in lines if len(line.rstrip()) >= columns]
    return [
        f"{name}: {row!r}"
        for name, screen in visit.screens.items()
        for row in screen
        if len(row) != columns or row[-1] != " "
    ]


@pytest.mark.slow
@pytest.mark.parametrize("charset", CHARSETS)
async def test_every_page_of_a_visit_fits_the_window_and_cuts_no_word(door, charset):
    async def visit_in(size: tuple[int, int], alias: str) -> Tour:
        caller = await Caller.connect(
            door.port, term=CHARSETS[charset], charset=charset, ansi=charset != "ascii", size=size
        )
        return await tour(door, caller, alias, games=False)

    tours = await asyncio.gather(
        *(visit_in(size, f"Caller{index}") for index, size in enumerate(SIZES, start=1))
    )
    by_size = dict(zip(SIZES, tours, strict=True))
    reference = screen_words(by_size[80, 24], (80, 24))
    for size, visit in by_size.items():
        assert not overflowing(visit, size), (size, overflowing(visit, size)[:5])
        words = screen_words(visit, size)
        cut = {word for word in words - reference if not PAGE_NUMBER.match(word)}
        assert not cut, (size, sorted(cut)[:20])  # a word cut would be two new ones
    wide = by_size[132, 43]
    if charset != "ascii":  # the rules are laid out in the whole width
        rules = [
            row
            for name, screen in wide.screens.items()
            if name.startswith("rules")
            for row in screen
        ]
        assert max(len(row.rstrip()) for row in rules) > 100
