"""One game on a caller's screen: command -> engine -> store -> screen.

Every accepted play is committed to the store before the caller sees its result, so a
dropped line or a killed server never loses a play the caller has seen.

Why one module, however long: it is one loop, a key to the engine to the store to the
screen, and each step (a play, a refusal, a hint, the game's end) works on the one
:class:`GameScreen`, which its :class:`Presentation` shows (the ANSI board, plain text, or a
line per play); the keys themselves are read in :mod:`door.visit.keys`, and the commands are
listed in :mod:`door.views.commands`, with the name of each one's handler here.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from ansi.art import Art
from ansi.keys import Key
from ansi.screen import ScreenBuffer
from ansi.text import sanitize
from door.engine import Game, IllegalMove, PlayResult
from door.engine.status import Status
from door.fairness import seal
from door.levels import Level
from door.store import GameRecord, StoreError, StoreFault
from door.views.board import (
    GOOD_NEWS,
    INFO,
    MESSAGE,
    PROMPT,
    REFUSAL,
    BoardPainter,
    Geometry,
    Look,
    card_text,
    columns_needed,
    draw_banner,
    geometry,
    notice_text,
    plain_lines,
)
from door.views.commands import PLAY, command_of, spelled
from door.views.pages import status_word
from door.views.pointer import draw_pointer, reminder_lines
from door.views.refusals import refusal_words
from door.views.terse import Sight, describe_play, pile_text, sight, status_text
from door.views.texts import RESIGN_HELP, help_lines
from door.visit.advice import Hinter, was_it_winnable
from door.visit.art import art_for
from door.visit.context import Visit
from door.visit.faults import fault_words, log_fault
from door.visit.keys import COMMAND_LENGTH, BoardKeys, Step
from door.visit.screens import show_lines
from door.words import N_, _, ngettext, speaking

log = logging.getLogger("door")

WORD_WAIT = 0.6  # seconds a complete command waits for a key that would make it longer
FINISH_STEP_SECONDS = 0.12  # pause between cards when the door plays the last cards up

PRACTICE_NOTE = N_("Practice: this game never reaches the scoreboards.")
# TRANSLATORS: the prompt of a game shown a line per play: keep it short.
TERSE_PROMPT = N_("Command: ")
GO_ON = N_("Press Enter to go on. ")


def not_saved(fault: StoreFault) -> str:
    """What the caller reads when a play could not be stored."""
    return _("Your play could not be saved ({why}): the game is as it was.").format(
        why=fault_words(fault)
    )


RESIGN_FOR_NEW = N_("Resign this game and deal a new one? (Y/N) ")


@dataclass(frozen=True, slots=True)
class GameTerms:
    """What a game's screen allows beyond the level's rules. The default is an ordinary
    game; a contest's game sets all of them, each text in the caller's words:

    - ``no_hints``: why HINT is refused ("" lets the level's hints be asked);
    - ``sealed_until``: shown in place of the deal once the game is over, while the deal
      must stay secret still ("" shows the deal and salt at the end);
    - ``closes`` and ``closed``: when an unfinished game ends as resigned, and what the
      caller is told then (as a deal of the day's game ends with its day);
    - ``resign``: the question that confirms N ("": an ordinary game's,
      :data:`RESIGN_FOR_NEW`), and ``resign_help`` what the help says N does (or a text
      marked with ``N_``, as the help's own ``RESIGN_HELP``);
    - ``won``: what a win says in place of its place on the level's high scores;
    - ``seal``: the deal's seal as published elsewhere (a league contest's, by its hub,
      whose salt the board learns only at the close); None: worked out from the game's salt;
    - ``most_plays``: the plays the game may have (a league game's, that its result can be
      sent), when it ends as resigned, and ``most_plays_told``, what the caller is told then.
    """

    no_hints: str = ""
    sealed_until: str = ""
    closes: datetime | None = None
    closed: str = ""
    resign: str = ""
    resign_help: str = RESIGN_HELP
    won: str = ""
    seal: str | None = None
    most_plays: int | None = None
    most_plays_told: str = ""


ORDINARY = GameTerms()


@dataclass(frozen=True, slots=True)
class GameLabels:
    """What the game screen says of the game itself, never its deal while it is scored and
    being played: ``caption`` (the title's right), ``footnote`` (the row under the
    columns) and how the game starts (``opening``)."""

    caption: str
    footnote: str
    opening: str


def labels_of(record: GameRecord, game: Game, terms: GameTerms = ORDINARY) -> GameLabels:
    """The words for a game: a scored game by its number and seal until it ends, then its
    deal and salt (or, under ``terms.sealed_until``, still its seal); a practice game by its
    deal from the start."""
    deal = game.deal_number
    if record.practice:
        if deal is None:
            name = _("Practice, dealt by hand")
        else:
            name = _("Practice deal {deal}").format(deal=deal)
        return GameLabels(name, _(PRACTICE_NOTE), f"{name}.")
    # TRANSLATORS: the right of the game's title row, beside the level's name.
    caption = _("Game {number}").format(number=record.id)
    if game.status != Status.PLAYING and deal is not None and not terms.sealed_until:
        if record.salt:
            footnote = _("Deal {deal}  salt {salt}").format(deal=deal, salt=record.salt)
        else:
            footnote = _("Deal {deal}").format(deal=deal)
        return GameLabels(caption, footnote, f"{caption}.")
    if terms.seal is not None:
        sealed = terms.seal
    elif record.salt is None or deal is None:
        return GameLabels(caption, "", f"{caption}.")
    else:
        sealed = seal(deal, record.salt)
    if terms.sealed_until:
        # TRANSLATORS: under the columns; a board of 40 columns shows only
        # the first 37 characters: keep {seal} (32) in them. {when}: "at the close".
        footnote = _("Seal {seal} (deal and salt shown {when})")
        footnote = footnote.format(seal=sealed, when=terms.sealed_until)
    else:
        # TRANSLATORS: under the columns; a board of 40 columns shows only
        # the first 37 characters: keep {seal} (32) in them.
        footnote = _("Seal {seal} (deal and salt shown at the end)").format(seal=sealed)
    return GameLabels(caption, footnote, f"{caption}.")


@dataclass(frozen=True, slots=True)
class GameExit:
    """How a game screen ended: ``next_deal`` when the caller resigned for a new deal;
    ``practice`` for a game that is not scored."""

    status: Status
    next_deal: bool = False
    practice: bool = False


class Presentation(Protocol):
    """How a game is shown: the ANSI board kept up to date (:class:`AnsiBoard`), the plain
    board printed whole after each play (:class:`PlainBoard`), or a line per play
    (:class:`LinePerPlay`). Chosen once from the caller's look (:func:`presentation_for`),
    and again when the look changes; the board is painted in the screen's buffer for each,
    which then sends what it shows of it."""

    #: The arrows and the mouse work on it.
    pointer: bool
    #: Commands come a line at a time, each play told in a line; the whole board is shown
    #: when the game ends, not again when a page over it (help) is left.
    in_lines: bool
    #: Added to the game's first message (a text for the catalog; "": nothing).
    opening_hint: str

    def reminder(self, screen: GameScreen) -> tuple[str, ...]:
        """The keys' reminder drawn with the board."""
        ...

    def send(self, screen: GameScreen, shown: Game, *, full: bool) -> None:
        """Send what the caller sees of the painted board (``shown``): ``full``, all of it."""
        ...

    def show_typing(self, screen: GameScreen) -> None:
        """Show what the caller has typed so far."""
        ...

    def replay(self, screen: GameScreen) -> str:
        """The board as the caller sees it now, whole."""
        ...

    def erase_typing(self, screen: GameScreen, *, line: bool) -> None:
        """Have the next draw clear what the caller typed after the prompt."""
        ...

    def notice(self, screen: GameScreen, text: str) -> str:
        """What to send for a notice that comes between plays."""
        ...

    def before_play(self, game: Game) -> Sight | None:
        """What a play's line will be told against: the board before it (None: no line)."""
        ...

    async def finish(self, visit: Visit, screen: GameScreen, result: PlayResult) -> None:
        """Show the cards the door plays up at the end."""
        ...

    def answered(self, visit: Visit, answer: str) -> None:
        """A question on the prompt row was answered with ``answer``."""
        ...


def _plain_page(screen: GameScreen) -> str:
    return "\r\n" + "\r\n".join(plain_lines(screen.buffer)) + " "


class AnsiBoard:
    """The ANSI board, drawn in place: only what changed is sent after a play."""

    pointer = True
    in_lines = False
    opening_hint = ""

    def __init__(self) -> None:
        # Where the terminal's cursor is between draws, when the door knows.
        self.cursor_at: tuple[int, int] | None = None

    def reminder(self, screen: GameScreen) -> tuple[str, ...]:
        hints = screen.level.hints != "off"
        columns, width = len(screen.game.tableau), screen.geometry.reminder_width
        return reminder_lines(columns, hot=screen.keys.hot, hints=hints, width=width)

    def send(self, screen: GameScreen, shown: Game, *, full: bool) -> None:
        buffer, keys = screen.buffer, screen.keys
        whole = shown.variant.moves == "whole"
        draw_pointer(buffer, shown, screen.look, keys.pointer, keys.held, whole)
        typed = keys.prompt_text()
        if typed:
            row, col = buffer.cursor
            buffer.set_cursor(row, buffer.put(row, col, typed, INFO))
        if self.cursor_at is not None:
            buffer.cursor_is_at(*self.cursor_at)
        screen.visit.terminal.write(buffer.render_full() if full else buffer.render_changes())
        self.cursor_at = buffer.cursor

    def show_typing(self, screen: GameScreen) -> None:
        screen.draw()  # in the prompt

    def replay(self, screen: GameScreen) -> str:
        return screen.buffer.render_copy()

    def erase_typing(self, screen: GameScreen, *, line: bool) -> None:
        """After a ``line`` that this end echoed, the Enter left the cursor at the start of
        the next row; a key is not echoed at all. A terminal that echoes by itself could
        have put the cursor anywhere."""
        echoed = screen.visit.terminal.echo
        if echoed and not line:
            return
        row, col = screen.buffer.cursor
        screen.buffer.invalidate(row, col)
        self.cursor_at = (row + 1, 1) if echoed and row < screen.buffer.height else None

    def notice(self, screen: GameScreen, text: str) -> str:
        # The board's message now, which the next draw keeps, in the colours notice_text
        # draws it in at once: one style from the first.
        screen.say(text, MESSAGE)
        buffer = screen.buffer
        g = screen.geometry
        buffer.invalidate(g.message_row)
        row = buffer.cursor[0]
        self.cursor_at = None  # at the prompt, or after the typing echoed there
        return notice_text(text, g.message_row, g.width) + buffer.render_rows(range(row, row + 1))

    def before_play(self, game: Game) -> Sight | None:
        return None

    async def finish(self, visit: Visit, screen: GameScreen, result: PlayResult) -> None:
        await _play_up(visit, screen, result)

    def answered(self, visit: Visit, answer: str) -> None:
        return None


class PlainBoard:
    """The board in plain text, printed whole after each play."""

    pointer = False
    in_lines = False
    opening_hint = ""

    def __init__(self) -> None:
        self.echoed = ""  # what the caller has been shown of their typing

    def reminder(self, screen: GameScreen) -> tuple[str, ...]:
        return ()

    def send(self, screen: GameScreen, shown: Game, *, full: bool) -> None:
        screen.visit.terminal.write(_plain_page(screen))
        self.echoed = ""

    def show_typing(self, screen: GameScreen) -> None:
        """Echo the typing, as what changed since the last echo."""
        screen.owes_typing = False
        terminal = screen.visit.terminal
        typed = screen.keys.typed
        if not terminal.echo:
            self.echoed = typed
            return
        old = self.echoed
        common = 0
        while common < min(len(old), len(typed)) and old[common] == typed[common]:
            common += 1
        terminal.write("\b \b" * (len(old) - common) + typed[common:])
        self.echoed = typed

    def replay(self, screen: GameScreen) -> str:
        return _plain_page(screen)

    def erase_typing(self, screen: GameScreen, *, line: bool) -> None:
        return None

    def notice(self, screen: GameScreen, text: str) -> str:
        return f"\r\n{text}\r\n{screen.visit.terminal.prompt}"

    def before_play(self, game: Game) -> Sight | None:
        return None

    async def finish(self, visit: Visit, screen: GameScreen, result: PlayResult) -> None:
        return None

    def answered(self, visit: Visit, answer: str) -> None:
        return None


class LinePerPlay:
    """The game a line per play: the message alone on a line of its own, then a short
    prompt; the whole board (in plain text) only when asked for, and at the end."""

    pointer = False
    in_lines = True
    # The prompt says "? for help" on a board; this prompt is too short to.
    opening_hint = N_("Type ? for help.")

    def reminder(self, screen: GameScreen) -> tuple[str, ...]:
        return ()

    def send(self, screen: GameScreen, shown: Game, *, full: bool) -> None:
        prompt = _(TERSE_PROMPT) if screen.prompt == PROMPT else screen.prompt
        if full:
            board = plain_lines(screen.buffer)[:-1]  # the short prompt stands for the board's
            screen.visit.terminal.write("\r\n" + "\r\n".join(board) + "\r\n" + prompt)
        else:
            message = screen.message
            screen.visit.terminal.write((f"{message}\r\n" if message else "") + prompt)

    def show_typing(self, screen: GameScreen) -> None:
        screen.owes_typing = False  # lines are read, and echoed, by the terminal

    def replay(self, screen: GameScreen) -> str:
        return _plain_page(screen)

    def erase_typing(self, screen: GameScreen, *, line: bool) -> None:
        return None

    def notice(self, screen: GameScreen, text: str) -> str:
        return f"\r\n{text}\r\n{screen.visit.terminal.prompt}"

    def before_play(self, game: Game) -> Sight | None:
        return sight(game)

    async def finish(self, visit: Visit, screen: GameScreen, result: PlayResult) -> None:
        return None

    def answered(self, visit: Visit, answer: str) -> None:
        visit.terminal.write(f"{answer.strip()}\r\n")  # the answer on the question's line


def presentation_for(look: Look) -> Presentation:
    """How a caller with ``look`` is shown a game."""
    if look.terse:
        return LinePerPlay()
    return AnsiBoard() if look.ansi else PlainBoard()


class GameScreen:
    """The board of one game on one caller's terminal, as their :class:`Presentation` shows
    it."""

    def __init__(
        self,
        visit: Visit,
        level: Level,
        game: Game,
        record: GameRecord,
        terms: GameTerms = ORDINARY,
    ) -> None:
        self.visit = visit
        self.level = level
        self.game = game
        self.record = record
        self.terms = terms
        self.buffer = ScreenBuffer(80, 24)
        self.painter = BoardPainter()  # the board kept from play to play: the buffer's rows
        self.message = ""
        self.message_style = MESSAGE
        self.prompt = PROMPT  # one question at a time: the command prompt, or what is asked
        self.banner: tuple[str, ...] = ()  # drawn across the middle of the board (a win)
        self.banner_art: Art | None = None  # the sysop's own, instead
        self.hinter = Hinter(level, visit.solving)
        self.shown = presentation_for(visit.look)
        self.keys = BoardKeys(
            hot=visit.hot_keys, pointer=self.shown.pointer, columns=len(game.tableau)
        )
        # Owed to the caller once no more keys wait: the board, or what they typed. A run of
        # keys sent at once is answered with one draw, not one a key.
        self.owes_draw = False
        self.owes_typing = False
        self.told_too_small = False  # the window was too small for the board when drawn

    @property
    def look(self) -> Look:
        return self.visit.look

    def look_changed(self) -> None:
        """The caller's look changed (the ANSI command): show the game as it says now."""
        self.shown = presentation_for(self.look)
        self.keys.pointer_allowed = self.shown.pointer
        self.keys.pointer = self.keys.held = None

    def draw(self, game: Game | None = None, *, full: bool = False) -> None:
        """Paint the board (``game``: a frame of the game instead of it) and send what the
        presentation shows of it: ``full``, all of it."""
        self.owes_draw = self.owes_typing = False
        fits = self.fit()
        if fits is None:
            columns = columns_needed(len(self.game.tableau))
            self.visit.show_too_small(None if self.visit.too_small else columns)
            self.told_too_small = True
            return
        if self.told_too_small or fits:
            self.told_too_small, full = False, True
        labels = labels_of(self.record, self.game, self.terms)
        shown = game or self.game
        self.painter.draw(
            self.buffer,
            shown,
            self.level.name,
            self.look,
            self.message,
            self.message_style,
            self.prompt,
            caption=labels.caption,
            footnote=labels.footnote,
            reminder=self.shown.reminder(self),
        )
        if self.banner:
            draw_banner(self.buffer, self.banner, self.look, self.banner_art, self.geometry)
        self.shown.send(self, shown, full=full)

    @property
    def geometry(self) -> Geometry:
        """Where the board's parts are on the caller's screen."""
        return self.keys.geometry

    def fit(self) -> bool | None:
        """Fit the board to the caller's window: True if its screen changed size (to be
        drawn whole), None if the window has no room for it."""
        look, columns = self.look, len(self.game.tableau)
        fitted = None if self.visit.too_small else geometry(look.width, look.height, columns)
        if fitted is None:
            return None
        if (self.buffer.width, self.buffer.height) == (fitted.width, fitted.height):
            return False
        self.keys.geometry = fitted
        self.buffer = ScreenBuffer(fitted.width, fitted.height)
        self.painter = BoardPainter()
        self.shown = presentation_for(look)  # nothing kept of where the old screen was
        return True

    def resized(self) -> None:
        """The caller's window changed size: the board drawn again, whole (in the caller's
        language: the terminal calls this from the connection's code, not the visit's)."""
        with speaking(self.visit.terminal.words):
            self.draw(full=True)

    def settle(self) -> None:
        """Send what is owed (:attr:`owes_draw`, :attr:`owes_typing`), and tell the caller of
        commands dropped as too many (``CommandPace.may_act``)."""
        dropped = self.visit.terminal.pace.take_dropped()
        if dropped:
            dropped_text = ngettext(
                "Keys came faster than the door can answer: a command dropped.",
                "Keys came faster than the door can answer: {count} commands dropped.",
                dropped,
            )
            self.say(dropped_text.format(count=dropped), REFUSAL)
            self.owes_draw = True
        if self.owes_draw:
            self.draw()
        elif self.owes_typing:
            self.show_typing()

    def show_typing(self) -> None:
        """Show what the caller has typed so far: in the prompt (ANSI), or as an echo."""
        self.shown.show_typing(self)

    def replay(self) -> str:
        """The board as the caller sees it now, whole (for the sysop who starts watching)."""
        return self.shown.replay(self)

    def tell_sysop(self) -> None:
        """Say what the caller is doing, for the sysop's view of the nodes."""
        self.visit.doing(f"playing level {self.level.number}, move {self.game.moves}")

    def say(self, text: str, style=MESSAGE) -> None:
        self.message, self.message_style = text, style

    def erase_typing(self, *, line: bool = True) -> None:
        """Have the next draw clear what the caller typed after the prompt (on a board drawn
        in place; ``line``: it was a line, not a key)."""
        self.shown.erase_typing(self, line=line)

    def notice(self, text: str) -> str:
        """A warning from the terminal (idle, time left) or a line from the sysop, shown on
        the message line, where it stays until the caller's next play or a newer message; a
        plain board gets it on a line of its own, then the prompt and what the caller has
        typed so far."""
        return self.shown.notice(self, text)


async def play_game(
    visit: Visit, level: Level, game_id: int, game: Game, terms: GameTerms = ORDINARY
) -> GameExit:
    """Play until the game ends or the caller leaves it; every play is stored first.

    A scored game's deal number is shown only once the game is over (or, under ``terms``,
    not even then)."""
    record = await visit.store.game_record(game_id)
    screen = GameScreen(visit, level, game, record, terms)
    terminal = visit.terminal
    terminal.on_notice = screen.notice
    terminal.on_resize = screen.resized
    visit.presence.replay = screen.replay
    screen.tell_sysop()
    try:
        if game.status != Status.PLAYING:
            return await _game_over(visit, screen, game_id, ended_now=False)
        opening = labels_of(record, game, terms).opening
        hint = screen.shown.opening_hint
        if hint:
            opening = f"{opening} {_(hint)}"
        screen.say(opening if game.moves == 0 else _("Welcome back."))
        if screen.shown.pointer:
            terminal.report_mouse(True)
        screen.draw(full=True)
        keys = screen.keys
        while True:
            if not terminal.keys_waiting():
                screen.settle()
            await terminal.flush()
            if screen.shown.in_lines:
                line = await terminal.read_line(COMMAND_LENGTH)
                screen.erase_typing()
                command = " ".join(line.upper().split())
                if _day_is_over(visit, record) or _time_is_up(visit, terms):
                    return await _end_as_resigned(visit, screen, game_id)
                if not command:
                    screen.say("")  # in lines, only the prompt again
                    screen.draw()
                    continue
                ended = await _command(visit, screen, game_id, command)
                if ended is not None:
                    return ended
                continue
            key = await terminal.read_event(WORD_WAIT if keys.waiting else None)
            ended = await _answer_key(visit, screen, game_id, key)
            if ended is not None:
                return ended
    finally:
        terminal.on_notice = terminal.on_resize = None
        visit.presence.replay = None
        terminal.report_mouse(False)  # the caller leaves the board, however they leave it


async def _answer_key(
    visit: Visit, screen: GameScreen, game_id: int, key: Key | None
) -> GameExit | None:
    """Do what ``key`` (None: the wait for a longer command ran out) asks on the board.

    (A function of its own, so that what a key did is let go of before the next is waited
    for: nothing of it is left for the collector to look at while every caller waits.)
    """
    terminal, keys = visit.terminal, screen.keys
    if key is None:
        steps = keys.expire()
    else:
        steps = keys.feed(key, screen.game, more=terminal.keys_waiting())
    if any(step.command for step in steps) and (
        _day_is_over(visit, screen.record) or _time_is_up(visit, screen.terms)
    ):
        if any(step.hot for step in steps):
            terminal.expect_enter()  # the Enter sent with the key is the key's own
        return await _end_as_resigned(visit, screen, game_id)
    for step in steps:
        ended = await _step(visit, screen, game_id, step)
        if ended is not None:
            return ended
    return None


async def _step(visit: Visit, screen: GameScreen, game_id: int, step: Step) -> GameExit | None:
    """Do what a key led to: run a command, or show the typing, the pointer or a word."""
    if step.hot:
        visit.terminal.expect_enter()
    if step.said and not step.command:
        screen.say(step.said, REFUSAL if step.refused else MESSAGE)
    elif not step.command and screen.message_style == REFUSAL:
        # A refusal answers the step refused: the pointer moving on, a pick or a key typed
        # begins another, and it goes from the message line.
        screen.say("")
    if step.command is None:
        screen.owes_typing = True  # shown once the rest of a line sent at once is read
        return None
    if not step.command:
        screen.owes_draw = True
        return None
    return await _command(visit, screen, game_id, step.command, step.said)


async def _command(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str = ""
) -> GameExit | None:
    """Run one command line, by the handler its command in ``COMMANDS`` names; ``said`` is
    what to show after an ordinary play (the pointer's play, as a command). Past what a
    person could ask for, it is dropped."""
    if not visit.terminal.pace.may_act():
        screen.owes_draw = True  # the caller is told once the keys that came are read
        return None
    command = command_of(line)
    run = HANDLERS[command.name if command is not None else PLAY]
    return await run(visit, screen, game_id, line, said)


async def _quit(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    return GameExit(screen.game.status, practice=screen.record.practice)


async def _redraw(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    screen.say("")
    screen.draw(full=True)
    return None


async def _switch_ansi(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    if screen.shown.pointer:
        visit.terminal.report_mouse(False)
    await visit.set_look(ansi=not visit.look.ansi)
    screen.look_changed()
    visit.terminal.report_mouse(screen.shown.pointer)
    screen.say(_("Plain text screen.") if not visit.look.ansi else _("Colour screen."))
    screen.draw(full=True)
    return None


async def _switch_suits(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    await visit.set_look(suit_letters=not visit.look.suit_letters)
    screen.say(_("Suits as letters.") if visit.look.suit_letters else _("Suits as symbols."))
    screen.draw(full=True)
    return None


async def _resign(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    game = screen.game
    if not await _confirm(visit, screen, screen.terms.resign or _(RESIGN_FOR_NEW)):
        screen.say(_("You play on."))
        screen.draw()
        return None
    game.resign()
    try:
        await visit.store.finish_game(game_id, game)
    except StoreFault as fault:
        log_fault(visit, f"resigning game {game_id}", fault)
        screen.game = await visit.store.load_game(game_id)
        screen.say(_("Not resigned ({why}): you play on.").format(why=fault_words(fault)), REFUSAL)
        screen.draw()
        return None
    except StoreError:
        return await _played_elsewhere(visit, screen)
    await _game_over(visit, screen, game_id)  # its deal is shown, now it is over
    return GameExit(game.status, next_deal=True, practice=screen.record.practice)


async def _play(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    """A play of the engine's: refused, or stored first and then shown."""
    game = screen.game
    before = screen.shown.before_play(game)
    try:
        result = game.play(spelled(line))
    except IllegalMove as refusal:
        screen.say(sanitize(refusal_words(refusal, visit.look), 140), REFUSAL)
        screen.draw()
        return None
    try:
        await visit.store.record_play(game_id, game)
    except StoreFault as fault:
        await _play_not_stored(visit, screen, game_id, fault)
        return None
    except StoreError:
        return await _played_elsewhere(visit, screen)
    screen.tell_sysop()
    await _show_result(visit, screen, result, before, said)
    if game.status != Status.PLAYING:
        return await _game_over(visit, screen, game_id)
    most = screen.terms.most_plays
    if most is not None and len(game.history) >= most:
        return await _end_as_resigned(visit, screen, game_id, screen.terms.most_plays_told)
    return None


async def _played_elsewhere(visit: Visit, screen: GameScreen) -> GameExit:
    """The stored game went on without this screen (the caller on a second line, say): the
    play is not taken, and the game is kept as it stands in the store."""
    screen.say(
        _("This game was played on meanwhile on another line; it is kept as it stands there."),
        REFUSAL,
    )
    screen.prompt = _(GO_ON)
    screen.draw()
    await visit.terminal.flush()
    await visit.terminal.read_key()
    return GameExit(Status.PLAYING)


async def _look_at(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    """Read one pile as the board shows it (L 3, L S, ...), or the score and progress (L)."""
    game = screen.game
    pile = line.partition(" ")[2]
    if not pile:
        screen.say(status_text(game))
    elif text := pile_text(game, pile, screen.look):
        screen.say(text)
    else:
        columns = len(game.tableau)
        refusal = _('No pile "{pile}": L 1 to L {columns}, L S, L D or L F')
        screen.say(refusal.format(pile=sanitize(pile, 8), columns=columns), REFUSAL)
    screen.draw()
    return None


async def _play_not_stored(
    visit: Visit, screen: GameScreen, game_id: int, fault: StoreFault
) -> None:
    """The play could not be stored: say so, and go back to the game as last stored."""
    log_fault(visit, f"a play in game {game_id}", fault)
    screen.game = await visit.store.load_game(game_id)
    screen.say(not_saved(fault), REFUSAL)
    screen.draw()


def _day_is_over(visit: Visit, record: GameRecord) -> bool:
    """Is this a game of an earlier day's deal of the day? Those close with their day."""
    return record.day is not None and record.day < visit.store.today().isoformat()


def _time_is_up(visit: Visit, terms: GameTerms) -> bool:
    """Has the time the game's terms give it run out (a contest's close)?"""
    return terms.closes is not None and visit.store.now() >= terms.closes


async def _end_as_resigned(
    visit: Visit, screen: GameScreen, game_id: int, why: str = ""
) -> GameExit:
    """The day of this deal of the day ended while it was played (or the contest closed, or
    the game has all the plays its terms allow, ``why``): it counts as resigned."""
    game = screen.game
    game.resign()
    await visit.store.finish_game(game_id, game)  # safe if the door closed it already
    visit.game_ended()
    closed = why or screen.terms.closed or _("The day is over")
    counts = _("{closed}: this game counts as {status}.")
    screen.say(counts.format(closed=closed, status=status_word(game.status)), REFUSAL)
    screen.prompt = _(GO_ON)
    screen.draw(full=screen.shown.in_lines)  # a line-per-play caller sees the deal too
    await visit.terminal.flush()
    await visit.terminal.read_line(COMMAND_LENGTH)
    return GameExit(game.status, practice=screen.record.practice)


async def _show_result(
    visit: Visit, screen: GameScreen, result: PlayResult, before: Sight | None, said: str = ""
) -> None:
    look, shown = visit.look, screen.shown
    if shown.in_lines and screen.game.status != Status.PLAYING:
        screen.prompt = ""  # the end of the game is told next, with its own question
    if result.finish:
        screen.say(_("All the cards can go up: the door plays them for you."), GOOD_NEWS)
        await shown.finish(visit, screen, result)
    elif before is not None:
        screen.say(describe_play(before, screen.game, result, look))
    elif result.sent_up and result.move == "F":
        sent = " ".join(card_text(card, look).strip() for card in result.sent_up)
        screen.say(_("Move {number}: sent up {cards}").format(number=result.moves, cards=sent))
    else:
        screen.say(said)  # the board itself shows what the play did
    screen.draw()


async def _play_up(visit: Visit, screen: GameScreen, result: PlayResult) -> None:
    """Show the automatic finish card by card, as Big Blue Disk let you watch it."""
    game = screen.game
    frame = copy.copy(game)  # the same game, drawn as it stood while the cards went up
    frame.foundations = [list(pile) for pile in game.foundations]
    frame.tableau = [list(pile) for pile in game.tableau]
    for card, column in zip(reversed(result.finish), reversed(result.finish_columns), strict=True):
        next(pile for pile in frame.foundations if pile and pile[-1] == card).pop()
        frame.tableau[column - 1].append(card)
    for card, column in zip(result.finish, result.finish_columns, strict=True):
        frame.tableau[column - 1].pop()
        suited = [p for p in frame.foundations if p and p[0].suit == card.suit]
        (suited[0] if suited else next(p for p in frame.foundations if not p)).append(card)
        screen.draw(frame)
        await visit.terminal.flush()
        await asyncio.sleep(FINISH_STEP_SECONDS)


async def _game_over(
    visit: Visit, screen: GameScreen, game_id: int, *, ended_now: bool = True
) -> GameExit:
    game = screen.game
    if ended_now:
        visit.game_ended()
    screen.prompt = _(GO_ON)
    if game.status == Status.WON:
        await _celebrate(visit, screen, game_id)
    elif (
        game.status == Status.STUCK
        and visit.solving is not None
        and visit.config.solver.tell_winnable
        and not screen.terms.sealed_until  # whether a secret deal can be won is a hint
    ):
        screen.prompt = ""
        screen.say(_("No play can change anything any more. Could the deal have been won? ..."))
        screen.draw()
        await visit.terminal.flush()
        verdict = await was_it_winnable(visit.solving, game)
        screen.prompt = _(GO_ON)
        over = _("Game over, score {score}. {verdict}.")
        screen.say(over.format(score=game.score, verdict=verdict), REFUSAL)
    elif game.status == Status.STUCK:
        over = _("No play can change anything any more: the game is over. Score {score}.")
        screen.say(over.format(score=game.score), REFUSAL)
    elif game.status == Status.RESIGNED:
        screen.say(_("Game resigned, score {score}.").format(score=game.score), REFUSAL)
    else:
        over = _("This game is over ({status}).")
        screen.say(over.format(status=status_word(game.status)), REFUSAL)
    screen.draw(full=screen.shown.in_lines)  # a line-per-play caller sees the deal too
    # A new question: only an Enter sent with the last play belongs to it.
    visit.terminal.expect_enter(0.0)
    await visit.terminal.flush()
    await visit.terminal.read_key()  # Enter, or any key, as on every page
    return GameExit(game.status, practice=screen.record.practice)


async def _celebrate(visit: Visit, screen: GameScreen, game_id: int) -> None:
    """A win's banner across the emptied columns, and its message: the score and the
    caller's place on the level's high-score list."""
    game, level = screen.game, screen.level
    moves = ngettext("{count} move", "{count} moves", game.moves).format(count=game.moves)
    screen.banner = (
        # TRANSLATORS: a win's banner across the board: at most 20 characters.
        _("Y O U   W O N !"),
        _("Score {score}").format(score=game.score),
        moves,
    )
    screen.banner_art = art_for(visit, "won")
    won = ngettext(
        "You won! Final score {score} in {count} move.",
        "You won! Final score {score} in {count} moves.",
        game.moves,
    ).format(score=game.score, count=game.moves)
    if screen.record.practice or screen.terms.won:
        where = screen.terms.won or _("Practice: it is not on the high scores.")
        screen.say(f"{won} {where}", GOOD_NEWS)
        return
    scores = await visit.store.high_scores(level, visit.config.scoreboard.high_scores)
    place = next((n for n, row in enumerate(scores, start=1) if row.game_id == game_id), None)
    if place is not None:
        where = _("Your place: {place} of {count} on the high scores of {level}.").format(
            place=ordinal(place), count=len(scores), level=level.name
        )
    else:
        where = _("Your place: not among the top {count} of {level} this time.").format(
            count=len(scores), level=level.name
        )
    screen.say(f"{won} {where}", GOOD_NEWS)


def ordinal(number: int) -> str:
    """A place in words: 1st, 2nd, 3rd, 4th (in German 1., 2., 3.).

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 102)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '102nd']
    """
    if 10 <= number % 100 <= 20:
        form = N_("{number}th")
    else:
        # TRANSLATORS: ordinals "1st 2nd 3rd 4th"; German: "{number}." for all.
        forms = {1: N_("{number}st"), 2: N_("{number}nd"), 3: N_("{number}rd")}
        form = forms.get(number % 10, N_("{number}th"))
    return _(form).format(number=number)


async def _hint(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    if screen.terms.no_hints:
        screen.say(screen.terms.no_hints, REFUSAL)
        screen.draw()
        return None
    if screen.hinter.asks_the_solver(screen.game):
        screen.say(_("The solver is looking for a winning line ..."))
        screen.draw()
        await visit.terminal.flush()
    hint = await screen.hinter.hint(screen.game)
    if hint.assisted:
        try:
            await visit.store.mark_assisted(game_id)
        except StoreFault as fault:
            # Unmarked, a hint would leave a helped game on the scoreboards: none is given.
            log_fault(visit, f"the hint taken in game {game_id}", fault)
            no_hint = _("No hint now ({why}): try again later.")
            screen.say(no_hint.format(why=fault_words(fault)), REFUSAL)
            screen.draw()
            return None
    screen.say(hint.text, MESSAGE if hint.assisted else REFUSAL)
    screen.draw()
    return None


async def _confirm(visit: Visit, screen: GameScreen, question: str) -> bool:
    """Ask on the prompt row, in place of the command prompt: one question at a time."""
    screen.say("")
    screen.prompt = question
    screen.draw()
    await visit.terminal.flush()
    try:
        answer = await visit.terminal.read_key()
    finally:
        screen.prompt = PROMPT
    screen.erase_typing(line=False)
    screen.shown.answered(visit, answer)
    return answer == "Y"


async def _help(
    visit: Visit, screen: GameScreen, game_id: int, line: str, said: str
) -> GameExit | None:
    terminal = visit.terminal
    terminal.report_mouse(False)  # a page of text: clicks mean nothing here
    # The keys are on the board, and in the rules.
    lines = help_lines(screen.level.hints, screen.terms.resign_help)
    back = _("Press Enter to return to the game. ")
    if await show_lines(visit, _("Canfield commands"), lines, back):
        await terminal.read_key()
    terminal.on_notice = screen.notice  # notices go on the board again, not on the page
    terminal.on_resize = screen.resized
    visit.presence.replay = screen.replay  # a watching sysop sees the board again
    if screen.shown.pointer:
        terminal.report_mouse(True)
    screen.say("")
    screen.draw(full=not screen.shown.in_lines)
    return None


Handler = Callable[[Visit, GameScreen, int, str, str], Awaitable[GameExit | None]]
# What runs each command of ``COMMANDS``, by its name: (visit, screen, game id, the command
# line, what to show after an ordinary play).
HANDLERS: dict[str, Handler] = {
    PLAY: _play,
    "redraw": _redraw,
    "switch_suits": _switch_suits,
    "look": _look_at,
    "switch_ansi": _switch_ansi,
    "hint": _hint,
    "help": _help,
    "quit": _quit,
    "resign": _resign,
}
