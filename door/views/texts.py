"""The words of the rules pages and the in-game help, written for callers."""

from __future__ import annotations

from door.engine import Variant
from door.engine.variant import Base, Moves, Scoring, Spaces, SpacesAfterReserve, Undo, Wrap
from door.levels import Hints, Level
from door.views.commands import COMMANDS
from door.views.pages import PageLine, Term
from door.words import N_, _, ngettext

# The rules' sections, each a heading and a paragraph: the layout wraps them at the screen's
# width.
RULES: tuple[tuple[str, str], ...] = (
    (
        N_("THE LAYOUT"),
        N_(
            "Thirteen cards are dealt to the RESERVE (S); only its top card is face up and "
            "playable. One card goes to the first FOUNDATION (F): its rank is the BASE RANK, "
            "and the other three cards of that rank start the other foundations. Four cards go "
            "face up to the COLUMNS (1-4). The rest form the DECK (V), face down."
        ),
    ),
    (
        N_("THE AIM"),
        N_(
            "Build all four foundations up in suit from the base rank, turning the corner: "
            "after K comes A. With base 8 a foundation runs 8 9 10 J Q K A 2 ... 7. You win "
            "when all 52 cards are on the foundations."
        ),
    ),
    (
        N_("THE COLUMNS"),
        N_(
            "Build down in alternating colours: a red 7 on a black 8. Ranks turn the corner "
            "here too (a black K on a red A), except at the base rank: with base 8, a 7 never "
            "goes on an 8. A column moves to another only as a whole pile, by its bottom card."
        ),
    ),
    (
        N_("SPACES"),
        N_(
            "An empty column is filled at once from the reserve. Once the reserve is empty, a "
            "space takes the waste's top card or a whole column."
        ),
    ),
    (
        N_("THE DECK"),
        N_(
            "V turns three cards (one at some levels) onto the WASTE (D); only the waste's top "
            "card is playable. When the deck is empty, V turns the waste over for a new pass, "
            "in the same order. Some levels limit the passes."
        ),
    ),
    (
        N_("SCORING (points)"),
        N_(
            "1 for each card played from the waste, 2 for each reserve card turned face up, 4 "
            "for each card played to a foundation, -1 for each new pass; all multiplied by the "
            "level's multiplier. Vegas levels charge for a game and pay for each card on the "
            "foundations; card-scoring levels pay 10 for waste to foundation, 5 for waste to "
            "column, 5 for reserve or column to foundation, 5 for a reserve card turned up, and "
            "an undo costs what its play earned and 3 more."
        ),
    ),
    (
        N_("THE END"),
        N_(
            "When the deck, waste and reserve are empty and everything can go up, the door "
            "plays the cards up for you. When no play can change anything any more, the game "
            "is over and counts as lost."
        ),
    ),
)

SPELLING = N_("A letter and a digit may stand together: S3, 2F, D1. SF, DF and 12 work too.")
KEYS = (
    N_(
        "On the board a command acts as soon as it is complete (S, then 3), with no Enter; Esc "
        "or Backspace cancels a half-typed one. In the terminal settings, H makes Enter end "
        "every command instead."
    ),
    N_(
        "The arrow keys move a pointer over the piles: Space or Enter picks a card up, and "
        "drops it on the pile the pointer is moved to; on the deck they turn it; Esc puts a "
        "card back. At a level with partial moves, Up and Down on a column first choose how "
        "many cards to take."
    ),
    N_(
        "With a mouse, drag a card to where it goes, or click it and then its place; a click "
        "on the deck turns it."
    ),
)
HELP_NOTE = N_(
    "Columns build down in alternate colours; foundations build up in suit from the base "
    "rank. After K comes A, except that nothing goes on the base rank in a column."
)

# What a hint is at a level, by its ``hints`` setting; no hint at any other.
HINT_KINDS: dict[str, str] = {
    Hints.VISIBLE: N_("the best play judged from the cards in view"),
    Hints.SOLVER: N_("the next play of a line the solver has proved wins"),
}
HINT_NOTE = N_("A game in which you take a hint is marked (hint) on the scoreboards.")


# What N does in an ordinary game (a contest's deal, or the day's, says what it does there).
RESIGN_HELP = N_("resign this game (it counts as lost) and deal a new one")


def command_lines(hints: str = "", resign: str = RESIGN_HELP) -> list[PageLine]:
    """The commands of ``COMMANDS``, a row each (two joined by ``/`` where one ``joins``),
    then those a level with hints adds, at a level whose ``hints`` offers them; ``resign``
    says what N does in this game (in the caller's words, or marked with ``N_``).

    >>> [line.term for line in command_lines()][-4:]
    ['C / L n', 'ANSI', 'Q', 'N']
    >>> command_lines("solver")[-1].text
    'a hint: the next play of a line the solver has proved wins'
    >>> command_lines(resign="resign this deal")[-1].text
    'resign this deal'
    """
    every_level = [command for command in COMMANDS if not command.hints]
    offered = [command for command in COMMANDS if command.hints] if hints in HINT_KINDS else []
    kind = _(HINT_KINDS[hints]) if hints in HINT_KINDS else ""
    rows: list[tuple[str, str]] = []
    for command in every_level + offered:
        for index, (keys, text) in enumerate(command.help):
            # The keys are the game's in every language; "or" between them is a word.
            keys, text = _(keys), _(text).format(hints=kind, resign=_(resign))
            if index == 0 and command.joins and rows:
                above_keys, above_text = rows.pop()
                keys, text = f"{above_keys} / {keys}", f"{above_text} / {text}"
            rows.append((keys, text))
    return [Term(keys, text) for keys, text in rows]


def help_lines(hints: Hints, resign: str = RESIGN_HELP) -> list[PageLine]:
    """The in-game help for a level whose ``hints`` setting is ``hints``, in a game where N
    does what ``resign`` says."""
    lines = [*command_lines(hints, resign), "", _(SPELLING), _(HELP_NOTE)]
    if hints in HINT_KINDS:
        lines.append(_(HINT_NOTE))
    return lines


def rules_lines(levels: tuple[Level, ...]) -> list[PageLine]:
    """The rules, the commands, then what each of this door's levels changes.

    Each level is a paragraph of its own, so a page never splits one.
    """
    lines: list[PageLine] = []
    for index, (heading, paragraph) in enumerate(RULES):
        lines += ([""] if index else []) + [_(heading), _(paragraph)]
    lines += [
        "",
        _("COMMANDS"),
        *command_lines(),
        _(SPELLING),
        _("HINT asks for a hint at levels that offer them (the game is then marked)."),
        "",
        _("KEYS"),
    ]
    for paragraph in KEYS:
        lines += [_(paragraph), ""]
    lines.append(_("THIS DOOR'S LEVELS"))
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
        notes.append(_("HINT suggests a play judged from the cards in view."))
    elif level.hints == Hints.SOLVER:
        notes.append(_("HINT gives the next play of a line the solver has proved wins."))
    if level.winnable_only:
        notes.append(_("Every deal is one the solver has proved can be won."))
    return notes


def variant_lines(variant: Variant) -> list[str]:
    """Where a level differs from the classic game, in a caller's words."""
    classic = Variant()
    draw, passes = variant.draw, variant.passes
    notes = [
        ngettext("Turns {count} card at a time.", "Turns {count} cards at a time.", draw).format(
            count=draw
        )
    ]
    if passes:
        notes.append(
            ngettext(
                "{count} pass through the deck.", "{count} passes through the deck.", passes
            ).format(count=passes)
        )
    else:
        notes.append(_("Unlimited passes through the deck."))
    if variant.reserve_size != classic.reserve_size or variant.columns != classic.columns:
        notes.append(
            _("{reserve} reserve cards, {columns} columns.").format(
                reserve=variant.reserve_size, columns=variant.columns
            )
        )
    notes.append(
        {
            Base.DEALT: _("A card is dealt to start the foundations."),
            Base.ACE: _("Foundations start at the ace."),
            Base.CHOOSE: _("The first card you send up sets the base rank."),
        }[variant.base]
    )
    if variant.wrap == Wrap.FULL:
        notes.append(_("Any rank turns the corner in the columns, the base rank too."))
    if variant.moves == Moves.PARTIAL:
        notes.append(_("Any run that fits may move between columns, not only whole piles."))
    if variant.spaces == Spaces.MANUAL:
        notes.append(_("You fill spaces from the reserve yourself, with S n."))
    if variant.spaces_after_reserve == SpacesAfterReserve.WASTE:
        notes.append(_("Once the reserve is empty, only the waste's top card may fill a space."))
    elif variant.spaces_after_reserve != SpacesAfterReserve.ANY:
        notes.append(_("Once the reserve is empty, only a K may fill a space."))
    undo = {
        Undo.NONE: _("No undo."),
        Undo.ONE: _("One undo."),
        Undo.UNLIMITED: _("Unlimited undo."),
    }
    # Two sentences: each is whole in any language.
    tournament = " " + _("Each undo counts as a move.") if variant.tournament else ""
    notes.append(undo[variant.undo] + tournament)
    if variant.scoring == Scoring.POINTS:
        notes.append(
            _("Points scoring, multiplied by {multiplier}.").format(multiplier=variant.multiplier)
        )
    elif variant.scoring == Scoring.VEGAS:
        vegas = (
            _(
                "Vegas: a game costs {cost}, refunded on a win; each card on the foundations "
                "pays {pay}."
            )
            if variant.vegas_refund_on_win
            else _("Vegas: a game costs {cost}; each card on the foundations pays {pay}.")
        )
        notes.append(vegas.format(cost=variant.vegas_cost, pay=variant.vegas_per_card))
    else:
        notes.append(_("Card scoring."))
    return notes
