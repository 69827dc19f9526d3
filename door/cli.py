"""The ``canfield-door`` command line: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from door import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="canfield-door",
        description="A BBS door on which callers play Canfield solitaire.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return int(args.run(args))
