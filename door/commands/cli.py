"""What every ``canfield-door sysop`` command shares: its error, its context (the settings
and the database), the registering and running of a command, asking before a change, and
plain-text tables within :data:`WIDTH` columns.

>>> for line in table([Column("Alias"), Column("Games", right=True)], [["Ann", "3"]]):
...     print(line)
Alias  Games
Ann        3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ansi.text import sanitize
from door.config import DEFAULT_CONFIG_PATH, Config, ConfigError, load_config
from door.levels import Level
from door.store import Store, StoreError, User

WIDTH = 79
ALIAS_CELL = 20
BBS_CELL = 18


class AdminError(Exception):
    """A sysop command can't go on; the message says why."""


@dataclass(frozen=True, slots=True)
class Context:
    """What every command works with: the settings and the database file."""

    config: Config
    database: Path


Command = Callable[[argparse.Namespace, Context, Store], Awaitable[int]]


def add_common(parser: argparse.ArgumentParser, default: object) -> None:
    # Accepted before or after the command; after it, argparse.SUPPRESS keeps an absent
    # option from hiding one given before.
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=default,
        help=f"the settings file (default: {DEFAULT_CONFIG_PATH} in the current folder)",
    )
    parser.add_argument(
        "--database",
        metavar="FILE",
        default=default,
        help="the database file (default: server.database in the settings file)",
    )


def add_command(
    commands: argparse._SubParsersAction,
    common: argparse.ArgumentParser,
    name: str,
    summary: str,
    run: Command,
    description: str = "",
) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        name,
        help=summary,
        description=description or summary[0].upper() + summary[1:] + ".",
        parents=[common],
    )
    parser.set_defaults(run=_runner(run))
    return parser


def _runner(command: Command) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        # Aliases can hold any character; a terminal that can't show one gets a '?'.
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(errors="replace")
        try:
            context = read_context(args)
            code = asyncio.run(_open_and_run(command, args, context))
            sys.stdout.flush()  # here, where a closed pipe can still be caught
            return code
        except BrokenPipeError:
            # What reads the output has stopped (``| head``): stop quietly, as Unix tools do,
            # and keep Python from complaining when it flushes at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except (AdminError, ConfigError, StoreError) as error:
            print(f"canfield-door sysop: {error}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("canfield-door sysop: interrupted; nothing more was changed", file=sys.stderr)
            return 1

    return run


def read_context(args: argparse.Namespace) -> Context:
    """The settings and the database. Without --config, a missing sysop.toml is fine when
    --database names the file: the shipped levels are used."""
    if args.config is None and args.database is not None and not DEFAULT_CONFIG_PATH.exists():
        config = Config()
    else:
        config = load_config(args.config or DEFAULT_CONFIG_PATH)
    database = Path(args.database) if args.database else config.server.database
    return Context(config, database)


async def _open_and_run(command: Command, args: argparse.Namespace, context: Context) -> int:
    if not context.database.is_file():
        raise AdminError(
            f"{context.database}: no such database (server.database in {context.config.path}, "
            "or give --database FILE)"
        )
    async with Store.open(context.database, create=False) as store:
        return await command(args, context, store)


def level_of(context: Context, number: int | None) -> Level | None:
    if number is None:
        return None
    try:
        return context.config.level(number)
    except KeyError:
        count = len(context.config.levels)
        raise AdminError(
            f"no level {number}: {context.config.path} has levels 1 to {count}"
        ) from None


def add_level(parser: argparse.ArgumentParser, words: str) -> None:
    parser.add_argument("--level", type=int, metavar="N", help=words)


def add_yes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="do it without asking")


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("it must be at least 1")
    return value


def confirm(question: str, yes: bool, yes_flag: str = "--yes") -> bool:
    """--yes, or 'yes' typed at the terminal. Without a terminal to ask on, refuse."""
    if yes:
        return True
    if not sys.stdin.isatty():
        raise AdminError(f"{question} Refused: no terminal to ask on; add {yes_flag} to go ahead")
    print(question)
    try:
        answer = input("Type yes to confirm: ")
    except EOFError:
        answer = ""
    return answer.strip().lower() == "yes"


def who(user: User) -> str:
    return sanitize(user.alias) + ("" if user.bbs is None else f" from {sanitize(user.bbs)}")


@dataclass(frozen=True, slots=True)
class Column:
    title: str
    right: bool = False
    limit: int = WIDTH


def table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows aligned under their titles, two spaces apart, cut to fit in :data:`WIDTH`."""
    widths = [
        min(column.limit, max([len(column.title), *(len(row[i]) for row in rows)]))
        for i, column in enumerate(columns)
    ]
    while sum(widths) + 2 * (len(widths) - 1) > WIDTH:
        widest = widths.index(max(widths))
        widths[widest] -= 1
    lines = []
    for cells in [[column.title for column in columns], *rows]:
        parts = []
        for column, width, cell in zip(columns, widths, cells, strict=True):
            cell = cell[:width]
            parts.append(cell.rjust(width) if column.right else cell.ljust(width))
        lines.append("  ".join(parts).rstrip())
    return lines


def print_lines(lines: Sequence[str]) -> None:
    for line in lines:
        print(line)


def when(moment: datetime, with_time: bool = True) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")


def bbs_cell(bbs: str | None) -> str:
    return "" if bbs is None else sanitize(bbs)
