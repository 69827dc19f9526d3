"""The door at work, as ``canfield-door serve`` runs it: the ways in (telnet, and SSH and
RLOGIN when sysop.toml turns them on: :mod:`door.running.ways`), the store, the solver, the
contest clock, the bulletin and backup keepers and the sysop's control channel, for as long
as it runs, and what the sysop can do to it meanwhile.

- SIGINT and SIGTERM close it: callers are told, their games are already saved.
- SIGUSR1 logs how many writes the store has made in how many commits, and the garbage
  collector's passes since the last SIGUSR1 (:mod:`door.running.collector`), each of which
  holds every game while it lasts.
- SIGHUP (and ``canfield-door sysop reload``) read sysop.toml again (:meth:`Service.reload`).
  A file that does not check is refused and logged with check-config's message; the door
  keeps its settings. Otherwise: levels change from each caller's next menu on (a game in
  progress keeps the rules it was dealt under); the limits count for new calls at once,
  and for calls in progress only where they give more (a longer idle timeout or time limit
  counts at once; a shorter one from the next call, so nobody is cut short by a change
  made while they played); the solver, bulletin and backup settings from their next run.
  The contest clock looks at once for a contest declared meanwhile.
  The address, the port and the database need a restart: a change to them is logged.
- The control channel (:mod:`door.running.control`) answers who, send, kick, watch, status and
  reload.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from door import __version__
from door.app import App
from door.config import Config, ConfigError, ServerConfig
from door.contests import ContestClock
from door.net.detection import DETECT_TIMEOUT
from door.net.listening import SHUTDOWN_MESSAGE
from door.net.nodes import Call, Nodes
from door.net.telnet import DoorServer
from door.running.collector import CollectorWatch
from door.running.control import (
    ControlServer,
    control_path,
    end_call,
    open_control,
    tell_call,
    who_row,
)
from door.running.reload import compare
from door.running.upkeep import BackupKeeper, BulletinKeeper
from door.running.ways import Ways, open_ways
from door.running.worker import Worker
from door.solving.pool import Solving
from door.store import Store
from door.tasks import close_in_order

log = logging.getLogger("door")


class Service:
    """One running door; :meth:`run` serves until a shutdown signal or :meth:`stop`.

    ``reread`` reads sysop.toml again (with the command line's overrides), raising
    ConfigError for a file that does not check. ``worker``: this door is a worker of a front
    process (:mod:`door.running.worker`), which listens, admits callers and keeps the
    control socket; the worker serves the calls handed to it, and keeps the background jobs
    only if it is the one worker that does.
    """

    def __init__(
        self,
        config: Config,
        reread: Callable[[], Config],
        *,
        detect_timeout: float = DETECT_TIMEOUT,
        bulletin_interval: float | None = None,
        worker: Worker | None = None,
    ) -> None:
        self.config = config
        self._worker = worker
        self._reread = reread
        self._detect_timeout = detect_timeout
        self._bulletin_interval = bulletin_interval
        self._started = time.monotonic()
        self.started_at = datetime.now()
        self.ready = asyncio.Event()
        self.server: DoorServer | None = None
        self.ways: Ways | None = None
        self._store: Store | None = None
        self._solving: Solving | None = None
        self._contests: ContestClock | None = None
        self._bulletins: BulletinKeeper | None = None
        self._backups: BackupKeeper | None = None
        self._control: ControlServer | None = None
        self._closing: list[asyncio.Task[None]] = []
        self._stop_asked = False
        self._collector = CollectorWatch()

    # --- running ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Open the database, listen, and serve until closed."""
        loop = asyncio.get_running_loop()
        # Signals are the door's from the start: a reload or a stop that comes while the
        # database opens is not the default action (death) but waits its turn.
        handlers = {
            signal.SIGINT: lambda: self._shut_down("SIGINT"),
            signal.SIGTERM: lambda: self._shut_down("SIGTERM"),
            signal.SIGHUP: self._hang_up_signal,
            signal.SIGUSR1: self._log_commits,
        }
        for number, handler in handlers.items():
            loop.add_signal_handler(number, handler)
        self._collector.start()
        if self._worker is not None:
            self._worker.start(self._shut_down)
        try:
            await self._serve()
        finally:
            self._collector.stop()
            for number in handlers:
                loop.remove_signal_handler(number)
        log.info("door stopped; database closed")

    async def _serve(self) -> None:
        async with await Store.open(self.config.server.database) as store:
            self._store = store
            # The solver's workers, and its background search for winnable deals and the
            # day's deal, live as long as the server; so does the contests' clock, apart
            # from the solver, whose searches may be long.
            self._solving = solving = Solving(store, self.config)
            self._contests = contests = ContestClock(store, changed=self.game_ended)
            self._bulletins = BulletinKeeper(store, lambda: self.config, **self._interval())
            self._backups = BackupKeeper(store, lambda: self.config)
            # The visits ask this service for its settings as they are now, and tell it of
            # every game that ends.
            league = None
            if self.config.league.hub_url is not None:  # aiohttp is loaded only for a member
                from door.league.member import league_sync

                league = await league_sync(store, self.config)
            worker = self._worker
            nodes = Nodes(self.config.server) if worker is None else worker.nodes
            app = App(store, self, solving, nodes, league)
            self.ways = ways = await open_ways(
                app,
                detect_timeout=self._detect_timeout,
                handed=None if worker is None else worker.handed,
            )
            self.server = server = ways.telnet
            try:
                if worker is None:
                    self._control = await open_control(
                        ControlServer(control_path(store.path), self)
                    )
                else:
                    worker.serve(ways, self)
                    if not worker.keeps_jobs:
                        solving.woken = worker.wake_solver
                if worker is None or worker.keeps_jobs:
                    solving.start()
                    contests.start()
                    if league is not None:
                        league.start()
                    self._bulletins.start()
                    self._backups.start()
                # The server has said where it listens; this says what it serves.
                log.info(
                    "serving %d levels from database %s",
                    len(self.config.levels),
                    self.config.server.database,
                )
                self.ready.set()
                if self._stop_asked:
                    self._shut_down("an earlier signal")
                await server.serve_forever()
            finally:
                await ways.close(SHUTDOWN_MESSAGE)
                if self._control is not None:
                    await self._control.close()
                await close_in_order(contests, self._bulletins, self._backups, solving)
                if league is not None:
                    await league.close()
            self._log_commits()

    def _interval(self) -> dict[str, float]:
        return {} if self._bulletin_interval is None else {"interval": self._bulletin_interval}

    def _shut_down(self, name: str) -> None:
        log.info("%s received", name)
        self._stop_asked = True
        if not self._closing and self.ways is not None:  # a second signal changes nothing
            self._closing.append(asyncio.create_task(self.ways.close(SHUTDOWN_MESSAGE)))

    def _log_commits(self) -> None:
        """How the store's commits went so far (on SIGUSR1, and at the end): plays and other
        writes that arrive together share a commit, so a slow disk shows as many a commit."""
        if self._store is None:
            return
        counts = self._store.commit_counts
        commits, writes = max(1, counts.commits), max(1, counts.writes)
        log.info(
            "store: %d writes in %d commits (%.1f a commit) since start; a commit took "
            "%.1f ms on average, %.1f ms at most",
            counts.writes,
            counts.commits,
            counts.writes / commits,
            1000 * counts.seconds / commits,
            1000 * counts.longest,
        )
        log.info(
            "store: a write waited %.2f ms on average for its commit to begin; a COMMIT "
            "waited %.2f ms for the writer's thread, took %.2f ms there (the fsync, and "
            "Python's GIL back) and %.2f ms more to reach the event loop; once answered, a "
            "write waited %.2f ms for the event loop to run its caller again",
            1000 * counts.queued / writes,
            1000 * counts.to_thread / commits,
            1000 * counts.in_thread / commits,
            1000 * counts.back / commits,
            1000 * counts.to_caller / writes,
        )
        log.info("%s", self._collector.report())

    def _hang_up_signal(self) -> None:
        log.info("SIGHUP received: reading %s again", self.config.path)
        self.reload()

    async def stop(self) -> None:
        """Close the door as SIGTERM does, and wait until it has."""
        if self.ways is not None:
            await self.ways.close(SHUTDOWN_MESSAGE)

    @property
    def nodes(self) -> Nodes:
        assert self.server is not None
        return self.server.nodes

    # --- what a visit asks -----------------------------------------------------------------

    def wake_solver(self) -> None:
        """Another worker took a winnable deal: the background tops the stock up."""
        if self._solving is not None:
            self._solving.wake()

    def game_ended(self) -> None:
        if self._worker is not None and not self._worker.keeps_jobs:
            self._worker.game_ended()
        elif self._bulletins is not None:
            self._bulletins.game_ended()

    # --- reload ----------------------------------------------------------------------------

    def reload(self) -> dict[str, Any]:
        """Read sysop.toml again and take it on (see the module); what happened, for the
        control channel's answer."""
        try:
            fresh = self._reread()
        except ConfigError as error:
            log.error("settings not reloaded; the door keeps those it has: %s", error)
            return {"ok": False, "error": str(error)}
        reloaded = compare(self.config, fresh)
        self._apply(reloaded.config)
        if reloaded.changes:
            log.info("settings reloaded from %s:", self.config.path)
            for change in reloaded.changes:
                log.info("  %s", change)
        else:
            log.info("settings reloaded from %s: nothing changed", self.config.path)
        for change in reloaded.restart:
            log.warning("  %s: not changed; takes a restart of the door", change)
        return {"ok": True, "changes": list(reloaded.changes), "restart": list(reloaded.restart)}

    def _apply(self, config: Config) -> None:
        old, self.config = self.config, config
        if self.ways is not None:
            self.ways.reconfigure(config)
            for call in self.ways.nodes.calls:
                _extend(call, old.server, config.server)
        if self._solving is not None:
            self._solving.reconfigure(config)
        if self._contests is not None:
            self._contests.wake()  # a contest declared meanwhile is taken up at once
        if self._bulletins is not None and config.bulletin != old.bulletin:
            self._bulletins.game_ended()  # new files or formats: written at the next chance

    async def settle_contests(self) -> dict[str, Any]:
        """Open and close the contests due now (the sysop has declared one): the door's
        own clock does it, so that its log and the bulletins tell of it."""
        if self._contests is None:
            return {"ok": False, "error": "the door is starting; try again in a moment"}
        return {"ok": True, "changed": await self._contests.settle_now()}

    # --- the sysop's live view ---------------------------------------------------------------

    def who(self) -> list[dict[str, Any]]:
        """Each call: node, alias, way in, address, what they are doing, idle and on time."""
        now = time.monotonic()
        return [who_row(call, now) for call in self.nodes.calls]

    def call(self, node: int) -> Call | None:
        return self.nodes.call(node)

    def send(self, node: int | None, text: str) -> list[int]:
        """Show the sysop's ``text`` on a caller's message line (``node`` None: everyone's);
        the nodes reached."""
        calls = (
            self.nodes.calls if node is None else [c for c in self.nodes.calls if c.node == node]
        )
        for call in calls:
            tell_call(call, self.config.bbs.sysop, text)
        return [call.node for call in calls]

    def kick(self, node: int, reason: str) -> bool:
        """End the call on ``node`` politely, the game saved; False if nobody is on it."""
        call = self.nodes.call(node)
        if call is None:
            return False
        end_call(call, reason)
        return True

    async def status(self) -> dict[str, Any]:
        assert self._store is not None and self._backups is not None
        users, games = await self._store.counts()
        today = await self._store.games_today()
        database = self._store.path
        size = sum(
            path.stat().st_size
            for path in (database, database.with_name(database.name + "-wal"))
            if path.exists()
        )
        last = self._backups.last()
        folder = self.config.backup.folder
        return {
            "version": __version__,
            "started": self.started_at.isoformat(timespec="seconds"),
            "uptime": int(time.monotonic() - self._started),
            "callers": len(self.nodes.calls),
            "peak": self.nodes.peak_today(),
            "max_nodes": self.config.server.max_nodes,
            "games_today": today,
            "users": users,
            "games": games,
            "database": str(database),
            "database_bytes": size,
            "backup_folder": None if folder is None else str(folder),
            "last_backup": None
            if last is None
            else {
                "path": str(last.path),
                "made": last.made.isoformat(timespec="seconds"),
                "bytes": last.size,
            },
        }


def _extend(call: Call, old: ServerConfig, new: ServerConfig) -> None:
    """Give a call in progress what a reload adds to its limits, never what it takes away."""
    clocks = call.terminal.clocks
    if new.idle_timeout >= clocks.idle_timeout:
        clocks.idle_timeout, clocks.idle_warning = new.idle_timeout, new.idle_warning
    if clocks.deadline is not None and old.time_limit > 0:
        if new.time_limit == 0:
            clocks.deadline = None
        elif new.time_limit > old.time_limit:
            clocks.deadline = call.since + 60 * new.time_limit
