"""Keys on the board: hot keys, typed lines, the pointer and the mouse, each ending in the
command line a caller could have typed (``S 3``, ``2 F``, ``V``, ``UNDO``, ``HINT``, ``Q``).

Pure: no I/O and no clock. The game screen hands :class:`BoardKeys` each key (and says
whether more keys are already waiting), and runs the :class:`Step` it gets back.

Hot keys act the moment a command is complete, the way Big Blue Disk's CANFIELD plays:

>>> keys = BoardKeys(hot=True, pointer=False)
>>> def run(text, more=False):
...     steps = [step for key in text for step in keys.feed(key, None, more=more)]
...     return [step.command for step in steps if step.command], keys.prompt_text()
>>> run("s")
([], 'S → ?')
>>> run("3")
(['S 3'], '')

A key that could begin two commands waits: ``U`` is undo, or the start of ``UNDO``:

>>> run("u"), keys.waiting
(([], 'U'), True)
>>> [step.command for step in keys.expire()]
['U']

Typed lines work as before; a line sent at once is read as a line:

>>> run("undo\\r", more=True), run("hello\\r", more=True), run("2 f\\r", more=True)
((['UNDO'], ''), (['HELLO'], ''), (['2 F'], ''))
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass

from ansi.keys import DOWN, ENTER, ERASE, ESCAPE, KILL, LEFT, RIGHT, UP, Key, Mouse
from door.engine import Game, IllegalMove
from door.engine.variant import Moves
from door.views.board import CLASSIC, Geometry
from door.views.commands import AFTER_KEY, COLUMN, COMMANDS, LEADING
from door.views.pointer import (
    TOP_ROW,
    Spot,
    column_left,
    marker_cell,
    spot_at,
    spot_empty,
    visible_depth,
)
from door.words import _, ngettext

COMMAND_LENGTH = 20
# The table's keys, as the hot keys read them:
WORDS = tuple(word for command in COMMANDS for word in command.words)  # two letters or more
_ALONE_KEYS = frozenset(key for command in COMMANDS if not command.then for key in command.keys)
# Complete, but also the first letter of a word (A, H and U alone are commands too).
WORD_KEYS = frozenset(key for key in _ALONE_KEYS if any(word[0] == key for word in WORDS))
ONE_KEY = _ALONE_KEYS - WORD_KEYS - LEADING.keys()  # complete as soon as pressed
# A key a pile follows (S, D and a column: a pile to play to; L: a pile to read out).
THEN = {key: command.then for key, command in LEADING.items()}

# How a half-typed command stands.
COMPLETE = "complete"  # act now
AMBIGUOUS = "ambiguous"  # complete, but the next key may make it longer: wait for it
PREFIX = "prefix"  # not a command yet
INVALID = "invalid"  # no command starts so


@dataclass(frozen=True, slots=True)
class Reading:
    """What a half-typed hot-key command is, and the line it stands for."""

    state: str
    command: str = ""


# Remembered: a key is read four or five times on its way (before and after it is typed,
# then by the prompt and the draw), and callers type the same few commands.
@functools.lru_cache(maxsize=1024)
def read_typed(text: str, columns: int) -> Reading:
    """Read ``text`` as hot keys at a level with ``columns`` columns.

    >>> read_typed("2", 4), read_typed("2f", 4), read_typed("an", 4)
    (Reading(state='prefix', command='2'), Reading(state='complete', command='2 F'), \
Reading(state='prefix', command='AN'))
    >>> read_typed("2 1", 10), read_typed("2 10", 10), read_typed("2 1 ", 10)
    (Reading(state='ambiguous', command='2 1'), Reading(state='complete', command='2 10'), \
Reading(state='complete', command='2 1'))
    >>> read_typed("0", 10), read_typed("0", 4), read_typed("x", 4)
    (Reading(state='prefix', command='10'), Reading(state='invalid', command='0'), \
Reading(state='invalid', command='X'))
    """
    text = text.upper()
    letters = text.replace(" ", "")
    if not letters:
        return Reading(PREFIX)
    if len(letters) >= 2 and letters.isalpha():
        for word in WORDS:
            if word == letters:
                return Reading(COMPLETE, word)
            if word.startswith(letters):
                return Reading(PREFIX, letters)
    keys = _pile_keys(text, columns)
    line = " ".join(keys) if keys is not None else " ".join(text.split())
    if keys is None or not keys or len(keys) > 2:
        return Reading(INVALID, line)
    # A "1" not yet followed by a space may become "10" at a level with ten columns.
    open_one = columns >= 10 and text.endswith("1")
    if len(keys) == 1:
        key = keys[0]
        if key in ONE_KEY:
            return Reading(COMPLETE, key)
        if key in WORD_KEYS:
            return Reading(AMBIGUOUS, key)
        if _then(key):
            return Reading(PREFIX, key)
        return Reading(INVALID, line)
    source, target = keys
    then = _then(source)
    if then and (target in AFTER_KEY[then] or target.isdigit()):
        return Reading(AMBIGUOUS if open_one else COMPLETE, line)
    return Reading(INVALID, line)


def _then(key: str) -> str:
    """What follows ``key`` in a command (a pile to play to, or to read); '' for nothing."""
    return THEN.get(COLUMN if key.isdigit() else key, "")


def _pile_keys(text: str, columns: int) -> list[str] | None:
    """The keys in ``text``: letters, ``?``, column numbers (``10``, or ``0`` for column 10
    at a level with ten columns); None if a character is none of those."""
    keys: list[str] = []
    for token in text.split():
        i = 0
        while i < len(token):
            char = token[i]
            if char.isdigit() and char != "0":
                if char == "1" and token[i + 1 : i + 2] == "0":
                    keys.append("10")
                    i += 2
                    continue
                keys.append(char)
            elif char == "0" and columns >= 10:
                keys.append("10")
            elif char.isalpha() or char == "?":
                keys.append(char)
            else:
                return None
            i += 1
    return keys


@dataclass(frozen=True, slots=True)
class Step:
    """What the screen does after a key: run ``command`` (a line, as if typed with Enter;
    None: nothing to run), show ``said`` on the message line (a refusal when ``refused``),
    and redraw the prompt and pointer. ``hot``: the command was completed by a hot key, so
    an Enter right behind it is its line end."""

    command: str | None = None
    said: str = ""
    refused: bool = False
    hot: bool = False


class BoardKeys:
    """The state of a caller's keys on the board: a half-typed command, the pointer, a
    card picked up. ``hot``: commands act when complete (else on Enter); ``pointer``: the
    arrows and the mouse work (ANSI callers)."""

    def __init__(self, *, hot: bool, pointer: bool, columns: int = 4) -> None:
        self.hot = hot
        self.pointer_allowed = pointer
        self.columns = columns
        #: Where the board's piles are on the caller's screen, for the pointer and the mouse.
        self.geometry: Geometry = CLASSIC
        self.typed = ""
        self.pointer: Spot | None = None
        self.held: Spot | None = None
        self._as_line = not hot  # collecting a whole line, to be run on Enter
        self._pressed = False  # a mouse press picked the held card up: its release may drop it
        self._release_done = False  # a press dropped or put back: its release does nothing

    @property
    def waiting(self) -> bool:
        """Whether a complete command waits for one more key that could make it longer."""
        return not self._as_line and read_typed(self.typed, self.columns).state == AMBIGUOUS

    def prompt_text(self) -> str:
        """What the prompt shows after itself: the half-typed command (``S → ?``)."""
        if not self.typed:
            return ""
        if self._as_line:
            return self.typed
        reading = read_typed(self.typed, self.columns)
        if reading.state == PREFIX and _then(reading.command):
            return f"{reading.command} → ?"
        return reading.command or self.typed.upper()

    # -- keys ---------------------------------------------------------------------------------

    def feed(self, key: Key, game: Game | None, *, more: bool) -> list[Step]:
        """The steps ``key`` leads to; ``more``: other keys are already waiting behind it."""
        if isinstance(key, Mouse):
            return [self._mouse(key, game)] if self.pointer_allowed and game else []
        if key in (UP, DOWN, LEFT, RIGHT):
            if self.pointer_allowed and game is not None:
                self.typed, self._as_line = "", not self.hot
                self._move(key, game)
                return [Step()]
            return []
        if key == ESCAPE:
            return [self._cancel()]
        if key == ERASE:
            self.typed = self.typed[:-1]
            return self._typing_changed()
        if key == KILL:
            self.typed = ""
            return self._typing_changed()
        if key == ENTER:
            if self.typed.strip():
                return [self._run_typed()]
            self.typed = ""
            if self.pointer is not None and game is not None:
                return [self._use_pointer(game)]
            return [Step(command="")]
        if not isinstance(key, str) or len(key) != 1:
            return []  # Home, End, function keys, the keypad: never a command
        if key == " " and not self.typed.strip():
            self.typed = ""
            if self.pointer is not None and game is not None:
                return [self._use_pointer(game)]
            return []
        return self._type(key, more)

    def expire(self) -> list[Step]:
        """No key came while a complete command waited: it acts as it stands."""
        if self.waiting:
            return [self._run_typed(hot=True)]
        return []

    # -- typing -------------------------------------------------------------------------------

    def _type(self, key: str, more: bool) -> list[Step]:
        self.held = None
        if len(self.typed) >= COMMAND_LENGTH:
            return []
        key = key.upper()
        if self._as_line:
            self.typed += key
            return [Step()]
        before = read_typed(self.typed, self.columns)
        if before.state == AMBIGUOUS and key == " ":
            return [self._run_typed(hot=True)]
        reading = read_typed(self.typed + key, self.columns)
        if before.state == AMBIGUOUS and reading.state == INVALID and not more:
            # The waiting command acts; the key then starts a command of its own.
            return [self._run_typed(hot=True), *self._type(key, more)]
        self.typed += key
        if reading.state == COMPLETE:
            return [self._run_typed(hot=True)]
        if reading.state == INVALID:
            if more:  # a line sent at once (a client that sends lines): read it as one
                self._as_line = True
                return [Step()]
            return [self._run_typed(hot=True)]  # the command's refusal, at once
        return [Step()]

    def _typing_changed(self) -> list[Step]:
        if not self.typed.strip():
            self.typed, self._as_line = "", not self.hot
        return [Step()]

    def _run_typed(self, *, hot: bool = False) -> Step:
        if self._as_line:
            line = " ".join(self.typed.upper().split())
        else:
            reading = read_typed(self.typed, self.columns)
            line = reading.command or " ".join(self.typed.upper().split())
        self.typed, self._as_line = "", not self.hot
        return Step(command=line, hot=hot)

    def _cancel(self) -> Step:
        if self.typed:
            self.typed, self._as_line = "", not self.hot
        else:
            self.held = None
        self._pressed = False
        return Step()

    # -- the pointer --------------------------------------------------------------------------

    def _move(self, key: str, game: Game) -> None:
        spot = self.pointer
        if spot is None:
            self.pointer = self.held or Spot("S")
            return
        number = spot.column
        if number is None:
            place = TOP_ROW.index(spot.pile)
            if key in (LEFT, RIGHT):
                step = 1 if key == RIGHT else -1
                self.pointer = Spot(TOP_ROW[max(0, min(len(TOP_ROW) - 1, place + step))])
            elif key == DOWN:
                # Up and down go by the classic board's places whatever the layout, so
                # that the same keys make the same moves on every screen.
                col = marker_cell(game, spot)[1]
                self.pointer = Spot(str(self._nearest_column(col)))
            return
        if key in (LEFT, RIGHT):
            number += 1 if key == RIGHT else -1
            self.pointer = Spot(str(max(1, min(len(game.tableau), number))))
        elif key == UP:
            if self._choosing_depth(game) and spot.depth < self._run_depth(game, number):
                self.pointer = Spot(spot.pile, spot.depth + 1)
            else:
                self.pointer = Spot(self._nearest_top(game, column_left(number)))
        elif key == DOWN and spot.depth > 1:
            self.pointer = Spot(spot.pile, spot.depth - 1)

    def _choosing_depth(self, game: Game) -> bool:
        return self.held is None and game.variant.moves == Moves.PARTIAL

    def _run_depth(self, game: Game, number: int) -> int:
        """How many cards from the top of column ``number`` form a run (partial moves)."""
        pile = game.tableau[number - 1]
        if not pile:
            return 1
        start = game._run_start(pile)  # the engine's own reading of a run
        return min(len(pile) - start, visible_depth(game, number, self.geometry))

    def _nearest_column(self, col: int) -> int:
        return min(range(1, self.columns + 1), key=lambda n: abs(column_left(n) - col))

    @staticmethod
    def _nearest_top(game: Game, col: int) -> str:
        return min(TOP_ROW, key=lambda pile: abs(marker_cell(game, Spot(pile))[1] - col))

    def _use_pointer(self, game: Game) -> Step:
        """Space or Enter on the pointer's pile: pick its card up, drop it, or turn."""
        assert self.pointer is not None
        return self._act_on(self.pointer, game)

    def _act_on(self, spot: Spot, game: Game) -> Step:
        held = self.held
        if held is None:
            if spot.pile == "V":
                return Step(command="V", said="V")
            if spot.pile == "F":
                return Step(said=_("Cards on the foundations stay there."), refused=True)
            if spot_empty(game, spot):
                return Step(said=_empty(spot), refused=True)
            self.held = spot
            return Step()
        if spot.pile == held.pile:
            self.held = None  # put back
            return Step()
        if spot.pile in ("S", "V", "D"):
            return Step(said=_("A card goes to a column or the foundations."), refused=True)
        self.held = None
        self.pointer = Spot(spot.pile)  # on the pile played to, at its top card
        command = f"{held.pile} {spot.pile}"
        refusal = _depth_refusal(game, held, command)
        if refusal:
            return Step(said=refusal, refused=True)
        return Step(command=command, said=command)

    # -- the mouse ----------------------------------------------------------------------------

    def _mouse(self, report: Mouse, game: Game) -> Step:
        spot = spot_at(game, report.row, report.col, self.geometry)
        self.typed, self._as_line = "", not self.hot
        if report.pressed:
            self._pressed = self._release_done = False
            if spot is None:
                return Step()  # a click on nothing does nothing
            self.pointer = spot
            if self.held is None:
                step = self._act_on(spot, game)
                self._pressed = self.held is not None
                self._release_done = not self._pressed
                return step
            self._release_done = True
            return self._act_on(spot, game)
        if self._release_done or not self._pressed or self.held is None:
            self._pressed = self._release_done = False
            return Step()
        self._pressed = False
        if spot is None or spot.pile == self.held.pile:
            return Step()  # a click: the card stays up until the next click says where
        self.pointer = spot
        return self._act_on(spot, game)


def _empty(spot: Spot) -> str:
    """The refusal of a pick on an empty pile."""
    if spot.column is not None:
        return _("Column {number} is empty.").format(number=spot.column)
    if spot.pile == "S":
        return _("The reserve is empty.")
    if spot.pile == "D":
        return _("The waste is empty.")
    if spot.pile == "V":
        return _("The deck is empty.")
    return _("That pile is empty.")


def _depth_refusal(game: Game, held: Spot, command: str) -> str:
    """Under partial moves, why the run picked up is not the one that would move, if so."""
    number = held.column
    if number is None or game.variant.moves != Moves.PARTIAL or number > len(game.tableau):
        return ""
    target = command.split()[1]
    if not target.isdigit():
        return "" if held.depth == 1 else _("Only a column's top card goes to the foundations.")
    trial = copy.deepcopy(game)
    try:
        result = trial.play(command)
    except IllegalMove:
        return ""  # the engine's own refusal says why, as for a typed command
    moved = len(trial.tableau[int(target) - 1]) - len(game.tableau[int(target) - 1])
    if result.finish or moved == held.depth or moved <= 0:
        return ""
    refusal = ngettext(
        "Only the top {count} card of column {number} go there: pick up {count}.",
        "Only the top {count} cards of column {number} go there: pick up {count}.",
        moved,
    )
    return refusal.format(count=moved, number=number)
