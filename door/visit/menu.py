"""The main menu, and the pages it shows: the scoreboards, the caller's statistics and the
rules. Games are in :mod:`door.visit.games`, the deal of the day in
:mod:`door.visit.daily`, the terminal settings in :mod:`door.visit.settings`.
"""

from __future__ import annotations

from functools import reduce

from ansi.text import sanitize
from door.store.contests import Contest, ContestState
from door.views.layout import local_time
from door.views.pages import (
    Entry,
    PageLine,
    Text,
    high_score_lines,
    standing_lines,
    statistics_lines,
)
from door.views.texts import rules_lines
from door.visit.art import art_for
from door.visit.contests import contests, latest_table, resume_deal, saved_deal
from door.visit.context import Visit
from door.visit.daily import deal_of_the_day
from door.visit.games import choose_and_play, level_numbered, numbered_deal, resume
from door.visit.screens import wait_key, whole_number
from door.visit.settings import settings
from door.words import _


async def main_menu(visit: Visit, message: str = "") -> None:
    while True:
        assert visit.user is not None
        visit.refresh()
        visit.doing("main menu")
        saved = await visit.store.unfinished_levels(visit.user.id)
        contest = await visit.store.contest_now()
        in_contest = await saved_deal(visit, contest)
        entries: list[PageLine] = [
            Text(_("Hello, {alias}.").format(alias=sanitize(visit.user.alias))),
            "",
            Entry("P", _("Play a game")),
        ]
        resume_entry = _resume_entry(saved, in_contest)
        if resume_entry:
            entries.append(Entry("R", resume_entry))
        if visit.solving is not None:
            entries.append(Entry("D", _("Deal of the day")))
        entries += [
            Entry("C", contest_entry(visit, contest, in_contest)),
            Entry("#", _("Play a numbered deal")),
            Entry("S", _("Scoreboards")),
            Entry("M", _("My statistics")),
            Entry("I", _("Instructions: the rules of Canfield")),
            Entry("T", _("Terminal settings")),
            Entry("G", _("Goodbye")),
        ]
        title = f"Canfield - {visit.config.bbs.name}"
        head = art_for(visit, "menu")
        key = await wait_key(visit, title, entries, _("Your choice: "), message, head)
        message = ""
        if key == "G":
            return
        if key == "P":
            message = await choose_and_play(visit)
        elif key == "R" and in_contest is not None and not saved:
            message = await resume_deal(visit, *in_contest)
        elif key == "R" and in_contest is not None:
            message = await _resume_either(visit, saved, in_contest)
        elif key == "R" and saved:
            message = await resume(visit, saved)
        elif key == "#":
            message = await numbered_deal(visit)
        elif key == "D" and visit.solving is not None:
            message = await deal_of_the_day(visit)
        elif key == "C":
            message = await contests(visit)
        elif key == "S":
            visit.doing("reading the scoreboards")
            await scoreboards(visit)
        elif key == "M":
            visit.doing("reading their statistics")
            await statistics(visit)
        elif key == "I":
            visit.doing("reading the rules")
            await show_paged(visit, _("The rules of Canfield"), rules_lines(visit.config.levels))
        elif key == "T":
            visit.doing("terminal settings")
            await settings(visit)
        else:
            message = _("Press one of the keys shown.")


def _both(first: str, second: str) -> str:
    """Two things named together: "1 and 2", "1, 2 and 3"."""
    # TRANSLATORS: joins the last of a list of level numbers to the others: "1, 2 and 3"
    return _("{first} and {second}").format(first=first, second=second)


def _resume_entry(saved: list[int], in_contest: tuple[Contest, int] | None) -> str:
    """The main menu's line for the caller's saved games (the levels they have one at, and
    the contest's deal), or "" when they have none."""
    levels = _both(", ".join(map(str, saved[:-1])), str(saved[-1])) if len(saved) > 1 else ""
    if in_contest is None:
        if not saved:
            return ""
        if len(saved) == 1:
            return _("Resume your saved game (level {level})").format(level=saved[0])
        return _("Resume one of your saved games (levels {levels})").format(levels=levels)
    contest, number = sanitize(in_contest[0].name), in_contest[1]
    if not saved:
        return _("Resume your saved game ({contest}, deal {number})").format(
            contest=contest, number=number
        )
    if len(saved) == 1:
        return _(
            "Resume one of your saved games (level {level} and {contest}, deal {number})"
        ).format(level=saved[0], contest=contest, number=number)
    return _(
        "Resume one of your saved games (levels {levels} and {contest}, deal {number})"
    ).format(levels=levels, contest=contest, number=number)


def contest_entry(
    visit: Visit, contest: Contest | None, in_contest: tuple[Contest, int] | None
) -> str:
    """The main menu's line for contests: the one open (or coming) and when it closes (or
    opens), or the caller's saved game of it."""
    if contest is None:
        return _("Contests")
    name = sanitize(contest.name)
    if in_contest is not None:
        return _("Contests: {contest}, your deal {number} is saved").format(
            contest=name, number=in_contest[1]
        )
    state = contest.state(visit.store.now())
    if state == ContestState.OPEN:
        return _("Contests: {contest}, open until {when}").format(
            contest=name, when=local_time(contest.closes)
        )
    if state == ContestState.COMING:
        return _("Contests: {contest}, opens {when}").format(
            contest=name, when=local_time(contest.opens)
        )
    return _("Contests")


async def _resume_either(visit: Visit, saved: list[int], in_contest: tuple[Contest, int]) -> str:
    """A game at a level, or the contest's: the caller says which."""
    contest, number = in_contest
    at_level = (
        _("Your game at level {level}").format(level=saved[0])
        if len(saved) == 1
        else _("A game (levels {levels})").format(levels=reduce(_both, map(str, saved)))
    )
    lines: list[PageLine] = [
        Entry("L", at_level),
        Entry(
            "C", _("{contest}, deal {number}").format(contest=sanitize(contest.name), number=number)
        ),
        "",
        Entry("Q", _("Back to the menu")),
    ]
    key = await wait_key(visit, _("Which saved game will you resume?"), lines, _("Your choice: "))
    if key == "L":
        return await resume(visit, saved)
    if key == "C":
        return await resume_deal(visit, contest, number)
    return ""


async def scoreboards(visit: Visit) -> None:
    config = visit.config
    message = ""
    while True:
        lines: list[PageLine] = [
            Entry(str(level.number), _("High scores: {level}").format(level=level.name))
            for level in config.levels
        ]
        lines += [
            Entry("A", _("All callers' standings")),
            Entry("C", _("The contest's table")),
            Entry("Q", _("Back to the menu")),
        ]
        head = art_for(visit, "scores")
        key = await wait_key(visit, _("Scoreboards"), lines, _("Which board? "), message, head)
        if key == "C":
            await latest_table(visit)
        elif key == "A":
            standings = await visit.store.standings(config.scoreboard.standings)
            lines = standing_lines(standings, visit.look.width)
            await wait_key(visit, _("Standings"), lines, _("Press any key. "), head=head)
        elif (number := whole_number(key)) is not None and (
            level := level_numbered(config, number)
        ) is not None:
            scores = await visit.store.high_scores(level, config.scoreboard.high_scores)
            await wait_key(
                visit,
                _("High scores - {level}").format(level=level.name),
                high_score_lines(level, scores, visit.look.width),
                _("Press any key. "),
                head=head,
            )
        elif key in ("Q", "\r"):
            return
        else:
            message = _("Press a level's number, A, C or Q.")
            continue
        message = ""


async def statistics(visit: Visit) -> None:
    assert visit.user is not None
    levels = visit.config.levels
    for index, level in enumerate(levels, start=1):
        stats = await visit.store.statistics(visit.user.id, level)
        recent = await visit.store.recent_results(visit.user.id, 10, level.number)
        more = index < len(levels)
        key = await wait_key(
            visit,
            _("Your statistics - {alias} ({page}/{pages})").format(
                alias=sanitize(visit.user.alias), page=index, pages=len(levels)
            ),
            statistics_lines(level, stats, recent),
            _("Any key for the next level, Q to stop. ") if more else _("Press any key. "),
        )
        if key == "Q":
            return


async def show_paged(visit: Visit, title: str, lines: list[PageLine]) -> None:
    """A long text a page at a time (never a paragraph split where it can be helped)."""
    await wait_key(visit, title, lines, _("Press any key. "))
