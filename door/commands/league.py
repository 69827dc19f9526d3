"""``canfield-door sysop league key|join|add|list|suspend|remove`` and ``canfield-door league
sync``: the InterBBS league from the sysop's side.

On every board: ``key`` makes the board's key pair and prints its public key. On the hub:
``add`` a member board by its tag, name and public key, ``list``, ``suspend`` (and
``--lift``) and ``remove`` them. On a member: ``join`` fetches the hub's key, shows its
fingerprint to check with the hub's sysop, and pins it; ``league sync`` (for a timer) sends
the results waiting and fetches the contests and tables.
"""

from __future__ import annotations

import argparse

import aiohttp

from ansi.text import sanitize
from door.commands.cli import (
    AdminError,
    Column,
    Context,
    add_command,
    add_common,
    add_yes,
    confirm,
    print_lines,
    table,
    when,
)
from door.config import TAG_PATTERN
from door.league.signing import fingerprint, private_key_file, public_key, public_text
from door.store import NotFound, Store

_BOARD_NAME_MAX = 60


def add_subcommand(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``league`` and its actions on ``canfield-door sysop``."""
    league = commands.add_parser(
        "league",
        help="the InterBBS league: this board's key, joining a hub, a hub's member boards",
        description="The InterBBS league: boards that each run the door play the same "
        "sealed contest deals and share one table, kept by a hub. Every message is signed "
        "with the sending board's Ed25519 key.",
        parents=[common],
    )
    actions = league.add_subparsers(dest="league_action", metavar="ACTION", required=True)
    add_command(
        actions, common, "key", "make this board's key pair (once) and print its public key", _key
    )
    join = add_command(
        actions, common, "join", "fetch the hub's public key, show its fingerprint, pin it", _join
    )
    join.add_argument("--key", metavar="PUBKEY", help="the hub's public key, as its sysop gave it")
    add_yes(join)
    add = add_command(
        actions, common, "add", "(hub) add a member board: tag, name, public key", _add
    )
    add.add_argument("tag", metavar="TAG")
    add.add_argument("name", metavar="NAME")
    add.add_argument("public_key", metavar="PUBKEY")
    add_command(actions, common, "list", "(hub) list the member boards", _list)
    suspend = add_command(
        actions, common, "suspend", "(hub) refuse a board's requests until lifted", _suspend
    )
    suspend.add_argument("tag", metavar="TAG")
    suspend.add_argument("--lift", action="store_true", help="let the board play again")
    remove = add_command(actions, common, "remove", "(hub) forget a board and its key", _remove)
    remove.add_argument("tag", metavar="TAG")
    add_yes(remove)


def add_sync_command(sub: argparse._SubParsersAction) -> None:
    """Register ``canfield-door league sync``: one sync, for a timer or cron."""
    league = sub.add_parser(
        "league",
        help="the league member's sync with its hub (for a timer)",
        description="A member board's sync with the league's hub: the hub's contests, the "
        "results waiting sent in order, the tables fetched.",
    )
    add_common(league, None)
    common = argparse.ArgumentParser(add_help=False)
    add_common(common, argparse.SUPPRESS)
    actions = league.add_subparsers(dest="league_action", metavar="ACTION", required=True)
    sync = add_command(actions, common, "sync", "sync with the hub once", _sync)
    sync.add_argument(
        "--force", action="store_true", help="try now, even while backing off after a failure"
    )


async def _key(args: argparse.Namespace, context: Context, store: Store) -> int:
    path = context.config.league_key
    key = private_key_file(path)
    print(f"This board's league key is in {path} (keep it private).")
    print("Its public key, for the hub's sysop:")
    print(public_text(key))
    print(f"Fingerprint: {fingerprint(public_text(key))}")
    return 0


async def _join(args: argparse.Namespace, context: Context, store: Store) -> int:
    from door.league.member import HUB_KEY

    league = context.config.league
    if league.hub_url is None:
        raise AdminError('this board is no league member: set [league] hub = "https://..."')
    given = args.key or league.hub_key
    if given is None:
        try:
            timeout = aiohttp.ClientTimeout(total=10)
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.get(league.hub_url + "/league/hub") as response,
            ):
                about = await response.json()
            given = str(about["key"])
            print(
                f"The hub at {league.hub_url}: {sanitize(str(about.get('name')))} "
                f"[{sanitize(str(about.get('tag')))}]"
            )
        except (aiohttp.ClientError, TimeoutError, OSError, ValueError, KeyError) as error:
            raise AdminError(f"the hub at {league.hub_url} did not answer: {error}") from None
    try:
        shown = fingerprint(given)
    except ValueError as error:
        raise AdminError(f"not a public key: {error}") from None
    print(f"The hub's key fingerprint: {shown}")
    if not confirm("Is it the fingerprint the hub's sysop gave you?", args.yes):
        print("Not pinned.")
        return 1
    await store.set_league_value(HUB_KEY, given.strip())
    print("Pinned: this board trusts only what that key signs.")
    return 0


async def _add(args: argparse.Namespace, context: Context, store: Store) -> int:
    if not TAG_PATTERN.fullmatch(args.tag):
        raise AdminError("a tag is 1 to 16 letters, digits, - or _")
    name = sanitize(args.name)
    if not name or len(name) > _BOARD_NAME_MAX:
        raise AdminError(f"a board's name is 1 to {_BOARD_NAME_MAX} characters")
    try:
        public_key(args.public_key)
    except ValueError as error:
        raise AdminError(f"not a public key: {error}") from None
    board = await store.add_league_board(args.tag, name, args.public_key.strip())
    print(
        f"Board {board.tag} ({board.name}) added; key fingerprint {fingerprint(board.public_key)}"
    )
    return 0


async def _list(args: argparse.Namespace, context: Context, store: Store) -> int:
    boards = await store.league_boards()
    if not boards:
        print("No member boards yet (add one: canfield-door sysop league add TAG NAME PUBKEY)")
        return 0
    rows = [
        [
            b.tag,
            sanitize(b.name),
            fingerprint(b.public_key)[:19],
            when(b.added, with_time=False),
            "suspended" if b.suspended else "in play",
        ]
        for b in boards
    ]
    columns = [Column("Tag"), Column("Name"), Column("Key"), Column("Added"), Column("State")]
    print_lines(table(columns, rows))
    return 0


async def _suspend(args: argparse.Namespace, context: Context, store: Store) -> int:
    try:
        board = await store.suspend_league_board(args.tag, not args.lift)
    except NotFound as error:
        raise AdminError(str(error)) from None
    print(f"Board {board.tag} is {'suspended' if board.suspended else 'in play again'}.")
    return 0


async def _remove(args: argparse.Namespace, context: Context, store: Store) -> int:
    if not confirm(f"Remove the board {sanitize(args.tag)} and its key?", args.yes):
        return 1
    try:
        board = await store.remove_league_board(args.tag)
    except NotFound as error:
        raise AdminError(str(error)) from None
    print(f"Board {board.tag} removed; its accepted results stay on the tables.")
    return 0


async def _sync(args: argparse.Namespace, context: Context, store: Store) -> int:
    from door.league.member import HubUnreachable, league_member

    member = await league_member(store, context.config)
    if member is None:
        raise AdminError(
            "this board is not a league member ready to sync: [league] hub, "
            "sysop league key, sysop league join"
        )
    try:
        report = await member.sync(force=args.force)
    except HubUnreachable as error:
        raise AdminError(str(error)) from None
    print(
        f"Synced: {report.contests} contests; {report.sent} results accepted, "
        f"{report.refused} refused, {report.waiting} waiting."
    )
    return 0
