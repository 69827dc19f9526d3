"""The words of the rules pages and the in-game help, written for callers."""

from __future__ import annotations

from door.engine import Variant
from door.engine.variant import Base, Moves, Scoring, Spaces, SpacesAfterReserve, Undo, Wrap
from door.levels import Hints, Level
from door.views.commands import COMMANDS
from door.views.pages import PageLine, Term

# Paragraphs, one line each: the layout wraps them at the screen's width.
RULES = """\
THE LAYOUT
Thirteen cards are dealt to the RESERVE (S); only its top card is face up and playable. \
One card goes to the first FOUNDATION (F): its rank is the BASE RANK, and the other three \
cards of that rank start the other foundations. Four cards go face up to the COLUMNS (1-4). \
The rest form the DECK (V), face down.

THE AIM
Build all four foundations up in suit from the base rank, turning the corner: after K \
comes A. With base 8 a foundation runs 8 9 10 J Q K A 2 ... 7. You win when all 52 cards \
are on the foundations.

THE COLUMNS
Build down in alternating colours: a red 7 on a black 8. Ranks turn the corner here too \
(a black K on a red A), except at the base rank: with base 8, a 7 never goes on an 8. A \
column moves to another only as a whole pile, by its bottom card.

SPACES
An empty column is filled at once from the reserve. Once the reserve is empty, a space \
takes the waste's top card or a whole column.

THE DECK
V turns three cards (one at some levels) onto the WASTE (D); only the waste's top card is \
playable. When the deck is empty, V turns the waste over for a new pass, in the same \
order. Some levels limit the passes.

SCORING (points)
1 for each card played from the waste, 2 for each reserve card turned face up, 4 for each \
card played to a foundation, -1 for each new pass; all multiplied by the level's \
multiplier. Vegas levels charge for a game and pay for each card on the foundations; \
card-scoring levels pay 10 for waste to foundation, 5 for waste to column, 5 for reserve \
or column to foundation, 5 for a reserve card turned up, and an undo costs what its play \
earned and 3 more.

THE END
When the deck, waste and reserve are empty and everything can go up, the door plays the \
cards up for you. When no play can change anything any more, the game is over and counts \
as lost."""

SPELLING = "A letter and a digit may stand together: S3, 2F, D1. SF, DF and 12 work too."
KEYS = (
    "On the board a command acts as soon as it is complete (S, then 3), with no Enter; Esc or "
    "Backspace cancels a half-typed one. In the terminal settings, H makes Enter end every "
    "command instead.",
    "The arrow keys move a pointer over the piles: Space or Enter picks a card up, and drops "
    "it on the pile the pointer is moved to; on the deck they turn it; Esc puts a card back. "
    "At a level with partial moves, Up and Down on a column first choose how many cards to "
    "take.",
    "With a mouse, drag a card to where it goes, or click it and then its place; a click on "
    "the deck turns it.",
)
HELP_NOTE = (
    "Columns build down in alternate colours; foundations build up in suit from the base "
    "rank. After K comes A, except that nothing goes on the base rank in a column."
)

# What a hint is at a level, by its ``hints`` setting; no hint at any other.
HINT_KINDS: dict[str, str] = {
    Hints.VISIBLE: "the best play judged from the cards in view",
    Hints.SOLVER: "the next play of a line the solver has proved wins",
}
HINT_NOTE = "A game in which you take a hint is marked (hint) on the scoreboards."


# What N does in an ordinary game (a contest's deal, or the day's, says what it does there).
RESIGN_HELP = "resign this game (it counts as lost) and deal a new one"


def command_lines(hints: str = "", resign: str = RESIGN_HELP) -> list[PageLine]:
    """The commands of ``COMMANDS``, a row each (two joined by ``/`` where one ``joins``),
    then those a level with hints adds, at a level whose ``hints`` offers them; ``resign``
    says what N does in this game.

    >>> [line.term for line in command_lines()][-4:]
    ['C / L n', 'ANSI', 'Q', 'N']
    >>> command_lines("solver")[-1].text
    'a hint: the next play of a line the solver has proved wins'
    >>> command_lines(resign="resign this deal")[-1].text
    'resign this deal'
    """
    every_level = [command for command in COMMANDS if not command.hints]
    offered = [command for command in COMMANDS if command.hints] if hints in HINT_KINDS else []
    rows: list[tuple[str, str]] = []
    for command in every_level + offered:
        for index, (keys, text) in enumerate(command.help):
            text = text.format(hints=HINT_KINDS.get(hints, ""), resign=resign)
            if index == 0 and command.joins and rows:
                above_keys, above_text = rows.pop()
                keys, text = f"{above_keys} / {keys}", f"{above_text} / {text}"
            rows.append((keys, text))
    return [Term(keys, text) for keys, text in rows]


def help_lines(hints: Hints, resign: str = RESIGN_HELP) -> list[PageLine]:
    """The in-game help for a level whose ``hints`` setting is ``hints``, in a game where N
    does what ``resign`` says."""
    lines = [*command_lines(hints, resign), "", SPELLING, HELP_NOTE]
    if hints in HINT_KINDS:
        lines.append(HINT_NOTE)
    return lines


def rules_lines(levels: tuple[Level, ...]) -> list[PageLine]:
    """The rules, the commands, then what each of this door's levels changes.

    Each level is a paragraph of its own, so a page never splits one.
    """
    lines: list[PageLine] = list(RULES.splitlines())
    lines += [
        "",
        "COMMANDS",
        *command_lines(),
        SPELLING,
        "HINT asks for a hint at levels that offer them (the game is then marked).",
        "",
        "KEYS",
    ]
    for paragraph in KEYS:
        lines += [paragraph, ""]
    lines.append("THIS DOOR'S LEVELS")
    for index, level in enumerate(levels):
        if index:
            lines.append("")
        lines.append(f"{level.number}. {level.name}")
        lines.extend(f"   {line}" for line in variant_lines(level.variant))
        lines.extend(f"   {line}" for line in door_lines(level))
    return lines


def door_lines(level: Level) -> list[str]:
    """What the door adds to a level's rules: hints, winnable deals only."""
    notes = []
    if level.hints == Hints.VISIBLE:
        notes.append("HINT suggests a play judged from the cards in view.")
    elif level.hints == Hints.SOLVER:
        notes.append("HINT gives the next play of a line the solver has proved wins.")
    if level.winnable_only:
        notes.append("Every deal is one the solver has proved can be won.")
    return notes


def variant_lines(variant: Variant) -> list[str]:
    """Where a level differs from the classic game, in a caller's words."""
    classic = Variant()
    notes = [f"Turns {variant.draw} card{'s' if variant.draw > 1 else ''} at a time."]
    if variant.passes:
        notes.append(f"{variant.passes} pass{'es' if variant.passes > 1 else ''} through the deck.")
    else:
        notes.append("Unlimited passes through the deck.")
    if variant.reserve_size != classic.reserve_size or variant.columns != classic.columns:
        notes.append(f"{variant.reserve_size} reserve cards, {variant.columns} columns.")
    notes.append(
        {
            Base.DEALT: "A card is dealt to start the foundations.",
            Base.ACE: "Foundations start at the ace.",
            Base.CHOOSE: "The first card you send up sets the base rank.",
        }[variant.base]
    )
    if variant.wrap == Wrap.FULL:
        notes.append("Any rank turns the corner in the columns, the base rank too.")
    if variant.moves == Moves.PARTIAL:
        notes.append("Any run that fits may move between columns, not only whole piles.")
    if variant.spaces == Spaces.MANUAL:
        notes.append("You fill spaces from the reserve yourself, with S n.")
    if variant.spaces_after_reserve != SpacesAfterReserve.ANY:
        waste = variant.spaces_after_reserve == SpacesAfterReserve.WASTE
        notes.append(
            "Once the reserve is empty, only "
            + ("the waste's top card" if waste else "a K")
            + " may fill a space."
        )
    undo = {Undo.NONE: "No undo.", Undo.ONE: "One undo.", Undo.UNLIMITED: "Unlimited undo."}
    notes.append(
        undo[variant.undo]
        + (" Each undo counts as a move." if variant.tournament else "")
    )
    if variant.scoring == Scoring.POINTS:
        notes.append(f"Points scoring, multiplied by {variant.multiplier}.")
    elif variant.scoring == Scoring.VEGAS:
        refund = ", refunded on a win" if variant.vegas_refund_on_win else ""
        notes.append(
            f"Vegas: a game costs {variant.vegas_cost}{refund}; "
            f"each card on the foundations pays {variant.vegas_per_card}."
        )
    else:
        notes.append("Card scoring.")
    return notes
