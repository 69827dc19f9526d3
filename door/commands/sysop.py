"""``canfield-door sysop``: the sysop's commands for users, scoreboards, bulletins, backups and
the solver (``solve``, in :mod:`door.commands.solve`); and, over the running door's control
socket, who, send, kick, watch, status and reload (in :mod:`door.commands.control`).

Each command opens the database named in sysop.toml (or ``--database``), does one job and
exits 0, or prints what went wrong to stderr and exits 1. The commands can run while the
door is serving callers: the database is in WAL mode and every change is one transaction.
Tables are plain text within 79 columns, and every alias shown passes through
:func:`ansi.text.sanitize`.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import re
import sqlite3
import sys
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ansi.text import sanitize
from door import bulletin
from door.commands import solve
from door.config import DEFAULT_CONFIG_PATH, Config, ConfigError, Level, load_config
from door.engine import Variant
from door.engine.status import PLAYING
from door.fairness import seal
from door.files import replace_file
from door.net.clocks import describe_seconds
from door.replay import replay
from door.store import GameRecord, NotFound, Store, StoreError, User
from door.store.accounts import alias_key, check_new_password

WIDTH = 79
_ALIAS_CELL = 20
_BBS_CELL = 18


class AdminError(Exception):
    """A sysop command can't go on; the message says why."""


@dataclass(frozen=True, slots=True)
class Context:
    """What every command works with: the settings and the database file."""

    config: Config
    database: Path


Command = Callable[[argparse.Namespace, Context, Store], Awaitable[int]]


# -- the command line ------------------------------------------------------------------------


def add_subcommand(subparsers: argparse._SubParsersAction) -> None:
    """Register ``sysop`` and its commands on the ``canfield-door`` parser."""
    sysop = subparsers.add_parser(
        "sysop",
        help="manage users, scoreboards, bulletins and backups; solve deals; see and reach "
        "the callers of the running door",
        description="The sysop's commands. They read sysop.toml for the levels and the "
        "database, and can run while the door is serving callers.",
    )
    _add_common(sysop, None)
    commands = sysop.add_subparsers(dest="sysop_command", metavar="COMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False)
    _add_common(common, argparse.SUPPRESS)
    _add_users(commands, common)
    _add_user(commands, common)
    _add_scores(commands, common)
    _add_reset_scores(commands, common)
    _add_bulletin(commands, common)
    _add_backup(commands, common)
    _add_game(commands, common)
    solve.add_subcommand(commands)
    from door.commands import contest, control  # they build on this module's tables and errors

    contest.add_subcommand(commands, common)
    control.add_subcommands(commands, common)


def _add_common(parser: argparse.ArgumentParser, default: object) -> None:
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


def _command(
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


def _add_users(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    _command(commands, common, "users", "list the users, with when they were last seen", _users)


def _add_user(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    user = commands.add_parser(
        "user",
        help="show a user (with wrong passwords lately), rename one, delete one, or set a "
        "new password",
        description="Show or change one user: 'sysop user ALIAS' shows them. An alias is "
        "matched whatever its case; when callers from different BBSes share it, pick one "
        "with --bbs NAME or --telnet.",
        parents=[common],
    )
    actions = user.add_subparsers(dest="user_action", metavar="ACTION", required=True)
    show = _command(
        actions,
        common,
        "show",
        "show a user: calls, games, wrong passwords lately",
        _show,
        description="Show a user: when they signed up and last called, their games, and "
        "the wrong passwords typed for their alias lately (from any address), with how long "
        "log-ins as them rest.",
    )
    show.add_argument("alias", metavar="ALIAS")
    rename = _command(actions, common, "rename", "give a user a new alias", _rename)
    rename.add_argument("old", metavar="OLD", help="the user's alias now")
    rename.add_argument("new", metavar="NEW", help="the new alias (2 to 20 characters)")
    delete = _command(
        actions,
        common,
        "delete",
        "delete a user and all their games",
        _delete,
        description="Delete a user and all their games, after asking (unless --yes).",
    )
    delete.add_argument("alias", metavar="ALIAS")
    _add_yes(delete)
    reset = _command(
        actions,
        common,
        "reset-password",
        "set a new password for a telnet user",
        _password,
        description="Set a new password for a user who calls over telnet: typed twice at "
        "the terminal, or one line read from standard input with --password-stdin.",
    )
    reset.add_argument("alias", metavar="ALIAS")
    reset.add_argument(
        "--password-stdin", action="store_true", help="read the new password from stdin"
    )
    for parser in (show, rename, delete, reset):
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--bbs", metavar="NAME", help="the user who comes from this BBS")
        which.add_argument("--telnet", action="store_true", help="the user who calls by telnet")


def _add_scores(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    scores = _command(
        commands,
        common,
        "scores",
        "print the high-score lists",
        _scores,
        description="Print each level's high-score list (games under the level's current "
        "rules, finished since its last reset; never practice), or one level's with "
        "--level. Hint says a hint was taken; Game is the number `sysop game` takes.",
    )
    _add_level(scores, "only this level's list")
    scores.add_argument(
        "--limit",
        type=_positive,
        metavar="N",
        help="rows per list (default: scoreboard.high_scores)",
    )
    standings = _command(
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
        "--limit", type=_positive, metavar="N", help="rows (default: scoreboard.standings)"
    )


def _add_reset_scores(
    commands: argparse._SubParsersAction, common: argparse.ArgumentParser
) -> None:
    reset = _command(
        commands,
        common,
        "reset-scores",
        "start the high-score lists afresh",
        _reset_scores,
        description="Start the high-score list of one level (--level) or of every level "
        "afresh: games finished before now leave the lists. Nothing is deleted: each "
        "user's statistics and the standings keep every game. Asks first unless --yes.",
    )
    _add_level(reset, "only this level's list")
    _add_yes(reset)


def _add_bulletin(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    maker = _command(
        commands,
        common,
        "bulletin",
        "write the scoreboards as a bulletin file",
        _bulletin,
        description="Write the high-score lists and the standings (or one level's list) as "
        "a file for the BBS to show: ANSI (CP437, colours, 80 columns), plain ASCII, or "
        "JSON to publish.",
    )
    maker.add_argument(
        "--format", required=True, choices=bulletin.FORMATS, help="ansi, ascii or json"
    )
    maker.add_argument(
        "--output",
        required=True,
        metavar="FILE",
        help="the file to write (replaced whole); - for standard output",
    )
    _add_level(maker, "only this level's high scores, without the standings")
    maker.add_argument(
        "--board",
        metavar="TAG",
        help="only the callers of this board: the tag or name of a board linked over "
        "RLOGIN, or the name of a BBS that runs the door (default: every caller)",
    )


def _add_backup(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    backup = _command(
        commands,
        common,
        "backup",
        "copy the live database to a file",
        _backup,
        description="Write a consistent copy of the database with SQLite's online backup, "
        "safe while callers play, readable by its owner only. An existing FILE is replaced "
        "whole, after asking (unless --force); the database's own -wal, -shm and -journal "
        "files are refused.",
    )
    backup.add_argument("file", metavar="FILE")
    backup.add_argument(
        "--force", action="store_true", help="replace an existing FILE without asking"
    )


def _add_game(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    game = _command(
        commands,
        common,
        "game",
        "print a game's deal, its plays and a replay check",
        _game,
        description="Print one game (the Game column of `sysop scores` numbers them): who "
        "played it, at which level, its result, its deal and seal, every play, and a replay "
        "check: its plays replayed from its deal through the rules must give the stored "
        "result (exit status 1 if they don't). A game still being played shows its seal, "
        "not its deal.",
    )
    game.add_argument("game_id", metavar="ID", type=_positive, help="the game's number")


def _add_level(parser: argparse.ArgumentParser, words: str) -> None:
    parser.add_argument("--level", type=int, metavar="N", help=words)


def _add_yes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="do it without asking")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("it must be at least 1")
    return value


# -- running a command -----------------------------------------------------------------------


def _runner(command: Command) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        # Aliases can hold any character; a terminal that can't show one gets a '?'.
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(errors="replace")
        try:
            context = _context(args)
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


def _context(args: argparse.Namespace) -> Context:
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


def _level(context: Context, number: int | None) -> Level | None:
    if number is None:
        return None
    try:
        return context.config.level(number)
    except KeyError:
        count = len(context.config.levels)
        raise AdminError(
            f"no level {number}: {context.config.path} has levels 1 to {count}"
        ) from None


async def _board(context: Context, store: Store, wanted: str | None) -> str | None:
    """The name callers of the board ``wanted`` (a linked board's tag or name, or a BBS's
    name) are kept under; None for everyone."""
    if wanted is None:
        return None
    linked = context.config.rlogin.board(wanted)
    if linked is not None:
        return linked.name
    for name in await store.board_names():
        if name.casefold() == wanted.casefold():
            return name
    tags = ", ".join(board.tag for board in context.config.rlogin.boards) or "none"
    raise AdminError(
        f"no board {sanitize(wanted)}: neither a linked board's tag or name in "
        f"{context.config.path} (tags: {tags}) nor a BBS any user calls from"
    )


def _confirm(question: str, yes: bool, yes_flag: str = "--yes") -> bool:
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


async def _find_user(store: Store, args: argparse.Namespace, alias: str) -> User:
    """The one user ALIAS (with --bbs or --telnet) names; AdminError if none or several."""
    if args.bbs is not None or args.telnet:
        user = await store.find_user(alias, args.bbs)
        if user is None:
            where = f"from {args.bbs}" if args.bbs is not None else "calling by telnet"
            raise AdminError(f"no user called {_shown(alias)} {where}")
        return user
    users = await store.users_named(alias)
    if not users:
        raise AdminError(f"no user called {_shown(alias)} (see: canfield-door sysop users)")
    if len(users) > 1:
        places = ", ".join(_place(user) for user in users)
        raise AdminError(
            f"{len(users)} users are called {_shown(alias)} ({places}); "
            "pick one with --bbs NAME or --telnet"
        )
    return users[0]


def _shown(alias: str) -> str:
    return f'"{sanitize(alias)}"'


def _place(user: User) -> str:
    return "by telnet" if user.bbs is None else f"from {sanitize(user.bbs)}"


def _who(user: User) -> str:
    return sanitize(user.alias) + ("" if user.bbs is None else f" from {sanitize(user.bbs)}")


# -- tables ----------------------------------------------------------------------------------


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


def _print(lines: Sequence[str]) -> None:
    for line in lines:
        print(line)


def _when(moment: datetime, with_time: bool = True) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")


def _bbs_cell(bbs: str | None) -> str:
    return "" if bbs is None else sanitize(bbs)


# -- the commands ------------------------------------------------------------------------------


async def _users(args: argparse.Namespace, context: Context, store: Store) -> int:
    summaries = await store.user_summaries()
    if not summaries:
        print("No users yet.")
        return 0
    columns = [
        Column("Alias", limit=_ALIAS_CELL),
        Column("BBS", limit=_BBS_CELL),
        Column("Created"),
        Column("Last seen"),
        Column("Games", right=True),
    ]
    rows = [
        [
            sanitize(s.user.alias),
            _bbs_cell(s.user.bbs) or "(telnet)",
            _when(s.user.created, with_time=False),
            _when(s.user.last_seen),
            str(s.games),
        ]
        for s in summaries
    ]
    _print(table(columns, rows))
    print(f"{len(summaries)} user{'s' if len(summaries) != 1 else ''}")
    return 0


USER_ACTIONS = ("show", "rename", "delete", "reset-password")


def shorthand(argv: Sequence[str]) -> list[str]:
    """``sysop user ALIAS`` as ``sysop user show ALIAS``.

    >>> shorthand(["sysop", "user", "Bob"]), shorthand(["sysop", "user", "rename", "A", "B"])
    (['sysop', 'user', 'show', 'Bob'], ['sysop', 'user', 'rename', 'A', 'B'])
    """
    argv = list(argv)
    if "sysop" in argv and "user" in argv[argv.index("sysop") :]:
        at = argv.index("user", argv.index("sysop")) + 1
        while at < len(argv) and argv[at].startswith("-"):
            at += 2 if argv[at] in ("--config", "--database", "--bbs") else 1
        if at < len(argv) and argv[at] not in USER_ACTIONS:
            argv.insert(at, "show")
    return argv


async def _show(args: argparse.Namespace, context: Context, store: Store) -> int:
    user = await _find_user(store, args, args.alias)
    games = len(await store.games_of(user.id))
    print(f"Alias:      {_who(user)}")
    print(f"Signed up:  {_when(user.created)}")
    print(f"Last call:  {_when(user.last_seen)}")
    print(f"Games:      {games}")
    if user.bbs is not None:
        return 0
    failures = await store.login_failures(alias_key(user.alias))
    if failures is None:
        print("Wrong passwords lately: none")
        return 0
    print(f"Wrong passwords lately: {failures.count}, the last at {_when(failures.last)}")
    wait = (failures.locked_until - datetime.now(UTC)).total_seconds()
    if wait > 0:
        print(f"Log-ins as {sanitize(user.alias)} rest for {describe_seconds(wait)} more")
    return 0


async def _rename(args: argparse.Namespace, context: Context, store: Store) -> int:
    user = await _find_user(store, args, args.old)
    renamed = await store.rename_user(user.id, args.new)
    print(f"Renamed {_who(user)} to {sanitize(renamed.alias)}")
    return 0


async def _delete(args: argparse.Namespace, context: Context, store: Store) -> int:
    user = await _find_user(store, args, args.alias)
    games = len(await store.games_of(user.id))
    question = f"Delete {_who(user)} and their {games} game{'s' if games != 1 else ''}?"
    if not _confirm(question, args.yes):
        print("Nothing was deleted.")
        return 1
    await store.delete_user(user.id)
    print(f"Deleted {_who(user)} and {games} game{'s' if games != 1 else ''}")
    return 0


async def _password(args: argparse.Namespace, context: Context, store: Store) -> int:
    user = await _find_user(store, args, args.alias)
    if user.bbs is not None:
        raise AdminError(f"{_who(user)} logs in at that BBS, not with a password here")
    password = _read_password(args.password_stdin)
    problem = check_new_password(password, user.alias)
    if problem:
        raise AdminError(f"{problem}; nothing was changed")
    await store.set_password(user.id, password)
    print(f"New password set for {_who(user)}")
    return 0


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline()
        if not line:
            raise AdminError("no password on standard input")
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        raise AdminError("no terminal to ask for the password on; use --password-stdin")
    first = getpass.getpass("New password: ")
    if getpass.getpass("The same again: ") != first:
        raise AdminError("the two passwords differ; nothing was changed")
    return first


async def _scores(args: argparse.Namespace, context: Context, store: Store) -> int:
    only = _level(context, args.level)
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
    print(title + (f", since {_when(since)}" if since else ""))
    if not rows:
        print("  No finished games yet.")
        return
    with_bbs = any(row.bbs for row in rows)
    columns = [
        Column("#", right=True),
        Column("Alias", limit=_ALIAS_CELL),
        *([Column("BBS", limit=_BBS_CELL)] if with_bbs else []),
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
            *([_bbs_cell(row.bbs)] if with_bbs else []),
            str(row.score),
            "yes" if row.won else "no",
            str(row.moves),
            _when(row.finished, with_time=False),
            "yes" if row.assisted else "",
            str(row.game_id),
        ]
        for rank, row in enumerate(rows, start=1)
    ]
    _print(table(columns, cells))


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
        Column("Alias", limit=_ALIAS_CELL),
        Column(""),
        *([Column("BBS", limit=_BBS_CELL)] if with_bbs else []),
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
            *([_bbs_cell(row.bbs)] if with_bbs else []),
            str(row.games),
            str(row.wins),
            "-" if row.percentage is None else f"{row.percentage:.1f}",
            "-" if row.best is None else str(row.best),
            str(row.assisted),
        ]
        for rank, row in enumerate(rows, start=1)
    ]
    _print(table(columns, cells))
    if any(row.unfinished for row in rows):
        print("* has a game to resume")
    print("Hints: finished games in which a hint was taken; practice games are not counted")
    return 0


async def _reset_scores(args: argparse.Namespace, context: Context, store: Store) -> int:
    level = _level(context, args.level)
    which = (
        "every level's high-score list"
        if level is None
        else (f"the high-score list of level {level.number} ({sanitize(level.name)})")
    )
    if not _confirm(f"Start {which} afresh?", args.yes):
        print("Nothing was reset.")
        return 1
    hidden = await store.reset_scores(None if level is None else level.number)
    print(f"Started {which} afresh: {hidden} game{'s' if hidden != 1 else ''} left the list")
    return 0


async def _bulletin(args: argparse.Namespace, context: Context, store: Store) -> int:
    _level(context, args.level)
    bbs = await _board(context, store, args.board)
    board = await bulletin.gather(store, context.config, args.level, bbs=bbs)
    data = bulletin.render(board, args.format)
    if args.output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return 0
    _write_whole(Path(args.output), data)
    print(f"Wrote the {args.format} bulletin to {args.output} ({len(data)} bytes)")
    return 0


def _write_whole(path: Path, data: bytes) -> None:
    """Replace ``path`` in one step, so a BBS showing it never sees half a file; owner-only,
    through a temporary file nobody can guess or plant a symlink at."""
    try:
        replace_file(path, data)
    except OSError as error:
        raise AdminError(f"{path}: can't be written: {error.strerror or error}") from None


async def _backup(args: argparse.Namespace, context: Context, store: Store) -> int:
    target = Path(args.file)
    if not target.parent.is_dir():
        raise AdminError(f"{target.parent}: no such folder")
    refusal = store.backup_refusal(target)
    if refusal is not None:
        raise AdminError(f"{refusal}; nothing was written")
    if (target.exists() or target.is_symlink()) and not _confirm(
        f"{target} exists. Replace it with the backup?", args.force, yes_flag="--force"
    ):
        print("Nothing was written.")
        return 1
    users, games = await store.counts()
    try:
        await store.backup(target)
    except (OSError, sqlite3.Error) as error:
        raise AdminError(f"{target}: can't be written: {error}") from None
    print(f"Backed up {users} users and {games} games to {target} (integrity checked)")
    return 0


async def _game(args: argparse.Namespace, context: Context, store: Store) -> int:
    try:
        record = await store.game_record(args.game_id)
        user = await store.user(record.user_id)
        stored = await store.load_game(record.id)
    except NotFound:
        raise AdminError(f"no game {args.game_id} (see: canfield-door sysop scores)") from None
    knobs = next(row.knobs for row in await store.variants() if row.id == record.variant_id)
    variant = Variant.from_dict(knobs)
    kind = "practice (a deal the player chose)" if record.practice else "scored"
    if record.day is not None:
        kind += f", the deal of the day {record.day}"
    contest = await store.contest_of_game(record.id)
    if contest is not None:
        kind += f", deal {contest[1]} of the contest {sanitize(contest[0].name)!r}"
    lines = [
        f"Game {record.id}: {_who(user)}, level {record.level}, {kind}",
        f"Rules: {' '.join(f'{key}={value}' for key, value in sorted(knobs.items()))}",
        f"Result: {record.status}, score {record.score}, {record.moves} moves, "
        f"{record.cards_up} cards up" + (", a hint was taken" if record.assisted else ""),
        f"Started {_when(record.started)}"
        + (f", finished {_when(record.finished)}" if record.finished else ""),
        *_deal_lines(record, contest is not None and not contest[0].revealed),
    ]
    check = replay(record, variant, [str(card) for card in stored.order])
    print("\n".join(line for text in lines for line in textwrap.wrap(text, WIDTH)))
    print(f"Plays ({len(record.history)}):")
    for line in solve.wrap_line(record.history, WIDTH - 2):
        print(f"  {line}")
    if check.ok:
        done = (
            "the plays, replayed from the deal through the rules, give the stored result"
            if record.history or record.status != PLAYING
            else "no plays yet; the stored cards are the deal's"
        )
        _print(textwrap.wrap(f"Replay check: {done}.", WIDTH))
        return 0
    for problem in check.problems:
        for line in textwrap.wrap(f"Replay check FAILED: {problem}", WIDTH):
            print(line)
    return 1


def _deal_lines(record: GameRecord, in_contest: bool = False) -> list[str]:
    """The game's deal and seal as the sysop may see them: a scored game's deal only once it
    is over, as its player sees it; a contest's game's (``in_contest``) once the contest
    has closed."""
    if record.deal is None:
        return ["Deal: laid out by hand (no number)"]
    if record.practice:
        return [f"Deal {record.deal}"]
    if record.salt is None:
        return [f"Deal {record.deal} (no seal: dealt before deals were sealed)"]
    sealed = seal(record.deal, record.salt)
    if in_contest:
        return [f"Seal {sealed}; the deal is shown once the contest has closed"]
    if record.status == PLAYING:
        return [f"Seal {sealed}; the deal is shown once the game is over"]
    return [f"Deal {record.deal}, salt {record.salt}", f"Seal {sealed} (shown at its start)"]
