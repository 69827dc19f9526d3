"""``canfield-door sysop scores|standings|reset-scores``: the scoreboards as the sysop sees
them, and starting the high-score lists afresh.
"""

from __future__ import annotations

import argparse
import re

from ansi.text import sanitize
from door.commands.cli import (
    ALIAS_CELL,
    BBS_CELL,
    Column,
    Context,
    add_command,
    add_level,
    add_yes,
    bbs_cell,
    confirm,
    level_of,
    positive,
    print_lines,
    table,
    when,
)
from door.levels import Level
from door.store import Store


def _add_scores(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    scores = add_command(
        commands,
        common,
        "scores",
        "print the high-score lists",
        _scores,
        description="Print each level's high-score list (games under the level's current "
        "rules, finished since its last reset; never practice), or one level's with "
        "--level. Hint says a hint was taken; Game is the number `sysop game` takes.",
    )
    add_level(scores, "only this level's list")
    scores.add_argument(
        "--limit",
        type=positive,
        metavar="N",
        help="rows per list (default: scoreboard.high_scores)",
    )
    standings = add_command(
        commands,
        common,
        "standings",
        "print the standings of all users",
        _standings,
        description="Print the standings: finished games of every level (practice "
        "games aside), wins, win percentage, best score and the games in which a hint was "
        "taken; * marks a user with a game to resume.",
    )
    standings.add_argument(
        "--limit", type=positive, metavar="N", help="rows (default: scoreboard.standings)"
    )


def _add_reset_scores(
    commands: argparse._SubParsersAction, common: argparse.ArgumentParser
) -> None:
    reset = add_command(
        commands,
        common,
        "reset-scores",
        "start the high-score lists afresh",
        _reset_scores,
        description="Start the high-score list of one level (--level) or of every level "
        "afresh: games finished before now leave the lists. Nothing is deleted: each "
        "user's statistics and the standings keep every game. Asks first unless --yes.",
    )
    add_level(reset, "only this level's list")
    add_yes(reset)


async def _scores(args: argparse.Namespace, context: Context, store: Store) -> int:
    only = level_of(context, args.level)
    levels = context.config.levels if only is None else (only,)
    limit = args.limit or context.config.scoreboard.high_scores
    for index, level in enumerate(levels):
        if index:
            print()
        await _print_level(store, level, limit)
    return 0


async def _print_level(store: Store, level: Level, limit: int) -> None:
    rows = await store.high_scores(level, limit)
    since = await store.scores_reset_at(level.number)
    title = _level_title(level)
    print(title + (f", since {when(since)}" if since else ""))
    if not rows:
        print("  No finished games yet.")
        return
    with_bbs = any(row.bbs for row in rows)
    columns = [
        Column("#", right=True),
        Column("Alias", limit=ALIAS_CELL),
        *([Column("BBS", limit=BBS_CELL)] if with_bbs else []),
        Column("Score", right=True),
        Column("Won"),
        Column("Moves", right=True),
        Column("Finished"),
        Column("Hint"),
        Column("Game", right=True),
    ]
    cells = [
        [
            str(rank),
            sanitize(row.alias),
            *([bbs_cell(row.bbs)] if with_bbs else []),
            str(row.score),
            "yes" if row.won else "no",
            str(row.moves),
            when(row.finished, with_time=False),
            "yes" if row.assisted else "",
            str(row.game_id),
        ]
        for rank, row in enumerate(rows, start=1)
    ]
    print_lines(table(columns, cells))


def _level_title(level: Level) -> str:
    """The level's name, with its number unless the name starts with it."""
    name = sanitize(level.name)
    if re.match(rf"level\s*{level.number}\b", name, re.IGNORECASE):
        return name
    return f"Level {level.number}: {name}"


async def _standings(args: argparse.Namespace, context: Context, store: Store) -> int:
    rows = await store.standings(args.limit or context.config.scoreboard.standings)
    if not rows:
        print("No games yet.")
        return 0
    with_bbs = any(row.bbs for row in rows)
    columns = [
        Column("#", right=True),
        Column("Alias", limit=ALIAS_CELL),
        Column(""),
        *([Column("BBS", limit=BBS_CELL)] if with_bbs else []),
        Column("Games", right=True),
        Column("Wins", right=True),
        Column("Win %", right=True),
        Column("Best", right=True),
        Column("Hints", right=True),
    ]
    cells = [
        [
            str(rank),
            sanitize(row.alias),
            "*" if row.unfinished else "",
            *([bbs_cell(row.bbs)] if with_bbs else []),
            str(row.games),
            str(row.wins),
            "-" if row.percentage is None else f"{row.percentage:.1f}",
            "-" if row.best is None else str(row.best),
            str(row.assisted),
        ]
        for rank, row in enumerate(rows, start=1)
    ]
    print_lines(table(columns, cells))
    if any(row.unfinished for row in rows):
        print("* has a game to resume")
    print("Hints: finished games in which a hint was taken; practice games are not counted")
    return 0


async def _reset_scores(args: argparse.Namespace, context: Context, store: Store) -> int:
    level = level_of(context, args.level)
    which = (
        "every level's high-score list"
        if level is None
        else (f"the high-score list of level {level.number} ({sanitize(level.name)})")
    )
    if not confirm(f"Start {which} afresh?", args.yes):
        print("Nothing was reset.")
        return 1
    hidden = await store.reset_scores(None if level is None else level.number)
    print(f"Started {which} afresh: {hidden} game{'s' if hidden != 1 else ''} left the list")
    return 0


def add_subcommands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``scores``, ``standings`` and ``reset-scores`` on ``canfield-door sysop``."""
    _add_scores(commands, common)
    _add_reset_scores(commands, common)
