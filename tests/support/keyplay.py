"""Turning a play into the keys a caller presses for it: a typed line, hot keys, the arrows
and Space, or the mouse (dragging, or clicking twice), and those keys into bytes.

A :class:`Player` keeps its own :class:`BoardKeys` fed with the same keys as the door's, so
it knows where the door's pointer is and what is picked up.
"""

from __future__ import annotations

import copy

from ansi.keys import DOWN, ENTER, LEFT, RIGHT, UP, Key, Mouse
from door.engine import Game, IllegalMove
from door.views.board import CLASSIC, Geometry
from door.views.pointer import TOP_ROW, Spot, marker_cell
from door.visit.keys import BoardKeys

METHODS = ("lines", "hot", "pointer", "drag", "clicks")


def moved_cards(game: Game, command: str) -> int:
    """How many cards ``command`` moves from its column onto a column (1 otherwise)."""
    source, _, target = command.partition(" ")
    if not (source.isdigit() and target.isdigit()):
        return 1
    trial = copy.deepcopy(game)
    try:
        trial.play(command)
    except IllegalMove:
        return 1
    return len(trial.tableau[int(target) - 1]) - len(game.tableau[int(target) - 1])


class Player:
    """Plays by one of :data:`METHODS` on a board laid out by ``geometry`` (the mouse's
    cells); ``commands`` collects what the door would run."""

    def __init__(
        self, method: str, game: Game, *, hot: bool = True, geometry: Geometry = CLASSIC
    ) -> None:
        self.method = method
        self.game = game
        self.mirror = BoardKeys(
            hot=hot and method != "lines", pointer=True, columns=len(game.tableau)
        )
        self.mirror.geometry = geometry
        self.commands: list[str] = []

    def _press(self, key: Key, out: list[Key], more: bool = False) -> None:
        out.append(key)
        for step in self.mirror.feed(key, self.game, more=more):
            if step.command:
                self.commands.append(step.command)

    def _settle(self) -> None:
        """A complete command waiting for a longer one acts once the caller stops typing."""
        for step in self.mirror.expire():
            if step.command:
                self.commands.append(step.command)

    def keys_for(self, command: str) -> list[Key]:
        """The keys that play ``command`` (canonical form) by this player's method."""
        out: list[Key] = []
        source, _, target = command.partition(" ")
        if self.method == "lines":
            for key in command:
                self._press(key, out, more=True)
            self._press(ENTER, out)
        elif self.method == "hot" or not (command == "V" or target):
            for key in command.replace(" ", ""):
                self._press(key, out)
            self._settle()
        elif self.method == "pointer":
            if command == "V":
                self._go(Spot("V"), out)
                self._press(" ", out)
            else:
                depth = 1 if self.game.variant.moves == "whole" else moved_cards(self.game, command)
                self._go(Spot(source, depth), out)
                self._press(" ", out)
                self._go(Spot(target), out)
                self._press(ENTER, out)
        else:
            self._mouse(command, out)
        return out

    def _go(self, spot: Spot, out: list[Key]) -> None:
        if self.mirror.pointer is None:
            self._press(RIGHT, out)
        for _ in range(200):
            here = self.mirror.pointer
            assert here is not None
            if here == spot:
                return
            if spot.column is None:
                if here.column is not None:
                    self._press(UP, out)
                else:
                    ahead = TOP_ROW.index(spot.pile) > TOP_ROW.index(here.pile)
                    self._press(RIGHT if ahead else LEFT, out)
            elif here.column is None:
                self._press(DOWN, out)
            elif here.column != spot.column:
                self._press(RIGHT if spot.column > here.column else LEFT, out)
            else:
                self._press(UP if spot.depth > here.depth else DOWN, out)
        raise AssertionError(f"the pointer never reached {spot}")

    def _cell(self, spot: Spot) -> tuple[int, int]:
        row, col = marker_cell(self.game, spot, self.mirror.geometry)
        return row, col + 1

    def _mouse(self, command: str, out: list[Key]) -> None:
        if command == "V":
            row, col = self._cell(Spot("V"))
            self._press(Mouse(row, col, True), out)
            self._press(Mouse(row, col, False), out)
            return
        source, _, target = command.partition(" ")
        depth = 1 if self.game.variant.moves == "whole" else moved_cards(self.game, command)
        start = self._cell(Spot(source, depth))
        end = self._cell(Spot(target))
        if self.method == "drag":
            self._press(Mouse(*start, True), out)
            self._press(Mouse(*end, False), out)
        else:
            for row, col in (start, end):
                self._press(Mouse(row, col, True), out)
                self._press(Mouse(row, col, False), out)


ARROW_BYTES = {UP: b"\x1b[A", DOWN: b"\x1b[B", RIGHT: b"\x1bOC", LEFT: b"\x1b[D"}


def key_bytes(key: Key, *, old_mouse: bool = False) -> bytes:
    """What a terminal sends for ``key``: SGR mouse reports, or the old X10 form."""
    if isinstance(key, Mouse):
        if old_mouse:
            code = 0 if key.pressed else 3
            return b"\x1b[M" + bytes([32 + code, 32 + key.col, 32 + key.row])
        return f"\x1b[<0;{key.col};{key.row}{'M' if key.pressed else 'm'}".encode()
    if key in ARROW_BYTES:
        return ARROW_BYTES[key]
    return key.encode()
