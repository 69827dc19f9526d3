"""The ``canfield-door`` command line: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from urllib.parse import urlsplit

from door import __version__
from door.art import ScreenArt, art_problems
from door.commands import door as door_mode
from door.commands import league, local, serve, sysop, users
from door.config import DEFAULT_CONFIG_PATH, ConfigError, load_config
from door.words.catalogs import problems, read_catalog, sysop_catalogs
from door.xterm import CDN


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="canfield-door",
        description="A BBS door on which callers play Canfield solitaire.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_check_config(sub)
    serve.add_subcommand(sub)
    sysop.add_subcommand(sub)
    door_mode.add_subcommand(sub)
    local.add_subcommand(sub)
    league.add_sync_command(sub)
    return parser


def add_check_config(sub: argparse._SubParsersAction) -> None:
    check = sub.add_parser(
        "check-config",
        help="check sysop.toml and say whether the door would start with it",
        description="Read sysop.toml the way the door does at start-up and report the first "
        "problem found, or a one-line summary if there is none.",
    )
    check.add_argument(
        "--config",
        metavar="PATH",
        default=str(DEFAULT_CONFIG_PATH),
        help="the settings file (default: %(default)s in the current folder)",
    )
    check.set_defaults(run=check_config)


def check_config(args: argparse.Namespace) -> int:
    """Print a summary and return 0 if the file is good; print the error and return 1."""
    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 1
    count = len(config.levels)
    print(
        f"{args.config} is good: {count} level{'s' if count != 1 else ''}, "
        f"port {config.server.port}, database {config.server.database}"
    )
    if config.art.folder is not None:
        found = ", ".join(map(_art_named, config.art.screens)) or "none"
        print(f"Art from {config.art.folder} for the screens: {found}")
        for problem in art_problems(config.art.folder):
            print(f"Art: {problem}")
    for path in sysop_catalogs(config.words.folder):
        lacking = problems(read_catalog(path, path.stem))
        shown = lacking[:10] + ([f"and {len(lacking) - 10} more"] if len(lacking) > 10 else [])
        if not lacking:
            print(f"Words: {path.name} has every text")
        else:
            print(
                f"Words: {path.name}: {len(lacking)} to mend (a text missing is shown in the "
                "door's own words; a lost placeholder shows the door's own too)"
            )
        for problem in shown:
            print(f"  {problem}")
    if config.web.port is not None and config.web.assets is None:
        print(
            f"The web page loads xterm.js from {urlsplit(CDN).hostname}: a caller whose "
            "network blocks that site gets no terminal, only the telnet port offered instead. "
            "Name your own copy in [web] assets to serve it from the door."
        )
    return 0


def _art_named(art: ScreenArt) -> str:
    """A screen's name, and its art's title when its SAUCE record gives one."""
    sauce = art.ansi.sauce if art.ansi is not None else None
    return (
        f'{art.screen.name} ("{sauce.title}")'
        if sauce is not None and sauce.title
        else art.screen.name
    )


_LOOKS_NEGATIVE = re.compile(r"-\d")
_NUMBER = re.compile(r"-\d+(?:\.\d+)?")  # argparse takes these for values itself


def joined_values(argv: Sequence[str]) -> list[str]:
    """``--for -5m`` as ``--for=-5m``: argparse takes a value that starts with a dash and is
    not a plain number for an option of its own, and would say only that ``--for`` wants a
    value; joined, the option's own check says what is wrong with it.

    >>> joined_values(["contest", "declare", "--for", "-5m", "--level", "1"])
    ['contest', 'declare', '--for=-5m', '--level', '1']
    """
    joined: list[str] = []
    for word in argv:
        previous = joined[-1] if joined else ""
        negative = _LOOKS_NEGATIVE.match(word) and not _NUMBER.fullmatch(word)
        if negative and previous.startswith("--") and "=" not in previous:
            joined[-1] = f"{previous}={word}"
        else:
            joined.append(word)
    return joined


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    given = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(users.shorthand(joined_values(given)))
    if args.command is None:  # no command: serve, on the shipped defaults
        args = parser.parse_args(["serve"])
    return int(args.run(args))
