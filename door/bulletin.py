"""The scoreboards as a file a BBS shows as a bulletin, or publishes.

:func:`gather` reads the high-score lists and the standings from the store into a
:class:`Bulletin`; :func:`render` turns it into the bytes of one of three formats:

- ``ansi``: CP437 with colours and a box-drawing frame, for ANSI callers;
- ``ascii``: plain text, for everyone else;
- ``json``: the same facts for a web page or another program (UTF-8).

Both text formats are laid out for an 80-column screen but never write the 80th column:
terminals that wrap as soon as it is written (SyncTERM among them) would turn each line's
CR LF into a blank line. Lines end in CR LF, as BBS text files do. Every alias and BBS name
passes through :func:`ansi.text.sanitize`, whatever the store holds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from gettext import NullTranslations
from typing import Any

from ansi.charset import encode
from ansi.sequences import (
    BLACK,
    BLUE,
    CYAN,
    GREEN,
    MAGENTA,
    RED,
    WHITE,
    YELLOW,
    clear_screen,
    reset,
    sgr,
)
from ansi.text import sanitize
from door.config import Config
from door.contests import ContestBoard, board_json, contest_board
from door.store import HighScore, Standing, Store
from door.store.contests import ContestStanding, ContestState
from door.views.layout import heading, local_time, wrap
from door.views.pages import board_cell
from door.words import ENGLISH, N_, _, ngettext, speaking
from door.words.speaking import ENGLISH_WORDS

FORMATS = ("ansi", "ascii", "json")
WIDTH = 79  # columns used of an 80-column screen (see the module's docstring)
INNER = WIDTH - 2  # inside the ANSI frame
ALIAS_WIDTH = 20
NEWLINE = "\r\n"


@dataclass(frozen=True, slots=True)
class LevelBoard:
    """One level's high-score list; ``since`` is its last reset, if any."""

    number: int
    name: str
    knobs: dict[str, Any]
    since: datetime | None
    rows: tuple[HighScore, ...]


@dataclass(frozen=True, slots=True)
class Bulletin:
    """Everything a bulletin shows. ``standings`` is None when only one level was asked for;
    ``contest`` is the latest contest that has opened (its table), if any. It speaks the
    board's ``language`` (``words``, its catalog): a bulletin is for every caller."""

    bbs_name: str
    generated: datetime
    levels: tuple[LevelBoard, ...]
    standings: tuple[Standing, ...] | None
    contest: ContestBoard | None = None
    language: str = ENGLISH
    words: NullTranslations = field(default=ENGLISH_WORDS, compare=False, repr=False)


async def gather(
    store: Store,
    config: Config,
    level: int | None = None,
    now: datetime | None = None,
    bbs: str | None = None,
) -> Bulletin:
    """Read the boards: every level's high scores and the standings, or one level's list;
    with ``bbs``, only that board's callers (a board linked over RLOGIN, say), under its
    name, else everyone's, under the door's.

    KeyError if ``level`` is not one of the config's levels.
    """
    levels = config.levels if level is None else (config.level(level),)
    boards = []
    for entry in levels:
        rows = await store.high_scores(entry, config.scoreboard.high_scores, bbs)
        since = await store.scores_reset_at(entry.number)
        boards.append(
            LevelBoard(entry.number, entry.name, entry.variant.to_dict(), since, tuple(rows))
        )
    standings = contest = None
    if level is None:
        standings = tuple(await store.standings(config.scoreboard.standings, bbs))
        contest = await contest_board(store, bbs=bbs)
    return Bulletin(
        bbs_name=sanitize(bbs or config.bbs.name),
        generated=now or datetime.now(UTC),
        levels=tuple(boards),
        standings=standings,
        contest=contest,
        language=config.words.language,
        words=config.words.words(None),
    )


def render(bulletin: Bulletin, fmt: str) -> bytes:
    """The bulletin as the bytes of a file in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "ansi":
        return render_ansi(bulletin)
    if fmt == "ascii":
        return encode(render_ascii(bulletin), "ascii")
    if fmt == "json":
        return render_json(bulletin).encode("utf-8")
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


# -- shared layout ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Column:
    title: str  # marked for the catalog, translated in the heading
    width: int
    right: bool = False

    def cell(self, text: str) -> str:
        text = text[: self.width]
        return text.rjust(self.width) if self.right else text.ljust(self.width)


_SCORE_COLUMNS = (
    _Column("#", 3, right=True),
    # TRANSLATORS: at most 20 characters (a column head of the bulletin)
    _Column(N_("Alias"), ALIAS_WIDTH),
    # TRANSLATORS: at most 7 characters (a column head of the bulletin)
    _Column(N_("Score"), 7, right=True),
    # TRANSLATORS: at most 4 characters (a column head of the bulletin)
    _Column(N_("Won"), 4),
    # TRANSLATORS: at most 5 characters (a column head of the bulletin)
    _Column(N_("Moves"), 5, right=True),
    # TRANSLATORS: at most 10 characters (a column head of the bulletin)
    _Column(N_("Date"), 10),
    # TRANSLATORS: at most 4 characters (a column head of the bulletin)
    _Column(N_("Hint"), 4),
)
BOARD_WIDTH = 10  # the Board column of a bulletin with several boards' callers
# With a Board column, aliases get two columns fewer: the lines keep within the frame.
_BOARD_SCORE_COLUMNS = (
    _Column("#", 3, right=True),
    # TRANSLATORS: at most 18 characters (a column head of the bulletin)
    _Column(N_("Alias"), ALIAS_WIDTH - 2),
    # TRANSLATORS: at most 10 characters (a column head of the bulletin)
    _Column(N_("Board"), BOARD_WIDTH),
    *_SCORE_COLUMNS[2:],
)
_STANDING_COLUMNS = (
    _Column("#", 3, right=True),
    # TRANSLATORS: at most 20 characters (a column head of the bulletin)
    _Column(N_("Alias"), ALIAS_WIDTH),
    _Column("", 1),
    # TRANSLATORS: at most 6 characters (a column head of the bulletin)
    _Column(N_("Games"), 6, right=True),
    # TRANSLATORS: at most 5 characters (a column head of the bulletin)
    _Column(N_("Wins"), 5, right=True),
    # TRANSLATORS: at most 5 characters (a column head of the bulletin)
    _Column(N_("Win %"), 5, right=True),
    # TRANSLATORS: at most 7 characters (a column head of the bulletin)
    _Column(N_("Best"), 7, right=True),
    # TRANSLATORS: at most 5 characters (a column head of the bulletin)
    _Column(N_("Hints"), 5, right=True),
)
# With a Board column beside Hints, aliases get two columns fewer and Best one: the lines
# keep within the frame.
_BOARD_STANDING_COLUMNS = (
    _Column("#", 3, right=True),
    # TRANSLATORS: at most 18 characters (a column head of the bulletin)
    _Column(N_("Alias"), ALIAS_WIDTH - 2),
    # TRANSLATORS: at most 10 characters (a column head of the bulletin)
    _Column(N_("Board"), BOARD_WIDTH),
    *_STANDING_COLUMNS[2:6],
    # TRANSLATORS: at most 6 characters (a column head of the bulletin)
    _Column(N_("Best"), 6, right=True),
    _STANDING_COLUMNS[7],
)
_GAP = "  "


def _date(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d")


def _several_boards(bulletin: Bulletin) -> bool:
    """Whether any row is of a caller from another board: then a Board column is shown."""
    rows: list[HighScore | Standing | ContestStanding] = [
        row for board in bulletin.levels for row in board.rows
    ]
    rows += bulletin.standings or ()
    rows += bulletin.contest.rows if bulletin.contest is not None else ()
    return any(row.bbs for row in rows)


def _contest_columns(boards: bool) -> tuple[_Column, ...]:
    return _BOARD_CONTEST_COLUMNS if boards else _CONTEST_COLUMNS


def _score_columns(boards: bool) -> tuple[_Column, ...]:
    return _BOARD_SCORE_COLUMNS if boards else _SCORE_COLUMNS


def _standing_columns(boards: bool) -> tuple[_Column, ...]:
    return _BOARD_STANDING_COLUMNS if boards else _STANDING_COLUMNS


def _yes_no() -> tuple[str, str]:
    # TRANSLATORS: the bulletin's Won and Hint columns: at most 4 characters each
    return _("yes"), _("no")


def _score_cells(rank: int, row: HighScore, boards: bool = False) -> list[str]:
    alias = ALIAS_WIDTH - 2 if boards else ALIAS_WIDTH
    yes, no = _yes_no()
    where = [board_cell(row.bbs, BOARD_WIDTH)] if boards else []
    return [
        f"{rank}.",
        sanitize(row.alias, alias),
        *where,
        str(row.score),
        yes if row.won else no,
        str(row.moves),
        _date(row.finished),
        yes if row.assisted else "",
    ]


def _standing_cells(rank: int, row: Standing, boards: bool = False) -> list[str]:
    percentage = "-" if row.percentage is None else f"{row.percentage:.1f}"
    where = [board_cell(row.bbs, BOARD_WIDTH)] if boards else []
    return [
        f"{rank}.",
        sanitize(row.alias, ALIAS_WIDTH - 2 if boards else ALIAS_WIDTH),
        *where,
        "*" if row.unfinished else "",
        str(row.games),
        str(row.wins),
        percentage,
        "-" if row.best is None else str(row.best),
        str(row.assisted) if row.assisted else "",
    ]


_CONTEST_COLUMNS = (
    _Column("#", 3, right=True),
    # TRANSLATORS: at most 20 characters (a column head of the bulletin)
    _Column(N_("Alias"), ALIAS_WIDTH),
    # TRANSLATORS: at most 6 characters (a column head of the bulletin)
    _Column(N_("Deals"), 6),
    # TRANSLATORS: at most 6 characters (a column head of the bulletin)
    _Column(N_("Score"), 6, right=True),
    # TRANSLATORS: at most 5 characters (a column head of the bulletin)
    _Column(N_("Moves"), 5, right=True),
    # TRANSLATORS: at most 11 characters (a column head of the bulletin)
    _Column(N_("Finished"), 11),
    # TRANSLATORS: at most 4 characters (a column head of the bulletin)
    _Column(N_("Hint"), 4),
)
# With a Board column, aliases get four columns fewer: the lines keep within the frame.
_BOARD_CONTEST_COLUMNS = (
    _Column("#", 3, right=True),
    # TRANSLATORS: at most 16 characters (a column head of the bulletin)
    _Column(N_("Alias"), ALIAS_WIDTH - 4),
    # TRANSLATORS: at most 10 characters (a column head of the bulletin)
    _Column(N_("Board"), BOARD_WIDTH),
    *_CONTEST_COLUMNS[2:],
)


def _contest_cells(rank: int, row: ContestStanding, boards: bool = False) -> list[str]:
    where = [board_cell(row.bbs, BOARD_WIDTH)] if boards else []
    return [
        f"{rank}.",
        sanitize(row.alias, ALIAS_WIDTH - 4 if boards else ALIAS_WIDTH),
        *where,
        f"{row.played}" + (f"+{row.playing}" if row.playing else ""),
        str(row.score),
        str(row.moves),
        row.finished.astimezone().strftime("%m-%d %H:%M") if row.finished else "",
        _yes_no()[0] if row.assisted else "",
    ]


def _contest_title(board: ContestBoard) -> str:
    contest = board.contest
    when = contest_when(board)
    return ngettext(
        "Contest: {name} ({count} deal, level {level}, {when})",
        "Contest: {name} ({count} deals, level {level}, {when})",
        contest.deals,
    ).format(name=sanitize(contest.name), count=contest.deals, level=contest.level, when=when)


def contest_when(board: ContestBoard) -> str:
    """When a contest closes, or closed."""
    closes = local_time(board.contest.closes)
    if board.state == ContestState.CLOSED:
        return _("closed {time}").format(time=closes)
    return _("open until {time}").format(time=closes)


def _contest_notes(board: ContestBoard) -> list[str]:
    """What the deals may be seen as: seals while the contest is open, deals and salts after."""
    notes = [_(CONTEST_NOTE)]
    if board.deals:
        notes.append(_("Deals revealed (seal = first 32 hex digits of sha256 of DEAL:SALT):"))
        notes += [
            "  "
            + _("{number}. {deal} salt {salt}").format(
                number=deal.number, deal=deal.deal, salt=deal.salt
            )
            for deal in board.deals
        ]
    else:
        notes.append(_("Seals (the deals and salts are shown when it closes):"))
        notes += [f"  {number}. {sealed}" for number, sealed in enumerate(board.seals, 1)]
    return [piece for note in notes for piece in wrap(note, INNER - 4)]


def _line(columns: Sequence[_Column], cells: Sequence[str]) -> str:
    return _GAP.join(column.cell(cell) for column, cell in zip(columns, cells, strict=True))


def _heading(columns: Sequence[_Column]) -> str:
    cells: list[tuple[str, int, bool]] = []
    for index, column in enumerate(columns):
        if index:
            cells.append((_GAP, len(_GAP), False))
        cells.append((_(column.title) if column.title else "", column.width, column.right))
    return heading(cells)


def _level_title(board: LevelBoard) -> tuple[str, str]:
    """(the level's name, the note on when its list began, or '')."""
    since = _("since {time}").format(time=local_time(board.since)) if board.since else ""
    return sanitize(board.name), since


CONTEST_NOTE = N_(
    "Deals: finished (+ begun). Ranked by score, then fewer moves, then who finished first."
)
_EMPTY = N_("No finished games yet.")
# TRANSLATORS: keep the "*" first: it stands for the mark in the standings
_RESUME_NOTE = N_("* has a game to resume")
_HINTS_NOTE = N_("Hint, Hints: a hint was taken (practice games are never on these lists)")
_NOBODY = N_("Nobody has played a deal of it yet.")


def title(bulletin: Bulletin) -> str:
    """The scoreboards' title: the board's name."""
    return _("{bbs} - Canfield scoreboards").format(bbs=sanitize(bulletin.bbs_name))


def updated(bulletin: Bulletin) -> str:
    return _("Updated {time}").format(time=local_time(bulletin.generated))


# -- ASCII -------------------------------------------------------------------------------------


def render_ascii(bulletin: Bulletin) -> str:
    """Plain text, at most 79 columns, CR LF line ends."""
    with speaking(bulletin.words):
        return _ascii(bulletin)


def _ascii(bulletin: Bulletin) -> str:
    boards = _several_boards(bulletin)
    scores, standing = _score_columns(boards), _standing_columns(boards)
    heads = wrap(title(bulletin), WIDTH)
    lines = [*heads, "=" * max(map(len, heads))]
    for board in bulletin.levels:
        name, since = _level_title(board)
        lines += ["", f"{name}  ({since})" if since else name]
        if not board.rows:
            lines.append(f"  {_(_EMPTY)}")
            continue
        lines.append("  " + _heading(scores))
        lines += [
            "  " + _line(scores, _score_cells(rank, row, boards))
            for rank, row in enumerate(board.rows, start=1)
        ]
    if bulletin.contest is not None:
        contest, columns = bulletin.contest, _contest_columns(boards)
        lines += ["", *wrap(_contest_title(contest), WIDTH)]
        if contest.rows:
            lines.append("  " + _heading(columns))
            lines += [
                "  " + _line(columns, _contest_cells(rank, row, boards))
                for rank, row in enumerate(contest.rows, start=1)
            ]
        else:
            lines.append(f"  {_(_NOBODY)}")
        lines += [f"  {note}" for note in _contest_notes(contest)]
    if bulletin.standings is not None:
        lines += ["", _("Standings")]
        if bulletin.standings:
            lines.append("  " + _heading(standing))
            lines += [
                "  " + _line(standing, _standing_cells(rank, row, boards))
                for rank, row in enumerate(bulletin.standings, start=1)
            ]
            lines.append(f"  {_(_RESUME_NOTE)}")
            lines.append(f"  {_(_HINTS_NOTE)}")
        else:
            lines.append(f"  {_(_EMPTY)}")
    lines += ["", updated(bulletin)]
    return "".join(line.rstrip()[:WIDTH] + NEWLINE for line in lines)


# -- ANSI --------------------------------------------------------------------------------------

_FRAME = (BLUE, True)
_TITLE = (YELLOW, True)
_HEAD = (CYAN, False)
_TEXT = (WHITE, False)
_ALIAS = (WHITE, True)
_SCORE = (GREEN, True)
_WON = (GREEN, False)
_LOST = (RED, False)
_NOTE = (MAGENTA, True)

Style = tuple[int, bool]
Segment = tuple[str, Style]


def _paint(segments: Sequence[Segment]) -> str:
    out, current = [], None
    for text, style in segments:
        if style != current:
            out.append(sgr(style[0], BLACK, bold=style[1]))
            current = style
        out.append(text)
    return "".join(out)


def _framed(segments: Sequence[Segment]) -> str:
    """One line inside the frame: ║ content padded to the inner width ║."""
    used = sum(len(text) for text, _style in segments)
    padding = [(" " * (INNER - used), _TEXT)] if used < INNER else []
    return _paint([("║", _FRAME), *segments, *padding, ("║", _FRAME)])


def _rule(left: str, fill: str, right: str, label: str = "") -> str:
    """A horizontal line of the frame, with ``label`` in its middle."""
    if not label:
        return _paint([(left + fill * INNER + right, _FRAME)])
    label = f" {label[: INNER - 6]} "
    before = (INNER - len(label)) // 2
    after = INNER - len(label) - before
    return _paint([(left + fill * before, _FRAME), (label, _TITLE), (fill * after + right, _FRAME)])


def _row_segments(
    columns: Sequence[_Column], cells: Sequence[str], styles: Sequence[Style]
) -> list[Segment]:
    segments: list[Segment] = [("  ", _TEXT)]
    for index, (column, cell, style) in enumerate(zip(columns, cells, styles, strict=True)):
        if index:
            segments.append((_GAP, _TEXT))
        segments.append((column.cell(cell), style))
    return segments


def _score_styles(row: HighScore, boards: bool = False) -> list[Style]:
    where = [_TEXT] if boards else []
    return [_TEXT, _ALIAS, *where, _SCORE, _WON if row.won else _LOST, _TEXT, _TEXT, _NOTE]


_STANDING_STYLES = [_TEXT, _ALIAS, _NOTE, _TEXT, _WON, _TEXT, _SCORE, _NOTE]
_BOARD_STANDING_STYLES = [*_STANDING_STYLES[:2], _TEXT, *_STANDING_STYLES[2:]]


def _ansi_level(board: LevelBoard, boards: bool = False) -> list[str]:
    name, since = _level_title(board)
    gap = INNER - 2 - len(name) - len(since) - 1
    lines = [_framed([("  ", _TEXT), (name, _TITLE), (" " * max(gap, 1), _TEXT), (since, _TEXT)])]
    if not board.rows:
        return [*lines, _framed([(f"  {_(_EMPTY)}", _TEXT)])]
    columns = _score_columns(boards)
    lines.append(_framed([("  " + _heading(columns), _HEAD)]))
    for rank, row in enumerate(board.rows, start=1):
        cells = _score_cells(rank, row, boards)
        lines.append(_framed(_row_segments(columns, cells, _score_styles(row, boards))))
    return lines


def _ansi_standings(standings: Sequence[Standing], boards: bool = False) -> list[str]:
    lines = [_framed([("  ", _TEXT), (_("Standings"), _TITLE)])]
    if not standings:
        return [*lines, _framed([(f"  {_(_EMPTY)}", _TEXT)])]
    columns = _standing_columns(boards)
    styles = _BOARD_STANDING_STYLES if boards else _STANDING_STYLES
    lines.append(_framed([("  " + _heading(columns), _HEAD)]))
    for rank, row in enumerate(standings, start=1):
        cells = _standing_cells(rank, row, boards)
        lines.append(_framed(_row_segments(columns, cells, styles)))
    resume = _(_RESUME_NOTE)
    lines.append(_framed([("  ", _TEXT), (resume[:1], _NOTE), (resume[1:], _TEXT)]))
    lines.append(_framed([("  " + _(_HINTS_NOTE), _TEXT)]))
    return lines


def _ansi_contest(board: ContestBoard, boards: bool = False) -> list[str]:
    lines = [
        _framed([("  ", _TEXT), (line, _TITLE)]) for line in wrap(_contest_title(board), INNER - 2)
    ]
    if not board.rows:
        lines.append(_framed([("  " + _(_NOBODY), _TEXT)]))
    else:
        columns = _contest_columns(boards)
        lines.append(_framed([("  " + _heading(columns), _HEAD)]))
        where = [_TEXT] if boards else []
        styles = [_TEXT, _ALIAS, *where, _TEXT, _SCORE, _TEXT, _TEXT, _NOTE]
        for rank, row in enumerate(board.rows, start=1):
            cells = _contest_cells(rank, row, boards)
            lines.append(_framed(_row_segments(columns, cells, styles)))
    lines += [_framed([("  " + note, _TEXT)]) for note in _contest_notes(board)]
    return lines


def render_ansi(bulletin: Bulletin) -> bytes:
    """Colours and a double frame, CP437 bytes, for an 80x25 ANSI screen."""
    with speaking(bulletin.words):
        return _ansi(bulletin)


def _ansi(bulletin: Bulletin) -> bytes:
    boards = _several_boards(bulletin)
    sections = [_ansi_level(board, boards) for board in bulletin.levels]
    if bulletin.contest is not None:
        sections.append(_ansi_contest(bulletin.contest, boards))
    if bulletin.standings is not None:
        sections.append(_ansi_standings(bulletin.standings, boards))
    head = title(bulletin)
    if len(head) <= INNER - 6:
        lines = [_rule("╔", "═", "╗", head)]
    else:  # too long for the frame's top: the board's name gets a line of its own
        name = [_framed([("  ", _TEXT), (line, _TITLE)]) for line in wrap(head, INNER - 2)]
        lines = [_rule("╔", "═", "╗"), *name]
    for index, section in enumerate(sections):
        if index:
            lines.append(_rule("╟", "─", "╢"))
        lines += section
    lines.append(_rule("╚", "═", "╝", updated(bulletin)))
    text = sgr() + clear_screen() + NEWLINE.join(lines) + reset() + NEWLINE
    return encode(text, "cp437")


# -- JSON --------------------------------------------------------------------------------------


def _score_json(rank: int, row: HighScore) -> dict[str, Any]:
    return {
        "rank": rank,
        "alias": sanitize(row.alias),
        "bbs": None if row.bbs is None else sanitize(row.bbs),
        "score": row.score,
        "won": row.won,
        "moves": row.moves,
        "finished": row.finished.isoformat(),
        "assisted": row.assisted,
    }


def _standing_json(rank: int, row: Standing) -> dict[str, Any]:
    return {
        "rank": rank,
        "alias": sanitize(row.alias),
        "bbs": None if row.bbs is None else sanitize(row.bbs),
        "games": row.games,
        "wins": row.wins,
        "percentage": None if row.percentage is None else round(row.percentage, 1),
        "best": row.best,
        "unfinished": row.unfinished,
        "assisted": row.assisted,
    }


def as_json(bulletin: Bulletin) -> dict[str, Any]:
    """The bulletin as plain JSON values."""
    document: dict[str, Any] = {
        "bbs": bulletin.bbs_name,
        "generated": bulletin.generated.isoformat(),
        "levels": [
            {
                "number": board.number,
                "name": sanitize(board.name),
                "rules": board.knobs,
                "since": None if board.since is None else board.since.isoformat(),
                "high_scores": [
                    _score_json(rank, row) for rank, row in enumerate(board.rows, start=1)
                ],
            }
            for board in bulletin.levels
        ],
    }
    if bulletin.contest is not None:
        document["contest"] = board_json(bulletin.contest)
    if bulletin.standings is not None:
        document["standings"] = [
            _standing_json(rank, row) for rank, row in enumerate(bulletin.standings, start=1)
        ]
    return document


def render_json(bulletin: Bulletin) -> str:
    return json.dumps(as_json(bulletin), indent=2, ensure_ascii=False) + "\n"
