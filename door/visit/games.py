"""Games from the main menu: choosing a level, a random or numbered deal, resuming a saved
game (one unfinished game per level), and the message a game leaves on the menu.
"""

from __future__ import annotations

from collections.abc import Sequence

from ansi.text import sanitize
from door.config import Config
from door.engine import Game
from door.engine.shuffle import MAX_DEAL_NUMBER
from door.engine.status import Status
from door.fairness import secret_deal_number
from door.levels import Level
from door.store import StoreError, StoreFault
from door.views.pages import (
    Entry,
    PageLine,
    Text,
    level_line,
)
from door.visit.context import Visit
from door.visit.faults import fault_words, log_fault
from door.visit.play import GameExit, play_game
from door.visit.screens import ask_line, say, show_lines, wait_key, whole_number
from door.words import _, ngettext


async def choose_level(
    visit: Visit, why: str, levels: Sequence[Level] | None = None
) -> Level | None:
    """One of ``levels`` (all the door's by default), or None when the caller goes back.

    Enter picks the default level when it is offered.
    """
    config = visit.config
    visit.doing("choosing a level")
    offered = tuple(config.levels if levels is None else levels)
    default = next((lv for lv in offered if lv.number == config.default_level), None)
    lines: list[PageLine] = [Text(why), ""]
    lines += [Entry(str(level.number), level_line(level)) for level in offered]
    if default is not None:
        back = _("Enter plays level {number}; Q goes back.").format(number=default.number)
    else:
        back = _("Q goes back.")
    lines += ["", back]
    message = ""
    while True:
        if not await show_lines(visit, _("Choose a level"), lines, _("Level: "), message):
            return None
        if max(level.number for level in offered) > 9:  # two digits need a line, not a key
            key = (await visit.terminal.read_line(3)).strip().upper() or "\r"
        else:
            key = await visit.terminal.read_key()
        if key in ("Q", "\x1b"):
            return None
        if key == "\r" and default is not None:
            return default
        number = whole_number(key)
        chosen = next((level for level in offered if level.number == number), None)
        if chosen is not None:
            return chosen
        if default is not None:
            message = _(
                "Press the number of a level, Enter for level {number}, or Q to go back."
            ).format(number=default.number)
        else:
            message = _("Press the number of a level, or Q to go back.")


async def _daily_limit_reached(visit: Visit) -> str:
    limit = visit.config.daily_games
    assert visit.user is not None
    if limit and await visit.store.games_started_today(visit.user.id) >= limit:
        return ngettext(
            "You have played your {count} game for today. Come back tomorrow!",
            "You have played your {count} games for today. Come back tomorrow!",
            limit,
        ).format(count=limit)
    return ""


def random_deal(level: Level) -> Game:
    """A fresh deal that is not over before it starts (a few deals are stuck at the deal),
    its number secret (see :mod:`door.fairness`)."""
    while True:
        game = Game.deal(level.variant, secret_deal_number())
        if game.status == Status.PLAYING:
            return game


async def choose_and_play(visit: Visit) -> str:
    level = await choose_level(visit, _("Which level will you play?"))
    if level is None:
        return ""
    return await play_at(visit, level, None)


async def play_at(visit: Visit, level: Level, number: int | None) -> str:
    """Deal ``number`` (or a random deal) at ``level``; a saved game there is resumed or
    resigned first, as the caller chooses (one unfinished game per level)."""
    assert visit.user is not None
    saved = await visit.store.resume(visit.user.id, level.number)
    if saved is not None:
        if number is None:
            resign = _("Resign it (it counts as lost) and play a new deal")
        else:
            resign = _("Resign it (it counts as lost) and play deal {number}").format(number=number)
        answer = await wait_key(
            visit,
            level.name,
            [
                Text(_("You have a saved game at this level.")),
                "",
                Entry("R", _("Resume it")),
                Entry("N", resign),
            ],
            _("Your choice (Enter goes back): "),
        )
        if answer == "R":
            return await _play(visit, level, *saved)
        if answer != "N":
            return ""
        game_id, game = saved
        game.resign()
        try:
            await visit.store.finish_game(game_id, game)
        except StoreFault as fault:
            log_fault(visit, f"resigning saved game {game_id}", fault)
            return _("Your saved game was not resigned ({why}); it is kept.").format(
                why=fault_words(fault)
            )
        except StoreError:  # played on meanwhile on another line
            return _("That saved game was played on meanwhile on another line; it is kept.")
        visit.game_ended()
        if not (await visit.store.game_record(game_id)).practice:
            await play_game(visit, level, game_id, game)  # its end shows the secret deal
    return await new_game(visit, level, number)


async def new_game(visit: Visit, level: Level, number: int | None) -> str:
    """Deal a game (a random one, or deal ``number``, which is practice) and play it, and
    the next ones."""
    while True:
        refusal = await _daily_limit_reached(visit)
        if refusal:
            return refusal
        game = await _deal(visit, level, number)
        assert visit.user is not None
        try:
            game_id = await visit.store.start_game(
                visit.user.id, level, game, practice=number is not None
            )
        except StoreFault as fault:
            log_fault(visit, "a new game", fault)
            return _("The new game could not be stored ({why}): try again later.").format(
                why=fault_words(fault)
            )
        except StoreError:  # a game begun meanwhile at this level, on another line
            return _("You have a saved game at that level: R resumes it.")
        outcome = await play_game(visit, level, game_id, game)
        if not outcome.next_deal:
            return _outcome_message(outcome)
        number = None


async def _deal(visit: Visit, level: Level, number: int | None) -> Game:
    """Deal ``number``; else a random deal, or at a winnable-only level one proved winnable."""
    if number is None and level.winnable_only and visit.solving is not None:

        async def waiting() -> None:
            await say(visit, _("Finding a winnable deal..."))

        number = await visit.solving.winnable_deal(level, waiting)
    return random_deal(level) if number is None else Game.deal(level.variant, number)


async def _play(visit: Visit, level: Level, game_id: int, game: Game) -> str:
    outcome = await play_game(visit, level, game_id, game)
    if outcome.next_deal:
        return await new_game(visit, level, None)
    return _outcome_message(outcome)


def _outcome_message(outcome: GameExit) -> str:
    if outcome.practice and outcome.status == Status.WON:
        return _("Well played! That was practice: it is not on the scoreboards.")
    if outcome.practice and outcome.status != Status.PLAYING:
        return _("That was practice: it is not on the scoreboards.")
    if outcome.status == Status.WON:
        return _("Well played! Your win is on the scoreboard.")
    if outcome.status == Status.STUCK:
        return _("That deal is over. Better luck with the next!")
    if outcome.status == Status.RESIGNED:
        return _("Game resigned.")
    return _("Your game is saved: R resumes it.")


async def resume(visit: Visit, saved: list[int]) -> str:
    number = saved[0]
    if len(saved) > 1:
        levels = [lv for lv in visit.config.levels if lv.number in saved]
        level = await choose_level(visit, _("Which saved game will you resume?"), levels)
        if level is None:
            return ""
        number = level.number
    level = level_numbered(visit.config, number)
    assert visit.user is not None
    found = await visit.store.resume(visit.user.id, number)
    if level is None or found is None:
        return _("That saved game is no longer there.")
    return await _play(visit, level, *found)


def level_numbered(config: Config, number: int) -> Level | None:
    return next((level for level in config.levels if level.number == number), None)


async def numbered_deal(visit: Visit) -> str:
    message = ""
    while True:
        text = await ask_line(
            visit,
            _("A numbered deal"),
            [
                _(
                    "Every deal has a number: the same number deals the same cards, so you can "
                    "replay a deal or play the one a friend played. A numbered deal is practice."
                ),
            ],
            _("Deal number (Enter to go back): "),
            message,
            max_length=20,
        )
        if not text:
            return ""
        number = whole_number(text)
        if number is not None and number <= MAX_DEAL_NUMBER:
            break
        message = _(
            '"{text}" is not a deal number. Type the digits of a deal number, like 48213, '
            "or just press Enter to go back."
        ).format(text=sanitize(text, 20))
    today = await visit.store.daily_deal(visit.store.today())
    if today is not None and today.deal == number:
        return _("That is today's deal of the day: practise it from tomorrow.")
    if await visit.store.contest_holding(number) is not None:
        return _("That is a deal of a contest: practise it once the contest has closed.")
    which = _("Deal {number} (practice): at which level?").format(number=number)
    level = await choose_level(visit, which)
    if level is None:
        return ""
    return await play_at(visit, level, number)
