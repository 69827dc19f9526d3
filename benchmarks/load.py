"""Load: simulated callers over real TCP against the door, and against a bare telnet server.

Each run starts the door as a subprocess (``python -m door serve``) on 127.0.0.1 with a
fresh database and nodes enough for everyone, so that its memory and CPU can be read from
/proc. N callers connect, arriving at a set rate, sign up (scrypt: a good part of a second of
CPU each, one hash at a time per spare core, so ``--arrival`` must not outrun that or the
last callers time out at the log-in) and start a game; once all are playing, each sends a
random legal play (its own copy of the deal picks them) about every ``--interval`` seconds,
jittered, for ``--duration`` seconds, and times each play until the board update is
complete: the door redraws the prompt row last. Then every caller saves and leaves (Q, G),
calls again and logs in, timed on its own (``--no-log-in-again`` leaves this out: a
thousand log-ins are minutes of scrypt).
With ``--web N``, N of the door's callers do all this through the web's WebSocket (telnet
over WebSocket, as a browser's page or fTelnet calls), the rest by telnet; their plays are
also timed apart.

With ``--fsync-delay-ms N`` the same load then runs against the door on a slow disk: every
fsync N ms slower (benchmarks/fsync_delay.c, loaded with LD_PRELOAD, built with the system's
cc; without one that run is skipped with a message). For each door run the store's commits
while everyone plays are counted (the door logs them on SIGUSR1): commits a second, and
writes (plays, and the deals that follow a finished game) a commit, and where a commit's
time went: a write's wait for the commit before its own to end, the ``COMMIT``'s wait for
the writer's thread, its time there (the fsync, then Python's GIL taken back from the busy
event loop: set beside the disk alone, below, the GIL's share shows) and its way back to the
loop, then a write's wait, once answered, for the loop to run its caller again (behind the
others of its group, each drawing a board); and the garbage collector's passes while
everyone plays, with the longest of each generation (each holds every game while it runs).

With ``--compare REF`` the door as it was at another git revision (a branch, a tag, a commit)
is extracted into a temporary folder (``git archive``) and loaded by the same callers in the
same run, between the current door and the bare server, so a regression shows in one command
on one machine under one load: absolute figures on a busy machine drift, the ratios between
the rows of one run less so (on a shared machine they drift too: see ``--rounds``). That
door runs on this Python and its packages; its rows are named ``door@<commit>``.

With ``--rounds N`` every row is loaded N times, one round of all rows after another, and
each row shows its round with the middle p99 (of two middle ones, the worse) beside every
round's p99: on a shared machine one run's p99 can be twice the next one's on the same door,
and a single round cannot tell two doors apart by less than that. An odd N has one middle
round; with an even N, a row one of whose two middle rounds was disturbed shows that one.

Beside the cores the server kept busy, each row shows the CPU a play cost its event loop
(its main thread, from /proc), and with ``--rounds`` that figure in each round: the loop
runs one caller's work at a time, so the queue every play waits in, and the p99 with it,
grows with it. It moves with the machine too: two rows of one round have differed on it by
a tenth where benchmarks/drawing.py saw no difference between their doors, so a change of a
few percent needs drawing.py or benchmarks/engine.py to show.

Each row's slowest 1% of plays is also grouped by when they were sent: plays sent within
50 ms of one another met one hold-up (a garbage collector's pass, a stalled disk, a busy
machine), so a p99 that a few such episodes hold is set by hold-ups rather than by what
each play costs.

While plays are timed the callers' own processes hold off Python's garbage collector, as
``timeit`` does: a pass over a thousand callers' objects takes the client 10 ms and more,
and would be counted against whichever server is loaded.

The same callers, sending the same kind of lines at the same rate, then load a bare telnetlib3
server in bytes mode whose shell only echoes each line back: the floor any telnet door on this
Python stands on. The door's p99 latency is compared with the bare server's.

Last in each round, the disk alone (benchmarks/disk.py): commits like the door's, at the rate
the door committed, with no server running. The door answers a play once its commit is on
the disk, so this is its other floor: a shared machine's disk that stalls now and then (tens
or hundreds of ms for one fsync) shows there, and in every door row of that round.

With ``--workers N`` the door of N workers is loaded too (and a door given by ``--compare``
with N workers), and every process of each door is shown apart: its role (the front, a
worker, the solver's), its PSS and its CPU a play, and what each worker past the first adds,
idle and while playing. With ``--idle N``, N callers more sign up and stay at the main menu
(at the bare server: connected) while the others play; memory a caller counts them all.
With ``--cheap-hashes`` the doors hash passwords at scrypt's 2**10 rather than their own
cost, so that thousands of callers sign up in seconds (a play costs the same; the sign-up
figures are not the door's then). Each caller calls from an address of its own in
127.1.0.0/16, since the door checks one password at a time an address.

    python -m benchmarks.load [--callers 100 500 1000] [--interval 2] [--duration 60]
        [--arrival 5] [--rounds 1] [--client-processes 1] [--fsync-delay-ms 10] [--web 200]
        [--compare main] [--workers 2] [--idle 9000] [--cheap-hashes]
        [--json benchmarks/results/load.json]

Targets (2-core machine): 1,000 callers each sending a play every 2 seconds, door p99 at most
3 times the bare server's and no higher than any door given by ``--compare`` (an older one);
at most 40 KB of server memory a caller above the bare server's (the two servers' resident
memory at its peak while everyone plays, apart, over the callers); on the slow disk (fsync
10 ms slower), the same 1,000 callers answered with p99 at most 60 ms and no errors.

The callers run in ``--client-processes`` processes on the same machine: their CPU time is
reported, since on two cores it is taken from the server.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import multiprocessing
import platform
import queue as queue_module
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from benchmarks.callers import (
    MENU_PROMPT,
    PER_WRITE_STAGES,
    ROOT,
    STAGES,
    UPDATE,
    CallerGone,
    ProcessSample,
    ServerProcess,
    TelnetCaller,
    choose_play,
    default_level,
    fresh_deal,
    leave_finished_game,
    log_in,
    machine_busy_seconds,
    milliseconds,
    process_parts,
    roomy_config,
    sign_up,
    start_game,
)
from benchmarks.disk import commit_times
from benchmarks.slow_disk import NO_COMPILER, build_fsync_shim, slow_disk_environment
from door.engine import Game
from door.engine.status import Status

P99_RATIO_TARGET = 3.0
SLOW_DISK_P99_TARGET_MS = 60.0
KB_OVER_BARE_TARGET = 40.0
PASSWORD = "load-secret"
COMMAND_TIMEOUT = 60.0  # seconds for one board update; a miss counts as an error
PHASE_TIMEOUT = 900.0  # seconds any phase may take before the run is abandoned
BARE_ARRIVAL = 200.0  # callers per second reaching the bare server: it has no login to pay for
SAMPLE_EVERY = 0.25  # seconds between readings of the server's memory
CHEAP_LOG2_N = 10  # scrypt's cost with --cheap-hashes: 2**10, a millisecond or so a hash

# Runs the door with its password hashes made and checked at scrypt's CHEAP_LOG2_N rather
# than the door's own cost, so that thousands of callers sign up in seconds, not minutes.
CHEAP_HASHES = r"""
import runpy, sys
from door.store import accounts
accounts._LOG2_N = int(sys.argv.pop(1))
accounts.hash_password.__kwdefaults__["log2_n"] = accounts._LOG2_N
sys.argv[0] = "door"
runpy.run_module("door", run_name="__main__", alter_sys=True)
"""


@dataclass(frozen=True)
class Plan:
    """What one client process does."""

    mode: str  # "door" or "bare"
    port: int
    first: int  # callers are load<first> ... load<first + count - 1>
    count: int
    interval: float
    duration: float
    arrival: float  # callers per second this process connects
    seed: int
    web_port: int = 0  # the door's web port, for callers load0 ... load<web_callers - 1>
    web_callers: int = 0
    log_in_again: bool = True
    idle: int = 0  # of ``count``, the last ones only sign up and stay at the main menu


@dataclass
class Seat:
    """One simulated caller and what it measured."""

    number: int
    rng: random.Random
    caller: TelnetCaller | None = None
    game: Game | None = None
    latencies: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # the clock's time of each play sent
    received: int = 0
    new_deals: int = 0
    web: bool = False  # comes by WebSocket rather than telnet
    idle: bool = False  # stays at the main menu (the bare server's: connected) and plays none

    @property
    def alias(self) -> str:
        return f"load{self.number}"

    @property
    def source(self) -> str:
        """The caller's own address (127.1.0.1 on): the door checks one password at a time
        an address, so that callers sharing one would sign up one after another."""
        return f"127.1.{self.number // 250}.{1 + self.number % 250}"

    async def connect(self, plan: Plan) -> TelnetCaller:
        if self.web:
            return await TelnetCaller.connect_web(plan.web_port)
        return await TelnetCaller.connect(plan.port, source=self.source)


@dataclass
class Tally:
    """What a client process reports after each phase."""

    set_up: list[float] = field(default_factory=list)  # seconds, password again -> menu
    log_in: list[float] = field(default_factory=list)  # seconds, password -> menu
    latencies: list[float] = field(default_factory=list)  # seconds per play
    sent_at: list[float] = field(default_factory=list)  # when each was sent (time.time())
    web_latencies: list[float] = field(default_factory=list)  # of those, the web callers'
    received: int = 0
    new_deals: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    cpu_seconds: float = 0.0

    def message(self) -> dict[str, Any]:
        """The tally as plain data, to send to the main process."""
        return {**asdict(self), "errors": dict(self.errors)}


# -- the client side ----------------------------------------------------------------------------


def _error(tally: Tally, phase: str, error: BaseException) -> None:
    tally.errors[f"{phase}: {type(error).__name__}"] += 1


async def _set_up(plan: Plan, seat: Seat, delay: float, tally: Tally) -> None:
    await asyncio.sleep(delay)
    level = default_level()
    try:
        seat.caller = await seat.connect(plan)
        if plan.mode == "door":
            tally.set_up.append(await sign_up(seat.caller, seat.alias, PASSWORD))
            if not seat.idle:
                seat.game = await start_game(seat.caller, level, seat.rng)
        else:
            await seat.caller.ask(b"hello\r\n", b"\n")
            if not seat.idle:
                seat.game = fresh_deal(level, seat.rng)
    except (OSError, TimeoutError, CallerGone, RuntimeError) as error:
        _error(tally, "set-up", error)
        seat.game = None


async def _play(plan: Plan, seat: Seat, start_at: float, tally: Tally) -> None:
    """Send plays until the duration is over; each one timed to its complete update."""
    caller, game = seat.caller, seat.game
    if caller is None or game is None:
        return
    level = default_level()
    pattern = UPDATE if plan.mode == "door" else b"\n"
    next_at = start_at + seat.rng.uniform(0, plan.interval)
    ends = start_at + plan.duration
    try:
        while next_at < ends:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            command = choose_play(game, seat.rng)
            game.play(command)
            before = caller.received
            seat.sent_at.append(time.time())  # one clock for every client process
            seat.latencies.append(
                await caller.ask(command.encode() + b"\r\n", pattern, COMMAND_TIMEOUT)
            )
            seat.received += caller.received - before
            if game.status != Status.PLAYING:
                seat.new_deals += 1
                if plan.mode == "door":
                    await leave_finished_game(caller)
                    game = await start_game(caller, level, seat.rng)
                else:
                    game = fresh_deal(level, seat.rng)
            next_at += plan.interval * seat.rng.uniform(0.5, 1.5)
    except (OSError, TimeoutError, CallerGone, RuntimeError) as error:
        _error(tally, "play", error)
        seat.game = None
    else:
        seat.game = game


async def _call_again(plan: Plan, seat: Seat, delay: float, tally: Tally) -> None:
    """Save and leave (Q, G), then call again and log in (timed), and leave."""
    caller = seat.caller
    try:
        if caller is not None and seat.game is not None:
            await caller.ask(b"Q\r\n", MENU_PROMPT)
            caller.send(b"G")
            await caller.wait_closed()
        await asyncio.sleep(delay)
        seat.caller = caller = await seat.connect(plan)
        tally.log_in.append(await log_in(caller, seat.alias, PASSWORD))
        caller.send(b"G")
        await caller.wait_closed()
    except (OSError, TimeoutError, CallerGone) as error:
        _error(tally, "log-in", error)


def _wait(event: Any) -> None:
    if not event.wait(PHASE_TIMEOUT):
        raise TimeoutError("the benchmark's main process gave no signal")


async def _run_client(plan: Plan, report: Any, play: Any, again: Any, start_at: Any) -> None:
    loop = asyncio.get_running_loop()
    seats = [
        Seat(
            plan.first + i,
            random.Random(plan.seed * 100_003 + plan.first + i),
            web=plan.first + i < plan.web_callers,
            idle=i >= plan.count - plan.idle,
        )
        for i in range(plan.count)
    ]
    tally = Tally()
    await asyncio.gather(
        *(_set_up(plan, seat, i / plan.arrival, tally) for i, seat in enumerate(seats))
    )
    report.put(("ready", tally.message()))
    await loop.run_in_executor(None, _wait, play)
    tally = Tally()
    cpu = _cpu_seconds()
    # As timeit does, the collector is held off while plays are timed: a pass over this
    # process's own callers (10 ms and more at 1,000) would count against whichever server
    # is loaded. What set-up made is put aside; little else lives through a play.
    gc.freeze()
    gc.disable()
    try:
        await asyncio.gather(*(_play(plan, seat, start_at.value, tally) for seat in seats))
    finally:
        gc.enable()
        gc.unfreeze()
    tally.cpu_seconds = _cpu_seconds() - cpu
    for seat in seats:
        tally.latencies += seat.latencies
        tally.sent_at += seat.sent_at
        if seat.web:
            tally.web_latencies += seat.latencies
        tally.received += seat.received
        tally.new_deals += seat.new_deals
    report.put(("played", tally.message()))
    if plan.mode == "door" and plan.log_in_again:
        await loop.run_in_executor(None, _wait, again)
        tally = Tally()
        players = [seat for seat in seats if not seat.idle]
        await asyncio.gather(
            *(_call_again(plan, seat, i / plan.arrival, tally) for i, seat in enumerate(players))
        )
        report.put(("logged in", tally.message()))
    for seat in seats:
        if seat.caller is not None:
            seat.caller.hang_up()


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def client_process(plan: Plan, report: Any, play: Any, again: Any, start_at: Any) -> None:
    """A client process's body: its share of the callers, from set-up to log-in."""
    try:
        asyncio.run(_run_client(plan, report, play, again, start_at))
    except BaseException:
        report.put(("failed", traceback.format_exc()))
        raise


# -- the bare server ----------------------------------------------------------------------------


async def _echo_shell(reader: Any, writer: Any) -> None:
    """Echo each line back, and nothing else."""
    pending = b""
    while data := await reader.read(512):
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            writer.write(line.rstrip(b"\r") + b"\r\n")
            await writer.drain()
    writer.close()


async def _bare_server() -> None:
    import telnetlib3

    server = await telnetlib3.create_server(
        host="127.0.0.1",
        port=0,
        shell=_echo_shell,
        encoding=False,
        force_binary=True,  # as the door's listener is set up
        connect_maxwait=2.0,
        timeout=0,
        compression=False,
    )
    port = server.sockets[0].getsockname()[1]
    print(f"bare telnet server listening on 127.0.0.1 port {port}", file=sys.stderr, flush=True)
    await asyncio.Event().wait()


# -- the main process ---------------------------------------------------------------------------


@dataclass
class Readings:
    """The server's memory over a run, by phase, and its CPU time at the phase boundaries."""

    idle: ProcessSample
    peak_rss_by_phase: dict[str, int] = field(default_factory=dict)
    #: The sum of the server's processes' PSS at its peak, by phase.
    peak_pss_by_phase: dict[str, int] = field(default_factory=dict)
    at: dict[str, ProcessSample] = field(default_factory=dict)  # by phase boundary

    def take(self, server: ServerProcess, phase: str) -> ProcessSample:
        sample = server.sample()
        self.peak_rss_by_phase[phase] = max(self.peak_rss_by_phase.get(phase, 0), sample.rss_kb)
        self.peak_pss_by_phase[phase] = max(
            self.peak_pss_by_phase.get(phase, 0), sample.tree_pss_kb
        )
        return sample


def _collect(
    report: Any, kind: str, processes: int, server: ServerProcess, readings: Readings
) -> list[dict[str, Any]]:
    """Wait for every client process's ``kind`` report, reading the server meanwhile."""
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + PHASE_TIMEOUT
    while len(got) < processes:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {kind!r} report within {PHASE_TIMEOUT} s")
        readings.take(server, kind)
        try:
            message, body = report.get(timeout=SAMPLE_EVERY)
        except queue_module.Empty:
            continue
        if message == "failed":
            raise RuntimeError(f"a client process failed: {body}")
        if message != kind:
            raise RuntimeError(f"expected {kind!r} from a client process, got {message!r}")
        got.append(body)
    return got


def _merge(bodies: list[dict[str, Any]]) -> Tally:
    tally = Tally()
    for body in bodies:
        tally.set_up += body["set_up"]
        tally.log_in += body["log_in"]
        tally.latencies += body["latencies"]
        tally.sent_at += body["sent_at"]
        tally.web_latencies += body["web_latencies"]
        tally.received += body["received"]
        tally.new_deals += body["new_deals"]
        tally.errors.update(body["errors"])
        tally.cpu_seconds += body["cpu_seconds"]
    return tally


def _plans(
    mode: str, port: int, callers: int, args: argparse.Namespace, web_port: int = 0
) -> list[Plan]:
    processes = max(1, min(args.client_processes, callers))
    arrival = args.arrival if mode == "door" else max(args.arrival, BARE_ARRIVAL)
    share, extra = divmod(callers, processes)
    idle_share, idle_extra = divmod(args.idle, processes)
    plans, first = [], 0
    for index in range(processes):
        idle = idle_share + (index < idle_extra)
        count = share + (index < extra) + idle
        plans.append(
            Plan(
                mode,
                port,
                first,
                count,
                args.interval,
                args.duration,
                arrival / processes,
                args.seed + index,
                web_port,
                min(args.web, callers) if mode == "door" and web_port else 0,
                args.log_in_again,
                idle,
            )
        )
        first += count
    return plans


def _average_between(
    counts_at: dict[str, tuple[int, int]],
    average_ms_at: dict[str, float | None],
    per: Literal["commit", "write"] = "commit",
) -> float | None:
    """The average, in ms a commit (or a ``per="write"``), while everyone played, of what
    the door logged as averages since start before and after (None if it logs none)."""
    before, after = average_ms_at.get("play"), average_ms_at.get("played")
    if before is None or after is None:
        return None
    index = 0 if per == "write" else 1
    count_before, count_after = counts_at["play"][index], counts_at["played"][index]
    if count_after == count_before:
        return None
    total = after * count_after - before * count_before
    return round(total / (count_after - count_before), 2)


def _stages_between(
    counts_at: dict[str, tuple[int, int]], stages_at: dict[str, dict[str, float | None] | None]
) -> dict[str, float | None]:
    """Where the commits' time went while everyone played (see :data:`callers.STAGES`): ms
    a write queued and waited for its caller to run, and ms a commit for the rest."""
    return {
        stage: _average_between(
            counts_at,
            {phase: None if at is None else at[stage] for phase, at in stages_at.items()},
            "write" if stage in PER_WRITE_STAGES else "commit",
        )
        for stage in STAGES
    }


def _profile(server: ServerProcess, output: Path, seconds: float) -> subprocess.Popen[bytes]:
    """Sample the server's stacks with py-spy while everyone plays (collapsed stacks): the
    thread holding the GIL, where the server's Python time goes, 200 times a second. Each
    sample pauses the server a moment (its latencies in that run are not its own); sampled
    without pausing, most stacks come out torn. A door of several workers is sampled whole:
    the front and every worker, each stack under its process's id."""
    output.parent.mkdir(parents=True, exist_ok=True)
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    command = [spy, "record", "--pid", str(server.pid), "--duration", str(int(seconds))]
    if server.workers > 1:
        command.append("--subprocesses")
    command += ["--format", "raw", "--output", str(output), "--gil", "--rate", "200"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@dataclass(frozen=True)
class Revision:
    """The door's source at another git revision, extracted into a folder of its own."""

    name: str  # door@<short commit>
    root: Path
    # Whether that door logs its store's counts on SIGUSR1; one without a handler would die.
    tells_store_counts: bool


def extract_revision(ref: str, into: Path) -> Revision:
    """``git archive`` the door at ``ref`` into a folder under ``into``."""

    def git(*words: str) -> bytes:
        return subprocess.run(["git", *words], cwd=ROOT, check=True, capture_output=True).stdout

    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}").decode().strip()
    root = into / f"door-{commit[:12]}"
    root.mkdir(parents=True)
    with tempfile.TemporaryFile() as archive:
        archive.write(git("archive", "--format=tar", commit))
        archive.seek(0)
        subprocess.run(["tar", "-x", "-C", str(root)], stdin=archive, check=True)
    sources = (path.read_text(encoding="utf-8") for path in (root / "door").rglob("*.py"))
    tells = any("SIGUSR1" in text for text in sources)
    return Revision(f"door@{commit[:7]}", root, tells)


def run_case(
    mode: str,
    callers: int,
    args: argparse.Namespace,
    folder: Path,
    slow_disk: dict[str, str] | None = None,
    revision: Revision | None = None,
    door_workers: int = 1,
) -> dict[str, Any]:
    """One run: a fresh server, ``callers`` callers through every phase; the figures.

    ``slow_disk``: the door's environment that slows its fsyncs, if any; ``revision``: the
    door at another revision instead of this checkout's; ``door_workers``: the door's workers
    (1: one process)."""
    name = mode if revision is None else revision.name
    name = name if door_workers == 1 else f"{name} x{door_workers}"
    name = name if slow_disk is None else f"{name}+{args.fsync_delay_ms:g}ms"
    folder.mkdir(parents=True, exist_ok=True)
    if mode == "door":
        root = ROOT if revision is None else revision.root
        config = roomy_config(
            folder, callers + args.idle, shipped=root / "sysop.toml", workers=door_workers
        )
        launcher = ["-c", CHEAP_HASHES, str(CHEAP_LOG2_N)] if args.cheap_hashes else None
        server = ServerProcess.door(
            config,
            folder / "door.db",
            folder / "door.log",
            slow_disk,
            root,
            launcher=launcher,
            workers=door_workers,
        )
    else:
        command = [sys.executable, "-m", "benchmarks.load", "--bare-server"]
        server = ServerProcess.start(command, folder / "bare.log")
    context = multiprocessing.get_context("spawn")
    report = context.Queue()
    play, again = context.Event(), context.Event()
    start_at = context.Value("d", 0.0)
    workers = []
    profiler: subprocess.Popen[bytes] | None = None
    counts_at: dict[str, tuple[int, int]] = {}
    commit_ms_at: dict[str, float | None] = {}  # the average commit time since start
    stages_at: dict[str, dict[str, float | None] | None] = {}  # and where it went
    collector: dict[str, float] | None = None  # its passes while everyone played
    tells_store_counts = mode == "door" and (revision is None or revision.tells_store_counts)
    try:
        time.sleep(1.0)
        readings = Readings(idle=server.sample())
        started = time.monotonic()
        web_port = server.web_port() if mode == "door" and args.web else 0
        for plan in _plans(mode, server.port, callers, args, web_port):
            worker = context.Process(
                target=client_process, args=(plan, report, play, again, start_at), daemon=True
            )
            worker.start()
            workers.append(worker)
        set_up = _merge(_collect(report, "ready", len(workers), server, readings))
        set_up_seconds = time.monotonic() - started
        start_at.value = time.monotonic() + 1.0
        play.set()
        if args.profile is not None:
            profiler = _profile(server, args.profile / f"{name}-{callers}.txt", args.duration)
        while time.monotonic() < start_at.value:
            time.sleep(0.01)
        readings.at["play"] = readings.take(server, "ready")
        parts_at_play = process_parts(server.pid)
        machine_at_play = machine_busy_seconds()
        if tells_store_counts:
            counts_at["play"] = server.store_counts()
            commit_ms_at["play"] = server.commit_average_ms()
            stages_at["play"] = server.commit_stages_ms()
        played = _merge(_collect(report, "played", len(workers), server, readings))
        readings.at["played"] = readings.take(server, "played")
        parts_at_played = process_parts(server.pid)
        if tells_store_counts:
            counts_at["played"] = server.store_counts()
            commit_ms_at["played"] = server.commit_average_ms()
            stages_at["played"] = server.commit_stages_ms()
            collector = server.collector_passes()
        machine_busy = machine_busy_seconds() - machine_at_play
        logged_in = Tally()
        if mode == "door" and args.log_in_again:
            again.set()
            logged_in = _merge(_collect(report, "logged in", len(workers), server, readings))
        final = server.sample()
    finally:
        if profiler is not None:
            profiler.wait(args.duration + 30)
        server.stop()
        for worker in workers:
            worker.join(30)
            if worker.is_alive():
                worker.kill()
    at_play, at_played = readings.at["play"], readings.at["played"]
    tree_cpu = at_played.tree_cpu_seconds - at_play.tree_cpu_seconds
    play_cpu = at_played.cpu_seconds - at_play.cpu_seconds
    loop_cpu = at_played.main_thread_cpu_seconds - at_play.main_thread_cpu_seconds
    play_seconds = args.duration  # the played phase runs a little longer: in-flight plays
    commands = len(played.latencies)
    rise_kb = readings.peak_rss_by_phase.get("played", 0) - readings.idle.rss_kb
    writes = commits = 0
    if counts_at:
        writes = counts_at["played"][0] - counts_at["play"][0]
        commits = counts_at["played"][1] - counts_at["play"][1]
    commit_ms = _average_between(counts_at, commit_ms_at)
    cpu_at_play = {part.pid: part.cpu_seconds for part in parts_at_play}
    each_process = [
        {
            "role": part.role,
            "pss_kb": part.pss_kb,
            "cpu_ms_per_command": round(
                1000 * (part.cpu_seconds - cpu_at_play.get(part.pid, 0.0)) / max(commands, 1), 3
            ),
        }
        for part in parts_at_played
    ]
    return {
        "server": name,
        "workers": door_workers,
        "processes": readings.at["played"].processes,
        # Each process as everyone stopped playing: its role, PSS, and CPU a play.
        "each_process": each_process,
        # Every process of the server (a front and its workers, the solver's), added up.
        "pss_idle_kb": readings.idle.tree_pss_kb,
        "pss_playing_kb": readings.peak_pss_by_phase.get("played", 0),
        "cpu_ms_per_command": round(1000 * tree_cpu / commands, 3) if commands else 0.0,
        "fsync_delay_ms": 0.0 if slow_disk is None else args.fsync_delay_ms,
        # The store's commits while everyone played (the phase runs a little over duration).
        "commits": commits,
        "writes": writes,
        "commits_per_second": round(commits / play_seconds, 1),
        "collector": collector,
        "writes_per_commit": round(writes / commits, 2) if commits else 0.0,
        # From taking the write lock to the loop's answer: the disk, and the thread's turns.
        "commit_ms_average": commit_ms,
        # Where that went, and a write's wait for its commit to begin (see callers.STAGES).
        "commit_stages_ms": _stages_between(counts_at, stages_at) if stages_at else {},
        "callers": callers,
        # Callers connected: those playing, and those idle at the main menu (--idle).
        "connected": callers + args.idle,
        "client_processes": len(workers),
        "commands": commands,
        "commands_per_second": round(commands / play_seconds, 1),
        "latency_ms": milliseconds(played.latencies),
        "slowest": slowest_episodes(played.sent_at, played.latencies),
        "web_callers": min(args.web, callers) if mode == "door" else 0,
        "web_latency_ms": milliseconds(played.web_latencies),
        "bytes_per_command": round(played.received / commands, 1) if commands else 0,
        "sign_up_ms": milliseconds(set_up.set_up),
        "log_in_ms": milliseconds(logged_in.log_in),
        "set_up_seconds": round(set_up_seconds, 1),
        "new_deals": played.new_deals,
        "errors": dict(set_up.errors + played.errors + logged_in.errors),
        "server_idle_rss_kb": readings.idle.rss_kb,
        "server_rss_playing_kb": readings.peak_rss_by_phase.get("played", 0),
        "server_peak_rss_kb": final.peak_rss_kb,
        "kb_per_caller": round(rise_kb / (callers + args.idle), 1),
        "server_cpu_seconds_playing": round(play_cpu, 2),
        "server_cpu_share_playing": round(play_cpu / play_seconds, 3),
        "server_cpu_seconds_total": round(final.cpu_seconds, 2),
        # The event loop's CPU a play: the work each play puts on the one thread every
        # caller waits on, which the loop's queue (and the p99) grows with.
        "loop_cpu_ms_per_command": round(1000 * loop_cpu / commands, 3) if commands else 0.0,
        "client_cpu_seconds_playing": round(played.cpu_seconds, 2),
        "client_cpu_share_playing": round(played.cpu_seconds / play_seconds, 3),
        # Cores busy with anything else while playing (the solver's workers, other programs).
        "other_cpu_share_playing": round(
            (machine_busy - play_cpu - played.cpu_seconds) / play_seconds, 3
        ),
    }


# Slow plays sent closer together than this are taken to have waited on one hold-up.
EPISODE_GAP = 0.05


def slowest_episodes(
    sent_at: list[float], latencies: list[float], share: float = 0.01
) -> dict[str, Any]:
    """The slowest ``share`` of the plays, grouped by when they were sent: runs of them less
    than :data:`EPISODE_GAP` apart are one episode (the server, or the machine, held up
    everyone at once). A p99 set by a few episodes is set by hold-ups (a collector's pass, a
    slow disk), not by each play's own work.

    >>> slowest_episodes([0.0, 0.01, 0.02, 5.0], [0.009, 0.009, 0.001, 0.008], share=0.75)
    {'plays': 3, 'episodes': 2, 'largest_three_hold': 1.0}
    """
    count = max(1, round(len(latencies) * share)) if latencies else 0
    slowest = sorted(
        sorted(zip(latencies, sent_at, strict=True), reverse=True)[:count],
        key=lambda played: played[1],
    )
    sizes: list[int] = []
    last = None
    for _, sent in slowest:
        if last is None or sent - last >= EPISODE_GAP:
            sizes.append(0)
        sizes[-1] += 1
        last = sent
    sizes.sort(reverse=True)
    held = sum(sizes[:3]) / count if count else 0.0
    return {"plays": count, "episodes": len(sizes), "largest_three_hold": round(held, 2)}


def _row(case: dict[str, Any]) -> str:
    latency = case["latency_ms"]
    return (
        f"{case['server']:<14}{case['callers']:>6}{case['commands']:>8}"
        f"{case['commands_per_second']:>8.1f}{latency['p50']:>8.1f}{latency['p95']:>8.1f}"
        f"{latency['p99']:>8.1f}{latency['max']:>9.1f}{case['bytes_per_command']:>7.0f}"
        f"{case['server_rss_playing_kb'] / 1024:>8.1f}{case['kb_per_caller']:>7.1f}"
        f"{case['server_cpu_share_playing']:>7.2f}{case['loop_cpu_ms_per_command']:>7.2f}"
        f"{case['client_cpu_share_playing']:>7.2f}{case['other_cpu_share_playing']:>7.2f}"
        f"{sum(case['errors'].values()):>5}"
    )


HEADER = (
    f"{'':<14}{'calls':>6}{'cmds':>8}{'cmd/s':>8}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>9}"
    f"{'B/cmd':>7}{'RSS MB':>8}{'KB/cl':>7}{'srvCPU':>7}{'loopms':>7}{'cliCPU':>7}{'other':>7}"
    f"{'err':>5}"
)


def _print_rounds(name: str, case: dict[str, Any], digits: int = 1) -> None:
    """A row's p99 in each round, and its event loop's CPU a play, when there were several
    (``--rounds``)."""
    rounds = case.get("p99_by_round_ms", ())
    if len(rounds) > 1:
        each = ", ".join(f"{p99:.{digits}f}" for p99 in rounds)
        loop = case.get("loop_cpu_ms_by_round", ())
        loop_each = f"; loop ms a play: {', '.join(f'{ms:.2f}' for ms in loop)}" if loop else ""
        print(f"{name:<14}{case['callers']:>6}  p99 by round: {each}{loop_each}")


def print_summary(runs: list[dict[str, Any]]) -> None:
    print(
        "latency in ms per play; RSS while playing; CPU: cores busy while playing, for the"
        " server, the callers, and anything else on the machine; loopms: the CPU a play cost"
        " the server's event loop, in ms"
    )
    print(HEADER)
    for run in runs:
        rows = (run["door"], *run.get("slow", ()), *run.get("compare", ()), *run.get("workers", ()))
        for case in (*rows, run["bare"]):
            print(_row(case))
    for run in runs:
        for case in (run["door"], *run.get("slow", ()), *run.get("compare", ()), run["bare"]):
            _print_rounds(case["server"], case)
    for run in runs:
        for case in (run["door"], *run.get("slow", ())):
            if case["web_callers"]:
                web = case["web_latency_ms"]
                print(
                    f"{case['server']:<10} of its {case['callers']} callers, "
                    f"{case['web_callers']} by WebSocket: p50 {web['p50']:.1f}, "
                    f"p95 {web['p95']:.1f}, p99 {web['p99']:.1f}, max {web['max']:.1f} ms"
                )
    print()
    print(
        "the slowest 1% of plays, by when they were sent (those sent less than"
        f" {1000 * EPISODE_GAP:.0f} ms apart: one episode, a hold-up that met them all)"
    )
    print(f"{'':<14}{'calls':>6}{'plays':>7}{'episodes':>10}{'in the largest three':>22}")
    for run in runs:
        for case in (run["door"], *run.get("slow", ()), *run.get("compare", ()), run["bare"]):
            slowest = case["slowest"]
            print(
                f"{case['server']:<14}{case['callers']:>6}{slowest['plays']:>7}"
                f"{slowest['episodes']:>10}{slowest['largest_three_hold']:>21.0%}"
            )
    print()
    print("the store's commits while everyone played (writes: plays, and deals after a game);")
    print(
        "in ms: a write queued for its commit to begin; a commit in all, and its COMMIT's wait"
        " for the writer's thread, time there (the fsync, and the GIL back), way back; once"
        " answered, a write's wait for the loop to run its caller (behind its group's boards)"
    )
    print(
        f"{'':<14}{'calls':>6}{'writes':>8}{'commits':>9}{'commit/s':>10}{'writes/commit':>15}"
        f"{'queued':>8}{'ms/commit':>11}{'to thread':>11}{'in thread':>11}{'back':>7}"
        f"{'to caller':>11}"
    )

    def ms(value: float | None, width: int) -> str:
        return f"{value:>{width}.2f}" if value is not None else f"{'':>{width}}"

    for run in runs:
        rows = (run["door"], *run.get("slow", ()), *run.get("compare", ()), *run.get("workers", ()))
        for case in rows:
            stages = case.get("commit_stages_ms") or dict.fromkeys(STAGES)
            print(
                f"{case['server']:<14}{case['callers']:>6}{case['writes']:>8}{case['commits']:>9}"
                f"{case['commits_per_second']:>10.1f}{case['writes_per_commit']:>15.2f}"
                f"{ms(stages['queued'], 8)}{ms(case.get('commit_ms_average'), 11)}"
                f"{ms(stages['to_thread'], 11)}{ms(stages['in_thread'], 11)}"
                f"{ms(stages['back'], 7)}{ms(stages.get('to_caller'), 11)}"
            )
    print()
    print("the disk alone (benchmarks/disk.py), at the door's commit rate: a commit, in ms")
    print(
        f"{'':<14}{'calls':>6}{'commits':>9}{'commit/s':>10}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>9}"
    )
    for run in runs:
        disk = run["disk"]
        took = disk["commit_ms"]
        print(
            f"{'disk':<14}{disk['callers']:>6}{disk['commits']:>9}{disk['rate']:>10.1f}"
            f"{took['p50']:>8.2f}{took['p95']:>8.2f}{took['p99']:>8.2f}{took['max']:>9.1f}"
        )
        _print_rounds("disk", disk, digits=2)
    print()
    print("the garbage collector's passes while everyone played (each holds every game)")
    print(
        f"{'':<14}{'calls':>6}{'young':>8}{'longest ms':>12}{'middle':>8}{'longest ms':>12}"
        f"{'full':>6}{'longest ms':>12}"
    )
    for run in runs:
        rows = (run["door"], *run.get("slow", ()), *run.get("compare", ()), *run.get("workers", ()))
        for case in rows:
            passes = case["collector"]
            if passes is None:
                print(f"{case['server']:<14}{case['callers']:>6}  (not logged by this door)")
                continue
            print(
                f"{case['server']:<14}{case['callers']:>6}{passes['young']:>8}"
                f"{passes['young_longest_ms']:>12.1f}{passes['middle']:>8}"
                f"{passes['middle_longest_ms']:>12.1f}{passes['full']:>6}"
                f"{passes['full_longest_ms']:>12.1f}"
            )
    print()
    print(
        f"{'':<14}{'calls':>6}{'p99 ratio':>11}{'sign-up p50/p99 ms':>22}"
        f"{'log-in p50/p99 ms':>21}{'peak RSS MB':>13}{'KB/cl over bare':>17}  verdict"
    )
    for run in runs:
        judged_cases = [(run["door"], run["verdict"]), *run.get("slow_verdicts", ())]
        judged_cases += [(case, "") for case in run.get("compare", ())]
        for case, judged in judged_cases:
            sign, login = case["sign_up_ms"], case["log_in_ms"]
            ratio = case["latency_ms"]["p99"] / max(run["bare"]["latency_ms"]["p99"], 1e-3)
            print(
                f"{case['server']:<14}{case['callers']:>6}{ratio:>11.2f}"
                f"{sign['p50']:>11.0f} /{sign['p99']:>8.0f}"
                f"{login['p50']:>10.0f} /{login['p99']:>8.0f}"
                f"{case['server_peak_rss_kb'] / 1024:>13.1f}"
                f"{kb_over_bare(case, run['bare']):>17.1f}  {judged}"
            )
            if case["errors"]:
                print(f"{'':>16}errors: {case['errors']}")
        if run["bare"]["errors"]:
            print(f"{'':>16}errors: bare {run['bare']['errors']}")


def kb_over_bare(door: dict[str, Any], bare: dict[str, Any]) -> float:
    """The door's memory a caller above the bare server's, both at their peak while playing
    (a caller: each one connected, playing or idle)."""
    return (door["server_rss_playing_kb"] - bare["server_rss_playing_kb"]) / connected(door)


def connected(case: dict[str, Any]) -> int:
    """Callers connected while everyone played: those playing, and those idle (--idle)."""
    return int(case.get("connected", case["callers"]))


def verdict(
    door: dict[str, Any], bare: dict[str, Any], ratio: float, compared: list[dict[str, Any]]
) -> str:
    misses = []
    if ratio > P99_RATIO_TARGET:
        misses.append(f"p99 {ratio:.1f}x bare")
    for other in compared:
        if other["workers"] != door["workers"]:
            continue  # a door of several workers is judged beside the one of as many
        if door["latency_ms"]["p99"] > other["latency_ms"]["p99"]:
            misses.append(f"p99 above {other['server']}'s")
    if kb_over_bare(door, bare) > KB_OVER_BARE_TARGET:
        misses.append(f"{kb_over_bare(door, bare):.0f} KB a caller over bare")
    if door["errors"]:
        misses.append("errors")
    return "meets targets" if not misses else "misses: " + ", ".join(misses)


def workers_verdict(several: dict[str, Any], door: dict[str, Any], bare: dict[str, Any]) -> str:
    """The door of several workers against the bare server and the door of one: p99 at
    most :data:`P99_RATIO_TARGET` times the bare server's and at most the one-process
    door's; CPU a play no more than its; at most :data:`KB_OVER_BARE_TARGET` of memory a
    caller (every process's PSS, added up) above the bare server's; no errors."""
    misses = []
    p99 = several["latency_ms"]["p99"]
    if p99 > P99_RATIO_TARGET * bare["latency_ms"]["p99"]:
        misses.append(f"p99 {p99 / max(bare['latency_ms']['p99'], 1e-3):.1f}x bare")
    if p99 > door["latency_ms"]["p99"]:
        misses.append("p99 above one worker's")
    if several["cpu_ms_per_command"] > door["cpu_ms_per_command"]:
        misses.append("more CPU a play than one worker")
    if pss_kb_over_bare(several, bare) > KB_OVER_BARE_TARGET:
        misses.append(f"{pss_kb_over_bare(several, bare):.0f} KB a caller over bare")
    if several["errors"]:
        misses.append("errors")
    return "meets targets" if not misses else "misses: " + ", ".join(misses)


def pss_kb_over_bare(case: dict[str, Any], bare: dict[str, Any]) -> float:
    """Memory a caller above the bare server's, as :func:`kb_over_bare` counts it, by every
    process's PSS at its peak while playing, added up."""
    return (case["pss_playing_kb"] - bare["pss_playing_kb"]) / max(connected(case), 1)


def print_workers(runs: list[dict[str, Any]]) -> None:
    """The doors of one worker and of several beside the bare server, by every process: in
    all, each worker's fixed cost, and each process apart."""
    if not any(
        run.get("workers") or run["door"].get("connected", 0) > run["door"]["callers"]
        for run in runs
    ):
        return
    print()
    print(
        "every process of the server added up (a front and its workers, the solver's): PSS"
        " idle and while playing, memory a caller (playing or idle) over bare, CPU a play"
    )
    print(
        f"{'':<14}{'calls':>6}{'idle':>6}{'procs':>6}{'p99':>8}{'PSS idle MB':>13}"
        f"{'PSS play MB':>13}{'KB/cl over bare':>17}{'CPU ms/play':>13}  verdict"
    )
    for run in runs:
        several = [*run.get("workers", ()), *run.get("compare", ())]
        for case in (run["door"], *several, run["bare"]):
            judged = run.get("workers_verdict", "") if case in run.get("workers", ()) else ""
            print(
                f"{case['server']:<14}{connected(case):>6}{connected(case) - case['callers']:>6}"
                f"{case['processes']:>6}"
                f"{case['latency_ms']['p99']:>8.1f}{case['pss_idle_kb'] / 1024:>13.1f}"
                f"{case['pss_playing_kb'] / 1024:>13.1f}"
                f"{pss_kb_over_bare(case, run['bare']):>17.1f}"
                f"{case['cpu_ms_per_command']:>13.3f}  {judged}"
            )
        for case in [case for case in several if case["workers"] > 1]:
            extra = case["workers"] - 1
            idle = (case["pss_idle_kb"] - run["door"]["pss_idle_kb"]) / extra / 1024
            playing = (case["pss_playing_kb"] - run["door"]["pss_playing_kb"]) / extra / 1024
            print(
                f"{case['server']:<14} each worker past the first (PSS over the one-process"
                f" door's): {idle:.1f} MB idle, {playing:.1f} MB while playing"
            )
        for case in (run["door"], *several):
            parts = ", ".join(
                f"{member['role']} {member['pss_kb'] / 1024:.1f} MB"
                f" {member['cpu_ms_per_command']:.3f} ms"
                for member in case.get("each_process", ())
            )
            print(f"{case['server']:<14} each process (PSS, CPU a play): {parts}")


def run_round(
    callers: int,
    args: argparse.Namespace,
    folder: Path,
    slow_disk: dict[str, str] | None,
    revisions: list[Revision],
) -> dict[str, Any]:
    """Every row once, ``callers`` callers each: the door, on the slow disk, the doors
    compared, the bare server; then the disk alone, at the door's commit rate."""
    door = run_case("door", callers, args, folder / "door")
    slow = run_case("door", callers, args, folder / "slow", slow_disk) if slow_disk else None
    # With several workers, a door compared is loaded with as many: the shape compared.
    compare = [
        run_case(
            "door", callers, args, folder / revision.root.name, None, revision, args.workers
        )
        for revision in revisions
    ]
    workers = (
        run_case("door", callers, args, folder / "workers", door_workers=args.workers)
        if args.workers > 1
        else None
    )
    bare = run_case("bare", callers, args, folder / "bare")
    rate = door["commits_per_second"] or callers / args.interval
    (folder / "disk").mkdir(parents=True, exist_ok=True)
    disk = commit_times(folder / "disk", rate, args.duration) | {"callers": callers}
    return {
        "door": door,
        "slow": slow,
        "compare": compare,
        "workers": workers,
        "bare": bare,
        "disk": disk,
    }


def middle_round(cases: list[dict[str, Any]], figures: str = "latency_ms") -> dict[str, Any]:
    """A row's round with the middle p99 of its ``figures`` (of two middle ones, the worse),
    and every round's p99 beside it: one round's p99 alone can be twice another's on the
    same server."""
    ordered = sorted(cases, key=lambda case: case[figures]["p99"])
    middle = dict(ordered[len(ordered) // 2])
    middle["p99_by_round_ms"] = [case[figures]["p99"] for case in cases]
    if "loop_cpu_ms_per_command" in middle:
        middle["loop_cpu_ms_by_round"] = [case["loop_cpu_ms_per_command"] for case in cases]
    return middle


def slow_disk_verdict(door: dict[str, Any]) -> str:
    misses = []
    if door["latency_ms"]["p99"] > SLOW_DISK_P99_TARGET_MS:
        misses.append(f"p99 {door['latency_ms']['p99']:.0f} ms > {SLOW_DISK_P99_TARGET_MS:.0f}")
    if door["errors"]:
        misses.append("errors")
    return "meets targets" if not misses else "misses: " + ", ".join(misses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callers", type=int, nargs="+", default=[100, 500, 1000])
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between plays")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    parser.add_argument("--arrival", type=float, default=5.0, help="callers connecting a second")
    parser.add_argument("--client-processes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="also load the door with N workers (a front process and N workers, telnet"
        " alone), beside the door of one process",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="load every row this many times, in turn; each row shows its middle round"
        " (an odd number has one; of two, the worse is shown)",
    )
    parser.add_argument(
        "--web",
        type=int,
        default=0,
        metavar="N",
        help="of the door's callers, N come by the web's WebSocket (telnet over WebSocket)",
    )
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/load.json"))
    parser.add_argument(
        "--profile", type=Path, metavar="DIR", help="py-spy the servers into DIR while playing"
    )
    parser.add_argument(
        "--fsync-delay-ms",
        type=float,
        metavar="N",
        help="also run the door with every fsync N ms slower (an LD_PRELOAD library)",
    )
    parser.add_argument(
        "--compare",
        metavar="REF",
        action="append",
        default=[],
        help="also load the door at this git revision, in the same run (repeatable); with"
        " --workers N, that door of N workers",
    )
    parser.add_argument(
        "--log-in-again",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="after playing, every caller saves, leaves and logs in again, timed (on by"
        " default; each log-in is a scrypt hash, minutes of CPU for a thousand callers)",
    )
    parser.add_argument(
        "--idle",
        type=int,
        default=0,
        metavar="N",
        help="N callers more, who sign up and stay at the main menu while the others play"
        " (the bare server's: connected); memory a caller counts them too",
    )
    parser.add_argument(
        "--cheap-hashes",
        action="store_true",
        help=f"the door hashes passwords at scrypt's 2**{CHEAP_LOG2_N} rather than its own"
        " cost, so that thousands sign up in seconds (the sign-up figures are not the door's"
        " then; what a play costs is the same)",
    )
    parser.add_argument("--bare-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    # Each caller is a socket in its client process and one in the server (these inherit it).
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.bare_server:
        logging.basicConfig(level=logging.WARNING)
        asyncio.run(_bare_server())
        return
    runs = []
    with tempfile.TemporaryDirectory(prefix="door-load-") as temporary:
        slow_disk = None
        if args.fsync_delay_ms is not None:
            library = build_fsync_shim(Path(temporary))
            if library is None:
                print(f"{NO_COMPILER}; the slow-disk runs are skipped", file=sys.stderr)
            else:
                slow_disk = slow_disk_environment(library, args.fsync_delay_ms)
        revisions = [extract_revision(ref, Path(temporary) / "revisions") for ref in args.compare]
        for callers in args.callers:
            # Every row once a round, the rounds one after the other: the machine's drift
            # (its neighbours, its disk) falls on each row alike.
            rounds = [
                run_round(
                    callers,
                    args,
                    Path(temporary) / str(callers) / f"round{number}",
                    slow_disk,
                    revisions,
                )
                for number in range(args.rounds)
            ]
            door = middle_round([r["door"] for r in rounds])
            run: dict[str, Any] = {"door": door}
            if slow_disk is not None:
                slow = middle_round([r["slow"] for r in rounds])
                run["slow"] = [slow]
                run["slow_verdicts"] = [(slow, slow_disk_verdict(slow))]
            run["compare"] = [
                middle_round([r["compare"][index] for r in rounds])
                for index in range(len(revisions))
            ]
            bare = middle_round([r["bare"] for r in rounds])
            run["disk"] = middle_round([r["disk"] for r in rounds], "commit_ms")
            if args.workers > 1:
                several = middle_round([r["workers"] for r in rounds])
                run["workers"] = [several]
                run["workers_verdict"] = workers_verdict(several, door, bare)
            ratio = door["latency_ms"]["p99"] / max(bare["latency_ms"]["p99"], 1e-3)
            run.update(
                bare=bare,
                p99_ratio=round(ratio, 2),
                verdict=verdict(door, bare, ratio, run["compare"]),
            )
            runs.append(run)
            verdicts = [run["verdict"]] + [v for _, v in run.get("slow_verdicts", ())]
            print(f"{callers} callers done: {'; '.join(verdicts)}", file=sys.stderr, flush=True)
    print_summary(runs)
    print_workers(runs)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "cpus": multiprocessing.cpu_count(),
                "interval": args.interval,
                "duration": args.duration,
                "arrival": args.arrival,
                "fsync_delay_ms": args.fsync_delay_ms,
                "rounds": args.rounds,
                "targets": {
                    "p99_ratio": P99_RATIO_TARGET,
                    "kb_over_bare": KB_OVER_BARE_TARGET,
                    "slow_disk_p99_ms": SLOW_DISK_P99_TARGET_MS,
                },
                "workers": args.workers,
                "runs": [
                    {key: value for key, value in run.items() if key != "slow_verdicts"}
                    | {"slow_verdicts": [v for _, v in run.get("slow_verdicts", ())]}
                    for run in runs
                ],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
