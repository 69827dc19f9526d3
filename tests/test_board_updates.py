"""The game board sent as changes only: after every command the caller's screen, read through
pyte, is the very screen a full redraw of the same board shows; and it costs few bytes."""

from __future__ import annotations

import asyncio
import copy
import statistics

import pyte
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansi.charset import CHARSETS, decode, encode
from ansi.screen import ScreenBuffer
from door.engine import Game, IllegalMove, Variant
from door.engine.status import Status
from door.views.board import (
    FIRST_COLUMN_ROW,
    LAST_COLUMN_ROW,
    MESSAGE,
    PROMPT,
    PROMPT_ROW,
    REFUSAL,
    BoardPainter,
    Look,
    card_text,
    draw_board,
)
from door.views.pointer import column_left, reminder_lines
from door.visit.play import PRACTICE_NOTE
from tests.support.strategies import variants
from tests.support.telnet_caller import Caller
from tests.support.visits import DEAL, sign_up, start_deal

PROMPT_COL = 2 + len(PROMPT)
PYTE_COLOURS = ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
GARBAGE = ("XX", "S 9", "9 F", "F", "U", "D 1", "1 2", "", "V V", "S F")


class Screen:
    """A caller's terminal in ``charset``, read through pyte."""

    def __init__(self, charset: str) -> None:
        self.charset = charset
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)
        self.bytes = 0

    def receive(self, text: str) -> None:
        data = encode(text, self.charset)
        self.bytes += len(data)
        self.stream.feed(decode(data, self.charset, glyphs=True))

    def looks(self) -> list[list[tuple[str, str, str, bool]]]:
        """Every cell as the caller sees it: a space shows only its background."""
        rows = []
        for row in range(24):
            cells = []
            for col in range(80):
                char = self.screen.buffer[row][col]
                bg = "black" if char.bg == "default" else char.bg
                if char.data == " ":
                    cells.append((" ", "", bg, False))
                else:
                    fg = "white" if char.fg == "default" else char.fg
                    cells.append((char.data, fg, bg, char.bold))
            rows.append(cells)
        return rows

    def cursor(self) -> tuple[int, int]:
        return self.screen.cursor.y + 1, self.screen.cursor.x + 1


def drawn(buffer: ScreenBuffer, charset: str) -> list[list[tuple[str, str, str, bool]]]:
    """Every cell as the buffer holds it, in the terms of :meth:`Screen.looks`."""
    rows = []
    for row in range(1, 25):
        cells = []
        for col in range(1, 81):
            char, style = buffer.cell_at(row, col)
            bg = PYTE_COLOURS[style.bg]
            if char == " ":
                cells.append((" ", "", bg, False))
            else:
                glyph = decode(encode(char, charset), charset, glyphs=True)
                cells.append((glyph, PYTE_COLOURS[style.fg], bg, style.bold))
        rows.append(cells)
    return rows


def redrawn(game: Game, look: Look, message: str, style, charset: str) -> Screen:
    """What a full redraw of the board shows on a fresh terminal."""
    buffer = ScreenBuffer(80, 24)
    draw_board(buffer, game, "Level 1 - Draw one", look, message, style)
    fresh = Screen(charset)
    fresh.receive(buffer.render_full())
    return fresh


def command_for(game: Game, choice: int, garbage: int) -> str:
    """A legal play picked by ``choice``, or (for a negative one) a likely refusal."""
    if choice < 0:
        return GARBAGE[garbage % len(GARBAGE)]
    legal = game.legal()
    return legal[choice % len(legal)] if legal else "V"


@settings(max_examples=60, deadline=None)
@given(
    variant=variants,
    deal=st.integers(0, 10_000),
    charset=st.sampled_from(CHARSETS),
    suit_letters=st.booleans(),
    echo=st.booleans(),
    steps=st.lists(
        st.tuples(st.integers(-3, 40), st.integers(0, 50), st.text("vsdf 123", max_size=6)),
        min_size=1,
        max_size=40,
    ),
)
@pytest.mark.slow
def test_every_update_shows_what_a_full_redraw_shows(
    variant, deal: int, charset: str, suit_letters: bool, echo: bool, steps: list
) -> None:
    game = Game.deal(variant, deal)
    look = Look(ansi=True, suit_letters=suit_letters)
    buffer = ScreenBuffer(80, 24)
    painter = BoardPainter()  # the board kept from play to play, as the door keeps it
    terminal = Screen(charset)
    message, style = f"Deal {deal}. Type ? for help.", MESSAGE
    painter.draw(buffer, game, "Level 1 - Draw one", look, message, style)
    terminal.receive(buffer.render_full())
    for choice, garbage, typed in steps:
        if game.status != Status.PLAYING:
            break
        command = command_for(game, choice, garbage)
        # The caller types at the prompt (with a slip rubbed out); the door echoes it, and
        # its Enter, or the caller's own terminal does and leaves the cursor who knows where.
        terminal.receive(typed + "\b \b" * min(len(typed), 1) + command)
        if echo:
            terminal.receive("\r\n")
            buffer.invalidate(PROMPT_ROW, PROMPT_COL)
            buffer.cursor_is_at(PROMPT_ROW + 1, 1)
        else:
            terminal.receive("\r\n\x1b[3;7H")
            buffer.invalidate(PROMPT_ROW, PROMPT_COL)
        try:
            result = game.play(command)
        except IllegalMove as refusal:
            message, style = str(refusal)[:76], REFUSAL
        else:
            sent = " ".join(card_text(card, look).strip() for card in result.sent_up)
            message, style = (f"Move {result.moves}: sent up {sent}" if sent else ""), MESSAGE
        painter.draw(buffer, game, "Level 1 - Draw one", look, message, style)
        terminal.receive(buffer.render_changes())
        full = redrawn(game, look, message, style, charset)
        assert terminal.looks() == full.looks() == drawn(buffer, charset), command
        assert terminal.cursor() == full.cursor() == (PROMPT_ROW, PROMPT_COL)
        assert not terminal.screen.cursor.hidden


def test_a_tall_column_folds_and_unfolds() -> None:
    """A column taller than its thirteen rows shows its bottom card, then how many cards
    are folded away, then its top eleven; as it grows and shrinks, every update shows what
    a full redraw shows."""
    game = Game.deal(Variant(columns=4), 5)
    cards = [*game.deck, *game.reserve]
    look = Look(suit_letters=True)
    buffer, painter, terminal = ScreenBuffer(80, 24), BoardPainter(), Screen("cp437")
    for height in (3, 13, 14, 30, 12, 0):
        tall = copy.copy(game)
        tall.tableau = [list(pile) for pile in game.tableau]
        tall.tableau[1] = cards[:height]
        painter.draw(buffer, tall, "Level 1 - Draw one", look, "", MESSAGE)
        terminal.receive(buffer.render_full() if height == 3 else buffer.render_changes())
        assert terminal.looks() == redrawn(tall, look, "", MESSAGE, "cp437").looks()
        left = column_left(2) - 1  # the second column's cards, 0-based
        column = [line[left : left + 3] for line in terminal.screen.display[FIRST_COLUMN_ROW - 1 :]]
        shown = [card_text(card, look) for card in cards[:height]]
        if height > 13:
            shown = [shown[0], f"+{height - 12:<2}", *shown[-11:]]
        if not height:
            shown = ["[ ]"]
        rows = LAST_COLUMN_ROW - FIRST_COLUMN_ROW + 1
        assert column[:rows] == shown + ["   "] * (rows - len(shown)), height


def test_a_deck_turn_costs_few_bytes() -> None:
    # Sixty turns of the deck, as a caller types them: echo, Enter, the update.
    game = Game.deal(Variant(), 7)
    look = Look()
    buffer = ScreenBuffer(80, 24)
    terminal = Screen("utf-8")
    draw_board(buffer, game, "Level 1 - Draw one", look, "Welcome.")
    terminal.receive(buffer.render_full())
    sizes = []
    for _ in range(60):
        before = terminal.bytes
        terminal.receive("V\r\n")
        buffer.invalidate(PROMPT_ROW, PROMPT_COL)
        buffer.cursor_is_at(PROMPT_ROW + 1, 1)
        game.play("V")
        draw_board(buffer, game, "Level 1 - Draw one", look)
        terminal.receive(buffer.render_changes())
        sizes.append(terminal.bytes - before)
    # A full redraw is about 800 bytes; resetting the colours and moving the cursor for
    # every run of changes cost over 100.
    assert statistics.median(sizes) <= 90


async def test_a_caller_over_telnet_sees_what_a_full_redraw_shows(door) -> None:
    # The door echoes the typing and its Enter, then sends only what changed: after every
    # command the caller's screen is the board a full redraw would draw, message and all.
    level = door.config.level(1)
    caller = await sign_up(door)
    await start_deal(caller, DEAL, "1")
    game = Game.deal(level.variant, DEAL)
    commands = ["V", "V", "XX", "V", "S 9", "V", *game.legal()[:1], "V", "V", "V"]
    for command in commands:
        try:
            result = game.play(command)
        except IllegalMove as refusal:
            message, style = str(refusal), REFUSAL
        else:
            sent = " ".join(card_text(card, Look()).strip() for card in result.sent_up)
            message, style = (f"Move {result.moves}: sent up {sent}" if sent else ""), MESSAGE
        await caller.type("abc\b\b\b" + command)
        expected = redrawn_screen(game, level.name, message, style, hints=level.hints != "off")
        await settled(caller, expected)
    await caller.hang_up()


def redrawn_screen(
    game: Game, level_name: str, message: str, style, *, hints: bool = False
) -> Screen:
    buffer = ScreenBuffer(80, 24)
    # A numbered deal is practice: its title and footnote say so.
    draw_board(
        buffer,
        game,
        level_name,
        Look(),
        message,
        style,
        caption=f"Practice deal {game.deal_number}",
        footnote=PRACTICE_NOTE,
        reminder=reminder_lines(len(game.tableau), hot=True, hints=hints),
    )
    fresh = Screen("utf-8")
    fresh.receive(buffer.render_full())
    return fresh


async def settled(caller: Caller, expected: Screen, timeout: float = 10.0) -> None:
    """Wait until the caller's screen is ``expected``, cell for cell, cursor and all."""
    shown = Screen("utf-8")
    shown.screen = caller.screen
    deadline = asyncio.get_running_loop().time() + timeout
    while shown.looks() != expected.looks() or shown.cursor() != expected.cursor():
        if asyncio.get_running_loop().time() > deadline:
            assert caller.display() == "\n".join(line.rstrip() for line in expected.screen.display)
            assert shown.looks() == expected.looks()
            assert shown.cursor() == expected.cursor()
        await asyncio.sleep(0.02)
