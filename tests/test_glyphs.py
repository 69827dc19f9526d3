"""Every glyph the door draws shows, in every charset it can choose and behind a BBS that
re-encodes its CP437 as UTF-8.

The door's screens are drawn for four callers at once: a UTF-8 terminal (the reference), a
CP437 terminal that draws the glyphs of bytes 1 to 31 (SyncTERM), a UTF-8 terminal behind a
board that re-encodes CP437 and passes the suits and ► on as control bytes (ENiGMA½), and an
ASCII terminal. Each goes through the same visit, screen by screen; wherever the reference
screen shows something, every other caller's screen shows something too: no suit, pointer,
frame or letter the door meant to draw is lost, and nothing after it shifts left.
"""

from __future__ import annotations

import asyncio
import random
import re

import pyte
import pytest

from ansi.charset import LOW_GLYPHS, decode, encode, plain_glyph
from ansi.screen import ScreenBuffer
from door.engine import Game, IllegalMove, Variant
from door.views.board import REFUSAL, Look, draw_board
from door.views.refusals import refusal_words
from tests.support.telnet_caller import Caller, DroppingCaller
from tests.support.tour import Tour, kind_of, tour
from tests.support.visits import DEAL

# Each charset the door can choose: how the caller is made, its terminal type and charset.
CALLERS = {
    "utf-8": (Caller, "xterm", "utf-8"),
    "cp437": (Caller, "syncterm", "cp437"),
    "cp437 behind a re-encoding board": (DroppingCaller, "ansi-bbs", "cp437"),
    "ascii": (Caller, "vt100", "ascii"),
}
REFERENCE = "utf-8"


async def tour_of(door, kind: str, alias: str) -> Tour:
    make, term, charset = CALLERS[kind]
    return await tour(door, await make.connect(door.port, term=term, charset=charset), alias)


def lost_cells(reference: list[str], shown: list[str]) -> list[tuple[int, int, str]]:
    """Cells (row, column, 1-based) the reference fills and ``shown`` leaves blank."""
    return [
        (row, col, char)
        for row, (wanted, seen) in enumerate(zip(reference, shown, strict=True), start=1)
        for col, (char, got) in enumerate(zip(wanted, seen, strict=True), start=1)
        if char != " " and got == " "
    ]


@pytest.mark.slow
async def test_every_screen_keeps_every_cell_in_every_charset(door):
    tours = await asyncio.gather(
        *(tour_of(door, kind, f"Caller{index}") for index, kind in enumerate(CALLERS, start=1))
    )
    by_kind = dict(zip(CALLERS, tours, strict=True))
    reference = by_kind[REFERENCE].screens
    assert len(reference) > 30
    # The reference draws what this test is about: suits, the pointer, the banner's frame.
    assert "►" in "".join(reference["the pointer on 2"])
    assert any("♥" in row for row in reference["the win banner"][11:16])
    assert any(re.search("the [♣♦♥♠] foundation", "".join(screen)) for screen in reference.values())
    problems = []
    for kind, visit in by_kind.items():
        assert visit.screens.keys() == reference.keys(), kind
        for name, screen in visit.screens.items():
            lost = lost_cells(reference[name], screen)
            if lost:
                rows = sorted({row for row, _, _ in lost})[:3]
                shown = [f"  ref {reference[name][r - 1]!r}\n  got {screen[r - 1]!r}" for r in rows]
                problems.append(f"{kind}, {name}: {len(lost)} cells lost, first {lost[:4]}:")
                problems.extend(shown)
    assert not problems, "\n".join(problems)
    # Behind the re-encoding board, the suits and the pointer are letters and '>'.
    relayed = by_kind["cp437 behind a re-encoding board"].screens
    assert ">" in relayed["the pointer on 2"][7]
    assert any("HDCS" in row for row in relayed["the win banner"][11:16])


# -- every refusal the engine gives, drawn for each charset --------------------------------------


def each_kind_of_refusal() -> list[IllegalMove]:
    """One refusal of each kind, found by trying every command along many games."""
    variants = [
        Variant(),
        Variant(draw=1, passes=1, undo="none"),
        Variant(moves="partial", spaces="manual", base="choose", spaces_after_reserve="king"),
        Variant(spaces_after_reserve="waste", undo="one", wrap="broken"),
        Variant(moves="whole", reserve_size=1),
    ]
    commands = ["V", "S F", "D F", "S 9", "XX"]
    commands += [f"{source} {target}" for source in "SD1234" for target in "F1234"]
    commands += ["U", "F"]  # last: they may be played, which the legal plays do not list
    found: dict[str, IllegalMove] = {}
    chooser = random.Random(21)
    for variant in variants:
        for number in range(1, 13):
            game = Game.deal(variant, number)
            for _ in range(50):
                legal = set(game.legal())
                for command in commands:
                    if command in legal or game.status != "playing":
                        continue  # a legal play is never refused
                    try:
                        game.play(command)  # U or F, which the legal plays do not list
                    except IllegalMove as refusal:
                        found.setdefault(kind_of(refusal), refusal)
                    else:
                        legal = set(game.legal())
                if not legal or game.status != "playing":
                    break
                game.play(chooser.choice(sorted(legal)))
    return list(found.values())


def screen_of(data: bytes, relay: bool, charset: str) -> list[str]:
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    if relay:  # the board re-encodes CP437 as UTF-8; 0x01-0x1F draw nothing on the way
        stream.feed(data.translate(None, bytes(range(3, 7))).decode("cp437"))
    elif charset == "utf-8":
        stream.feed(data.decode("utf-8"))
    else:
        stream.feed(decode(data, charset, glyphs=True))
    return list(screen.display)


@pytest.mark.slow
def test_every_refusal_keeps_its_suits_in_every_charset():
    refusals = each_kind_of_refusal()
    texts = [str(refusal) for refusal in refusals]
    assert len(refusals) >= 15, texts
    assert any("foundation needs" in text for text in texts)
    assert any("foundation starts with" in text for text in texts)
    assert any("can't go on" in text for text in texts)
    game = Game.deal(Variant(), DEAL)
    # How the door draws for each charset: the look its visit takes, and whether the
    # terminal was seen drawing CP437's glyphs for bytes 1 to 31.
    ways = {
        "utf-8": (Look(), "utf-8", True, False),
        "cp437": (Look(), "cp437", True, False),
        "cp437 behind a re-encoding board": (Look(suit_letters=True), "cp437", False, True),
        "ascii": (Look(), "ascii", True, False),
    }
    for refusal in refusals:
        drawn = {}
        for kind, (look, charset, low_glyphs, relay) in ways.items():
            buffer = ScreenBuffer(80, 24)
            draw_board(buffer, game, "Level 2", look, refusal_words(refusal, look), REFUSAL)
            data = encode(buffer.render_full(), charset, low_glyphs=low_glyphs)
            drawn[kind] = screen_of(data, relay, charset)
        for kind, screen in drawn.items():
            lost = lost_cells(drawn["utf-8"], screen)
            assert not lost, (str(refusal), kind, lost, screen[21])


def test_every_control_range_glyph_has_a_stand_in_that_shows():
    for glyph in LOW_GLYPHS:
        stand_in = plain_glyph(glyph)
        assert stand_in.isascii() and stand_in.isprintable() and stand_in not in " ?", glyph
        assert encode(glyph, "utf-8", low_glyphs=False) == stand_in.encode(), glyph
        # CP437 has a glyph of its own for a few (• is ∙ there): one byte, never a control.
        sent = encode(glyph, "cp437", low_glyphs=False)
        assert len(sent) == 1 and sent[0] >= 0x20, glyph
