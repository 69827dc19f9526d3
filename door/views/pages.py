"""Full-screen pages: the welcome, menus, scoreboards, statistics, rules and help.

Each function draws one page into a :class:`ScreenBuffer` of the caller's size (the look's
``width`` and ``height``, 80x24 unless their window says otherwise); the session sends it whole
(ANSI) or as plain lines (ASCII). Anything a user typed (aliases) is cleaned with
``sanitize`` before it is drawn here.

>>> from door.views.board import Look
>>> screen = ScreenBuffer(80, 24)
>>> draw_page(screen, "Main menu", [Entry("P", "Play a game")], Look(ansi=False), "Your choice: ")
>>> screen.plain_lines()[2]
'  P  Play a game'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ansi.art import Art
from ansi.screen import ScreenBuffer, Style
from ansi.text import sanitize
from door.engine.status import Status
from door.engine.variant import Scoring
from door.levels import Level
from door.store.records import HighScore, Standing, Statistics
from door.views.board import (
    HEIGHT,
    INFO,
    KEY,
    LABEL,
    MESSAGE,
    PLAIN,
    PROMPT_ROW,
    TITLE,
    VALUE,
    WIDTH,
    Look,
    draw_art,
)
from door.views.layout import heading, paginate, wrap
from door.words import N_, _, ngettext

FIRST_ROW = 3
# Under the text: a blank row, a message's two rows, the prompt's and the bottom row.
ROWS_UNDER = 4
TEXT_COL, KEY_COL, ENTRY_COL = 2, 3, 6


def page_rows(look: Look) -> int:
    """How many rows of text a page holds on the caller's screen (18 on 80x24)."""
    return look.height - ROWS_UNDER - FIRST_ROW + 1


def prompt_row(look: Look) -> int:
    """The row the prompt is on: the last but one (23 on 80x24), as on the board."""
    return look.height - (HEIGHT - PROMPT_ROW)


def right_col(look: Look) -> int:
    """The last column text uses: a terminal may wrap after the last one."""
    return look.width - 1


@dataclass(frozen=True, slots=True)
class Entry:
    """A menu line: the key to press and what it does."""

    key: str
    text: str


@dataclass(frozen=True, slots=True)
class Text:
    """A line of text, in a style."""

    text: str
    style: Style = INFO


@dataclass(frozen=True, slots=True)
class Term:
    """A term and what it means, the meaning beside it in a column ``width`` wide."""

    term: str
    text: str
    width: int = 10


@dataclass(frozen=True, slots=True)
class Styled:
    """A line of pieces, each in a style of its own, one after the other (cards in the
    board's colours); never wrapped, so keep it within the page's width."""

    pieces: tuple[tuple[str, Style], ...]


PageLine = Entry | Text | Term | Styled | str

# A row of a laid-out page: pieces of text, each at a column in a style. () is a blank row.
Piece = tuple[int, str, Style]
ScreenRow = tuple[Piece, ...]
BLANK_ROW: ScreenRow = ()


def _beside(
    col: int, head: Piece | None, text: str, style: Style, right: int
) -> list[ScreenRow]:
    """``text`` wrapped from ``col`` to column ``right``, ``head`` on its first row."""
    rows = []
    for index, line in enumerate(wrap(text, right - col + 1)):
        pieces = [(col, line, style)] if line else []
        if index == 0 and head is not None:
            pieces.insert(0, head)
        rows.append(tuple(pieces))
    return rows


def lay_out(lines: Sequence[PageLine], look: Look) -> list[ScreenRow]:
    """The rows ``lines`` take on a page, every text wrapped between words at its width."""

    def styled(style: Style) -> Style:
        return style if look.ansi else PLAIN

    right = right_col(look)
    rows: list[ScreenRow] = []
    for line in lines:
        if isinstance(line, Entry):
            head = (KEY_COL, line.key, styled(KEY))
            col = max(ENTRY_COL, KEY_COL + len(line.key) + 1)
            rows += _beside(col, head, line.text, styled(INFO), right)
        elif isinstance(line, Term):
            if len(line.term) < line.width:
                head = (TEXT_COL, line.term, styled(LABEL))
                rows += _beside(TEXT_COL + line.width, head, line.text, styled(INFO), right)
            else:  # a term too long for its column gets a row of its own
                rows += _beside(TEXT_COL, None, line.term, styled(LABEL), right)
                rows += _beside(TEXT_COL + line.width, None, line.text, styled(INFO), right)
        elif isinstance(line, Text):
            rows += _beside(TEXT_COL, None, line.text, styled(line.style), right)
        elif isinstance(line, Styled):
            pieces, col = [], TEXT_COL
            for text, style in line.pieces:
                pieces.append((col, text, styled(style)))
                col += len(text)
            rows.append(tuple(pieces))
        else:
            rows += _beside(TEXT_COL, None, line, styled(INFO), right)
    return rows


def pages_of(lines: Sequence[PageLine], look: Look) -> list[list[ScreenRow]]:
    """``lines`` laid out and cut into pages between paragraphs (see :func:`paginate`)."""
    return paginate(lay_out(lines, look), page_rows(look), BLANK_ROW)


def _title(screen: ScreenBuffer, title: str, look: Look, row: int = 1) -> None:
    line = f" {title}"[: look.width - 1].ljust(look.width - 1)
    screen.put(row, 1, line, TITLE if look.ansi else PLAIN)


def fits_under(head: Art, rows: Sequence[ScreenRow], look: Look) -> bool:
    """Whether a page's ``rows`` fit under ``head``, the art drawn above its title, in the
    look's window: no wider than it, and with the rows below.

    >>> from ansi.art import read_art
    >>> head = read_art(b"=\\r\\n" * 6)
    >>> fits_under(head, [BLANK_ROW] * 12, Look()), fits_under(head, [BLANK_ROW] * 13, Look())
    (True, False)
    """
    return head.columns <= look.width and len(rows) <= page_rows(look) - head.height


def draw_rows(
    screen: ScreenBuffer,
    title: str,
    rows: Sequence[ScreenRow],
    look: Look,
    prompt: str = "",
    message: str = "",
    head: Art | None = None,
) -> None:
    """A titled page of laid-out rows, a message and a prompt where the cursor waits, on a
    ``screen`` of the look's size; ``head``, the sysop's art above the title (the rows must
    fit under it: :func:`fits_under`)."""
    screen.clear()
    top = 0
    if head is not None:
        draw_art(screen, head, 1, 1, look)
        top = head.height
    _title(screen, title, look, 1 + top)
    for offset, row in enumerate(rows[: page_rows(look) - top]):
        for col, text, style in row:
            screen.put(FIRST_ROW + top + offset, col, text, style)
    room = right_col(look) - TEXT_COL + 1
    prompt_at = prompt_row(look)
    prompt_lines = _prompt_lines(prompt, room)
    first_prompt_row = prompt_at - len(prompt_lines) + 1
    if message:
        style = MESSAGE if look.ansi else PLAIN
        # A message takes one row, or two, between the text and the prompt.
        message_rows = [
            row for row in (first_prompt_row - 2, first_prompt_row - 1) if row >= prompt_at - 2
        ]
        lines = wrap(message, room)[-len(message_rows) :]
        for message_row, line in zip(message_rows[-len(lines) :], lines, strict=True):
            screen.put(message_row, TEXT_COL, line, style)
    style = VALUE if look.ansi else PLAIN
    for prompt_line_row, line in enumerate(prompt_lines, start=first_prompt_row):
        end = screen.put(prompt_line_row, TEXT_COL, line, style)
    screen.set_cursor(prompt_at, min(end, look.width - 1))


def _prompt_lines(prompt: str, room: int) -> list[str]:
    """A prompt in the lines it takes in ``room`` columns: one, unless it is too long, when
    it is wrapped with a column to spare on its last line for the cursor.

    >>> _prompt_lines("Your choice: ", 38)
    ['Your choice: ']
    >>> _prompt_lines("Nobody called Alice is here. Sign up? ", 30)
    ['Nobody called Alice is here.', 'Sign up? ']
    """
    if len(prompt) <= room:
        return [prompt]
    lines = wrap(prompt, room - 1)
    if prompt.endswith(" "):
        lines[-1] += " "
    return lines


def draw_page(
    screen: ScreenBuffer,
    title: str,
    lines: Sequence[PageLine],
    look: Look,
    prompt: str = "",
    message: str = "",
) -> None:
    """A titled page of lines (that fit one page), a message and a prompt."""
    draw_rows(screen, title, lay_out(lines, look), look, prompt, message)


def welcome_lines(bbs_name: str, sysop: str, node: int) -> list[PageLine]:
    return [
        Text(_("Welcome to {bbs}, node {node}.").format(bbs=bbs_name, node=node), VALUE),
        "",
        Text("C A N F I E L D", MESSAGE),
        "",
        _(
            "The solitaire of the casino: build four foundations up in suit from the base "
            "card, turning the corner from K to A, with the help of four columns built down in "
            "alternate colours, a reserve of thirteen cards and the deck."
        ),
        "",
        _("Your sysop is {sysop}.").format(sysop=sysop),
        "",
        _("Type your alias to log in, or NEW to sign up."),
    ]


def art_welcome_lines(bbs_name: str, node: int) -> list[PageLine]:
    """The welcome's lines under the sysop's own art: which board and node, and how to log in."""
    return [
        Text(_("Welcome to {bbs}, node {node}.").format(bbs=bbs_name, node=node), VALUE),
        "",
        _("Type your alias to log in, or NEW to sign up."),
    ]


def goodbye_screen(art: Art, goodbye: str, look: Look) -> ScreenBuffer:
    """The sysop's goodbye art, and the goodbye line on the prompt's row under it, in the
    column every line starts in, on a screen of the look's size."""
    screen = ScreenBuffer(look.width, look.height)
    draw_art(screen, art, 1, 1, look)
    row = prompt_row(look)
    end = screen.put(row, TEXT_COL, goodbye, VALUE if look.ansi else PLAIN)
    screen.set_cursor(row, min(end, look.width - 1))
    return screen


def level_line(level: Level) -> str:
    variant = level.variant
    count = variant.passes
    passes = (
        _("unlimited passes")
        if count == 0
        else ngettext("{count} pass", "{count} passes", count).format(count=count)
    )
    scoring = {
        Scoring.POINTS: _("points x{multiplier}").format(multiplier=variant.multiplier),
        Scoring.VEGAS: _("vegas ${cost}").format(cost=variant.vegas_cost),
        Scoring.CARDS: _("card scoring"),
    }[variant.scoring]
    return _("{level} (draw {draw}, {passes}, {scoring})").format(
        level=level.name, draw=variant.draw, passes=passes, scoring=scoring
    )


# A game's state, as the pages and scoreboards say it.
STATUS_WORDS = {
    # TRANSLATORS: a game's state, at most 10 characters (a column of the day's scoreboard)
    Status.PLAYING: N_("playing"),
    # TRANSLATORS: a game's state, at most 10 characters (a column of the scoreboards)
    Status.WON: N_("won"),
    # TRANSLATORS: a game's state (no play left), at most 10 characters (a scoreboard column)
    Status.STUCK: N_("stuck"),
    # TRANSLATORS: a game's state, at most 10 characters (a column of the day's scoreboard)
    Status.RESIGNED: N_("resigned"),
}


def status_word(status: Status) -> str:
    """A game's state in the caller's words: won, stuck, ..."""
    return _(STATUS_WORDS[status])


def _date(when: datetime | None) -> str:
    return when.strftime("%Y-%m-%d") if when else ""


BOARD_WIDTH = 13  # a caller's board on the scoreboards


def board_cell(bbs: str | None, width: int = BOARD_WIDTH) -> str:
    """Where a player calls from, for a narrow column: blank for the door's own callers, else
    their board's name; one too long is shortened with a ``~`` at the end, so that it never
    reads as the name of another board ("The Lost" for "The Lost Cavern").

    >>> board_cell(None), board_cell("Another Board"), board_cell("The Lost Cavern BBS")
    ('', 'Another Board', 'The Lost Cav~')
    >>> board_cell("The Lost Cavern", 10)
    'The Lost~'
    """
    if bbs is None:
        return ""
    name = sanitize(bbs)
    if len(name) <= width:
        return name
    return name[: width - 1].rstrip() + "~"


def _results() -> tuple[str, str, int]:
    """A high score's result, won or lost, in the caller's words, and how many columns a
    result needs past the English's four ("lost")."""
    # TRANSLATORS: a game's result on the scoreboards: keep "won" and "lost" about as long
    won, lost = _("won"), _("lost")
    return won, lost, max(0, len(won) - 4, len(lost) - 4)


def high_score_lines(
    level: Level, scores: Sequence[HighScore], width: int = WIDTH
) -> list[PageLine]:
    """A level's high scores; with a Board column when any player calls from another board.
    On a screen narrower than ``WIDTH`` columns, the place, alias, score and result alone.

    >>> from datetime import datetime
    >>> from door.levels import SHIPPED_LEVELS
    >>> won = HighScore("Alice", "The Lost Cavern", 612, True, 140, datetime(2026, 12, 7), True, 1)
    >>> lines = high_score_lines(SHIPPED_LEVELS[1], [won], 40)[2:]
    >>> for line in lines:
    ...     print(line if isinstance(line, str) else line.text)
     #  Alias                Score Result
      1 Alice                  612 won*
    * with a hint
    """
    if width < WIDTH:
        return _narrow_high_scores(level, scores)
    boards = any(row.bbs for row in scores)
    won, lost, longer = _results()
    # A language's longer result takes its room from the alias's column (English's: none).
    if boards:
        result_width, alias_width = 5 + longer, 21 - longer
    else:
        result_width, alias_width = 8 + max(0, longer - 4), 22 - max(0, longer - 4)
    head = heading(
        [
            ("#", 3, True),
            ("  ", 2, False),
            # TRANSLATORS: a column head of the scoreboards, at most 16 characters
            (_("Alias"), alias_width, False),
            # TRANSLATORS: a column head of the scoreboards, at most 13 characters
            *([(_("Board"), BOARD_WIDTH + 1, False)] if boards else []),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Score"), 5 if boards else 7, True),
            ("  ", 2, False),
            # The Board column's "Result" is wider than its values: the heads after it stand
            # a column to the right of theirs.
            # TRANSLATORS: a column head of the scoreboards, at most 9 characters
            (_("Result"), result_width + 1 if boards else result_width, False),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Moves"), 6, True),
            ("  ", 2, False),
            # TRANSLATORS: a column head of the scoreboards, at most 10 characters
            (_("Date"), 10, False),
        ]
    )
    lines: list[PageLine] = [Text(level_line(level), LABEL), "", Text(head, LABEL)]
    hint = " " + _("(hint)")
    for place, row in enumerate(scores, start=1):
        name = sanitize(row.alias, min(20, alias_width - 1))
        where = f"{board_cell(row.bbs):<{BOARD_WIDTH + 1}}" if boards else ""
        lines.append(
            f"{place:>3}  {name:<{alias_width}}{where}{row.score:>{5 if boards else 7}}  "
            f"{won if row.won else lost:<{result_width}}{row.moves:>6}  "
            f"{_date(row.finished):<10}{hint if row.assisted else ''}"
        )
    if not scores:
        lines.append(_("No finished games at this level yet."))
    return lines


def _narrow_high_scores(level: Level, scores: Sequence[HighScore]) -> list[PageLine]:
    won, lost, longer = _results()
    alias = 20 - longer
    head = heading(
        [
            ("#", 2, True),
            ("  ", 2, False),
            # TRANSLATORS: a column head of the scoreboards, at most 16 characters
            (_("Alias"), alias, False),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Score"), 6, True),
            (" ", 1, False),
            # TRANSLATORS: a column head of the scoreboards, at most 9 characters
            (_("Result"), 6, False),
        ]
    )
    lines: list[PageLine] = [Text(level_line(level), LABEL), "", Text(head.rstrip(), LABEL)]
    for place, row in enumerate(scores, start=1):
        result = (won if row.won else lost) + ("*" if row.assisted else "")
        lines.append(f"{place:>3} {sanitize(row.alias, alias):<{alias}}{row.score:>6} {result}")
    if not scores:
        lines.append(_("No finished games at this level yet."))
    if any(row.assisted for row in scores):
        lines.append(Text(_("* with a hint"), LABEL))
    return lines


def standing_lines(standings: Sequence[Standing], width: int = WIDTH) -> list[PageLine]:
    """The standings; with a Board column when any player calls from another board. On a
    screen narrower than ``WIDTH`` columns, the games, wins and share won alone."""
    if width < WIDTH:
        return _narrow_standings(standings)
    boards = any(row.bbs for row in standings)
    head = heading(
        [
            # TRANSLATORS: a column head of the scoreboards, at most 16 characters
            (_("Alias"), 22, False),
            # TRANSLATORS: a column head of the scoreboards, at most 13 characters
            *([(_("Board"), BOARD_WIDTH + 1, False)] if boards else []),
            # TRANSLATORS: a column head of the scoreboards, at most 6 characters
            (_("Games"), 7, True),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Wins"), 7, True),
            # TRANSLATORS: a column head of the scoreboards, at most 6 characters
            (_("Won %"), 8, True),
            # TRANSLATORS: a column head of the scoreboards, at most 7 characters
            (_("Best"), 8, True),
            # TRANSLATORS: a column head of the scoreboards, at most 7 characters
            (_("Hints"), 8, True),
        ]
    )
    lines: list[PageLine] = [Text(head, LABEL)]
    for row in standings:
        percent = "" if row.percentage is None else f"{row.percentage:.1f}"
        best = "" if row.best is None else str(row.best)
        star = "*" if row.unfinished else " "
        hinted = str(row.assisted) if row.assisted else ""
        board = f"{board_cell(row.bbs):<{BOARD_WIDTH + 1}}" if boards else ""
        lines.append(
            f"{sanitize(row.alias, 20):<22}{board}{row.games:>6}{star}{row.wins:>7}{percent:>8}"
            f"{best:>8}{hinted:>8}"
        )
    if not standings:
        lines.append(_("Nobody has finished a game yet."))
    lines += [
        "",
        Text(_("* has a saved game to finish (not counted above)"), LABEL),
        Text(_("Hints: games in which the player took a hint"), LABEL),
        Text(_("Practice games (numbered deals) are not counted"), LABEL),
    ]
    return lines


def _narrow_standings(standings: Sequence[Standing]) -> list[PageLine]:
    head = heading(
        [
            # TRANSLATORS: a column head of the scoreboards, at most 16 characters
            (_("Alias"), 20, False),
            # TRANSLATORS: a column head of the scoreboards, at most 6 characters
            (_("Games"), 6, True),
            # TRANSLATORS: a column head of the scoreboards, at most 5 characters
            (_("Wins"), 5, True),
            # TRANSLATORS: a column head of the scoreboards, at most 6 characters
            (_("Won %"), 7, True),
        ]
    )
    lines: list[PageLine] = [Text(head, LABEL)]
    for row in standings:
        percent = "" if row.percentage is None else f"{row.percentage:.1f}"
        star = "*" if row.unfinished else " "
        lines.append(f"{sanitize(row.alias, 20):<20}{row.games:>5}{star}{row.wins:>5}{percent:>7}")
    if not standings:
        lines.append(_("Nobody has finished a game yet."))
    lines += [
        "",
        Text(_("* has a saved game to finish (not counted above)"), LABEL),
        Text(_("Practice games (numbered deals) are not counted"), LABEL),
    ]
    return lines


def statistics_lines(
    level: Level, stats: Statistics, recent: Sequence[tuple[int, Status]]
) -> list[PageLine]:
    """A user's record at a level, and a bar for each recent game: cards sent up."""
    percent = f"{stats.win_percentage:.1f}%"
    best = "-" if stats.best_score is None else str(stats.best_score)
    average = "-" if stats.average_score is None else f"{stats.average_score:.1f}"
    lines: list[PageLine] = [
        Text(level_line(level), LABEL),
        _("Played {played}   Won {won}   Lost {lost}   Won {percent}").format(
            played=stats.played, won=stats.won, lost=stats.lost, percent=percent
        ),
        _("Best score {best}   Average {average}   Streak {streak} (longest {longest})").format(
            best=best,
            average=average,
            streak=stats.current_streak,
            longest=stats.longest_streak,
        ),
    ]
    if stats.balance is not None:
        lines.append(_("Vegas balance: {balance}").format(balance=stats.balance))
    if stats.practice_played:
        lines.append(
            _("Practice, not counted above: played {played}   won {won}").format(
                played=stats.practice_played, won=stats.practice_won
            )
        )
    if recent:
        lines += ["", Text(_("Cards on the foundations in your recent games:"), LABEL)]
        for cards, status in recent:
            bar = "█" * (cards // 2) + ("▌" if cards % 2 else "")
            lines.append(f"{cards:>3} {bar:<26} {status_word(status)}")
    return lines
