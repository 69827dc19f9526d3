"""Crashes: the door is killed with SIGKILL while callers play; nothing a caller was shown is lost.

The door runs as a subprocess (``python -m door serve``) on one database for every trial. In
each trial every caller connects, signs up (the first time) or logs in, and resumes its saved
game (or deals a new one), then sends random legal plays as fast as the door answers, with a
short think between them. Each caller keeps the history of its game as far as the board
updates it received: a play counts as shown once its update is complete. At a random moment
the door is killed with SIGKILL. Then:

- ``PRAGMA integrity_check`` must say ``ok``;
- each caller's game in the database must hold every play the caller was shown, in order
  (a play lost is one shown but not stored); beyond them it may hold at most the one play
  the caller had sent and not yet seen answered (committed just before the kill);
- once the door is started again, each caller logs in and resumes: the board the door draws
  must be the stored game's, cell for cell (rows 1 to 20, read through a pyte screen).

    python -m benchmarks.crash [--callers 200] [--trials 20] [--seed 1]
        [--json benchmarks/results/crash.json]

With ``--workers N`` the door runs N workers behind its front process, and each trial kills
one worker (each in turn, ``--kill-every`` seconds of play apart) while the door runs on:
the worker's callers' games are checked as above, they call again at once and resume on a
live worker (their boards checked), and the time until the worker serves again and until
every one of them is back in their game is reported; the other callers play on throughout.

    python -m benchmarks.crash --workers 2 [--kill-every 10] [--callers 200] [--trials 3]

Target: no play lost, and ``ok`` from every integrity check. tests/test_crash_resume.py runs
the same trials, smaller.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyte

from ansi.charset import decode
from ansi.screen import ScreenBuffer
from benchmarks.callers import (
    GAME_PROMPT,
    MENU_PROMPT,
    UPDATE,
    CallerGone,
    ServerProcess,
    TelnetCaller,
    choose_play,
    default_level,
    log_in,
    roomy_config,
    sign_up,
    start_game,
)
from door.engine import Game
from door.engine.status import Status
from door.levels import Level
from door.store import Store
from door.views.board import LAST_COLUMN_ROW, Look, draw_board
from door.views.pointer import reminder_lines

PASSWORD = "crash-secret"
RESUME_OFFER = b"Resume your saved game"
STEP_TIMEOUT = 30.0  # seconds for any one answer from a running door
BOARD_ROWS = range(1, LAST_COLUMN_ROW + 1)  # the board above the message and prompt rows


@dataclass(frozen=True)
class CrashSettings:
    callers: int = 200
    trials: int = 20
    seed: int = 1
    think: float = 0.05  # mean seconds between an update and the next play
    kill_after: tuple[float, float] = (0.3, 2.5)  # seconds of play before the kill, at random
    arrival: float = 100.0  # callers connecting a second
    workers: int = 1  # above 1: the door runs that many workers, and one is killed a trial
    kill_every: float = 10.0  # seconds of play between two workers' kills


@dataclass
class CrashCaller:
    """One caller, and its game as far as it was shown."""

    number: int
    rng: random.Random
    signed_up: bool = False
    deal: int | None = None  # the game's deal number; None before its first game
    shown: list[str] = field(default_factory=list)  # the plays whose updates arrived
    pending: str | None = None  # sent, update not (yet) received
    game: Game | None = None  # the caller's copy, for choosing plays
    caller: TelnetCaller | None = None
    plays: int = 0  # updates received this trial

    @property
    def alias(self) -> str:
        return f"crash{self.number}"


@dataclass(frozen=True)
class Trial:
    """What one trial found."""

    number: int
    kill_after: float
    callers_playing: int
    plays_shown: int
    in_flight: int  # plays sent and not answered when the door died
    lost: int  # plays shown but not stored
    stored_unshown: int  # the play in flight, stored before the kill
    mismatched: int  # stored games that are neither what was shown nor one play on
    boards_checked: int  # boards drawn at this start compared with the stored game
    boards_wrong: int
    integrity: str
    restart_seconds: float


# -- one caller -------------------------------------------------------------------------------


def expected_board(level: Level, game: Game) -> list[str]:
    """Rows 1 to 20 of the board the door draws for ``game`` (a numbered deal: practice)."""
    buffer = ScreenBuffer(80, 24)
    caption = f"Practice deal {game.deal_number}"
    # The callers answer every cursor position request with the same place, which shows the
    # door no suit drawn: it draws them as letters.
    reminder = reminder_lines(len(game.tableau), hot=True, hints=level.hints != "off")
    look = Look(ansi=True, suit_letters=True)
    draw_board(buffer, game, level.name, look, caption=caption, reminder=reminder)
    return [buffer.text_at(row).rstrip() for row in BOARD_ROWS]


def shown_board(data: bytes) -> list[str]:
    """Rows 1 to 20 of what a CP437 ANSI terminal shows after ``data``."""
    screen = pyte.Screen(80, 24)
    pyte.Stream(screen).feed(decode(data, "cp437", glyphs=True))
    return [screen.display[row - 1].rstrip() for row in BOARD_ROWS]


async def come_in(seat: CrashCaller, port: int, level: Level, stored: Game | None) -> bool:
    """Log in (or sign up), resume or deal; True if the board drawn is the stored game's.

    ``stored`` is the caller's game as the database holds it (None: none to resume). A game
    the caller had not seen yet (dealt just before a kill) is adopted.
    """
    seat.caller = caller = await TelnetCaller.connect(port)
    if seat.signed_up:
        await log_in(caller, seat.alias, PASSWORD)
    else:
        await sign_up(caller, seat.alias, PASSWORD)
        seat.signed_up = True
    if RESUME_OFFER in caller.buffer:
        await caller.ask(b"R\r\n", GAME_PROMPT, STEP_TIMEOUT)
    else:
        await start_game(caller, level, seat.rng, STEP_TIMEOUT)
    deal = caller.deal_number()
    if deal is None:
        raise RuntimeError("the board showed no deal number")
    board = shown_board(bytes(caller.buffer))
    if stored is not None and stored.deal_number == deal:
        game = stored
    else:  # a new deal, never played
        game = Game.deal(level.variant, deal)
    seat.deal, seat.shown, seat.pending, seat.game = deal, list(game.history), None, game
    return board == expected_board(level, game)


async def play_on(seat: CrashCaller, level: Level, settings: CrashSettings) -> None:
    """Play until the door dies: each play shown is added to ``seat.shown``."""
    caller, game = seat.caller, seat.game
    assert caller is not None and game is not None
    while True:
        await asyncio.sleep(seat.rng.uniform(0, 2 * settings.think))
        command = choose_play(game, seat.rng)
        caller.send(command.encode() + b"\r\n")  # CallerGone once the door is dead
        game.play(command)
        seat.pending = command
        await caller.expect(UPDATE, STEP_TIMEOUT)
        seat.shown = list(game.history)
        seat.pending = None
        seat.plays += 1
        if game.status != Status.PLAYING:  # a game over: back to the menu and a new deal
            await caller.ask(b"\r\n", MENU_PROMPT, STEP_TIMEOUT)
            game = seat.game = await start_game(caller, level, seat.rng, STEP_TIMEOUT)
            seat.deal, seat.shown = game.deal_number, []


# -- checking the database --------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    lost: int
    stored_unshown: int
    mismatched: int
    games: dict[int, Game]  # caller number -> the stored game to resume, if any
    integrity: str


async def check_database(path: Path, seats: list[CrashCaller]) -> Check:
    """Compare each caller's shown plays with its stored game; integrity_check too."""
    lost = unshown = mismatched = 0
    games: dict[int, Game] = {}
    async with Store.open(path, create=False) as store:
        integrity = ", ".join(await store.integrity_check())
        for seat in seats:
            if seat.deal is None:
                continue
            user = await store.find_user(seat.alias)
            records = [] if user is None else await store.games_of(user.id)
            record = next((r for r in reversed(records) if r.deal == seat.deal), None)
            stored = list(record.history) if record is not None else []
            kept = _common_prefix(seat.shown, stored)
            lost += len(seat.shown) - kept
            extra = stored[kept:]
            if extra and (kept < len(seat.shown) or extra != [seat.pending]):
                mismatched += 1
            unshown += len(extra) if kept == len(seat.shown) else 0
            if record is not None and record.status == Status.PLAYING:
                games[seat.number] = await store.load_game(record.id)
    return Check(lost, unshown, mismatched, games, integrity)


def _common_prefix(first: list[str], second: list[str]) -> int:
    count = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        count += 1
    return count


# -- the trials -------------------------------------------------------------------------------


def _config(folder: Path, callers: int, workers: int = 1) -> Path:
    return roomy_config(folder, callers, workers=workers)


async def _start(config: Path, database: Path, log: Path, workers: int = 1) -> ServerProcess:
    return await asyncio.to_thread(ServerProcess.door, config, database, log, None, workers=workers)


async def _all_come_in(
    seats: list[CrashCaller], port: int, level: Level, games: dict[int, Game], arrival: float
) -> tuple[int, int, list[CrashCaller]]:
    """Everyone logs in and resumes; (boards checked, boards wrong, callers now playing)."""

    async def one(index: int, seat: CrashCaller) -> bool | None:
        await asyncio.sleep(index / arrival)
        try:
            return await come_in(seat, port, level, games.get(seat.number))
        except (OSError, TimeoutError, CallerGone, RuntimeError):
            return None

    results = await asyncio.gather(*(one(i, seat) for i, seat in enumerate(seats)))
    playing = [seat for seat, ok in zip(seats, results, strict=True) if ok is not None]
    wrong = sum(1 for ok in results if ok is False)
    return len(playing), wrong, playing


async def _play_until_killed(
    seats: list[CrashCaller],
    server: ServerProcess,
    level: Level,
    settings: CrashSettings,
    rng: random.Random,
) -> float:
    """Everyone plays; the door is killed at a random moment; the seconds it ran."""
    for seat in seats:
        seat.plays = 0
    tasks = [asyncio.create_task(play_on(seat, level, settings)) for seat in seats]
    kill_after = rng.uniform(*settings.kill_after)
    await asyncio.sleep(kill_after)
    await asyncio.to_thread(server.kill)
    results = await asyncio.wait_for(
        asyncio.gather(*tasks, return_exceptions=True), STEP_TIMEOUT + 10
    )
    for result in results:
        if not isinstance(result, OSError | TimeoutError | CallerGone):
            raise RuntimeError(f"a caller stopped for another reason: {result!r}")
    for seat in seats:
        if seat.caller is not None:
            seat.caller.hang_up()
    return kill_after


async def run_trials(
    settings: CrashSettings, folder: Path, report: Callable[[Trial], None] | None = None
) -> list[Trial]:
    """Every trial, and a last start to check the boards after the last kill."""
    rng = random.Random(settings.seed)
    level = default_level()
    config, database = _config(folder, settings.callers), folder / "door.db"
    seats = [
        CrashCaller(number, random.Random(settings.seed * 7919 + number))
        for number in range(settings.callers)
    ]
    games: dict[int, Game] = {}
    trials: list[Trial] = []
    for number in range(1, settings.trials + 2):
        started = time.monotonic()
        server = await _start(config, database, folder / "door.log")
        try:
            checked, wrong, playing = await _all_come_in(
                seats, server.port, level, games, settings.arrival
            )
            restart = time.monotonic() - started
            if number > settings.trials:  # the last start only checks the boards
                trials.append(
                    Trial(number, 0.0, len(playing), 0, 0, 0, 0, 0, checked, wrong, "", restart)
                )
                break
            kill_after = await _play_until_killed(playing, server, level, settings, rng)
        finally:
            await asyncio.to_thread(server.stop)
        check = await check_database(database, seats)
        games = check.games
        trial = Trial(
            number=number,
            kill_after=round(kill_after, 2),
            callers_playing=len(playing),
            plays_shown=sum(seat.plays for seat in playing),
            in_flight=sum(1 for seat in playing if seat.pending is not None),
            lost=check.lost,
            stored_unshown=check.stored_unshown,
            mismatched=check.mismatched,
            boards_checked=checked,
            boards_wrong=wrong,
            integrity=check.integrity,
            restart_seconds=round(restart, 2),
        )
        trials.append(trial)
        if report is not None:
            report(trial)
    return trials


# -- a worker killed, the door still running ---------------------------------------------------

WORKER_STARTED = re.compile(r"worker (\d+) started \(process (\d+)\)")


@dataclass(frozen=True)
class WorkerKill:
    """What one worker's kill found: its callers' games, and how long until they were
    served again."""

    number: int
    worker: int
    callers_playing: int  # on every worker, when the worker was killed
    callers_dropped: int  # those of the worker killed
    plays_shown: int  # since the kill before, by every caller
    in_flight: int  # of those dropped: plays sent and not answered
    lost: int  # of those dropped: plays shown but not stored
    stored_unshown: int
    mismatched: int
    boards_checked: int  # the dropped callers' boards as they resumed, on a live worker
    boards_wrong: int
    integrity: str
    worker_back_seconds: float  # from the kill to the worker's serving again
    resumed_seconds: float  # from the kill to every dropped caller back in their game


def _worker_pid(log_text: str, index: int) -> int:
    started = [int(pid) for found, pid in WORKER_STARTED.findall(log_text) if int(found) == index]
    return started[-1]


async def _serving_again(server: ServerProcess, index: int, after: int, killed: float) -> float:
    """Seconds from ``killed`` until worker ``index`` logs that it serves again."""
    pattern = re.compile(rf"worker {index}: serving")
    while not pattern.search(server.log_text()[after:]):
        await asyncio.sleep(0.02)
    return time.monotonic() - killed


async def run_worker_kills(
    settings: CrashSettings, folder: Path, report: Callable[[WorkerKill], None] | None = None
) -> list[WorkerKill]:
    """The door with ``settings.workers`` workers; every ``kill_every`` seconds of play a
    worker (each in turn) is killed with SIGKILL while the others go on. The dropped callers'
    games are checked against what they were shown, and they call again and resume (their
    boards checked) while everyone else plays on."""
    level = default_level()
    config = _config(folder, settings.callers, settings.workers)
    database = folder / "door.db"
    seats = [
        CrashCaller(number, random.Random(settings.seed * 7919 + number))
        for number in range(settings.callers)
    ]
    kills: list[WorkerKill] = []
    server = await _start(config, database, folder / "door.log", settings.workers)
    try:
        _, _, playing = await _all_come_in(seats, server.port, level, {}, settings.arrival)
        tasks = {
            seat.number: asyncio.create_task(play_on(seat, level, settings)) for seat in playing
        }
        for number in range(1, settings.trials + 1):
            for seat in playing:
                seat.plays = 0
            await asyncio.sleep(settings.kill_every)
            index = (number - 1) % settings.workers
            text = server.log_text()
            dropped_tasks = {}
            killed = time.monotonic()
            os.kill(_worker_pid(text, index), signal.SIGKILL)
            back = asyncio.create_task(_serving_again(server, index, len(text), killed))
            # The callers whose line drops were the worker's: the others play on.
            await asyncio.sleep(1.0)
            for seat in playing:
                task = tasks[seat.number]
                if task.done() or (seat.caller is not None and seat.caller.closed.done()):
                    dropped_tasks[seat.number] = task
            await asyncio.wait_for(
                asyncio.gather(*dropped_tasks.values(), return_exceptions=True), STEP_TIMEOUT
            )
            dropped = [seat for seat in playing if seat.number in dropped_tasks]
            shown = sum(seat.plays for seat in playing)
            in_flight = sum(1 for seat in dropped if seat.pending is not None)
            check = await check_database(database, dropped)
            checked, wrong, resumed = await _all_come_in(
                dropped, server.port, level, check.games, settings.arrival
            )
            resumed_seconds = time.monotonic() - killed
            for seat in resumed:
                tasks[seat.number] = asyncio.create_task(play_on(seat, level, settings))
            playing = [s for s in playing if s.number not in dropped_tasks] + resumed
            kill = WorkerKill(
                number=number,
                worker=index,
                callers_playing=len(playing) + len(dropped) - len(resumed),
                callers_dropped=len(dropped),
                plays_shown=shown,
                in_flight=in_flight,
                lost=check.lost,
                stored_unshown=check.stored_unshown,
                mismatched=check.mismatched,
                boards_checked=checked,
                boards_wrong=wrong,
                integrity=check.integrity,
                worker_back_seconds=round(await back, 2),
                resumed_seconds=round(resumed_seconds, 2),
            )
            kills.append(kill)
            if report is not None:
                report(kill)
        for task in tasks.values():
            task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        for seat in seats:
            if seat.caller is not None:
                seat.caller.hang_up()
    finally:
        await asyncio.to_thread(server.stop)
    return kills


KILL_HEADER = (
    f"{'kill':>5}{'worker':>7}{'callers':>9}{'dropped':>9}{'shown':>8}{'flight':>8}{'lost':>6}"
    f"{'stored':>8}{'odd':>5}{'boards':>8}{'wrong':>7}{'back s':>8}{'resumed s':>11}  integrity"
)


def kill_row(kill: WorkerKill) -> str:
    return (
        f"{kill.number:>5}{kill.worker:>7}{kill.callers_playing:>9}{kill.callers_dropped:>9}"
        f"{kill.plays_shown:>8}{kill.in_flight:>8}{kill.lost:>6}{kill.stored_unshown:>8}"
        f"{kill.mismatched:>5}{kill.boards_checked:>8}{kill.boards_wrong:>7}"
        f"{kill.worker_back_seconds:>8.2f}{kill.resumed_seconds:>11.2f}  {kill.integrity}"
    )


def main_workers(settings: CrashSettings, output: Path) -> None:
    print(
        f"{settings.callers} callers on {settings.workers} workers; every"
        f" {settings.kill_every:g} s of play one worker is killed (SIGKILL), the door runs on"
    )
    print("dropped: the worker's callers; flight, lost, stored, odd: theirs, as for a door's kill;")
    print("boards: their games resumed on a live worker; back s: the worker serving again;")
    print("resumed s: every dropped caller back in their game, from the kill")
    print(KILL_HEADER)
    with tempfile.TemporaryDirectory(prefix="door-crash-") as folder:
        kills = asyncio.run(run_worker_kills(settings, Path(folder), lambda k: print(kill_row(k))))
    lost = sum(kill.lost for kill in kills)
    wrong = sum(kill.boards_wrong + kill.mismatched for kill in kills)
    integrity = sorted({kill.integrity for kill in kills})
    verdict = "meets target" if not lost and not wrong and integrity == ["ok"] else "MISSES target"
    print(
        f"{len(kills)} workers killed: {sum(k.callers_dropped for k in kills)} callers dropped,"
        f" {lost} acknowledged plays lost, integrity {integrity},"
        f" {sum(k.boards_checked for k in kills)} resumed, {wrong} wrong: {verdict}"
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        json.dumps(
            {"settings": asdict(settings), "kills": [asdict(kill) for kill in kills]}, indent=2
        )
    )


# -- the report -------------------------------------------------------------------------------

HEADER = (
    f"{'trial':>5}{'kill s':>8}{'callers':>9}{'shown':>8}{'flight':>8}{'lost':>6}"
    f"{'stored':>8}{'odd':>5}{'boards':>8}{'wrong':>7}{'start s':>9}  integrity"
)


def row(trial: Trial) -> str:
    return (
        f"{trial.number:>5}{trial.kill_after:>8.2f}{trial.callers_playing:>9}"
        f"{trial.plays_shown:>8}{trial.in_flight:>8}{trial.lost:>6}{trial.stored_unshown:>8}"
        f"{trial.mismatched:>5}{trial.boards_checked:>8}{trial.boards_wrong:>7}"
        f"{trial.restart_seconds:>9.2f}  {trial.integrity or '-'}"
    )


def summary(trials: list[Trial]) -> dict[str, object]:
    kills = [trial for trial in trials if trial.integrity]
    return {
        "trials": len(kills),
        "plays_shown": sum(trial.plays_shown for trial in kills),
        "in_flight_at_kill": sum(trial.in_flight for trial in kills),
        "acknowledged_plays_lost": sum(trial.lost for trial in trials),
        "stored_but_not_shown": sum(trial.stored_unshown for trial in trials),
        "mismatched_games": sum(trial.mismatched for trial in trials),
        "boards_checked": sum(trial.boards_checked for trial in trials),
        "boards_wrong": sum(trial.boards_wrong for trial in trials),
        "integrity": sorted({trial.integrity for trial in kills}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callers", type=int, default=200)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/crash.json"))
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="run the door with N workers and kill one worker a trial, the door running on",
    )
    parser.add_argument(
        "--kill-every", type=float, default=10.0, help="with --workers: seconds between kills"
    )
    args = parser.parse_args()
    settings = CrashSettings(
        callers=args.callers,
        trials=args.trials,
        seed=args.seed,
        workers=args.workers,
        kill_every=args.kill_every,
    )
    if settings.workers > 1:
        main_workers(settings, args.json.with_name(args.json.stem + "-workers.json"))
        return
    print("kill s: seconds of play before SIGKILL; flight: plays sent, unanswered at the kill;")
    print("stored: of those, stored anyway; odd: games neither shown nor one play on;")
    print("boards: resumed boards compared with the stored game at the next start")
    print(HEADER)
    with tempfile.TemporaryDirectory(prefix="door-crash-") as folder:
        trials = asyncio.run(run_trials(settings, Path(folder), lambda t: print(row(t))))
    print(row(trials[-1]))
    totals = summary(trials)
    verdict = (
        "meets target"
        if totals["acknowledged_plays_lost"] == 0
        and totals["integrity"] == ["ok"]
        and not totals["boards_wrong"]
        and not totals["mismatched_games"]
        else "MISSES target"
    )
    print(
        f"{totals['trials']} kills: {totals['plays_shown']} plays shown, "
        f"{totals['acknowledged_plays_lost']} lost, integrity {totals['integrity']}, "
        f"{totals['boards_checked']} resumed boards checked, {totals['boards_wrong']} wrong: "
        f"{verdict}"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "settings": asdict(settings),
                "summary": totals,
                "trials": [asdict(trial) for trial in trials],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
