"""What the load and crash benchmarks share: a lean telnet caller, a door in a subprocess,
and the server's memory and CPU read from /proc.

:class:`TelnetCaller` is an :class:`asyncio.Protocol`, not a pair of streams with a reading
task, so that a thousand of them fit in one client process: it answers telnet negotiation
as a BBS terminal does (terminal type ``ansi``, an 80x24 window), answers the ANSI cursor
position probe, and lets its owner wait for a byte pattern in what arrived since the last
:meth:`TelnetCaller.send`, or for a board update to be complete (``expect(UPDATE)``): every
board update leaves the cursor at the end of the game's prompt, where the caller types, so an
update is complete once the cursor, having drawn something on a board row since the command
was sent, is back there (:class:`CursorTracker` follows it).
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from door.config import load_config
from door.engine import Game
from door.levels import Level
from door.net.websocket import carry
from door.views.board import PROMPT, PROMPT_ROW

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_CONFIG = ROOT / "sysop.toml"

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
BINARY, ECHO, SGA, TTYPE, NAWS = 0, 1, 3, 24, 31
IS, SEND = 0, 1
CPR_REQUEST = b"\x1b[6n"
CPR_ANSWER = b"\x1b[24;80R"

# What the door shows last on each screen a caller waits for.
ALIAS_PROMPT = b"Your alias (or NEW):"
SIGN_UP_PROMPT = b"Sign up? (Y/N)"
PASSWORD_PROMPT = b"Password:"
PASSWORD_AGAIN_PROMPT = b"Password again:"
PASSWORD_FOR_PROMPT = b"Password for "
MENU_PROMPT = b"Your choice:"
LEVEL_PROMPT = b"Level:"
DEAL_PROMPT = b"Deal number"
GAME_PROMPT = PROMPT.strip().encode()
UPDATE = None  # for TelnetCaller.expect: a complete board update
PROMPT_AT = (PROMPT_ROW, 2 + len(PROMPT))  # where the cursor rests while the caller types
DEAL_NUMBER = re.compile(rb"[Dd]eal (\d+)")  # a practice deal's title names its deal

LISTENING = re.compile(r"listening on \S+ port (\d+)")
WEB_LISTENING = re.compile(r"listening for web on \S+ port (\d+)")
STORE_COUNTS = re.compile(r"store: (\d+) writes in (\d+) commits")
COMMIT_AVERAGE = re.compile(r"store: .* commits .* a commit took ([\d.]+) ms on average")
# Where the commits' time went (averages since start, in ms): a write's wait for its commit
# to begin; a COMMIT's wait for the writer's thread, its time there, and its way back; then,
# once answered, a write's wait for the loop to run its caller (a door before that logs none).
COMMIT_STAGES = re.compile(
    r"store: a write waited ([\d.]+) ms .* a COMMIT waited ([\d.]+) ms .* took ([\d.]+) ms"
    r" there .* and ([\d.]+) ms more(?:.* a write waited ([\d.]+) ms for the event loop)?"
)
STAGES = ("queued", "to_thread", "in_thread", "back", "to_caller")
PER_WRITE_STAGES = ("queued", "to_caller")  # the others are a commit's
# The garbage collector's passes since the last SIGUSR1, and the longest of each generation.
COLLECTOR = re.compile(
    r"collector: (\d+) young \(longest ([\d.]+) ms\), (\d+) middle \(([\d.]+) ms\), "
    r"(\d+) full \(([\d.]+) ms\)"
)
START_TIMEOUT = 20.0  # seconds for a door subprocess to start listening


class CallerGone(Exception):
    """The connection closed (or broke) while the caller waited for something."""


_CSI = re.compile(rb"\x1b\[([0-9;?]*)([@-~])")
_PARTIAL_CSI = re.compile(rb"\x1b(\[[0-9;?]*)?$")
_TEXT = re.compile(rb"[^\x1b\r\n\x08]+")


class CursorTracker:
    """Where a CP437 ANSI terminal's cursor is, from the bytes it is sent (one byte, one
    cell), and whether anything was drawn off ``home``'s row since :meth:`reset`."""

    def __init__(self, home: tuple[int, int] = PROMPT_AT) -> None:
        self.home = home
        self.row, self.col = 1, 1
        self.drew_elsewhere = False
        self._partial = b""

    def reset(self) -> None:
        self.drew_elsewhere = False

    @property
    def back_home(self) -> bool:
        """Something was drawn on another row, and the cursor is home again."""
        return self.drew_elsewhere and (self.row, self.col) == self.home

    def feed(self, data: bytes) -> None:
        data, self._partial = self._partial + data, b""
        i, end = 0, len(data)
        while i < end:
            byte = data[i]
            if byte == 0x1B:
                found = _CSI.match(data, i)
                if found:
                    self._sequence(found.group(1), found.group(2))
                    i = found.end()
                elif _PARTIAL_CSI.match(data, i):
                    self._partial = data[i:]  # the rest comes in the next packet
                    return
                else:
                    i += 2  # ESC 7, ESC 8 and the like: the cursor comes back or stays
            elif byte == 0x0D:
                self.col, i = 1, i + 1
            elif byte == 0x0A:
                self.row, i = self.row + 1, i + 1
            elif byte == 0x08:
                self.col, i = max(1, self.col - 1), i + 1
            else:
                found = _TEXT.match(data, i)
                assert found is not None
                if self.row != self.home[0]:
                    self.drew_elsewhere = True
                self.col += found.end() - i
                i = found.end()

    def _sequence(self, parameters: bytes, final: bytes) -> None:
        if final in b"Hf":
            parts = parameters.split(b";")
            self.row = int(parts[0] or 1)
            self.col = int(parts[1] or 1) if len(parts) > 1 else 1
        elif final in b"ABCD":
            count = int(parameters or 1)
            if final == b"A":
                self.row -= count
            elif final == b"B":
                self.row += count
            elif final == b"C":
                self.col += count
            else:
                self.col -= count


class TelnetCaller(asyncio.Protocol):
    """One caller over raw TCP; see the module's docstring."""

    def __init__(self, term: bytes = b"ansi", size: tuple[int, int] = (80, 24)) -> None:
        self.term = term
        self.size = size
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()  # text (telnet commands taken out) since the last send
        self.received = 0  # text bytes received in all
        self.closed = asyncio.get_running_loop().create_future()
        self.cursor = CursorTracker()
        self._pending = b""
        self._waiting: tuple[Callable[[], bool], asyncio.Future[None]] | None = None

    @classmethod
    async def connect(
        cls, port: int, timeout: float = 10.0, source: str | None = None, **options
    ) -> TelnetCaller:
        """A caller on 127.0.0.1's ``port``, from ``source`` (an address of 127.0.0.0/8: the
        door's limits per address count it apart) or the system's choice."""
        loop = asyncio.get_running_loop()
        local = None if source is None else (source, 0)
        _, caller = await asyncio.wait_for(
            loop.create_connection(lambda: cls(**options), "127.0.0.1", port, local_addr=local),
            timeout,
        )
        return caller

    @classmethod
    async def connect_web(cls, port: int, timeout: float = 10.0, **options) -> TelnetCaller:
        """The same caller on the door's web port: telnet over WebSocket (binary messages),
        carried by the door's own WebSocket transport on aiohttp's client."""
        session = aiohttp.ClientSession()
        try:
            socket = await asyncio.wait_for(
                session.ws_connect(f"http://127.0.0.1:{port}/telnet", protocols=("binary",)),
                timeout,
            )
        except BaseException:
            await session.close()
            raise
        caller = cls(**options)

        async def run() -> None:
            try:
                await carry(socket, socket.protocol, caller, ("127.0.0.1", port), None)
            finally:
                await session.close()

        caller.carrying = asyncio.create_task(run())
        return caller

    # -- asyncio.Protocol ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self._pending or IAC in data:
            data = self._take_commands(data)
        if CPR_REQUEST in data and self.transport is not None:
            self.transport.write(CPR_ANSWER)
        self.received += len(data)
        self.buffer += data
        self.cursor.feed(data)
        if self._waiting is not None:
            done, future = self._waiting
            if not future.done() and done():
                future.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)
        if self._waiting is not None and not self._waiting[1].done():
            self._waiting[1].set_exception(CallerGone())

    # -- telnet ---------------------------------------------------------------------------------

    def _answer(self, verb: int, option: int) -> bytes:
        if verb == DO:
            if option == NAWS:
                cols, rows = self.size
                return bytes(
                    [IAC, WILL, NAWS, IAC, SB, NAWS, cols >> 8, cols & 255, rows >> 8, rows & 255]
                ) + bytes([IAC, SE])
            return bytes([IAC, WILL if option in (TTYPE, BINARY) else WONT, option])
        if verb == WILL:
            return bytes([IAC, DO if option in (ECHO, SGA, BINARY) else DONT, option])
        return b""

    def _take_commands(self, data: bytes) -> bytes:
        """Answer the telnet commands in ``data``; the rest, kept whole across packets."""
        data, self._pending = self._pending + data, b""
        text, answers = bytearray(), bytearray()
        i = 0
        while i < len(data):
            at = data.find(IAC, i)
            if at < 0:
                text += data[i:]
                break
            text += data[i:at]
            if at + 1 >= len(data):
                self._pending = data[at:]
                break
            verb = data[at + 1]
            if verb == IAC:
                text.append(IAC)
                i = at + 2
            elif verb in (DO, DONT, WILL, WONT):
                if at + 2 >= len(data):
                    self._pending = data[at:]
                    break
                answers += self._answer(verb, data[at + 2])
                i = at + 3
            elif verb == SB:
                end = data.find(bytes([IAC, SE]), at)
                if end < 0:
                    self._pending = data[at:]
                    break
                if data[at + 2 : at + 4] == bytes([TTYPE, SEND]):
                    answers += bytes([IAC, SB, TTYPE, IS]) + self.term + bytes([IAC, SE])
                i = end + 2
            else:
                i = at + 2
        if answers and self.transport is not None:
            self.transport.write(bytes(answers))
        return bytes(text)

    # -- what a caller does -----------------------------------------------------------------------

    def send(self, text: bytes) -> None:
        """Type ``text``; what arrives from now on is what :meth:`expect` looks at."""
        if self.transport is None or self.transport.is_closing():
            raise CallerGone()
        self.buffer.clear()
        self.cursor.reset()
        self.transport.write(text)

    async def expect(self, pattern: bytes | None, timeout: float = 30.0) -> None:
        """Wait until ``pattern`` has arrived since the last :meth:`send`; None: until a board
        update is complete.

        :raises CallerGone: the connection closed first.
        :raises TimeoutError: ``timeout`` seconds passed first.
        """
        if pattern is None:
            done: Callable[[], bool] = lambda: self.cursor.back_home  # noqa: E731
        else:
            done = lambda: pattern in self.buffer  # noqa: E731
        if done():
            return
        if self.closed.done():
            raise CallerGone()
        future = asyncio.get_running_loop().create_future()
        self._waiting = (done, future)
        try:
            await asyncio.wait_for(future, timeout)
        finally:
            self._waiting = None

    async def ask(self, text: bytes, pattern: bytes | None, timeout: float = 30.0) -> float:
        """Send ``text``, wait for ``pattern`` (None: a complete board update); the seconds
        it took."""
        started = time.perf_counter()
        self.send(text)
        await self.expect(pattern, timeout)
        return time.perf_counter() - started

    def deal_number(self) -> int | None:
        """The deal number on the board drawn since the last send, if any."""
        found = DEAL_NUMBER.search(self.buffer)
        return int(found.group(1)) if found else None

    def hang_up(self) -> None:
        if self.transport is not None:
            self.transport.close()

    async def wait_closed(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(asyncio.shield(self.closed), timeout)


async def sign_up(caller: TelnetCaller, alias: str, password: str) -> float:
    """From the welcome screen to the main menu as a new caller; seconds the last step took
    (the password typed again to the menu: the scrypt hash, the new row, the menu)."""
    await caller.expect(ALIAS_PROMPT)
    await caller.ask(alias.encode() + b"\r\n", SIGN_UP_PROMPT)
    await caller.ask(b"Y\r\n", PASSWORD_PROMPT)
    await caller.ask(password.encode() + b"\r\n", PASSWORD_AGAIN_PROMPT)
    return await caller.ask(password.encode() + b"\r\n", MENU_PROMPT, timeout=120.0)


async def log_in(caller: TelnetCaller, alias: str, password: str) -> float:
    """From the welcome screen to the main menu as a known caller; seconds from the password
    to the menu (the scrypt check and the menu)."""
    await caller.expect(ALIAS_PROMPT)
    await caller.ask(alias.encode() + b"\r\n", PASSWORD_FOR_PROMPT)
    return await caller.ask(password.encode() + b"\r\n", MENU_PROMPT, timeout=120.0)


# -- a door in a subprocess ---------------------------------------------------------------------


# The solver's verdict on a stuck game ("could it have been won?") costs up to its budget of
# CPU seconds in a worker process; the benchmarks measure serving callers, so they turn it off
# (benchmarks/solver.py measures the solver).
QUIET_SOLVER = {"tell_winnable": False}


# Every caller here is 127.0.0.1: the limits that tell addresses apart are out of the way
# unless a caller of write_config sets them.
LOOPBACK_LIMITS = {"reserved_nodes": 0, "connections_per_minute": 100_000, "signups_per_hour": 0}


def write_config(
    folder: Path,
    server: dict[str, object],
    if_present: dict[str, object] | None = None,
    shipped: Path = SHIPPED_CONFIG,
    web: bool = True,
) -> Path:
    """The shipped sysop.toml with some keys changed, written into ``folder``; the keys of
    ``if_present`` are changed only where the file has them. ``shipped``: another door's
    sysop.toml (an older revision's), whose loopback limits are set only where it has them.
    ``web`` False: the web port off."""
    text = shipped.read_text(encoding="utf-8")
    # The web, on a free port, or off.
    text = text.replace("\nport = 8080\n", "\nport = 0\n" if web else "\n")
    loopback = [(key, value, shipped == SHIPPED_CONFIG) for key, value in LOOPBACK_LIMITS.items()]
    changes = loopback + [(key, value, True) for key, value in server.items()]
    changes += [(key, value, False) for key, value in (if_present or {}).items()]
    for key, value, required in changes:
        shown = f'"{value}"' if isinstance(value, str) else str(value).lower()
        text, found = re.subn(rf"^{key} = .*$", f"{key} = {shown}", text, count=1, flags=re.M)
        if required and not found:
            raise KeyError(f"sysop.toml has no {key}")
    path = folder / "sysop.toml"
    path.write_text(text, encoding="utf-8")
    return path


def roomy_config(
    folder: Path, callers: int, shipped: Path = SHIPPED_CONFIG, workers: int = 1
) -> Path:
    """The shipped settings (or another revision's, ``shipped``) with a node for each of
    ``callers``, no idle or time limit, and the solver quiet: a benchmark's door; with
    ``workers`` above 1, that many workers."""
    limits: dict[str, object] = {
        "max_nodes": callers + 10,
        "max_per_address": callers + 10,
        "idle_timeout": 3600,
        "idle_warning": 0,
        "time_limit": 0,
    }
    if workers > 1:
        limits["workers"] = workers
    return write_config(folder, limits, QUIET_SOLVER, shipped=shipped)


WAL_HEADER, FRAME_HEADER = 32, 24  # bytes: the WAL's header, and each page's in it


def empty_the_wal(database: Path) -> int:
    """Copy the WAL into the database and cut it to nothing, so that the door's next commit
    must grow it; the database's page size."""
    with closing(sqlite3.connect(database, timeout=10)) as db:
        for _ in range(100):  # the door may be reading or checkpointing
            busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if not busy:
                break
            time.sleep(0.05)
        page_size: int = db.execute("PRAGMA page_size").fetchone()[0]
    assert Path(f"{database}-wal").stat().st_size == 0
    return page_size


def pages_in_wal(database: Path, page_size: int) -> int:
    """How many pages the database's WAL holds (written since it was last emptied)."""
    size = Path(f"{database}-wal").stat().st_size
    return max(0, size - WAL_HEADER) // (FRAME_HEADER + page_size)


def stored_histories(database: Path) -> dict[str, list[str]]:
    """Every stored game's history, by its player's alias, read from the file itself: the
    last full copy of the position, then the plays stored after it."""
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute(
            "SELECT u.alias, g.position, (SELECT json_group_array(command) FROM "
            "(SELECT command FROM plays p WHERE p.game_id = g.id ORDER BY number)) "
            "FROM games g JOIN users u ON u.id = g.user_id"
        ).fetchall()
    return {
        alias: json.loads(position)["history"] + json.loads(later)
        for alias, position, later in rows
    }


@dataclass
class ServerProcess:
    """A server in a subprocess, logging to a file; its port learnt from that log."""

    process: subprocess.Popen[bytes]
    log_path: Path
    port: int
    workers: int = 1  # the door's worker processes (1: the door is one process)

    @classmethod
    def start(
        cls,
        command: list[str],
        log_path: Path,
        env: dict[str, str] | None = None,
        cwd: Path = ROOT,
    ) -> ServerProcess:
        with log_path.open("ab") as log_file:
            offset = log_file.tell()
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=log_file,
                cwd=cwd,
                env=env,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            with log_path.open("rb") as log_file:
                log_file.seek(offset)
                found = LISTENING.search(log_file.read().decode("utf-8", "replace"))
            if found:
                return cls(process, log_path, int(found.group(1)))
            if process.poll() is not None:
                last = log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-3:]
                raise RuntimeError(
                    f"the server exited ({process.returncode}); see {log_path}: " + " / ".join(last)
                )
            time.sleep(0.05)
        process.kill()
        raise RuntimeError(f"the server did not listen within {START_TIMEOUT} s; see {log_path}")

    @classmethod
    def door(
        cls,
        config: Path,
        database: Path,
        log_path: Path,
        env: dict[str, str] | None = None,
        root: Path = ROOT,
        launcher: list[str] | None = None,
        workers: int = 1,
    ) -> ServerProcess:
        """The door whose source is in ``root`` (this checkout, or another revision's), run
        as ``python -m door`` or by ``launcher`` (Python's options and their arguments, as
        ``["-c", program, ...]``: a bootstrap that runs the door itself)."""
        command = [sys.executable, *(launcher or ["-m", "door"]), "serve", "--config", str(config)]
        command += ["--host", "127.0.0.1", "--port", "0", "--database", str(database)]
        if root != ROOT:
            env = {**(env or os.environ), "PYTHONPATH": str(root)}
        server = cls.start(command, log_path, env, cwd=root)
        server.workers = workers
        return server

    @property
    def pid(self) -> int:
        return self.process.pid

    def web_port(self) -> int:
        """The door's web port, from its log (the benchmarks' settings turn the web on)."""
        found = WEB_LISTENING.search(self.log_text())
        if found is None:
            raise RuntimeError(f"the door does not listen for the web; see {self.log_path}")
        return int(found.group(1))

    def sample(self) -> ProcessSample:
        return process_sample(self.pid)

    def kill(self) -> None:
        """SIGKILL, as a power cut would end it."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM (the door says goodbye and saves), then SIGKILL if it lingers."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.process.returncode

    def ask(self, path: Path, timeout: float) -> None:
        """Send SIGUSR2 to the door's bootstrap and wait until it has written its answer,
        ``path``; RuntimeError if it stops first or ``timeout`` seconds pass."""
        self.process.send_signal(signal.SIGUSR2)
        deadline = time.monotonic() + timeout
        while not path.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the door wrote no {path.name}; see {self.log_path}")
            time.sleep(0.05)

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def store_counts(self, timeout: float = 10.0) -> tuple[int, int]:
        """(writes, commits) of the door's store so far: SIGUSR1 asks the door to log them
        (each worker its own, added up here)."""
        seen = len(STORE_COUNTS.findall(self.log_text()))
        self.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = STORE_COUNTS.findall(self.log_text())
            if len(found) >= seen + self.workers:
                latest = found[-self.workers :]
                return sum(int(w) for w, _ in latest), sum(int(c) for _, c in latest)
            time.sleep(0.02)
        raise TimeoutError(f"the door logged no store counts within {timeout} s")

    def commit_average_ms(self) -> float | None:
        """The average commit time, in ms since start, that the door logged with its last
        store counts (:meth:`store_counts`); None from a door that does not log it."""
        found = COMMIT_AVERAGE.findall(self.log_text())
        return float(found[-1]) if found else None

    def commit_stages_ms(self) -> dict[str, float | None] | None:
        """Where the commits' time went, by :data:`STAGES`, in ms on average since start, as
        the door logged it with its last store counts; None from a door that does not."""
        found = COMMIT_STAGES.findall(self.log_text())
        if not found:
            return None
        stages = zip(STAGES, found[-1], strict=True)
        return {stage: float(ms) if ms else None for stage, ms in stages}

    def collector_passes(self) -> dict[str, float] | None:
        """The garbage collector's passes the door logged with its last store counts (since
        the SIGUSR1 before): count and longest ms by generation; None from a door that does
        not log them."""
        found = COLLECTOR.findall(self.log_text())
        if not found:
            return None
        young, young_ms, middle, middle_ms, full, full_ms = found[-1]
        return {
            "young": int(young),
            "young_longest_ms": float(young_ms),
            "middle": int(middle),
            "middle_longest_ms": float(middle_ms),
            "full": int(full),
            "full_longest_ms": float(full_ms),
        }


@dataclass(frozen=True)
class ProcessSample:
    """A process's memory (KiB) and CPU time (seconds), as /proc shows them; of that CPU,
    its first thread's: a server's event loop, which every caller waits on."""

    rss_kb: int
    peak_rss_kb: int
    cpu_seconds: float
    main_thread_cpu_seconds: float
    #: The process and every process it started (a front's workers, the solver's), added
    #: up: each one's proportional set size (its private pages, and its share of the pages
    #: it shares: a worker's pages still shared with its front count once in all), their
    #: CPU time, their main threads' (each one's event loop), and how many there are.
    tree_pss_kb: int = 0
    tree_cpu_seconds: float = 0.0
    tree_loop_cpu_seconds: float = 0.0
    processes: int = 1


_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_cpu_seconds(stat_path: Path) -> float:
    """User and system time in a /proc ``stat`` file, in seconds."""
    stat = stat_path.read_text()
    after_name = stat[stat.rindex(")") + 2 :].split()  # the name may hold spaces
    return (int(after_name[11]) + int(after_name[12])) / _TICKS


def process_sample(pid: int) -> ProcessSample:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = {
        line.split(":")[0]: line.split()[1] for line in status.splitlines() if line.startswith("Vm")
    }
    pss = cpu = loop = 0.0
    tree = process_tree(pid)
    for member in tree:
        try:
            pss += _pss_kb(member)
            cpu += _stat_cpu_seconds(Path(f"/proc/{member}/stat"))
            loop += _stat_cpu_seconds(Path(f"/proc/{member}/task/{member}/stat"))
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended meanwhile
    return ProcessSample(
        int(fields["VmRSS"]),
        int(fields["VmHWM"]),
        _stat_cpu_seconds(Path(f"/proc/{pid}/stat")),
        _stat_cpu_seconds(Path(f"/proc/{pid}/task/{pid}/stat")),
        int(pss),
        cpu,
        loop,
        len(tree),
    )


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process it started, and they started, ...: from /proc."""
    tree, index = [pid], 0
    while index < len(tree):
        member = tree[index]
        index += 1
        try:
            tasks = list(Path(f"/proc/{member}/task").iterdir())
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                tree += [int(child) for child in (task / "children").read_text().split()]
            except FileNotFoundError:
                continue
    return tree


@dataclass(frozen=True)
class ProcessPart:
    """One process of a server: its role (``door``, or a ``front`` and its workers, ``worker``, or
    the ``solver``'s), its PSS in KiB and its CPU time so far, in seconds."""

    pid: int
    role: str
    pss_kb: int
    cpu_seconds: float


def process_parts(pid: int) -> list[ProcessPart]:
    """Each process of a server started as ``pid`` (:func:`process_tree`), its role told by
    its command line (the door's processes run ``serve``; the others are the solver's)."""
    found: list[tuple[int, bool, int, float]] = []
    for member in process_tree(pid):
        try:
            serves = b"serve" in Path(f"/proc/{member}/cmdline").read_bytes().split(b"\0")
            pss = _pss_kb(member)
            cpu = _stat_cpu_seconds(Path(f"/proc/{member}/stat"))
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended meanwhile
        found.append((member, serves, pss, cpu))
    has_workers = any(serves and member != pid for member, serves, _, _ in found)
    parts = []
    for member, serves, pss, cpu in found:
        if member == pid:
            role = "front" if has_workers else "door"
        else:
            role = "worker" if serves else "solver"
        parts.append(ProcessPart(member, role, pss, cpu))
    return parts


def _pss_kb(pid: int) -> int:
    """A process's proportional set size, in KiB (/proc/PID/smaps_rollup)."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def machine_busy_seconds() -> float:
    """CPU seconds all the machine's cores have spent busy since boot (/proc/stat)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / _TICKS


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of the values lie (nearest rank); 0 if none."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def milliseconds(seconds: list[float]) -> dict[str, float]:
    """How many durations, and their p50, p95, p99 and max, in ms."""
    ordered = sorted(seconds)
    return {
        "count": len(ordered),
        "p50": round(1000 * percentile(ordered, 0.50), 2),
        "p95": round(1000 * percentile(ordered, 0.95), 2),
        "p99": round(1000 * percentile(ordered, 0.99), 2),
        "max": round(1000 * (ordered[-1] if ordered else 0.0), 2),
    }


# -- playing ------------------------------------------------------------------------------------


@functools.cache
def default_level() -> Level:
    """The level Enter plays at the level prompt, as the shipped sysop.toml sets it."""
    config = load_config(SHIPPED_CONFIG)
    return config.level(config.default_level)


def choose_play(game: Game, rng: random.Random) -> str:
    """A random legal play in canonical form; now and then an undo."""
    if rng.random() < 0.1 and game.is_legal("U"):
        return "U"
    return rng.choice(game.legal())


def lasting_play(game: Game, rng: random.Random) -> str:
    """A random legal play (or undo) that does not end the game, for callers that must play
    on; AssertionError if every play ends it."""
    candidates = [choose_play(game, rng), *game.legal()]
    if game.is_legal("U"):
        candidates.append("U")
    for command in candidates:
        trial = Game.from_dict(game.to_dict())
        trial.play(command)
        if trial.status == "playing":
            return command
    raise AssertionError("every play ends this game")


def fresh_deal(level: Level, rng: random.Random) -> Game:
    """A random deal that can be played (a few are stuck from the start; the door skips them)."""
    while True:
        game = Game.deal(level.variant, rng.randrange(1_000_000_000))
        if game.status == "playing":
            return game


async def start_game(
    caller: TelnetCaller, level: Level, rng: random.Random | None = None, timeout: float = 30.0
) -> Game:
    """From the main menu to a fresh deal at the default level; the caller's copy of it.

    The deal is a numbered one (practice): a scored game's deal is secret until it ends, and
    the caller must know its cards to choose legal plays. The door stores and draws both
    kinds alike."""
    game = fresh_deal(level, rng or random.Random())
    await caller.ask(b"#", DEAL_PROMPT, timeout)
    await caller.ask(f"{game.deal_number}\r\n".encode(), LEVEL_PROMPT, timeout)
    await caller.ask(b"\r", GAME_PROMPT, timeout)
    if caller.deal_number() != game.deal_number:
        raise RuntimeError("the board showed another deal")
    return game


async def leave_finished_game(caller: TelnetCaller) -> None:
    """Press Enter under a game that is over, back to the main menu."""
    await caller.ask(b"\r\n", MENU_PROMPT)
