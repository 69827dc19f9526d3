"""``canfield-door sysop``: the sysop's commands. Here, the parser of them all and the
bulletin, backup and game commands; the users in :mod:`door.commands.users`, the
scoreboards in :mod:`door.commands.scores`, the solver (``solve``) in
:mod:`door.commands.solve`, and, over the running door's control socket, who, send, kick,
watch, status and reload in :mod:`door.commands.live`. What they share (the error, the
context, running a command, tables) is :mod:`door.commands.cli`.

Each command opens the database named in sysop.toml (or ``--database``), does one job and
exits 0, or prints what went wrong to stderr and exits 1. The commands can run while the
door is serving callers: the database is in WAL mode and every change is one transaction.
Tables are plain text within 79 columns, and every alias shown passes through
:func:`ansi.text.sanitize`.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import textwrap
from pathlib import Path

from ansi.text import sanitize
from door import bulletin
from door.commands import contest, league, live, scores, solve, users
from door.commands.cli import (
    WIDTH,
    AdminError,
    Context,
    add_command,
    add_common,
    add_level,
    confirm,
    level_of,
    positive,
    print_lines,
    when,
    who,
)
from door.engine import Variant
from door.engine.status import Status
from door.fairness import seal
from door.files import replace_file
from door.replay import replay
from door.store import GameRecord, NotFound, Store
from door.views.layout import counted


def add_subcommand(subparsers: argparse._SubParsersAction) -> None:
    """Register ``sysop`` and its commands on the ``canfield-door`` parser."""
    sysop = subparsers.add_parser(
        "sysop",
        help="manage users, scoreboards, bulletins and backups; solve deals; see and reach "
        "the callers of the running door",
        description="The sysop's commands. They read sysop.toml for the levels and the "
        "database, and can run while the door is serving callers.",
    )
    add_common(sysop, None)
    commands = sysop.add_subparsers(dest="sysop_command", metavar="COMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False)
    add_common(common, argparse.SUPPRESS)
    users.add_subcommands(commands, common)
    scores.add_subcommands(commands, common)
    _add_bulletin(commands, common)
    _add_backup(commands, common)
    _add_game(commands, common)
    solve.add_subcommand(commands)
    contest.add_subcommand(commands, common)
    league.add_subcommand(commands, common)
    live.add_subcommands(commands, common)


def _add_bulletin(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    maker = add_command(
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
    add_level(maker, "only this level's high scores, without the standings")
    maker.add_argument(
        "--board",
        metavar="TAG",
        help="only the callers of this board: the tag or name of a board linked over "
        "RLOGIN, or the name of a BBS that runs the door (default: every caller)",
    )


def _add_backup(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    backup = add_command(
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
    game = add_command(
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
    game.add_argument("game_id", metavar="ID", type=positive, help="the game's number")


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


async def _bulletin(args: argparse.Namespace, context: Context, store: Store) -> int:
    level_of(context, args.level)
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
    if (target.exists() or target.is_symlink()) and not confirm(
        f"{target} exists. Replace it with the backup?", args.force, yes_flag="--force"
    ):
        print("Nothing was written.")
        return 1
    users, games = await store.counts()
    try:
        await store.backup(target)
    except (OSError, sqlite3.Error) as error:
        raise AdminError(f"{target}: can't be written: {error}") from None
    print(
        f"Backed up {counted(users, 'user')} and {counted(games, 'game')} to {target} "
        "(integrity checked)"
    )
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
        f"Game {record.id}: {who(user)}, level {record.level}, {kind}",
        f"Rules: {' '.join(f'{key}={value}' for key, value in sorted(knobs.items()))}",
        f"Result: {record.status}, score {record.score}, {counted(record.moves, 'move')}, "
        f"{record.cards_up} cards up" + (", a hint was taken" if record.assisted else ""),
        f"Started {when(record.started)}"
        + (f", finished {when(record.finished)}" if record.finished else ""),
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
            if record.history or record.status != Status.PLAYING
            else "no plays yet; the stored cards are the deal's"
        )
        print_lines(textwrap.wrap(f"Replay check: {done}.", WIDTH))
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
    if record.status == Status.PLAYING:
        return [f"Seal {sealed}; the deal is shown once the game is over"]
    return [f"Deal {record.deal}, salt {record.salt}", f"Seal {sealed} (shown at its start)"]
