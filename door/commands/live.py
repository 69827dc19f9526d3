"""``canfield-door sysop who|send|kick|watch|status|reload``: the sysop's live view of the
running door, over its control socket (:mod:`door.running.control`), and of the door-mode
calls a BBS runs, over each call's own (:mod:`door.running.door_calls`).

They find the sockets beside the database that sysop.toml (or ``--database``) names, and
work only for the user the door runs as (or root). ``who``, ``send``, ``kick`` and ``watch``
reach the callers of both: a door-mode call is named by its BBS's node, ``D3``. A door that
is not running, with no door-mode call either, is reported plainly, with exit status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import sys
import termios
import tty
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ansi.text import sanitize
from door.commands.cli import AdminError, Column, read_context, table
from door.config import ConfigError
from door.files import not_private
from door.net.nodes import Way
from door.running.control import calls_folder, control_path
from door.running.door_calls import gone

ANSWER_TIMEOUT = 30.0  # seconds to wait for the door's answer, even under load
CALL_TIMEOUT = 5.0  # seconds a door-mode call has to say who it is (a stopped one never does)
DOOR_NODE = "D"  # before a door-mode call's node: D3 is node 3 of the BBS
WAYS = {
    Way.TELNET: "telnet",
    Way.SSH: "SSH",
    Way.RLOGIN: "board (RLOGIN)",
    Way.WEB: "web",
    Way.DOOR: "door mode",
}


@dataclass(frozen=True, slots=True)
class Sockets:
    """Where the sysop's commands find the door: the running door's ``control`` socket, and
    the ``calls`` folder of the door-mode calls' sockets."""

    control: Path
    calls: Path


@dataclass(frozen=True, slots=True)
class Node:
    """A node as the sysop names it: the running door's ``3``, or a door-mode call's ``D3``."""

    number: int
    door_mode: bool = False

    def __str__(self) -> str:
        return f"{DOOR_NODE if self.door_mode else ''}{self.number}"


@dataclass(frozen=True, slots=True)
class DoorModeCall:
    """A door-mode call that answered: its socket, and what it said of itself to ``who``."""

    socket: Path
    listed: dict[str, Any]

    @property
    def node(self) -> int:
        return int(self.listed["node"])


Run = Callable[[argparse.Namespace, Sockets], int]


def add_subcommands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register the live commands on ``canfield-door sysop``."""
    _command(
        commands,
        common,
        "who",
        "list the callers on the door now",
        _who,
        "List each node in use: the caller's alias, how they came in, from where, what they "
        "are doing and how long since their last key.",
    )
    send = _command(
        commands,
        common,
        "send",
        "show a line of text to one caller or all",
        _send,
        "Show a line on a caller's message line (in a game) or under their prompt, without "
        "disturbing what they are typing.",
    )
    send.add_argument(
        "node", metavar="NODE|all", help="the node (see who: 3, or D3 for a door-mode call), or all"
    )
    send.add_argument("text", nargs="+", metavar="TEXT", help="what to say")
    kick = _command(
        commands,
        common,
        "kick",
        "end a caller's call, their game saved",
        _kick,
        "End the call on NODE: the caller is told why (REASON, if given) and their game is "
        "saved, as at a shutdown.",
    )
    kick.add_argument("node", type=_node, metavar="NODE")
    kick.add_argument("reason", nargs="*", metavar="REASON")
    watch = _command(
        commands,
        common,
        "watch",
        "watch a caller's screen live",
        _watch,
        "Show the caller's screen on this terminal as it changes, read-only, until you press "
        "a key or the caller hangs up. Best in an 80x24 (or larger) UTF-8 terminal.",
    )
    watch.add_argument("node", type=_node, metavar="NODE")
    _command(
        commands,
        common,
        "status",
        "uptime, callers, games today, database and backups",
        _status,
        "Show how long the door has run, its callers now and the day's peak, the games "
        "started today, the database's size and the last backup.",
    )
    _command(
        commands,
        common,
        "reload",
        "have the running door read sysop.toml again",
        _reload,
        "Have the running door read its sysop.toml again, as SIGHUP does, without hanging up "
        "anyone. A file with a mistake is refused and the door keeps its settings.",
    )


def _command(
    commands: argparse._SubParsersAction,
    common: argparse.ArgumentParser,
    name: str,
    summary: str,
    run: Run,
    description: str,
) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, help=summary, description=description, parents=[common])
    parser.set_defaults(run=_runner(run))
    return parser


def _node(text: str) -> Node:
    """A node as the sysop types it.

    >>> _node("3"), _node("d3")
    (Node(number=3, door_mode=False), Node(number=3, door_mode=True))
    """
    door_mode = text[:1].upper() == DOOR_NODE
    number = text[1:] if door_mode else text
    if not number.isdigit() or int(number) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a node (see: sysop who)")
    return Node(int(number), door_mode)


def _runner(command: Run) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(errors="replace")
        try:
            context = read_context(args)
            sockets = Sockets(control_path(context.database), calls_folder(context.database))
            return command(args, sockets)
        except (AdminError, ConfigError) as error:
            print(f"canfield-door sysop: {error}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 1

    return run


# -- talking to the door -----------------------------------------------------------------------


class NotRunning(AdminError):
    """Nobody answers on a control socket."""


def _not_running(path: Path, *, nor_door_mode: bool = False) -> NotRunning:
    nor = ", nor is any caller in it from a BBS's doors menu" if nor_door_mode else ""
    return NotRunning(
        f"the door is not running (nobody answers on {path}){nor}; start it with "
        "canfield-door serve, or give the --config or --database it runs with"
    )


def _connect(path: Path, timeout: float = ANSWER_TIMEOUT) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        raise _not_running(path) from None
    except PermissionError:
        sock.close()
        raise AdminError(
            f"{path}: permission denied; only the user the door runs as (or root) may use it"
        ) from None
    except OSError as error:
        sock.close()
        raise AdminError(f"{path}: {error.strerror or error}") from None
    return sock


def _ask(sock: socket.socket, request: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """Send ``request``; the door's answer, and any bytes that came after it."""
    with suppress(BrokenPipeError, ConnectionResetError):  # refused: its answer says why
        sock.sendall(json.dumps(request).encode() + b"\n")
    try:
        received = b""
        while b"\n" not in received:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    except TimeoutError:
        raise AdminError(f"the door did not answer within {sock.gettimeout():g} seconds") from None
    except OSError as error:
        raise AdminError(f"the door closed the connection: {error.strerror or error}") from None
    line, _, rest = received.partition(b"\n")
    try:
        answer = json.loads(line)
    except ValueError:
        raise AdminError("the door's answer could not be read") from None
    if not answer.get("ok"):
        raise AdminError(str(answer.get("error", "the door refused")))
    return answer, rest


def request(path: Path, request: dict[str, Any], timeout: float = ANSWER_TIMEOUT) -> dict[str, Any]:
    """One request to the door at ``path``, and its answer; AdminError if it fails."""
    with _connect(path, timeout) as sock:
        return _ask(sock, request)[0]


def _running_door(path: Path, question: dict[str, Any]) -> dict[str, Any] | None:
    """The running door's answer to ``question``; None if it is not running."""
    try:
        return request(path, question)
    except NotRunning:
        return None


def door_mode_calls(folder: Path) -> list[DoorModeCall]:
    """The door-mode calls on now, by node, each asked who it is. A socket left by a call
    whose process has ended is removed; a call that does not answer is passed over, and
    said so on stderr."""
    try:
        problem = not_private(folder)
        sockets = [p for p in folder.iterdir() if p.name.isascii() and p.name.isdigit()]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except PermissionError:
        raise AdminError(
            f"{folder}: permission denied; only the user the door runs as (or root) may use it"
        ) from None
    if problem:  # a folder another user made, or can write to, may hold their sockets
        raise AdminError(f"the door-mode calls' folder can't be trusted: {problem}")
    calls = []
    for path in sockets:
        try:
            answer = request(path, {"command": "who"}, CALL_TIMEOUT)
        except NotRunning:
            if gone(path):
                path.unlink(missing_ok=True)
            continue
        except AdminError as error:
            print(f"canfield-door sysop: {path}: {error}", file=sys.stderr)
            continue
        calls += [DoorModeCall(path, listed) for listed in answer["calls"]]
    return sorted(calls, key=lambda call: (call.node, call.socket.name))


def _on_node(sockets: Sockets, node: Node) -> DoorModeCall:
    """The door-mode call on ``node``; AdminError if none is, or more than one (two BBSes
    sharing the database, each with a caller on that node)."""
    found = [call for call in door_mode_calls(sockets.calls) if call.node == node.number]
    if not found:
        raise AdminError(f"nobody is on node {node}")
    if len(found) > 1:
        names = ", ".join(
            f"{sanitize(call.listed['alias'])} from {sanitize(call.listed['address'])}"
            for call in found
        )
        raise AdminError(f"{len(found)} door-mode calls are on node {node} ({names})")
    return found[0]


# -- the commands --------------------------------------------------------------------------


def _who(args: argparse.Namespace, sockets: Sockets) -> int:
    running = _running_door(sockets.control, {"command": "who"})
    door_mode = door_mode_calls(sockets.calls)
    if running is None and not door_mode:
        raise _not_running(sockets.control, nor_door_mode=True)
    listed = [(Node(call["node"]), call) for call in (running or {}).get("calls", [])]
    listed += [(Node(call.node, door_mode=True), call.listed) for call in door_mode]
    if not listed:
        print("Nobody is on.")
        return 0
    columns = [
        Column("Node", right=True),
        Column("Alias", limit=20),
        Column("Way"),
        Column("From", limit=39),
        Column("Doing", limit=40),
        Column("Idle", right=True),
        Column("On", right=True),
    ]
    rows = [
        [
            str(node),
            sanitize(call["alias"]) or "-",
            WAYS.get(call["way"], sanitize(call["way"])),
            sanitize(call["address"]),
            sanitize(call["activity"]),
            duration(call["idle"]),
            duration(call["on"]),
        ]
        for node, call in listed
    ]
    for line in table(columns, rows):
        print(line)
    return 0


def _send(args: argparse.Namespace, sockets: Sockets) -> int:
    text = " ".join(args.text)
    everyone = args.node.lower() == "all"
    target = None if everyone else _node_or_error(args.node)
    if not sanitize(text):
        raise AdminError("nothing to send: the text is empty")
    reached: list[Node] = []
    if target is None:
        answer = _running_door(sockets.control, {"command": "send", "node": "all", "text": text})
        door_mode = door_mode_calls(sockets.calls)
        if answer is None and not door_mode:
            raise _not_running(sockets.control, nor_door_mode=True)
        reached += [Node(node) for node in (answer or {}).get("nodes", [])]
        for call in door_mode:
            request(call.socket, {"command": "send", "node": call.node, "text": text})
            reached.append(Node(call.node, door_mode=True))
    elif target.door_mode:
        call = _on_node(sockets, target)
        request(call.socket, {"command": "send", "node": target.number, "text": text})
        reached.append(target)
    else:
        request(sockets.control, {"command": "send", "node": target.number, "text": text})
        reached.append(target)
    if not reached:
        print("Nobody is on.")
    else:
        nodes = ", ".join(str(node) for node in reached)
        print(f"Sent to node{'s' if len(reached) > 1 else ''} {nodes}.")
    return 0


def _node_or_error(text: str) -> Node:
    try:
        return _node(text)
    except argparse.ArgumentTypeError as error:
        raise AdminError(str(error)) from None


def _reaching(sockets: Sockets, node: Node) -> Path:
    """The socket that reaches ``node``: the running door's, or its door-mode call's."""
    return _on_node(sockets, node).socket if node.door_mode else sockets.control


def _kick(args: argparse.Namespace, sockets: Sockets) -> int:
    reason = " ".join(args.reason)
    node: Node = args.node
    request(_reaching(sockets, node), {"command": "kick", "node": node.number, "reason": reason})
    print(f"Ended the call on node {node}; the caller's game is saved.")
    return 0


def _status(args: argparse.Namespace, sockets: Sockets) -> int:
    status = request(sockets.control, {"command": "status"})
    for line in status_lines(status):
        print(line)
    return 0


def status_lines(status: dict[str, Any]) -> list[str]:
    """The answer to ``status`` as the sysop reads it.

    >>> lines = status_lines({"version": "1.0", "started": "2026-11-30T17:00:00",
    ...     "uptime": 90061, "callers": 2, "peak": 5, "max_nodes": 32, "games_today": 12,
    ...     "users": 40, "games": 900, "database": "/srv/c.db", "database_bytes": 2500000,
    ...     "backup_folder": None, "last_backup": None})
    >>> print("\\n".join(lines))
    Canfield door 1.0, up 1 day, 1:01:01 (since 2026-11-30 17:00)
    Callers now: 2 of 32 nodes; most at once today: 5
    Games started today: 12
    Users: 40; games in all: 900
    Database: /srv/c.db (2.4 MB)
    Last backup: none ([backup] folder is not set in sysop.toml)
    """
    last = status["last_backup"]
    if last is not None:
        backup = f"{last['path']}, {last['made'].replace('T', ' ')} ({size(last['bytes'])})"
    elif status["backup_folder"] is not None:
        backup = f"none yet in {status['backup_folder']}"
    else:
        backup = "none ([backup] folder is not set in sysop.toml)"
    return [
        f"Canfield door {status['version']}, up {duration(status['uptime'])} "
        f"(since {status['started'].replace('T', ' ')[:16]})",
        f"Callers now: {status['callers']} of {status['max_nodes']} nodes; "
        f"most at once today: {status['peak']}",
        f"Games started today: {status['games_today']}",
        f"Users: {status['users']}; games in all: {status['games']}",
        f"Database: {status['database']} ({size(status['database_bytes'])})",
        f"Last backup: {backup}",
    ]


def _reload(args: argparse.Namespace, sockets: Sockets) -> int:
    answer = request(sockets.control, {"command": "reload"})
    changes, restart = answer["changes"], answer["restart"]
    print("The door has read its settings again." if changes else "Read again: nothing changed.")
    for change in changes:
        print(f"  {change}")
    for change in restart:
        print(f"  {change}: not changed; takes a restart of the door")
    return 0


def _watch(args: argparse.Namespace, sockets: Sockets) -> int:
    node: Node = args.node
    with _connect(_reaching(sockets, node)) as sock:
        answer, screen = _ask(sock, {"command": "watch", "node": node.number})
        alias = sanitize(answer.get("alias", "")) or "a caller not yet logged in"
        print(f"Watching node {args.node} ({alias}); press any key to stop.", file=sys.stderr)
        out = sys.stdout.fileno()
        if screen:
            os.write(out, screen)
        sock.settimeout(None)
        keyboard = sys.stdin.fileno()
        saved = termios.tcgetattr(keyboard) if os.isatty(keyboard) else None
        try:
            if saved is not None:
                tty.setcbreak(keyboard)  # a key ends it at once, and is not echoed
            _relay(sock, keyboard, out)
        finally:
            if saved is not None:
                termios.tcsetattr(keyboard, termios.TCSADRAIN, saved)
            os.write(out, b"\x1b[0m\x1b[?25h\r\n")
    print(f"Stopped watching node {args.node}.")
    return 0


def _relay(sock: socket.socket, keyboard: int, out: int) -> None:
    """Copy the caller's screen to ``out`` until a key, or the end of the call."""
    watching: list[socket.socket | int] = [sock, keyboard]
    while True:
        readable, _, _ = select.select(watching, [], [])
        if keyboard in readable:
            if os.read(keyboard, 1):
                return
            watching.remove(keyboard)  # no keyboard (end of input): watch to the end
        if sock in readable:
            data = sock.recv(65536)
            if not data:
                return
            os.write(out, data)


def duration(seconds: int) -> str:
    """``0:07``, ``12:34``, ``1:02:03``, ``3 days, 4:05:06``.

    >>> duration(7), duration(754), duration(3723), duration(3 * 86400 + 14706)
    ('0:07', '12:34', '1:02:03', '3 days, 4:05:06')
    """
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours}:{minutes:02d}:{secs:02d}" if hours or days else f"{minutes}:{secs:02d}"
    if days:
        return f"{days} day{'s' if days != 1 else ''}, {clock}"
    return clock


def size(count: int) -> str:
    """A file's size, as people say it.

    >>> size(512), size(2500000)
    ('512 bytes', '2.4 MB')
    """
    if count < 1024:
        return f"{count} bytes"
    amount = float(count)
    for unit in ("KB", "MB", "GB"):
        amount /= 1024
        if amount < 1024 or unit == "GB":
            return f"{amount:.1f} {unit}"
    raise AssertionError("unreachable")
