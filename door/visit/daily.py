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
from door.views.pages import Entry, PageLine, Text
from door.visit.context import Visit
from door.visit.faults import fault_words, log_fault
from door.visit.play import GameTerms, play_game
from door.visit.screens import wait_key, whole_number
from door.words import N_, _, ngettext

BOARD_ROWS = 9  # on the day's page, below the deal and above the menu
EARLIER_DAYS = 9
EARLIER_BOARD_ROWS = 16

ALREADY_PLAYED = N_("You have played today's deal already. Come back tomorrow!")
OUTCOMES = {
    Status.WON: N_("Well played! Your win is on today's board."),
    Status.STUCK: N_("That deal is over. Your result is on today's board."),
    Status.RESIGNED: N_("Game resigned. Your result is on today's board."),
}
SAVED = N_("Your game is saved: P resumes it.")


def _terms() -> GameTerms:
    """The day's deal is played once: N ends it, and deals no other."""
    return GameTerms(
        resign=_("Resign today's deal? Your result goes on today's board. (Y/N) "),
        # TRANSLATORS: what N does, in the game's help, beside the key
        resign_help=_("resign today's deal: your result goes on today's board"),
    )


async def deal_of_the_day(visit: Visit) -> str:
    """The deal of the day's page, until the caller goes back; a message for the menu."""
    if visit.solving is None or visit.user is None:
        return _("The deal of the day is not offered on this door.")
    store = visit.store
    today = store.today()
    message = await _settle_earlier_days(visit, today)
    if await store.daily_deal(today) is None:
        await _say(visit, _("Finding today's deal ..."))
    deal = await visit.solving.deal_of_the_day(today)
    level = daily_level(visit.config, deal)
    while True:
        mine = await store.daily_game(visit.user.id, today)
        # The number is the deal: a caller learns it only once their game of it is over.
        which = _("Today's deal at {level}, proved winnable.").format(level=level.name)
        if mine is None:
            status, play = _("You have not played today's deal yet."), _("Play today's deal")
        elif mine[1] == Status.PLAYING:
            status, play = _("Your game of today's deal is saved."), _("Resume your game")
        else:
            status = _("You played today's deal: {result}.").format(result=_result(mine[2]))
            play = _("Play today's deal")
            which = _("Deal {number} at {level}, proved winnable.").format(
                number=deal.deal, level=level.name
            )
        lines: list[PageLine] = [
            Text(which),
            Text(_("Every caller gets this deal today, and plays it once.")),
            Text(status),
            "",
            *board_lines(await store.daily_board(today), BOARD_ROWS),
            "",
            Entry("P", play),
            Entry("E", _("Earlier days' boards")),
            Entry("Q", _("Back to the menu")),
        ]
        title = _("Deal of the day - {day}").format(day=today.isoformat())
        key = await _page(visit, title, lines, message)
        message = ""
        if key == "P":
            message = await _play(visit, deal, level, today)
        elif key == "E":
            await _earlier_days(visit, today)
        elif key in ("Q", "\r"):
            return ""
        else:
            message = _("Press one of the keys shown.")


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
            return _(ALREADY_PLAYED)
    else:
        limit = visit.config.daily_games
        if limit and await store.games_started_today(visit.user.id) >= limit:
            return ngettext(
                "You have played your {count} game for today. Come back tomorrow!",
                "You have played your {count} games for today. Come back tomorrow!",
                limit,
            ).format(count=limit)
        game = Game.deal(level.variant, deal.deal)
        try:
            game_id = await store.start_game(visit.user.id, level, game, day=deal.day)
        except StoreFault as fault:
            log_fault(visit, "the deal of the day's game", fault)
            return _("The game could not be stored ({fault}): try again later.").format(
                fault=fault_words(fault)
            )
        except StoreError:  # begun meanwhile in another session
            return _(ALREADY_PLAYED)
    # The game screen's title says which game this is.
    titled = dataclasses.replace(level, name=_("Deal of the day"))
    outcome = await play_game(visit, titled, game_id, game, _terms())
    return _(OUTCOMES.get(outcome.status, SAVED))


async def _settle_earlier_days(visit: Visit, today: date) -> str:
    """Resign the caller's games of earlier days' deals left unfinished."""
    assert visit.user is not None
    if await close_past_days(visit.store, today, visit.user.id):
        return _("Your unfinished deal of an earlier day counts as resigned.")
    return ""


async def _earlier_days(visit: Visit, today: date) -> None:
    while True:
        days = await visit.store.daily_days(today, EARLIER_DAYS)
        lines = [*day_list_lines(days), "", Entry("Q", _("Back"))]
        key = await _page(visit, _("Deal of the day - earlier days"), lines)
        number = whole_number(key)
        if number is None or not 1 <= number <= len(days):
            return
        day = days[number - 1]
        results = await visit.store.daily_board(date.fromisoformat(day.day))
        lines = [
            Text(_("Deal {number} at level {level}.").format(number=day.deal, level=day.level)),
            "",
            *board_lines(results, EARLIER_BOARD_ROWS),
        ]
        title = _("Deal of the day - {day}").format(day=day.day)
        await _page(visit, title, lines, prompt=_("Press any key. "))


def _result(game: Game) -> str:
    """How a finished game of the day's deal went, as "You played today's deal: ..." ends."""
    moves = game.moves
    if game.status == Status.WON:
        said = ngettext(
            "won, score {score} in {count} move", "won, score {score} in {count} moves", moves
        )
    elif game.status == Status.RESIGNED:
        said = ngettext(
            "resigned, score {score} in {count} move",
            "resigned, score {score} in {count} moves",
            moves,
        )
    else:
        said = ngettext(
            "stuck, score {score} in {count} move", "stuck, score {score} in {count} moves", moves
        )
    return said.format(score=game.score, count=moves)


async def _page(
    visit: Visit,
    title: str,
    lines: list[PageLine],
    message: str = "",
    prompt: str | None = None,
) -> str:
    """A page of the deal of the day's, and the key the caller answers with."""
    return await wait_key(visit, title, lines, prompt or _("Your choice: "), message)


async def _say(visit: Visit, text: str) -> None:
    visit.terminal.write(f"\r\n{text}\r\n")
    await visit.terminal.flush()
