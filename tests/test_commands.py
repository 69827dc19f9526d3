"""The game's commands are one table: the keys read, the help page, the board's reminder and
the handlers that run them are all made from ``door.views.commands.COMMANDS``."""

from __future__ import annotations

import pytest

from ansi.keys import ENTER
from door.engine.moves import Move
from door.views.commands import AFTER_KEY, COLUMN, COMMANDS, PLAY, Command, command_of, spelled
from door.views.pages import Term
from door.views.pointer import keys_reminder
from door.views.texts import HINT_KINDS, command_lines, help_lines
from door.visit.keys import BoardKeys
from door.visit.play import HANDLERS


def _name(command: Command) -> str:
    return command.help[0][0] if command.help else command.reminder


def _lines_given(typed: str, *, hot: bool) -> list[str]:
    """The command lines ``typed`` runs on the board: by hot keys (then Enter, if it still
    waits for more), or as a typed line ended by Enter."""
    keys = BoardKeys(hot=hot, pointer=False, columns=4)
    steps = [step for key in typed for step in keys.feed(key, None, more=False)]
    if not any(step.command for step in steps):
        steps += keys.expire() or keys.feed(ENTER, None, more=False)
    return [step.command for step in steps if step.command]


def _given(command: Command) -> list[str]:
    """Every way to give ``command``: each key (with each pile that may follow it) and word."""
    keys = ["2" if key == COLUMN else key for key in command.keys]
    if not command.then:
        return [*keys, *command.words]
    piles = [*AFTER_KEY[command.then], "3"]
    return [f"{key} {pile}" for key in keys for pile in piles]


@pytest.mark.parametrize("command", COMMANDS, ids=_name)
def test_every_command_is_read_by_its_keys_and_words(command: Command) -> None:
    for typed in _given(command):
        for hot in (True, False):
            assert _lines_given(typed, hot=hot) == [typed], (typed, hot)
        assert command_of(typed) is command, typed
        if command.name == PLAY:
            Move.parse(spelled(typed))  # the engine reads it: no "Unknown command"


def test_every_command_has_a_handler_and_no_key_gives_two() -> None:
    assert {command.name for command in COMMANDS} == set(HANDLERS)
    alone = [given for c in COMMANDS if not c.then for given in (*c.keys, *c.words)]
    leading = [key for command in COMMANDS if command.then for key in command.keys]
    assert len(alone) == len(set(alone)) and len(leading) == len(set(leading))


@pytest.mark.parametrize("hints", ["off", *HINT_KINDS])
def test_the_help_page_lists_every_command_the_level_offers(hints: str) -> None:
    page = help_lines(hints)
    terms = [line for line in page if isinstance(line, Term)]
    assert terms == command_lines(hints)
    shown = {key for term in terms for key in term.term.split(" / ")}
    for command in COMMANDS:
        listed = {keys for keys, _ in command.help}
        assert listed <= shown if not command.hints or hints in HINT_KINDS else not listed & shown
    texts = " / ".join(term.text for term in terms)
    assert "{" not in texts
    assert (HINT_KINDS.get(hints, "-") in texts) == (hints in HINT_KINDS)


@pytest.mark.parametrize("hints", [False, True])
def test_the_reminder_shows_every_command_with_a_reminder(hints: bool) -> None:
    reminder = "  ".join(keys_reminder(4, hot=True, pointer=True, hints=hints))
    for command in COMMANDS:
        assert command.help or command.reminder, "a command no caller could learn of"
        if command.reminder:
            assert (command.reminder in reminder) == (hints or not command.hints)
