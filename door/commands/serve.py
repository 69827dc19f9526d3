"""``canfield-door serve``: the telnet door on sysop.toml's port and database."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from door.config import DEFAULT_CONFIG_PATH, Config, ConfigError, load_config
from door.running.service import Service

log = logging.getLogger("door")


def add_subcommand(sub: argparse._SubParsersAction) -> None:
    serve = sub.add_parser(
        "serve",
        help="run the door (the default command)",
        description="Listen for telnet callers, and for SSH callers, linked boards' RLOGIN "
        "callers and web callers when sysop.toml turns them on, with the settings of "
        "sysop.toml; the flags override the file (--port is telnet's). Stops cleanly on "
        "Ctrl-C or SIGTERM, saving every game; SIGHUP reads sysop.toml again without "
        "hanging up anyone.",
    )
    add_arguments(serve)
    serve.set_defaults(run=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=str(DEFAULT_CONFIG_PATH),
        help="the settings file (default: %(default)s)",
    )
    parser.add_argument("--host", help="address to listen on (overrides server.host)")
    parser.add_argument("--port", type=int, help="telnet port (overrides server.port)")
    parser.add_argument(
        "--database", metavar="FILE", help="SQLite file (overrides server.database)"
    )
    parser.add_argument(
        "--web-port",
        metavar="PORT",
        help="port of the web page and its WebSocket (overrides [web] port; off: no web)",
    )


def set_up_logging() -> None:
    """One line per event on stderr; telnetlib3's own chatter only when it matters."""
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    logging.getLogger("telnetlib3").setLevel(logging.WARNING)
    logging.getLogger("asyncssh").setLevel(logging.WARNING)


# Objects allocated between young collections, and young (then middle) collections between
# older ones; Python's defaults are 700, 10, 10.
GC_THRESHOLDS = (20_000, 20, 100)


def calm_garbage_collector() -> None:
    """Collect garbage less often, and never look again at what start-up made.

    A thousand callers hold a few hundred thousand objects, and with Python's defaults each
    board redrawn pushes objects that live a few seconds into the oldest generation, so that
    a full collection (a tenth of a second with every game stopped) came every minute or so.
    The door makes little cyclic garbage, so collecting it later costs little memory: a
    full collection may not come for hundreds of thousands of connections, so each
    connection breaks its own cycles when it ends (telnetlib3's objects hold tables of
    their own bound methods) and is freed at once (:mod:`door.net.telnet`).
    """
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# How long a thread waiting for the GIL lets the event loop run on before it asks for it
# (Python's default: 5 ms).
GIL_SWITCH_SECONDS = 0.0005


def answer_threads_sooner() -> None:
    """Let a thread that waits for the GIL have it sooner while the event loop is busy.

    The store's writer thread needs the GIL for a moment after each fsync, to hand the loop
    the plays it committed; with Python's default the loop, busy drawing boards, kept it
    waiting up to 5 ms, and every play of the commit with it. benchmarks/load.py, 1,000
    callers, six rounds: p99 5.0 -> 4.6 ms on average; at 0.1 ms, 5.7 (the loop gives the
    GIL up too often).
    """
    sys.setswitchinterval(GIL_SWITCH_SECONDS)


def settings(args: argparse.Namespace) -> Config:
    """sysop.toml with the command line's overrides; ConfigError for a bad file or flag."""
    config = load_config(args.config)
    server = config.server
    if args.host is not None:
        server = dataclasses.replace(server, host=args.host)
    if args.port is not None:
        if not 0 <= args.port <= 65535:
            raise ConfigError(Path("--port"), f"{args.port} is not accepted: 0 to 65535")
        server = dataclasses.replace(server, port=args.port)
    if args.database is not None:
        server = dataclasses.replace(server, database=Path(args.database).absolute())
    web = config.web
    if getattr(args, "web_port", None) is not None:
        port = None if args.web_port == "off" else _port(args.web_port)
        web = dataclasses.replace(web, port=port)
    return dataclasses.replace(config, server=server, web=web)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise ConfigError(Path("--web-port"), f"{text} is not accepted: 0 to 65535, or off")
    return int(text)


async def serve(config: Config, reread: Callable[[], Config]) -> None:
    """Serve until SIGINT or SIGTERM; SIGHUP reads sysop.toml again (``reread``). One
    worker: this process is the whole door; more: a front process and its workers."""
    if config.server.workers > 1:
        from door.running.front import Front

        await Front(config, reread).run()
    else:
        await Service(config, reread).run()


def run(args: argparse.Namespace) -> int:
    try:
        config = settings(args)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 1
    set_up_logging()
    calm_garbage_collector()
    answer_threads_sooner()
    try:
        asyncio.run(serve(config, lambda: settings(args)))
    except OSError as error:  # most often the port is taken, or not ours to listen on
        print(f"canfield-door: cannot listen: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0
