"""``canfield-door local``: the sysop plays on their own console, as in OpenDoors' local mode.

The same screens as a caller's, from the main menu, on the terminal the command runs in: raw
while the door runs, and put back as it was when it ends, by goodbye, Ctrl-C, a signal or a
fault. The player is ``--alias`` (default: the sysop's name from sysop.toml) of the BBS
"local console", so the sysop's games and scores stay apart from every caller's.

The console's abilities come from ``TERM`` and the locale, not from a probe: a Linux console
or a terminal emulator in a UTF-8 locale gets UTF-8, a BBS-style terminal (``TERM=ansi``,
``syncterm``) CP437, anything else plain ASCII; only ``TERM=dumb`` (or none) goes without
ANSI. A choice saved in the terminal settings wins, as for callers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Mapping

from door.commands.door import (
    EXIT_FAULT,
    LOG_NAME,
    SHUT_DOWN,
    SignalEnding,
    known_caller_visit,
    set_up_logging,
)
from door.config import DEFAULT_CONFIG_PATH, Config, ConfigError, load_config
from door.net.detection import TerminalInfo, known_charset, screen_size
from door.net.doorio import STDOUT, stdio_streams
from door.net.terminal import Terminal

LOCAL_BBS = "local console"
LOCAL_NODE = 0  # the console, not one of the BBS's nodes

# Ctrl-C ends the sysop's game as goodbye would (it is saved either way); SIGHUP is the
# sysop's terminal closing.
LOCAL_SIGNALS: Mapping[signal.Signals, SignalEnding] = {
    signal.SIGINT: SignalEnding("", "Ctrl-C"),
    signal.SIGHUP: SignalEnding("", "terminal closed"),
    signal.SIGTERM: SHUT_DOWN,
}


def add_subcommand(sub: argparse._SubParsersAction) -> None:
    local = sub.add_parser(
        "local",
        help="play on this console, as the sysop",
        description="Play the door on this terminal, from the main menu, with the screens "
        "callers see. The terminal is put back as it was on the way out.",
    )
    local.add_argument(
        "--alias", metavar="NAME", help="who plays (default: bbs.sysop of sysop.toml)"
    )
    local.add_argument(
        "--config",
        metavar="PATH",
        default=str(DEFAULT_CONFIG_PATH),
        help="the settings file (default: %(default)s)",
    )
    local.add_argument(
        "--log",
        metavar="FILE",
        help=f"append log lines to FILE ('-' for stderr; default: {LOG_NAME} beside the "
        "database when stderr is this terminal)",
    )
    local.set_defaults(run=run)


def console_info(environ: Mapping[str, str], size: tuple[int, int] | None = None) -> TerminalInfo:
    """What the console can draw, from ``TERM`` and the locale.

    >>> console_info({"TERM": "linux", "LANG": "en_US.UTF-8"}).charset
    'utf-8'
    >>> console_info({"TERM": "ansi", "LANG": "en_US.UTF-8"}).charset  # a BBS-style console
    'cp437'
    >>> console_info({"TERM": "xterm-256color", "LC_ALL": "C"}).charset
    'utf-8'
    >>> info = console_info({"TERM": "vt100", "LANG": "C"})
    >>> info.ansi, info.charset
    (True, 'ascii')
    >>> info = console_info({"TERM": "dumb"})
    >>> info.ansi, info.charset
    (False, 'ascii')
    """
    term = environ.get("TERM", "").strip()
    ansi = term.lower() not in ("", "dumb")
    by_term = known_charset(term)
    if by_term == "cp437":
        charset = "cp437"
    elif _utf8_locale(environ):
        charset = "utf-8"
    else:
        charset = by_term or "ascii"
    width, height = screen_size(size)
    return TerminalInfo(term or "unknown", width, height, ansi, charset)


def _utf8_locale(environ: Mapping[str, str]) -> bool:
    """Whether the locale's character set is UTF-8: LC_ALL, else LC_CTYPE, else LANG.

    >>> _utf8_locale({"LANG": "C.utf8"}), _utf8_locale({"LC_ALL": "C", "LANG": "C.UTF-8"})
    (True, False)
    """
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = environ.get(name, "")
        if value:
            return value.upper().replace("UTF8", "UTF-8").endswith("UTF-8")
    return False


def _console_size() -> tuple[int, int] | None:
    try:
        columns, lines = os.get_terminal_size(STDOUT)
    except OSError:
        return None
    return columns, lines


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return EXIT_FAULT
    set_up_logging(config, args.log)
    alias = args.alias or config.bbs.sysop
    return asyncio.run(play_locally(config, alias, console_info(os.environ, _console_size())))


async def play_locally(config: Config, alias: str, info: TerminalInfo) -> int:
    """The sysop's visit on the console; returns the exit status."""
    with stdio_streams(signals=True) as (reader, writer):
        terminal = Terminal(
            reader,
            writer,
            info,
            idle_timeout=config.server.idle_timeout,
            idle_warning=config.server.idle_warning,
        )
        return await known_caller_visit(
            terminal,
            config,
            LOCAL_NODE,
            alias=alias,
            bbs=LOCAL_BBS,
            real_name=None,
            signals=LOCAL_SIGNALS,
        )
