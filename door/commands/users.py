"""``canfield-door sysop users`` and ``sysop user show|rename|delete|reset-password``: the
sysop's commands for users.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from ansi.text import sanitize
from door.commands.cli import (
    ALIAS_CELL,
    BBS_CELL,
    AdminError,
    Column,
    Context,
    add_command,
    add_yes,
    bbs_cell,
    confirm,
    print_lines,
    table,
    when,
    who,
)
from door.net.clocks import describe_seconds
from door.store import Store, User
from door.store.accounts import alias_key, check_new_password


def _add_users(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    add_command(commands, common, "users", "list the users, with when they were last seen", _users)


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
    show = add_command(
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
    rename = add_command(actions, common, "rename", "give a user a new alias", _rename)
    rename.add_argument("old", metavar="OLD", help="the user's alias now")
    rename.add_argument("new", metavar="NEW", help="the new alias (2 to 20 characters)")
    delete = add_command(
        actions,
        common,
        "delete",
        "delete a user and all their games",
        _delete,
        description="Delete a user and all their games, after asking (unless --yes).",
    )
    delete.add_argument("alias", metavar="ALIAS")
    add_yes(delete)
    reset = add_command(
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


async def _users(args: argparse.Namespace, context: Context, store: Store) -> int:
    summaries = await store.user_summaries()
    if not summaries:
        print("No users yet.")
        return 0
    columns = [
        Column("Alias", limit=ALIAS_CELL),
        Column("BBS", limit=BBS_CELL),
        Column("Created"),
        Column("Last seen"),
        Column("Games", right=True),
    ]
    rows = [
        [
            sanitize(s.user.alias),
            bbs_cell(s.user.bbs) or "(telnet)",
            when(s.user.created, with_time=False),
            when(s.user.last_seen),
            str(s.games),
        ]
        for s in summaries
    ]
    print_lines(table(columns, rows))
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
    print(f"Alias:      {who(user)}")
    print(f"Signed up:  {when(user.created)}")
    print(f"Last call:  {when(user.last_seen)}")
    print(f"Games:      {games}")
    if user.bbs is not None:
        return 0
    failures = await store.login_failures(alias_key(user.alias))
    if failures is None:
        print("Wrong passwords lately: none")
        return 0
    print(f"Wrong passwords lately: {failures.count}, the last at {when(failures.last)}")
    wait = (failures.locked_until - datetime.now(UTC)).total_seconds()
    if wait > 0:
        print(f"Log-ins as {sanitize(user.alias)} rest for {describe_seconds(wait)} more")
    return 0


async def _rename(args: argparse.Namespace, context: Context, store: Store) -> int:
    user = await _find_user(store, args, args.old)
    renamed = await store.rename_user(user.id, args.new)
    print(f"Renamed {who(user)} to {sanitize(renamed.alias)}")
    return 0


async def _delete(args: argparse.Namespace, context: Context, store: Store) -> int:
    user = await _find_user(store, args, args.alias)
    games = len(await store.games_of(user.id))
    question = f"Delete {who(user)} and their {games} game{'s' if games != 1 else ''}?"
    if not confirm(question, args.yes):
        print("Nothing was deleted.")
        return 1
    await store.delete_user(user.id)
    print(f"Deleted {who(user)} and {games} game{'s' if games != 1 else ''}")
    return 0


async def _password(args: argparse.Namespace, context: Context, store: Store) -> int:
    user = await _find_user(store, args, args.alias)
    if user.bbs is not None:
        raise AdminError(f"{who(user)} logs in at that BBS, not with a password here")
    password = _read_password(args.password_stdin)
    problem = check_new_password(password, user.alias)
    if problem:
        raise AdminError(f"{problem}; nothing was changed")
    await store.set_password(user.id, password)
    print(f"New password set for {who(user)}")
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


def add_subcommands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``users`` and ``user`` on ``canfield-door sysop``."""
    _add_users(commands, common)
    _add_user(commands, common)
