"""``canfield-door sysop solve DEAL``: can the deal be won at a level? The solver's verdict,
and a winning line when there is one.

It needs sysop.toml for the level's rules and the default budget, but no database; without
``--config`` and without a sysop.toml in the current folder it uses the shipped levels.
Exits 0 with the verdict (won, lost or undecided), 1 for a bad deal, level or budget.

When the door's database is there, every scored game of the deal still being played is
marked as hinted before the answer is printed: its player could be told the answer, so
the scoreboards must say so (a scored deal's number is secret, so this happens only if the
sysop learned it from the database).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from door.config import DEFAULT_CONFIG_PATH, Config, ConfigError, load_config
from door.engine import Game
from door.engine.shuffle import MAX_DEAL_NUMBER
from door.engine.solver import Result, Verdict, solve
from door.levels import Level
from door.store import Store, StoreError

WIDTH = 79
MAX_SECONDS = 3600.0


class SolveInputError(ValueError):
    """A deal number, level or budget the command can't take; the message says why."""


def add_subcommand(commands: argparse._SubParsersAction) -> None:
    """Register ``solve`` among the ``sysop`` commands."""
    parser = commands.add_parser(
        "solve",
        help="tell whether a deal can be won, with a winning line",
        description="Run the solver on deal DEAL at a level: it proves the deal won (and "
        "prints a winning line, checked by replaying it), proves it lost, or runs out of "
        "time (undecided). Needs no database.",
    )
    # SUPPRESS: a --config given before the command is not hidden by an absent one after it.
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help=f"the settings file (default: {DEFAULT_CONFIG_PATH} in the current folder)",
    )
    parser.add_argument(
        "--database",
        metavar="FILE",
        default=argparse.SUPPRESS,
        help="the door's database, whose games of the deal being played are marked as "
        "hinted (default: server.database in the settings file, if it exists)",
    )
    parser.add_argument("deal", metavar="DEAL", help="the deal number")
    parser.add_argument(
        "--level", metavar="N", help="the level whose rules apply (default: game.default_level)"
    )
    parser.add_argument(
        "--seconds", metavar="S", help="the time the solver may take (default: solver.seconds)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = _config(args.config)
        number = _deal(args.deal)
        level = _level(config, args.level)
        seconds = _seconds(args.seconds, config.solver.seconds)
    except (ConfigError, SolveInputError) as error:
        print(f"canfield-door sysop: {error}", file=sys.stderr)
        return 1
    database = getattr(args, "database", None)
    try:
        marked = asyncio.run(mark_games_in_play(Path(database or config.server.database), number))
    except StoreError as error:
        print(f"canfield-door sysop: {error}; nothing was solved", file=sys.stderr)
        return 1
    for game_id in marked:
        print(f"Game {game_id} is being played on this deal: it is now marked as hinted.")
    try:
        verdict = solve(Game.deal(level.variant, number), max_seconds=seconds)
    except KeyboardInterrupt:
        print("canfield-door sysop: interrupted", file=sys.stderr)
        return 1
    for line in report(number, level, verdict):
        print(line)
    return 0


async def mark_games_in_play(database: Path, number: int) -> list[int]:
    """Mark the scored games of deal ``number`` still being played as hinted; their ids.
    none when there is no database (the command needs none)."""
    if not database.is_file():
        return []
    async with Store.open(database, create=False) as store:
        return await store.mark_deal_assisted(number)


def report(number: int, level: Level, verdict: Verdict) -> list[str]:
    """The verdict in words, and a won deal's line, all wrapped to :data:`WIDTH` columns."""
    took = f"{verdict.seconds:.2f} s, {verdict.nodes} positions"
    head = f"Deal {number} at level {level.number} ({level.name}): "
    if verdict.result == Result.WON:
        words = [
            head + "won.",
            f"A winning line of {len(verdict.line)} plays (found in {took}):",
        ]
    elif verdict.result == Result.LOST:
        words = [head + "lost.", f"No line wins this deal (proved in {took})."]
    else:
        words = [head + "undecided.", f"The solver could not decide in time ({took})."]
    lines = [line for text in words for line in textwrap.wrap(text, WIDTH)]
    return lines + wrap_line(verdict.line)


def wrap_line(plays: Sequence[str], width: int = WIDTH) -> list[str]:
    """Plays two spaces apart, lines broken between plays, never inside one (``S 3``).

    >>> wrap_line(["V", "S 3", "2 F", "D 1"], width=8)
    ['V  S 3', '2 F  D 1']
    """
    lines: list[str] = []
    current = ""
    for play in plays:
        candidate = f"{current}  {play}" if current else play
        if current and len(candidate) > width:
            lines.append(current)
            candidate = play
        current = candidate
    if current:
        lines.append(current)
    return lines


def _config(path: str | None) -> Config:
    if path is None and not DEFAULT_CONFIG_PATH.exists():
        return Config()
    return load_config(path or DEFAULT_CONFIG_PATH)


def _deal(text: str) -> int:
    if not text.isdigit() or int(text) > MAX_DEAL_NUMBER:
        raise SolveInputError(
            f"{text!r} is not a deal number: a whole number from 0 to {MAX_DEAL_NUMBER}"
        )
    return int(text)


def _level(config: Config, text: str | None) -> Level:
    if text is None:
        return config.level(config.default_level)
    count = len(config.levels)
    if not text.isdigit() or not 1 <= int(text) <= count:
        raise SolveInputError(f"no level {text}: the levels are 1 to {count}")
    return config.level(int(text))


def _seconds(text: str | None, default: float) -> float:
    if text is None:
        return default
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise SolveInputError(
            f"--seconds {text} is not accepted: a number of seconds above 0, "
            f"at most {MAX_SECONDS:g}"
        )
    return seconds
