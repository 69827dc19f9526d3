"""The deal of the day at the main menu: today's board, the deal played once, earlier boards.

Every caller gets the same deal each day (see :mod:`door.solving.daily`), at ``[solver]
daily_level``. Each plays it once: a saved game of it resumes, a finished one is not dealt
again. Its number is shown to a caller only once their game of it is over. A game of an
earlier day's deal left unfinished counts as resigned once that day is over, so that every
day's board settles.
"""

from __future__ import annotations

import dataclasses
from datetime import date

from door.config import Config
from door.engine import Game
from door.engine.status import Status
from door.levels import Level
from door.solving.daily import close_past_days
from door.store import DailyDeal, StoreError, StoreFault
from door.views.daily import board_lines, day_list_lines
from door.views.layout import counted
from door.views.pages import Entry, PageLine, Text
from door.visit.context import Visit
from door.visit.faults import fault_words, log_fault
from door.visit.play import GameTerms, play_game
from door.visit.screens import wait_key, whole_number

TITLE = "Deal of the day"
BOARD_ROWS = 9  # on the day's page, below the deal and above the menu
EARLIER_DAYS = 9
EARLIER_BOARD_ROWS = 16

ALREADY_PLAYED = "You have played today's deal already. Come back tomorrow!"
OUTCOMES = {
    Status.WON: "Well played! Your win is on today's board.",
    Status.STUCK: "That deal is over. Your result is on today's board.",
    Status.RESIGNED: "Game resigned. Your result is on today's board.",
}
SAVED = "Your game is saved: P resumes it."
# The day's deal is played once: N ends it, and deals no other.
TERMS = GameTerms(
    resign="Resign today's deal? Your result goes on today's board. (Y/N) ",
    resign_help="resign today's deal: your result goes on today's board",
)


async def deal_of_the_day(visit: Visit) -> str:
    """The deal of the day's page, until the caller goes back; a message for the menu."""
    if visit.solving is None or visit.user is None:
        return "The deal of the day is not offered on this door."
    store = visit.store
    today = store.today()
    message = await _settle_earlier_days(visit, today)
    if await store.daily_deal(today) is None:
        await _say(visit, "Finding today's deal ...")
    deal = await visit.solving.deal_of_the_day(today)
    level = daily_level(visit.config, deal)
    while True:
        mine = await store.daily_game(visit.user.id, today)
        # The number is the deal: a caller learns it only once their game of it is over.
        which = "Today's deal"
        if mine is None:
            status, play = "You have not played today's deal yet.", "Play today's deal"
        elif mine[1] == Status.PLAYING:
            status, play = "Your game of today's deal is saved.", "Resume your game"
        else:
            status, play = f"You played today's deal: {_result(mine[2])}.", "Play today's deal"
            which = f"Deal {deal.deal}"
        lines: list[PageLine] = [
            Text(f"{which} at {level.name}, proved winnable."),
            Text("Every caller gets this deal today, and plays it once."),
            Text(status),
            "",
            *board_lines(await store.daily_board(today), BOARD_ROWS),
            "",
            Entry("P", play),
            Entry("E", "Earlier days' boards"),
            Entry("Q", "Back to the menu"),
        ]
        key = await _page(visit, f"{TITLE} - {today.isoformat()}", lines, message)
        message = ""
        if key == "P":
            message = await _play(visit, deal, level, today)
        elif key == "E":
            await _earlier_days(visit, today)
        elif key in ("Q", "\r"):
            return ""
        else:
            message = "Press one of the keys shown."


def daily_level(config: Config, deal: DailyDeal) -> Level:
    """The level the day's deal is played at."""
    try:
        return config.level(deal.level)
    except KeyError:  # the sysop has since removed that level
        return config.level(config.daily_level)


async def _play(visit: Visit, deal: DailyDeal, level: Level, today: date) -> str:
    assert visit.user is not None
    store = visit.store
    mine = await store.daily_game(visit.user.id, today)
    if mine is not None:
        game_id, status, game = mine
        if status != Status.PLAYING:
            return ALREADY_PLAYED
    else:
        limit = visit.config.daily_games
        if limit and await store.games_started_today(visit.user.id) >= limit:
            return f"You have played your {counted(limit, 'game')} for today. Come back tomorrow!"
        game = Game.deal(level.variant, deal.deal)
        try:
            game_id = await store.start_game(visit.user.id, level, game, day=deal.day)
        except StoreFault as fault:
            log_fault(visit, "the deal of the day's game", fault)
            return f"The game could not be stored ({fault_words(fault)}): try again later."
        except StoreError:  # begun meanwhile in another session
            return ALREADY_PLAYED
    # The game screen's title says which game this is.
    outcome = await play_game(visit, dataclasses.replace(level, name=TITLE), game_id, game, TERMS)
    return OUTCOMES.get(outcome.status, SAVED)


async def _settle_earlier_days(visit: Visit, today: date) -> str:
    """Resign the caller's games of earlier days' deals left unfinished."""
    assert visit.user is not None
    if await close_past_days(visit.store, today, visit.user.id):
        return "Your unfinished deal of an earlier day counts as resigned."
    return ""


async def _earlier_days(visit: Visit, today: date) -> None:
    while True:
        days = await visit.store.daily_days(today, EARLIER_DAYS)
        lines = [*day_list_lines(days), "", Entry("Q", "Back")]
        key = await _page(visit, f"{TITLE} - earlier days", lines)
        number = whole_number(key)
        if number is None or not 1 <= number <= len(days):
            return
        day = days[number - 1]
        results = await visit.store.daily_board(date.fromisoformat(day.day))
        lines = [
            Text(f"Deal {day.deal} at level {day.level}."),
            "",
            *board_lines(results, EARLIER_BOARD_ROWS),
        ]
        await _page(visit, f"{TITLE} - {day.day}", lines, prompt="Press any key. ")


def _result(game: Game) -> str:
    return f"{game.status}, score {game.score} in {counted(game.moves, 'move')}"


async def _page(
    visit: Visit,
    title: str,
    lines: list[PageLine],
    message: str = "",
    prompt: str = "Your choice: ",
) -> str:
    return await wait_key(visit, title, lines, prompt, message)


async def _say(visit: Visit, text: str) -> None:
    visit.terminal.write(f"\r\n{text}\r\n")
    await visit.terminal.flush()
