"""``canfield-door door``: one visit for a caller a BBS sends with a drop file.

The BBS writes DOOR32.SYS, DOOR.SYS or DORINFOx.DEF and runs the door with the caller on
standard input and output or, for DOOR32.SYS with comm type 2, on a socket it passes (see
:mod:`door.net.doorio`). The caller is known from the file: no log in, straight to the main menu,
and "goodbye" ends the door so the BBS takes them back. Their user row is their alias within
that BBS (line 4 of DOOR32.SYS, line 1 of DORINFOx.DEF, else sysop.toml's ``bbs.name``), so
two boards' "Bob" are two users.

The drop file says whether the caller has ANSI (CP437 then, the BBS convention; plain ASCII
otherwise; a choice the caller saved wins) and how long they have left, with the warnings of
the telnet time limit. The visit is guarded as a telnet caller's is (:func:`guard_visit`).
While it lasts, the sysop's ``who``, ``send``, ``kick`` and ``watch`` reach it as node ``D``
and the BBS's node, on a control socket of its own (:mod:`door.running.door_calls`).

Exit status: 0 when the visit ended (goodbye, carrier lost, time up, idle), 1 for a bad
sysop.toml or a fault during the visit, 2 for a drop file that can't be used: then a line on
stderr names the file, the line and what was expected, and nothing is written anywhere.

Log lines go to stderr, unless stderr is a terminal (under most BBSes, the caller's screen):
then to ``canfield-door.log`` beside the database, or wherever ``--log`` says.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ansi.sequences import reset, show_cursor
from door.app import App, SteadyDoor
from door.config import DEFAULT_CONFIG_PATH, Config, ConfigError, DoorCharset, load_config
from door.files import create_private
from door.net.clocks import describe_seconds
from door.net.detection import DETECT_TIMEOUT, TerminalInfo, screen_size
from door.net.doorio import (
    TelnetReader,
    connect_streams,
    is_socket,
    socket_streams,
    stdio_streams,
)
from door.net.dropfile import COMM_TELNET, KINDS, DropFile, DropFileError, read_dropfile
from door.net.listening import SHUTDOWN_MESSAGE, guard_visit, probe_and_log
from door.net.nodes import Call, Way
from door.net.presence import Presence
from door.net.terminal import Terminal
from door.running.door_calls import within_reach
from door.solving.pool import Solving
from door.store import Store
from door.visit.session import board_user, run_visit

log = logging.getLogger("door")

EXIT_OK, EXIT_FAULT, EXIT_BAD_DROPFILE = 0, 1, 2
LOG_NAME = "canfield-door.log"
LOG_FORMAT = "%(asctime)s %(levelname)s %(message)s"
STDIO, SOCKET, CONNECT, AUTO = "stdio", "socket", "connect", "auto"


@dataclass(frozen=True, slots=True)
class SignalEnding:
    """How a signal ends the visit: what the caller is told, and the ending the log gives."""

    farewell: str
    ending: str


CARRIER_LOST = SignalEnding("", "carrier lost")  # the line dropped: nobody to tell
SHUT_DOWN = SignalEnding(SHUTDOWN_MESSAGE, "shut down")

# SIGHUP is the carrier dropping; SIGTERM and SIGINT are the BBS or the sysop stopping the door.
DOOR_SIGNALS: Mapping[signal.Signals, SignalEnding] = {
    signal.SIGHUP: CARRIER_LOST,
    signal.SIGTERM: SHUT_DOWN,
    signal.SIGINT: SHUT_DOWN,
}


def add_subcommand(sub: argparse._SubParsersAction) -> None:
    door = sub.add_parser(
        "door",
        help="run one visit for a caller a BBS sends with a drop file",
        description="Run the door for the one caller a BBS describes in a drop file "
        "(DOOR32.SYS, DOOR.SYS or DORINFOx.DEF), then exit so the BBS takes the caller back. "
        "Exit status: 0 after the visit, 1 for a bad sysop.toml or a fault, 2 for a bad "
        "drop file.",
    )
    door.add_argument("--dropfile", metavar="PATH", required=True, help="the drop file")
    door.add_argument(
        "--type",
        choices=KINDS,
        type=str.lower,
        help="the drop file's format, when its name is not DOOR32.SYS, DOOR.SYS or DORINFOx.DEF",
    )
    door.add_argument(
        "--config",
        metavar="PATH",
        default=str(DEFAULT_CONFIG_PATH),
        help="the settings file (default: %(default)s)",
    )
    door.add_argument(
        "--io",
        choices=(AUTO, STDIO, SOCKET, CONNECT),
        default=AUTO,
        help="where the caller is: standard input and output, the socket on line 2 of "
        "DOOR32.SYS, or (connect) a TCP port on this machine the BBS listens on for the door, "
        "given with --port (ENiGMA½'s io: socket); auto (the default) takes the socket when "
        "DOOR32.SYS says comm type 2 and the door has that socket, else standard input and "
        "output",
    )
    door.add_argument(
        "--port",
        type=int,
        metavar="PORT",
        help="with --io connect: the port on 127.0.0.1 to connect to (ENiGMA½'s {srvPort})",
    )
    door.add_argument(
        "--charset",
        choices=[charset.value for charset in DoorCharset],
        help="the caller's character set: auto asks their screen (CP437 suits, else UTF-8, "
        "else suits as letters); default: door.charset of sysop.toml",
    )
    door.add_argument(
        "--size",
        type=window_size,
        metavar="COLSxROWS",
        help="the caller's window, e.g. 132x43, when the BBS knows it (default: the drop "
        "file's page length, 80 columns; a telnet caller's NAWS changes it as they go)",
    )
    door.add_argument(
        "--bbs",
        metavar="NAME",
        help="the board's name to keep callers under (default: DOOR32.SYS line 4, "
        "DORINFOx.DEF line 1, else bbs.name of sysop.toml)",
    )
    door.add_argument(
        "--log",
        metavar="FILE",
        help=f"append log lines to FILE ('-' for stderr; default: stderr, or {LOG_NAME} "
        "beside the database when stderr is the caller's screen)",
    )
    door.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return EXIT_FAULT
    try:
        drop = read_dropfile(args.dropfile, args.type)
        transport = choose_transport(drop, args.io)
        if (transport == CONNECT) != (args.port is not None):
            raise DropFileError("--io connect and --port go together: --io connect --port N")
        if args.port is not None and not 1 <= args.port <= 65535:
            raise DropFileError(f"--port {args.port} is not accepted: 1 to 65535")
    except DropFileError as error:
        print(error, file=sys.stderr)
        return EXIT_BAD_DROPFILE
    set_up_logging(config, args.log)
    bbs = args.bbs or drop.bbs_name or config.bbs.name
    charset = DoorCharset(args.charset) if args.charset else config.door_charset
    try:
        return asyncio.run(
            door(config, drop, transport, bbs, charset=charset, port=args.port, size=args.size)
        )
    except OSError as error:  # the caller's line could not be opened (the visit is guarded)
        log.error("can't reach the caller over %s: %s", transport, error)
        return EXIT_FAULT


def choose_transport(drop: DropFile, wanted: str = AUTO) -> str:
    """:data:`STDIO` or :data:`SOCKET`: as ``wanted``, or for :data:`AUTO` the socket when
    the drop file names one (DOOR32.SYS comm type 2) that this process has.

    :raises DropFileError: a socket is wanted and the drop file names none that is open.
    """
    names_socket = drop.comm_type == COMM_TELNET and drop.handle is not None
    if wanted in (STDIO, CONNECT):
        return wanted
    if wanted == AUTO:
        return SOCKET if names_socket and is_socket(drop.handle or 0) else STDIO
    if drop.kind != "door32":
        raise DropFileError(
            f"{drop.path}: --io socket needs DOOR32.SYS, the only drop file that passes a "
            "socket; use --io stdio"
        )
    if not names_socket:
        raise DropFileError(
            f"{drop.path}: line 1: expected comm type 2 (telnet) for --io socket, "
            f"found '{drop.comm_type}'"
        )
    if not is_socket(drop.handle or 0):
        raise DropFileError(
            f"{drop.path}: line 2: expected the handle of a socket the door inherited, "
            f"found '{drop.handle}', which is not an open socket here"
        )
    return SOCKET


def set_up_logging(config: Config, destination: str | None) -> None:
    """Log to ``destination`` (a file, or "-" for stderr); by default to stderr, unless that
    is a terminal, the caller's screen under most BBSes: then to a file beside the database.
    """
    handler: logging.Handler
    if destination == "-" or (destination is None and not sys.stderr.isatty()):
        handler = logging.StreamHandler(sys.stderr)
    else:
        path = Path(destination) if destination else config.server.database.parent / LOG_NAME
        try:
            create_private(path)  # the log names callers and their addresses: owner-only
            handler = logging.FileHandler(path, encoding="utf-8")
        except OSError:
            handler = logging.NullHandler()  # better no log than log lines on the screen
        logging.raiseExceptions = False  # nor a logging fault's traceback there
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def window_size(text: str) -> tuple[int, int]:
    """``--size``'s ``COLSxROWS``, as ``(columns, rows)``.

    >>> window_size("132x43"), window_size("40X25")
    ((132, 43), (40, 25))
    """
    found = re.fullmatch(r"\s*(\d{1,4})\s*[xX]\s*(\d{1,4})\s*", text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not COLSxROWS (e.g. 80x24)")
    return int(found[1]), int(found[2])


def terminal_info(
    drop: DropFile,
    charset: DoorCharset = DoorCharset.AUTO,
    size: tuple[int, int] | None = None,
) -> TerminalInfo:
    """What the drop file (and ``--size``) say of the caller's terminal: ANSI, in CP437 (the
    BBS convention) unless the sysop chose a ``charset``; or plain ASCII."""
    if size is None and drop.page_length:
        size = (80, drop.page_length)
    width, height = screen_size(size)
    if drop.ansi:
        return TerminalInfo(
            "ansi-bbs", width, height, True, "cp437" if charset == DoorCharset.AUTO else charset
        )
    return TerminalInfo("dumb", width, height, False, "ascii")


def deadline(drop: DropFile, config: Config, now: float) -> float:
    """When the caller's time is up: the drop file's time left, or sysop.toml's time limit
    per call if that is shorter."""
    seconds = float(drop.seconds_left)
    if config.server.time_limit > 0:
        seconds = min(seconds, 60.0 * config.server.time_limit)
    return now + seconds


@contextlib.asynccontextmanager
async def caller_streams(
    transport: str, drop: DropFile, port: int | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    """The caller's reader and writer, on the transport chosen."""
    if transport == CONNECT:
        assert port is not None
        async with connect_streams(port) as streams:
            yield streams
    elif transport == SOCKET:
        assert drop.handle is not None
        async with socket_streams(drop.handle) as streams:
            yield streams
    else:
        with stdio_streams() as streams:
            yield streams


async def door(
    config: Config,
    drop: DropFile,
    transport: str,
    bbs: str,
    *,
    charset: DoorCharset = DoorCharset.AUTO,
    port: int | None = None,
    size: tuple[int, int] | None = None,
) -> int:
    """The caller's visit, from the main menu to goodbye; returns the exit status.

    With ``charset`` "auto" an ANSI caller's screen is asked which suits it draws; ``size``
    is the caller's window, if the BBS said.
    """
    info = terminal_info(drop, charset, size)
    log.info(
        "node %d: %s from %s, %s over %s, %s, %s, %s left",
        drop.node,
        drop.alias,
        bbs,
        drop.path.name,
        transport,
        "ANSI" if info.ansi else "no ANSI",
        info.charset,
        describe_seconds(drop.seconds_left),
    )
    if drop.comm_type == COMM_TELNET and transport == STDIO and drop.handle is not None:
        log.info(
            "node %d: DOOR32.SYS passes socket %d; the caller is on stdio instead",
            drop.node,
            drop.handle,
        )
    async with caller_streams(transport, drop, port) as (reader, writer):
        terminal = Terminal(
            reader,
            writer,
            info,
            idle_timeout=config.server.idle_timeout,
            idle_warning=config.server.idle_warning,
            deadline=deadline(drop, config, time.monotonic()),
        )
        if isinstance(reader, TelnetReader):  # a telnet socket: its window's changes too
            reader.on_resize = terminal.resize
        return await known_caller_visit(
            terminal,
            config,
            drop.node,
            alias=drop.alias,
            bbs=bbs,
            real_name=drop.real_name,
            signals=DOOR_SIGNALS,
            probe=charset == DoorCharset.AUTO,
            reachable=True,
        )


async def known_caller_visit(
    terminal: Terminal,
    config: Config,
    node: int,
    *,
    alias: str,
    bbs: str,
    real_name: str | None,
    signals: Mapping[signal.Signals, SignalEnding],
    probe: bool = False,
    reachable: bool = False,
) -> int:
    """The main menu for a caller the BBS (or the console) vouches for, guarded as a telnet
    visit is; each of ``signals`` ends it, telling the caller its farewell and logging its
    ending. ``reachable``: the sysop's who, send, kick and watch reach the call, on a
    control socket of its own (:mod:`door.running.door_calls`). The exit status.
    """
    terminal.logged_in = True  # the BBS vouches for its caller
    presence = Presence(alias=alias)  # for the log, before the store is even open

    async def visit() -> None:
        if probe and terminal.ansi:
            await probe_and_log(node, terminal, DETECT_TIMEOUT)
        async with Store.open(config.server.database) as store:
            # The BBS's own names (its sysop's "Sysop") are its business: no names kept here.
            user = await board_user(terminal, node, store, alias, bbs, real_name)
            if user is None:
                return
            # One caller: the solver's workers start only if asked, and end with the visit.
            solving = Solving(store, config)
            league = None
            if config.league.hub_url is not None:  # aiohttp is loaded only for a member
                from door.league.member import brief_sync

                league = await brief_sync(store, config)
            try:
                app = App(store, SteadyDoor(config), solving, league=league)
                await run_visit(app, terminal, node, user, bbs=bbs, presence=presence)
            finally:
                await solving.close()
                if league is not None:
                    await league.sync()  # the call's results go out
        if terminal.ansi:  # leave the BBS's screen as the door found it
            terminal.write(reset() + show_cursor())
            await terminal.flush(check_time=False)

    stopped = [SHUT_DOWN]  # the signal's, once one came
    task = asyncio.create_task(
        guard_visit(
            node,
            terminal,
            presence,
            visit,
            # The sysop's kick says its own farewell; a signal, the signal's.
            on_cancel=lambda: call.farewell or stopped[0].farewell,
            cancelled=lambda: call.ending or stopped[0].ending,
        )
    )
    call = Call(node, Way.DOOR, bbs, task, terminal, presence=presence)

    def stop(signum: signal.Signals, ending: SignalEnding) -> None:
        log.info("node %d: %s received: %s", node, signum.name, ending.ending)
        stopped[0] = ending
        task.cancel()

    loop = asyncio.get_running_loop()
    for signum, ending in signals.items():
        loop.add_signal_handler(signum, stop, signum, ending)
    try:
        if reachable:
            async with within_reach(call, config.server.database, config.bbs.sysop):
                await asyncio.wait([task])
        else:
            await asyncio.wait([task])
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)
    if task.cancelled():
        return EXIT_OK
    return EXIT_FAULT if task.result() == "error" else EXIT_OK
