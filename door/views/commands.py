"""The commands of a game: one table, from which the keys are read (``door.visit.keys``), the
help page is written (``texts.help_lines``), the board's reminder of the keys is made
(``pointer.keys_reminder``) and each command line finds what runs it (``door.visit.play``, by
the command's ``name``). A new command is one entry here, and a handler of that name.

A command line finds its command by its key or word, alone or with a pile after the key:

>>> [command_of(line).name for line in ("Q", "UNDO", "L 3", "2 F", "D", "D 3")]
['quit', 'play', 'look', 'play', 'play', 'play']
>>> command_of("S3") is None, command_of("Q 3") is None  # the engine reads (or refuses) them
(True, True)
>>> spelled("UNDO"), spelled("HINT"), spelled("2 F")
('U', 'HINT', '2 F')
"""

from __future__ import annotations

from dataclasses import dataclass

from door.engine.moves import FOUNDATION, RESERVE, WASTE
from door.words import N_

PLAY = "play"  # the name of the engine's plays: the engine reads their line
COLUMN = "#"  # among a command's keys: any column's number

# What a command's key may be followed by: nothing, a pile to play to, or a pile to read.
TARGET = "target"
PILE = "pile"
AFTER_KEY = {TARGET: (FOUNDATION, "A"), PILE: (RESERVE, WASTE, FOUNDATION)}  # and columns


@dataclass(frozen=True, slots=True)
class Command:
    """One command of the game.

    - ``name``: what runs it (``play`` for the engine's plays);
    - ``keys``: the keys that give it (``COLUMN``: a column's number); ``then``, what follows
      a key (``TARGET``, ``PILE``, or nothing);
    - ``words``: words that give it too, each standing for the first key;
    - ``help``: its rows on the help page, (keys, what it does), marked for the catalog
      (``N_``) and translated where they are shown; ``joins`` puts its first row
      on the row above, after `` / ``; ``hints``: offered only at a level with hints, whose
      kind fills ``{hints}`` in its help, listed after the commands every level has;
    - ``reminder``: how the board's reminder of the keys shows it ("" not at all), marked
      for the catalog too.
    """

    name: str
    keys: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    then: str = ""
    help: tuple[tuple[str, str], ...] = ()
    joins: bool = False
    hints: bool = False
    reminder: str = ""


COMMANDS: tuple[Command, ...] = (
    Command(
        PLAY,
        keys=("V", WASTE),
        # TRANSLATORS: "V or D", "F or A": keys, at most 9 characters (the help's column)
        help=((N_("V or D"), N_("turn the deck (a new pass when it is empty)")),),
        # TRANSLATORS: a key and its word, at most 13 characters (the board's keys reminder)
        reminder=N_("V turn"),
    ),
    Command(
        PLAY,
        keys=(RESERVE,),
        then=TARGET,
        help=(("S n", N_("the reserve's top card to column n; S F: to a foundation")),),
    ),
    Command(
        PLAY,
        keys=(WASTE,),
        then=TARGET,
        help=(("D n", N_("the waste's top card to column n; D F: to a foundation")),),
    ),
    Command(
        PLAY,
        keys=(COLUMN,),
        then=TARGET,
        help=(
            ("m n", N_("column m's whole pile to column n")),
            ("m F", N_("column m's top card to a foundation")),
        ),
    ),
    Command(
        PLAY,
        keys=("F", "A"),
        # TRANSLATORS: "V or D", "F or A": keys, at most 9 characters (the help's column)
        help=((N_("F or A"), N_("send up every card that can go")),),
    ),
    Command(
        PLAY,
        keys=("U",),
        words=("UNDO",),
        help=(("U", N_("undo the last play")),),
        # TRANSLATORS: a key and its word, at most 13 characters (the board's keys reminder)
        reminder=N_("U undo"),
    ),
    Command("redraw", keys=("R",), help=(("R", N_("redraw the screen")),), joins=True),
    Command("switch_suits", keys=("C",), help=(("C", N_("suit symbols or letters")),)),
    Command(
        "look",
        keys=("L",),
        then=PILE,
        help=(("L n", N_("read a pile: L 3, L S, L D, L F, or L")),),
        joins=True,
    ),
    Command(
        "switch_ansi",
        words=("ANSI",),
        help=(("ANSI", N_("switch between the colour screen and plain text")),),
    ),
    Command(
        "hint",
        words=("HINT",),
        help=(("HINT", N_("a hint: {hints}")),),
        hints=True,
        # TRANSLATORS: a key and its word, at most 13 characters (the board's keys reminder)
        reminder=N_("HINT  a hint"),
    ),
    Command(
        "help",
        keys=("?", "H"),
        # TRANSLATORS: a key and its word, at most 13 characters (the board's keys reminder)
        reminder=N_("? help"),
    ),
    Command(
        "quit",
        keys=("Q",),
        help=(("Q", N_("save the game and return to the menu")),),
        # TRANSLATORS: a key and its word, at most 13 characters (the board's keys reminder)
        reminder=N_("Q quit"),
    ),
    Command(
        "resign",
        keys=("N",),
        help=(("N", "{resign}"),),
    ),
)

# The commands by a key or word given alone, and by a key a pile follows. (A key is in each
# at most once: tests/test_commands.py.)
_ALONE = {
    given: command
    for command in COMMANDS
    if not command.then
    for given in (*command.keys, *command.words)
}
LEADING = {key: command for command in COMMANDS if command.then for key in command.keys}


def command_of(line: str) -> Command | None:
    """The command ``line`` (a command line, upper case, one space between its parts) gives;
    None for a line the table does not know, which the engine reads, and refuses if it is no
    play."""
    key, _, rest = line.partition(" ")
    if not rest and line in _ALONE:
        return _ALONE[line]
    return LEADING.get(COLUMN if key.isdigit() else key)


def spelled(line: str) -> str:
    """``line`` with a command's word written as the command's key (``UNDO``: ``U``)."""
    command = _ALONE.get(line)
    if command is not None and line in command.words and command.keys:
        return command.keys[0]
    return line
