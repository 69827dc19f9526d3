"""``canfield-door sysop contest declare|list|show|withdraw|results``: the sysop's contests.

A contest is declared with one command that writes it to the database, not in sysop.toml:
its deals are drawn from :mod:`secrets` the moment it is made and must be kept sealed where
callers' files are not (sysop.toml is often readable by a BBS's other users, and copied
about), and a contest that has opened must stand as it was declared whatever the file later
says. The database holds the deals with their salts; the running door (or, in door mode,
the next caller) opens and closes it on time.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from datetime import datetime, timedelta

from ansi.text import sanitize
from door.commands.cli import (
    WIDTH,
    AdminError,
    Column,
    Context,
    add_command,
    confirm,
    level_of,
    print_lines,
    table,
    when,
)
from door.commands.live import request
from door.contests import ContestBoard, contest_board, keep_contests_on_time
from door.running.control import control_path
from door.store import NotFound, Store
from door.store.contests import MAX_DEALS, MAX_LEAD, MAX_LENGTH, Contest, ContestState
from door.views.layout import counted
from door.views.pages import board_cell

_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?")


def add_subcommand(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``contest`` and its actions on ``canfield-door sysop``."""
    contest = commands.add_parser(
        "contest",
        help="declare, list, show and withdraw contests; print a contest's results",
        description="Contests: a set of sealed deals every caller plays once while the "
        "contest is open, and one table for every board linked to the door. The deals are "
        "drawn when the contest is declared, their seals shown when it opens, their numbers "
        "and salts when it closes.",
        parents=[common],
    )
    actions = contest.add_subparsers(dest="contest_action", metavar="ACTION", required=True)
    declare = add_command(
        actions,
        common,
        "declare",
        "declare a contest: its name, level, deals, when it opens and for how long",
        _declare,
    )
    declare.add_argument("name", metavar="NAME", help="its name, as callers see it")
    declare.add_argument("--level", type=int, required=True, metavar="N", help="the level")
    declare.add_argument(
        "--deals", type=_deals, required=True, metavar="N", help=f"1 to {MAX_DEALS} deals"
    )
    declare.add_argument(
        "--opens",
        required=True,
        metavar="WHEN",
        help='"now", or the local date and time: "2026-12-07 18:00"',
    )
    declare.add_argument(
        "--league",
        action="store_true",
        help="a contest of the InterBBS league, played on every member board (on its hub)",
    )
    declare.add_argument(
        "--for",
        dest="length",
        type=duration,
        required=True,
        metavar="TIME",
        help="how long it stays open: 7d, 36h, 90m, 1d12h",
    )
    add_command(actions, common, "list", "list the contests, with where each stands", _list)
    show = add_command(actions, common, "show", "show a contest: its deals' seals and table", _show)
    show.add_argument("name", metavar="NAME")
    withdraw = add_command(
        actions, common, "withdraw", "withdraw a contest that has not opened yet", _withdraw
    )
    withdraw.add_argument("name", metavar="NAME")
    withdraw.add_argument("--yes", action="store_true", help="do it without asking")
    results = add_command(
        actions, common, "results", "print a contest's table (so far, while it is open)", _results
    )
    results.add_argument("name", metavar="NAME")


def _deals(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_DEALS:
        raise argparse.ArgumentTypeError(f"give 1 to {MAX_DEALS} deals")
    return int(text)


def duration(text: str) -> timedelta:
    """How long a contest stays open, from days, hours and minutes, up to
    :data:`~door.store.contests.MAX_LENGTH`.

    >>> [str(duration(text)) for text in ("7d", "1d12h", "90m")]
    ['7 days, 0:00:00', '1 day, 12:00:00', '1:30:00']
    >>> duration("9999999d")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '9999999d' is longer than a contest may run (90 days at most)
    """
    shown = sanitize(text)
    if text.strip().startswith("-"):
        raise argparse.ArgumentTypeError(
            f"{shown!r}: a contest can't stay open for less than no time"
        )
    found = _DURATION.fullmatch(text.strip().lower())
    if not text.strip() or found is None:
        raise argparse.ArgumentTypeError(f"{shown!r} is not a time such as 7d, 36h, 90m or 1d12h")
    days, hours, minutes = (int(part or 0) for part in found.groups())
    minutes += 60 * (hours + 24 * days)
    if minutes > MAX_LENGTH.total_seconds() // 60:  # before a timedelta: it may not hold it
        raise argparse.ArgumentTypeError(
            f"{shown!r} is longer than a contest may run ({MAX_LENGTH.days} days at most)"
        )
    if minutes == 0:
        raise argparse.ArgumentTypeError("a contest stays open for some time")
    return timedelta(minutes=minutes)


def opening(text: str, now: datetime) -> datetime:
    """When a contest opens: ``now``, or a local date and time to come (its seals exist from
    now on, so an opening already past would be a record of what never was), within
    :data:`~door.store.contests.MAX_LEAD`."""
    if text.strip().lower() == "now":
        return now
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise AdminError(
            f'--opens {sanitize(text)!r}: give "now" or a date and time such as "2026-12-07 18:00"'
        ) from None
    moment = moment.astimezone() if moment.tzinfo is None else moment
    if moment < now:
        raise AdminError(
            f'--opens {sanitize(text)!r} has passed (it is {when(now)}): give "now" to open '
            "the contest at once, or a time to come"
        )
    if moment - now > MAX_LEAD:
        raise AdminError(
            f"--opens {sanitize(text)!r} is too far ahead: a contest is declared at most "
            f"{MAX_LEAD.days} days before it opens"
        )
    return moment


async def _settle(context: Context, store: Store) -> None:
    """Have the contests that are due opened and closed before they are shown: by the
    running door when there is one (so that its log and bulletins tell of it), else here
    (door mode: no door runs between calls)."""
    try:
        request(control_path(context.database), {"command": "contests"})
    except AdminError:
        await keep_contests_on_time(store)


async def _find(store: Store, name: str) -> Contest:
    try:
        return await store.contest(name)
    except NotFound:
        raise AdminError(
            f"no contest called {sanitize(name)!r} (see: canfield-door sysop contest list)"
        ) from None


async def _declare(args: argparse.Namespace, context: Context, store: Store) -> int:
    level = level_of(context, args.level)
    assert level is not None
    if args.league and not context.config.league.hub:
        raise AdminError("a league contest is declared on the league's hub ([league] hub = true)")
    opens = opening(args.opens, store.now())
    contest = await store.declare_contest(
        args.name, level, args.deals, opens, opens + args.length, league=args.league
    )
    await _settle(context, store)
    print(
        f"Contest {sanitize(contest.name)!r}: {counted(contest.deals, 'deal')} "
        f"at level {contest.level}, "
        f"open {when(contest.opens)} to {when(contest.closes)}. Its deals are drawn and "
        "sealed; their seals are shown when it opens."
    )
    return 0


async def _list(args: argparse.Namespace, context: Context, store: Store) -> int:
    await _settle(context, store)
    every = await store.contests()
    if not every:
        print("No contests yet (declare one: canfield-door sysop contest declare --help)")
        return 0
    now = store.now()
    rows = []
    for contest in every:
        players = len(await store.contest_table(contest.id))
        rows.append(
            [
                sanitize(contest.name),
                str(contest.level),
                str(contest.deals),
                when(contest.opens),
                when(contest.closes),
                contest.state(now),
                str(players),
            ]
        )
    columns = [
        Column("Name", limit=30),
        Column("Level", right=True),
        Column("Deals", right=True),
        Column("Opens"),
        Column("Closes"),
        Column("State"),
        Column("Players", right=True),
    ]
    print_lines(table(columns, rows))
    return 0


async def _show(args: argparse.Namespace, context: Context, store: Store) -> int:
    await _print_board(context, store, args.name, deals_first=True)
    return 0


async def _withdraw(args: argparse.Namespace, context: Context, store: Store) -> int:
    contest = await _find(store, args.name)
    if contest.state(store.now()) != ContestState.COMING:
        raise AdminError(f"the contest {sanitize(contest.name)!r} has opened: it stands")
    if not confirm(f"Withdraw the contest {sanitize(contest.name)!r} and its deals?", args.yes):
        print("Nothing was changed.")
        return 1
    await store.withdraw_contest(contest.name)
    print(f"Contest {sanitize(contest.name)!r} withdrawn.")
    return 0


async def _results(args: argparse.Namespace, context: Context, store: Store) -> int:
    await _print_board(context, store, args.name, deals_first=False)
    return 0


async def _print_board(context: Context, store: Store, name: str, *, deals_first: bool) -> None:
    """The contest's heading, its deals (seals, or numbers and salts) and its table: the
    deals first for ``show``, the table first for ``results`` (which shows the deals only
    once they are revealed)."""
    await _settle(context, store)
    board = await contest_board(store, await _find(store, name))
    assert board is not None
    sections = [_deal_lines(board), result_lines(board)]
    if not deals_first:
        sections = [sections[1], *([sections[0]] if board.deals else [])]
    print_lines(_heading(board))
    for section in sections:
        print()
        print_lines(section)


def _heading(board: ContestBoard) -> list[str]:
    contest = board.contest
    words = {
        ContestState.COMING: "opens",
        ContestState.OPEN: "open, from",
        ContestState.CLOSED: "closed; it ran from",
    }[board.state]
    text = (
        f"Contest {sanitize(contest.name)!r}: {counted(contest.deals, 'deal')} "
        f"at level {contest.level}, "
        f"{words} {when(contest.opens)} to {when(contest.closes)}"
    )
    return textwrap.wrap(text, WIDTH)


def _deal_lines(board: ContestBoard) -> list[str]:
    """The deals as they may be seen: nothing before the opening, seals while it is open,
    numbers and salts once it has closed."""
    if not board.seals:
        return ["Its deals are sealed; their seals are shown when it opens."]
    if not board.deals:
        lines = ["Seals (the deals and salts are shown when it closes):"]
        return lines + [f"  {number}. {sealed}" for number, sealed in enumerate(board.seals, 1)]
    lines = ["Deals (check: the seal is sha256 of DEAL:SALT, its first 32 digits):"]
    for deal in board.deals:
        lines += [f"  {deal.number}. deal {deal.deal}  salt {deal.salt}", f"     seal {deal.seal}"]
    return lines


def result_lines(board: ContestBoard) -> list[str]:
    """The contest's table as text within :data:`WIDTH` columns."""
    if not board.rows:
        return ["Nobody has played a deal of this contest yet."]
    columns = [
        Column("#", right=True),
        Column("Alias", limit=16),
        Column("Board", limit=30),
        Column("Deals"),
        Column("Score", right=True),
        Column("Moves", right=True),
        Column("Finished"),
        Column("Hint"),
    ]
    rows = [
        [
            f"{rank}.",
            sanitize(row.alias),
            board_cell(row.bbs, 30),
            f"{row.played}" + (f" +{row.playing}" if row.playing else ""),
            str(row.score),
            str(row.moves),
            row.finished.astimezone().strftime("%m-%d %H:%M") if row.finished else "",
            "yes" if row.assisted else "",
        ]
        for rank, row in enumerate(board.rows, start=1)
    ]
    notes = ["Deals: finished (+ begun, not finished). Finished: the last, local time."]
    return [*table(columns, rows), *notes]
