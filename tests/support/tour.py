"""A caller's tour of every screen of a visit, each kept as their terminal shows it.

The screens a visit passes through, in one walk: the welcome, signing up, the main menu, a
won game and its banner, a practice deal (the pointer on each pile, a card held, each kind of
refusal, a half-typed command, the help page), the rules page by page, the terminal
settings, the scoreboards and statistics, goodbye.
"""

from __future__ import annotations

import asyncio
import re

from door.engine import Game, IllegalMove
from door.levels import SHIPPED_LEVELS
from tests.support.telnet_caller import Caller
from tests.support.visits import DEAL, sign_up_on
from tests.support.winning import saved_one_play_from_a_win

DOWN, RIGHT, LEFT = "\x1b[B", "\x1b[C", "\x1b[D"
QUIET = 0.3  # seconds without a byte after which a screen is taken as drawn


async def quiet(caller: Caller, since: int | None = None, timeout: float = 15.0) -> None:
    """Wait for the door to finish drawing: bytes came after ``since`` (if given), then none
    for a while."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while since is not None and len(caller.received) == since:
        assert loop.time() < deadline, "the door sent nothing"
        await asyncio.sleep(0.02)
    seen = len(caller.received)
    while True:
        await asyncio.sleep(QUIET)
        if len(caller.received) == seen or loop.time() > deadline:
            return
        seen = len(caller.received)


class Tour:
    """One caller's way through the door, keeping each screen as their terminal shows it."""

    def __init__(self, caller: Caller) -> None:
        self.caller = caller
        self.screens: dict[str, list[str]] = {}

    def keep(self, name: str) -> None:
        self.screens[name] = list(self.caller.screen.display)

    async def wait(self, name: str, pattern: str) -> None:
        await self.caller.wait_for(pattern, timeout=20)
        await quiet(self.caller)
        self.keep(name)

    async def pages(self, name: str, title: str) -> None:
        """Keep each page of a text under ``title``: ``name`` if it takes one page, else
        ``name`` and each page's number, a key moving on to the next; the caller is left on
        the last."""
        numbered = re.escape(title) + r" \((\d+)/(\d+)\)"
        shown = await self.caller.wait_for(re.escape(title))
        while True:
            found = re.search(numbered, shown)
            if found is None:
                await self.wait(name, re.escape(title))
                return
            page, pages = map(int, found.groups())
            await self.wait(f"{name} {page}", rf"{re.escape(title)} \({page}/")
            if page == pages:
                return
            await self.caller.key(" ")
            shown = await self.caller.wait_for(rf"{re.escape(title)} \({page + 1}/")

    async def press(self, name: str | None, data: str) -> None:
        since = len(self.caller.received)
        await self.caller.key(data)
        await quiet(self.caller, since)
        if name:
            self.keep(name)


def kind_of(refusal: IllegalMove) -> str:
    """A refusal with its cards, suits, ranks and numbers left out."""
    return re.sub(r"[A2-9TJQK][♣♦♥♠]|[♣♦♥♠]|\b(?:10|\d|[AJQK])\b|(?<=\")\w+", "#", str(refusal))


def refused_commands() -> list[str]:
    """Commands the practice deal refuses at its start, one of each kind of refusal."""
    game = Game.deal(SHIPPED_LEVELS[1].variant, DEAL)
    kinds: dict[str, str] = {}
    candidates = ["U", "F", "D 1", "S 9", "XX", "1 1"]
    candidates += [f"{source} {target}" for source in "S1234" for target in "F1234"]
    for command in candidates:
        try:
            game.play(command)
        except IllegalMove as refusal:
            kinds.setdefault(kind_of(refusal), command)
        else:
            game = Game.deal(game.variant, DEAL)
    return list(kinds.values())


# The main menu's other pages: the key, the page's name (None: not kept) and what it shows.
MENU_PAGES = (
    ("T", "terminal settings", "Terminal settings"),
    ("Q", None, "Your choice"),
    ("S", "scoreboards", "Which board"),
    ("1", "high scores", "High scores - "),
    (" ", None, "Which board"),
    ("A", "standings", "Won %"),
    (" ", None, "Which board"),
    ("Q", None, "Your choice"),
    ("M", "statistics", "Your statistics"),
    ("Q", None, "Your choice"),
)


async def tour(door, caller: Caller, alias: str, *, games: bool = True) -> Tour:
    """``caller``'s way through every screen of a visit, from the welcome to goodbye: signing
    up, a won game and its banner, a practice deal (the pointer on each pile, a card held,
    each kind of refusal, a half-typed command, the help), the rules page by page and the
    main menu's other pages; without ``games``, the pages alone."""
    visit = Tour(caller)
    await visit.pages("welcome", "Canfield")
    await sign_up_on(caller, alias)
    await visit.wait("main menu", "Your choice")
    if games:
        await _games(door, caller, alias, visit)
    await _menu_pages(caller, visit)
    return visit


async def _games(door, caller: Caller, alias: str, visit: Tour) -> None:

    # A won game: the last play of a winning line, then the banner.
    _game, last = await saved_one_play_from_a_win(door, alias)
    await caller.key("X")
    await visit.wait("main menu with a saved game", "Resume your saved game")
    await caller.key("R")
    await visit.wait("a game one play from a win", r"Command \(\? for help\)")
    await caller.type(last)
    await visit.wait("the win banner", "You won!")
    await caller.key("\r")
    await visit.wait("main menu after a win", "Well played")

    # A practice deal: the pointer on each pile, a card held, each refusal, a half command.
    await caller.key("#")
    await visit.wait("deal number", "Deal number")
    await caller.type(str(DEAL))
    await visit.wait("levels", "Choose a level")
    await caller.key("\r")
    await visit.wait("the board", r"Command \(\? for help\)")
    for pile, key in zip("SVDF4321", [RIGHT] * 4 + [DOWN] + [LEFT] * 3, strict=True):
        await visit.press(f"the pointer on {pile}", key)
    await visit.press("column 1's card held", " ")
    await visit.press(None, "\x1b")  # put back
    for command in refused_commands():
        await visit.press(f"the refusal of {command}", command + "\r")
    await visit.press("a half-typed command", "S")
    await visit.press(None, "\x7f")
    await caller.key("?")
    await visit.pages("help", "Canfield commands")
    await caller.key("\r")
    await caller.wait_for(r"Command \(\? for help\)")
    await caller.key("Q")
    await visit.wait("main menu with the deal saved", "Your game is saved")


async def _menu_pages(caller: Caller, visit: Tour) -> None:
    """The pages of the main menu, then goodbye."""
    await caller.key("I")
    await visit.pages("rules page", "The rules of Canfield")
    await caller.key(" ")
    await caller.wait_for("Your choice")
    for key, name, pattern in MENU_PAGES:
        await caller.key(key)
        if name:
            await visit.wait(name, pattern)
        else:
            await caller.wait_for(pattern)
    await caller.key("G")
    await caller.wait_closed()
    visit.keep("goodbye")
