"""The board, the help, the rules and the scoreboards drawn in German, in the classic window
and the narrow one: every row within the window (its last column never written), every word
of the German whole, and the table's columns in their places.

A word cut by its row would show as two fragments, a word the page does not have: the pages'
words are read back in order (as ``tests/test_layout.py`` does for the English), and the
board's fixed places (its labels, sidebar and keys' reminder) are each looked for whole.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from ansi.screen import ScreenBuffer
from door.bulletin import Bulletin, LevelBoard, render_ansi, render_ascii
from door.engine import Game, Variant
from door.levels import Level
from door.scoreboard_page import render_html
from door.store.contests import ContestStanding
from door.store.records import DailyResult, HighScore, Standing
from door.views.board import PROMPT, Look, draw_board, geometry, sidebar_lines
from door.views.commands import COMMANDS
from door.views.contests import table_lines
from door.views.daily import board_lines
from door.views.layout import wrap
from door.views.pages import (
    FIRST_ROW,
    PageLine,
    Text,
    draw_rows,
    high_score_lines,
    page_rows,
    pages_of,
    standing_lines,
)
from door.views.pointer import reminder_lines
from door.views.texts import help_lines, rules_lines
from door.words import Catalogs, _, speaking
from tests.support.screens import words_of

GERMAN = Catalogs.read().words("de")
ENGLISH = Catalogs.read().words("en")
WINDOWS = ((80, 24), (40, 24), (40, 25))
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
ALIAS = "A" * 20
LEVELS = (
    Level(1, "Stufe 1", Variant(draw=1)),
    Level(2, "Stufe 2", Variant(passes=3, scoring="vegas", spaces="manual", wrap="full")),
    Level(3, "Stufe 3", Variant(passes=1, moves="partial", spaces_after_reserve="king")),
    Level(
        4,
        "Stufe 4",
        Variant(base="choose", undo="unlimited", scoring="cards", tournament=True),
        hints="solver",
        winnable_only=True,
    ),
)


def look_of(window: tuple[int, int], ansi: bool = True) -> Look:
    return Look(ansi=ansi, width=window[0], height=window[1])


def rows_of(screen: ScreenBuffer) -> list[str]:
    return [screen.text_at(row) for row in range(1, screen.height + 1)]


def assert_within(rows: list[str], width: int) -> None:
    for row in rows:
        assert len(row.rstrip()) <= width - 1, row


def played(variant: Variant) -> Game:
    game = Game.deal(variant, 48213)
    for play in ("V", "V", "V"):
        game.play(play)
    return game


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("hot", [True, False])
def test_the_board_draws_in_german_within_the_window(window: tuple[int, int], hot: bool) -> None:
    width, height = window
    for level in LEVELS:
        game = played(level.variant)
        g = geometry(width, height, len(game.tableau))
        assert g is not None
        for ansi in (True, False):
            look = look_of(window, ansi)
            with speaking(GERMAN):
                reminder = reminder_lines(
                    len(game.tableau), hot=hot, hints=True, width=g.reminder_width
                )
                screen = ScreenBuffer(width, height)
                draw_board(screen, game, level.name, look, "Eine Nachricht", reminder=reminder)
                sidebar = sidebar_lines(game, look, short=g.short)
                prompt = _(PROMPT)
            rows = rows_of(screen)
            assert_within(rows, width)
            piles = rows[g.label_row - 1] + rows[g.foundation_label_row - 1]
            for label in ("Reserve S", "Talon V", "Abwurf D", "Fundamente F"):
                assert label in piles
            for offset, (name, value) in enumerate(sidebar):
                row = rows[g.sidebar_row - 1 + offset][g.sidebar_col - 1 :].split()
                assert row == [*name.split(), *value.split()], row  # whole, a blank apart
            for row in rows[g.reminder_top - 1 : g.last_column_row]:
                shown = row[g.reminder_col - 1 :].strip()
                assert not shown or shown in [line.strip() for line in reminder], shown
            assert rows[g.prompt_row - 1].strip() == prompt.strip() == "Befehl (? für Hilfe):"


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("language", ["en", "de"])
def test_the_board_reminds_of_every_key_in_either_language(
    window: tuple[int, int], language: str
) -> None:
    """Every key of the reminder on the board, with its words, in the classic window and
    the narrow ones: a reminder longer than its rows leaves out its heading, never a key."""
    width, height = window
    words = GERMAN if language == "de" else ENGLISH
    for level in LEVELS:
        hints = level.hints != "off"
        game = played(level.variant)
        g = geometry(width, height, len(game.tableau))
        assert g is not None
        for hot in (True, False):
            with speaking(words):
                reminder = reminder_lines(
                    len(game.tableau), hot=hot, hints=hints, width=g.reminder_width
                )
                keys = [
                    " ".join(_(command.reminder).split())
                    for command in COMMANDS
                    if command.reminder and (hints or not command.hints)
                ]
                screen = ScreenBuffer(width, height)
                draw_board(screen, game, level.name, look_of(window), reminder=reminder)
            rows = rows_of(screen)
            assert_within(rows, width)
            shown = [
                " ".join(row[g.reminder_col - 1 :].split())
                for row in rows[g.reminder_top - 1 : g.last_column_row]
            ]
            for line in reminder[1:]:  # all but the heading, each on a row of its own
                assert " ".join(line.split()) in shown, (window, language, line, shown)
            for key in keys:  # each key with its words, whole, perhaps beside another's
                assert any(re.search(rf"(^| ){re.escape(key)}( |$)", row) for row in shown), (
                    window,
                    language,
                    key,
                    shown,
                )


def assert_shown_whole(lines: list[PageLine], window: tuple[int, int]) -> None:
    """Every page of ``lines`` within the window, and every word of them shown whole and
    in order."""
    width, height = window
    shown: list[str] = []
    for ansi in (True, False):
        look = look_of(window, ansi)
        shown = []
        for page in pages_of(lines, look):
            screen = ScreenBuffer(width, height)
            draw_rows(screen, "Titel", page, look, "Deine Wahl: ")
            rows = rows_of(screen)
            assert_within(rows, width)
            shown += [
                word
                for row in rows[FIRST_ROW - 1 : FIRST_ROW - 1 + page_rows(look)]
                for word in row.split()
            ]
        assert shown == words_of(lines)


@pytest.mark.parametrize("window", WINDOWS)
def test_the_help_and_the_rules_show_every_german_word(window: tuple[int, int]) -> None:
    with speaking(GERMAN):
        pages = [help_lines(hints) for hints in ("off", "visible", "solver")]
        pages.append(rules_lines(LEVELS))
    assert "Spalten abwärts in wechselnden Farben, Fundamente aufwärts" in " ".join(
        line for line in pages[0] if isinstance(line, str)
    )
    for lines in pages:
        assert_shown_whole(lines, window)
    if window == (80, 24):  # as the English, the help on one page of the classic window
        assert all(len(pages_of(lines, look_of(window))) == 1 for lines in pages[:3])


def table_rows(lines: list[PageLine]) -> list[str]:
    """The rows of a table among ``lines``: its head and the rows with a place number."""
    texts = [line.text if isinstance(line, Text) else line for line in lines]
    return [text for text in texts if isinstance(text, str) and re.match(r"\s*(#|Name|\d)", text)]


@pytest.mark.parametrize("window", WINDOWS)
def test_the_scoreboards_in_german_keep_their_columns(window: tuple[int, int]) -> None:
    width = window[0]
    scores = [
        HighScore(
            ALIAS,
            "The Lost Cavern BBS" if place == 2 else None,
            99999,
            place % 2 == 0,
            999,
            NOW,
            place % 3 == 0,
            place,
        )
        for place in range(1, 11)
    ]
    standings = [Standing(ALIAS, None, 9999, 999, 99.9, 99999, True, 99) for _ in range(5)]
    daily = [DailyResult(ALIAS, None, "resigned", 99999, 999, True, NOW) for _ in range(5)]
    contest = [ContestStanding(ALIAS, None, 10, 99999, 9999, NOW, True, 3) for _ in range(5)]
    with speaking(GERMAN):
        tables = [
            high_score_lines(LEVELS[1], scores, width),
            high_score_lines(LEVELS[1], scores[:1], width),
            standing_lines(standings, width),
        ]
        if width >= 80:
            tables += [board_lines(daily, 9), table_lines(contest, 9, ALIAS)]
    for lines in tables:
        assert_shown_whole(lines, window)
        head, *rows = table_rows(lines)
        assert len(head) <= width - 2 and all(len(row) <= width - 2 for row in rows), head
        # Each head over its column: the English's columns, a language's words in them.
        for word in ("Name", "Punkte", "Ergebnis", "Spiele", "Siege", "Quote", "Züge"):
            if word in head:
                assert word in head.split()
        if "Punkte" in head.split() and rows:
            score_end = head.index("Punkte") + len("Punkte")
            assert rows[0][score_end - 5 : score_end] == "99999"


def test_the_bulletin_and_the_web_page_speak_the_boards_language() -> None:
    board = LevelBoard(
        1,
        "Stufe 1",
        {},
        NOW,
        tuple(HighScore(ALIAS, "Far Board", 99999, True, 999, NOW, True, 1) for _ in range(3)),
    )
    standings = tuple(
        Standing(ALIAS, "Far Board", 9999, 999, 99.9, 99999, True, 99) for _ in range(3)
    )
    bulletin = Bulletin("Die Mailbox", NOW, (board,), standings, language="de", words=GERMAN)
    text = render_ascii(bulletin)
    ansi = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", render_ansi(bulletin).decode("cp437"))
    with speaking(GERMAN):
        notes = [
            _("* has a game to resume"),
            _("Hint, Hints: a hint was taken (practice games are never on these lists)"),
        ]
    for shown in (text, ansi):
        assert all(len(line) <= 79 for line in shown.split("\r\n"))
        words = " ".join(re.sub("[║╔╗╚╝═╟╢─]", " ", shown).split())
        assert all(" ".join(note.split()) in words for note in notes)
        assert "Die Mailbox - Canfield-Bestenlisten" in shown
        assert "Rangliste" in shown
        heads = next(line for line in shown.split("\r\n") if "Spiele" in line)
        heads = heads.strip("║").split()
        assert heads[:3] == ["#", "Name", "Mailbox"] and "Spiele" in heads and "Quote" in heads
    html = render_html(bulletin, None)
    assert html.startswith('<!DOCTYPE html><html lang="de">')
    assert "<h2>Spiel des Tages</h2><p>Heute wurde noch kein Spiel ausgeteilt.</p>" in html
    english = render_html(Bulletin("Board", NOW, (board,), standings), None)
    assert '<html lang="en">' in english and "Deal of the day" in english


def test_a_message_of_three_rows_leaves_no_piece_of_the_keys_beside_it() -> None:
    """On a narrow board a message of three rows takes the last of the columns' rows, the
    last of the keys' reminder's too: the whole row, no piece of a key beside its words."""
    window = (40, 24)
    game = played(Variant())
    g = geometry(*window, len(game.tableau))
    assert g is not None
    message = "Diese Nachricht ist so lang, dass sie auf dem schmalen Brett drei Zeilen braucht."
    lines = wrap(message, window[0] - 3)
    assert len(lines) == 3
    for hot in (True, False):
        with speaking(GERMAN):
            reminder = reminder_lines(
                len(game.tableau), hot=hot, hints=True, width=g.reminder_width
            )
            screen = ScreenBuffer(*window)
            draw_board(screen, game, "Stufe 1", look_of(window), message, reminder=reminder)
        rows = rows_of(screen)
        assert [row.strip() for row in rows[g.last_column_row - 1 : g.message_row]] == lines
