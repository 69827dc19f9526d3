"""The door speaks German everywhere: a whole visit on a board whose sysop.toml says
``[words] language = "de"``, and the same for a caller who chose German on an English
board, in a phone's windows and the classic one, for UTF-8, CP437 and ASCII terminals.

On every screen kept: no English left (a text of the catalog, or a word German never uses),
every row within the window, no word cut (each word of a narrow window's pages is one the
classic window shows too), and on every board each key of the reminder with its words.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from door.views.commands import COMMANDS
from door.words import Catalogs, _, speaking
from tests.support.door_server import door_config, open_door
from tests.support.german import (
    GermanTour,
    connect,
    english_left,
    folded,
    german_sign_up,
    german_sysop_toml,
    german_visit,
    said,
    sysops_words,
)

CHARSETS = ("utf-8", "cp437", "ascii")
SIZES = ((40, 24), (40, 25), (80, 24))
PASSWORD = "geheim-eins1"
BOARD = re.compile(r"Reserve S\b")  # a board: its sidebar has a short form in a narrow window
GERMAN = Catalogs.read().words("de")
# The boards of the tour whose message leaves the columns' rows alone (a refusal's of three
# rows takes the last of them, on a narrow board, from the keys' reminder too).
BOARDS_AT_REST = ("a game one play from a win", "the board", "a play", "the play undone")


def problems_of(visit: GermanTour, size: tuple[int, int], ignore: frozenset[str]) -> list[str]:
    """What is wrong with the screens kept: English left on one (shown whole, the first
    time), a row reaching the window's last column."""
    found: list[str] = []
    shown_one = False
    for name, screen in visit.screens.items():
        english = english_left(screen, ignore)
        if english:
            found.append(f"{size}, {name}: English left: {english[:12]}")
            if not shown_one:
                found.append("\n".join(f"  |{row}|" for row in screen))
                shown_one = True
        wide = [row for row in screen if len(row) != size[0] or row[-1] != " "]
        if wide:
            found.append(f"{size}, {name}: rows past the window: {wide[:3]}")
        missing = keys_missing(screen) if name in BOARDS_AT_REST else []
        if missing:
            found.append(f"{size}, {name}: keys not reminded of: {missing}")
    return found


def keys_missing(screen: list[str]) -> list[str]:
    """The entries of the board's keys' reminder (in German, a key and its words) that no row
    of ``screen`` shows whole: those of every level (the tour's boards are level 2's, which
    offers no hints)."""
    with speaking(GERMAN):
        keys = [
            " ".join(_(command.reminder).split())
            for command in COMMANDS
            if command.reminder and not command.hints
        ]
    rows = [folded(" ".join(row.split())) for row in screen]
    return [
        key
        for key in keys
        if not any(re.search(rf"(^| ){re.escape(folded(key))}( |$)", row) for row in rows)
    ]


def page_words(visit: GermanTour) -> set[str]:
    """Every word on the pages kept (not the boards), each caller's alias as "Anrufer"."""
    text = "\n".join(
        row
        for screen in visit.screens.values()
        if not BOARD.search("\n".join(screen))
        for row in screen
    )
    return set(re.sub(r"Anrufer\d", "Anrufer", text).split())


def cut_words(visits: dict[tuple[int, int], GermanTour]) -> list[str]:
    """The words of the narrow windows' pages the classic window never shows: a word cut in
    two at the window's edge shows as two such."""
    classic = page_words(visits[80, 24])
    narrow = page_words(visits[40, 24]) | page_words(visits[40, 25])
    return sorted(word for word in narrow - classic if not re.fullmatch(r"\(\d+/\d+\)", word))


async def whole_visits(door, charset: str, visit) -> dict[tuple[int, int], GermanTour]:
    """``visit`` by a caller in each window at once, each with an alias of its own."""

    async def caller_in(size: tuple[int, int], number: int) -> GermanTour:
        return await visit(await connect(door, charset, size), f"Anrufer{number}")

    tours = await asyncio.gather(*(caller_in(size, n) for n, size in enumerate(SIZES)))
    return dict(zip(SIZES, tours, strict=True))


def check(door, visits: dict[tuple[int, int], GermanTour]) -> None:
    ignore = sysops_words(door.config)
    found = [
        problem for size, visit in visits.items() for problem in problems_of(visit, size, ignore)
    ]
    cut = cut_words(visits)
    if cut:
        found.append(f"words cut at the narrow window's edge: {cut[:20]}")
    if found:
        pytest.fail("\n".join(found), pytrace=False)


@pytest.mark.slow
@pytest.mark.parametrize("charset", CHARSETS)
async def test_a_whole_visit_on_a_german_board_is_in_german(tmp_path: Path, charset: str) -> None:
    door = await open_door(door_config(tmp_path, german_sysop_toml(tmp_path)))
    try:
        assert door.config.words.language == "de"

        async def visit(caller, alias: str) -> GermanTour:
            tour = GermanTour(caller)
            await german_sign_up(tour, alias, PASSWORD)
            await german_visit(door, tour, alias)
            return tour

        visits = await whole_visits(door, charset, visit)
        assert len(visits[80, 24].screens) > 25
        check(door, visits)
    finally:
        await door.close()


@pytest.mark.slow
@pytest.mark.parametrize("charset", CHARSETS)
async def test_a_caller_who_chose_german_on_an_english_board_reads_german(
    tmp_path: Path, charset: str
) -> None:
    door = await open_door(door_config(tmp_path))
    try:
        assert door.config.words.language == "en"

        async def visit(caller, alias: str) -> GermanTour:
            # Signed up in the board's English; German chosen; the next call logs in.
            await caller.wait_for("Your alias|Any key for more")
            if "Your alias" not in caller.display():
                await caller.key(" ")
                await caller.wait_for("Your alias")
            await caller.type(alias)
            await caller.wait_for(r"Sign\s+up\?")
            await caller.type("Y")
            await caller.wait_for("Password:")
            await caller.type(PASSWORD)
            await caller.wait_for(r"Password\s+again")
            await caller.type(PASSWORD)
            await caller.wait_for("Your choice")
            await caller.hang_up()
            user = await door.store.find_user(alias)
            await door.store.save_language(user.id, "de")
            again = await connect(door, charset, caller.size)
            await again.wait_for("Your alias|Any key for more")
            if "Your alias" not in again.display():
                await again.key(" ")
                await again.wait_for("Your alias")
            await again.type(alias)
            await again.wait_for(r"Password\s+for")  # still the board's English: not logged in
            await again.type(PASSWORD)
            tour = GermanTour(again)
            await tour.see("main menu", "Your choice")
            await german_visit(door, tour, alias)
            return tour

        check(door, await whole_visits(door, charset, visit))
    finally:
        await door.close()


# -- the check itself -----------------------------------------------------------------------


def test_english_left_on_a_screen_is_named_and_german_is_not() -> None:
    german = [" Hauptmenü", " Deine Wahl: ", " Drück eine Taste.", " Stufe 2 - Zoe", " UNDO"]
    assert english_left(german) == []
    english = [" Your choice: ", " Press any key to go on."]
    found = english_left(english)
    assert "Your" in found and "Press" in found
    assert english_left([" Goodbye."]) == ["Goodbye"]  # a catalog's text of one word
    assert english_left([" Level 1 - Draw one"], ignore=frozenset({"level", "draw", "one"})) == []


def test_a_text_is_waited_for_in_its_german() -> None:
    assert re.search(said("Goodbye."), "Auf Wiedersehen.")
    assert said("Plugh the xyzzy") == r"Plugh\s+the\s+xyzzy"  # in no text: as it is
