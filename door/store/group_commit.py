"""The store's writer: one connection with a thread of its own, which commits writes in
groups (reads go to :mod:`door.store.reading`, beside it).

Group commit: a *write* is a function of the connection. Writes that arrive while a commit
is on its way to disk wait, and go together into the next transaction: ``BEGIN IMMEDIATE``,
each write inside a ``SAVEPOINT`` of its own (a write that raises is rolled back to it and
fails alone), ``COMMIT``. Each write's caller is answered only once the ``COMMIT`` holding it
has returned, so with ``synchronous = FULL`` what it was told is on the disk. One fsync then
serves every play that came in while the last one ran, and a slow disk makes commits bigger
rather than queues longer. If the group as a whole can't be committed (a full disk, a file
that turned read-only), it is rolled back and each of its writes is tried again in a
transaction of its own, so that each learns its own fate.

What may wait goes to the writer's thread: ``COMMIT`` (the fsync), and ``BEGIN IMMEDIATE``
when another program holds the write lock. The write lock is first asked for in the event
loop without waiting (the connection's busy timeout is 0 there): it is nearly always free,
since this connection is the door's only writer (or one worker's of several), and taking it
costs microseconds where a trip to the thread costs a handover of Python's GIL, up to 5 ms
while the event loop is busy. Only if it is taken is it asked again, from the loop, every
half millisecond for a moment (another worker of the door holds it for one commit), and only
then does the group wait for it in the thread, with the busy timeout the connection was
opened with. The writes themselves run in the event loop too: once the transaction holds the
write lock their statements never wait, and each costs a few tens of microseconds. Once its
``COMMIT`` has returned, the thread has the event loop answer the group's writes straight
away, a turn of the loop before the writer's task would.

Each commit's duration and group size are logged at debug level (logger
``door.store.group_commit``), and :class:`CommitCounts` sums them up, with where the time
went: waiting for the commit before, handing the ``COMMIT`` to the thread, the ``COMMIT`` in
the thread (the fsync, then Python's GIL taken back from a busy loop), coming back to the
loop, and, once answered, each write's wait for the loop to run its caller again (behind
the other callers of its group, each drawing a board). So the disk's share of a slow play
shows directly, and what is not the disk's.

Reads run on a second connection (:mod:`door.store.reading`): in WAL mode a reader sees the
last commit and never waits for the writer, so scoreboards and logging in don't queue behind
plays.

Checkpoints (copying the WAL's pages into the database, two more fsyncs) run on a connection
and thread of their own, passively (never waiting for a writer or a reader, nor holding one
up), at most once a :data:`CHECKPOINT_PAUSE` while writes come. SQLite would otherwise run
each in the connection whose ``COMMIT`` took the WAL past 1,000 pages, and every play of that
group would wait for it: at 500 plays a second, about one group in a hundred.

Faults, by name: SQLite's complaint about the disk is a :class:`DiskFault`; another program
holding the write lock past the busy timeout is :class:`StoreBusy`, once ``BEGIN IMMEDIATE``
has been waited for in the thread and tried again a few times (as SQLite's busy handler
would, without holding the event loop). The writer's connection is its own (nothing else
uses it while it runs), and its task is supervised: anything unexpected that escapes it
fails every waiting write at once with a :class:`WriterFailed`, is logged with its
traceback, and the writer starts again. Each group checks the schema version it finds (one
``PRAGMA``, under the write lock): a database moved to a newer schema under the running
door (by a newer door's migration) takes no more writes from it, each refused as
:class:`SchemaMoved`, and the log says so once.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, TypeVar

from door.store.records import DiskFault, SchemaMoved, StoreBusy, StoreError, WriterFailed
from door.tasks import Supervised

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]

# Writes in one transaction at most: the event loop runs them in one go (a few ms).
GROUP_LIMIT = 200

# Tries of BEGIN IMMEDIATE while another program holds the write lock, each waiting SQLite's
# busy timeout, and the pause between two tries.
BUSY_TRIES = 3
BUSY_PAUSE = 0.05
# Seconds between two tries of BEGIN IMMEDIATE in the event loop while another writer holds
# the lock, and for how long, before waiting for it in the thread.
LOCK_POLL = 0.0005
LOCK_POLL_FOR = 0.05

# Seconds before a writer that failed starts again (writes that come meanwhile wait for it).
WRITER_RESTART_DELAY = 0.5

# Seconds between two checkpoints at most, while writes come.
CHECKPOINT_PAUSE = 1.0


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What one write came to: its value, or the error it raised."""

    value: Any = None
    error: BaseException | None = None


@dataclass(frozen=True, slots=True)
class CommitCounts:
    """How many commits the writer made, how many writes they held, and how long they took
    (from taking the write lock to the event loop's answer), in all and at most; and, in
    all, the parts of the wait a write's caller sees, in seconds."""

    commits: int
    writes: int
    seconds: float = 0.0
    longest: float = 0.0
    queued: float = 0.0  # the writes' waits for their group to begin (the commit before)
    to_thread: float = 0.0  # the COMMITs' waits for the writer's thread to start them
    in_thread: float = 0.0  # the COMMITs in that thread: the fsync, then the GIL back
    back: float = 0.0  # from the end of each COMMIT to the event loop's answer
    to_caller: float = 0.0  # the writes' waits, once answered, for their callers to run


def is_busy(error: BaseException) -> bool:
    """Whether SQLite said "database is locked": another connection holds the lock."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def as_store_error(error: BaseException) -> BaseException:
    """SQLite's "database is locked" as :class:`StoreBusy`, its complaint about the disk
    (full, read-only, I/O) as a :class:`DiskFault`; any other error as it is."""
    if isinstance(error, sqlite3.IntegrityError | sqlite3.ProgrammingError):
        return error
    if is_busy(error):
        busy = StoreBusy(f"another program holds the database's write lock: {error}")
        busy.__cause__ = error
        return busy
    if isinstance(error, sqlite3.DatabaseError):
        fault = DiskFault(f"the database could not be written: {error}")
        fault.__cause__ = error
        return fault
    return error


Job = Callable[[], None]


class Connection:
    """One SQLite connection, used only from one thread of its own.

    The thread takes jobs from a queue and each job tells the event loop its outcome with
    one callback: a trip there and back costs a quarter less CPU than through a
    ``ThreadPoolExecutor``, whose futures add a second wake-up of the loop and a lock and
    condition a trip.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._db: sqlite3.Connection | None = None

    def send(self, job: Job) -> None:
        """Run ``job()`` in the connection's thread, after the jobs sent before it."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
            self._thread.start()
        self._jobs.put(job)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            job()
            del job  # what it holds (a group's writes) is let go of before the next wait

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the connection's thread."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def job() -> None:
            try:
                result = function(*args)
            except BaseException as error:
                _tell(loop, _fail, future, error)
            else:
                _tell(loop, _settle, future, result)

        self.send(job)
        return await future

    async def open(self, path: str, configure: Callable[[sqlite3.Connection], None]) -> None:
        def connect() -> sqlite3.Connection:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            try:
                configure(db)
            except BaseException:
                db.close()
                raise
            return db

        self._db = await self.call(connect)

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` in the connection's thread."""
        db = self._db
        if db is None:
            raise StoreError("the store is closed")
        return await self.call(work, db)

    async def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            await self.call(db.close)
        if self._thread is not None:
            self._jobs.put(None)  # the thread ends once the jobs before it are done


@dataclass(frozen=True, slots=True)
class _CommitTimes:
    """When a ``COMMIT`` was handed to the writer's thread, began there and ended there
    (:func:`time.perf_counter`, one clock for every thread)."""

    sent: float
    started: float
    ended: float


@dataclass(slots=True)
class _Pending:
    work: Work
    future: asyncio.Future[Any]
    came: float  # time.perf_counter() when it was queued
    answered: float = 0.0  # and when its commit's outcome was set, once it was


class Writer(Connection):
    """The connection every change goes through, in groups (see the module's docstring)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._queue: list[_Pending] = []
        self._group: list[_Pending] = []  # the group being committed
        self._wake = asyncio.Event()
        self._committer = Supervised(
            "the store's writer", self._commit_groups, restart_delay=WRITER_RESTART_DELAY
        )
        self._closing = False
        self._schema: int | None = None  # the schema version every group must find
        self._moved: SchemaMoved | None = None
        self._commits = 0
        self._writes = 0
        self._seconds = 0.0
        self._longest = 0.0
        self._queued = self._to_thread = self._in_thread = self._back = self._to_caller = 0.0
        self._busy_timeout_ms: int | None = None  # the connection's own, while it may wait
        self._checkpoints = Connection(f"{name}-checkpoints")
        self._written = asyncio.Event()  # since the last checkpoint
        self._checkpointer = Supervised("the store's checkpoints", self._checkpoint_after_writes)

    @property
    def counts(self) -> CommitCounts:
        return CommitCounts(
            self._commits,
            self._writes,
            self._seconds,
            self._longest,
            self._queued,
            self._to_thread,
            self._in_thread,
            self._back,
            self._to_caller,
        )

    def _committed(self, writes: int, began: float, times: _CommitTimes) -> None:
        now = time.perf_counter()
        took = now - began
        self._commits += 1
        self._writes += writes
        self._seconds += took
        self._longest = max(self._longest, took)
        self._to_thread += times.started - times.sent
        self._in_thread += times.ended - times.started
        self._back += now - times.ended
        self._written.set()
        log.debug("commit: %d writes in %.2f ms", writes, 1000 * took)

    async def open(self, path: str, configure: Callable[[sqlite3.Connection], None]) -> None:
        """Open the writer's connection, which leaves checkpoints to a connection of their
        own (see the module's docstring), and that one."""

        def configure_writer(db: sqlite3.Connection) -> None:
            configure(db)
            db.execute("PRAGMA wal_autocheckpoint = 0")

        await super().open(path, configure_writer)
        await self._checkpoints.open(path, lambda db: None)
        self._checkpointer.start()

    async def _checkpoint_after_writes(self) -> None:
        refused: str | None = None  # why the last checkpoint failed, logged once
        while True:
            await self._written.wait()
            self._written.clear()
            try:
                await self._checkpoints.run(_checkpoint)
            except sqlite3.DatabaseError as error:
                # Busy: another program checkpoints. A disk that refuses (full, read-only):
                # the plays are safe in the WAL meanwhile, and the next pause tries again.
                if not is_busy(error) and str(error) != refused:
                    refused = str(error)
                    log.warning("the store's checkpoint failed, tried again later: %s", error)
            else:
                if refused is not None:
                    log.info("the store's checkpoints go on again")
                refused = None
            await asyncio.sleep(CHECKPOINT_PAUSE)

    async def before_writes(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` in the writer's thread, before any write is taken (the
        migrations, at open)."""
        if self._committer.running:
            raise StoreError("the writer has begun taking writes")
        return await super().run(work)

    def expect_schema(self, version: int) -> None:
        """Every group from now on must find the database at schema ``version``: one moved
        to another under the door (a newer door migrated it) takes no more writes."""
        self._schema = version

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` in the next group; its value once that group is committed."""
        if self._closing or self._db is None:
            raise StoreError("the store is closed")
        if self._moved is not None:
            raise self._moved
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        pending = _Pending(work, future, time.perf_counter())
        self._queue.append(pending)
        self._wake.set()
        self._committer.start()
        try:
            return await future
        finally:
            if pending.answered:
                self._to_caller += time.perf_counter() - pending.answered

    async def _commit_groups(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._queue:
                    group = [p for p in self._queue[:GROUP_LIMIT] if not p.future.cancelled()]
                    del self._queue[:GROUP_LIMIT]
                    if group:
                        self._group = group
                        await self._commit_group(group)
                        self._group = []
                    # Let go of the writes (their games' positions) before waiting for more.
                    del group
        except asyncio.CancelledError:
            raise
        except BaseException as error:
            self._fail_waiting(error)
            if isinstance(error, Exception | KeyboardInterrupt | SystemExit):
                raise
            # Anything else escaping a write is the writer's failure too: logged, restarted.
            raise RuntimeError(f"a write raised {error!r}") from error

    def _fail_waiting(self, error: BaseException) -> None:
        """The writer failed: nothing of the group under way is stored, and every write
        waiting (in that group or queued after it) fails now rather than waiting forever."""
        if self._db is not None:
            _roll_back(self._db)
        waiting, self._group, self._queue = self._group + self._queue, [], []
        for pending in waiting:
            if not pending.future.done():
                fault = WriterFailed(f"the store's writer failed ({error!r}); it starts again")
                fault.__cause__ = error
                pending.future.set_exception(fault)

    async def _commit_group(self, group: list[_Pending]) -> None:
        began = time.perf_counter()
        self._queued += sum(began - pending.came for pending in group)
        try:
            # The write lock, waited for once for the group (another program may hold it).
            await self._begin()
        except Exception as error:
            _answer(group, [WriteResult(error=error)] * len(group))
            return
        if not await self._together(group, began):
            for pending in group:
                await self._alone(pending)

    async def _begin(self) -> None:
        """``BEGIN IMMEDIATE``: here if the write lock is free, else waited for in the thread
        (tried again while another program holds it past SQLite's busy timeout, the "database
        is locked" error once the tries are spent); then the schema version checked."""
        assert self._db is not None
        db = self._db
        if self._busy_timeout_ms is None:
            self._busy_timeout_ms = int(db.execute("PRAGMA busy_timeout").fetchone()[0])
            db.execute("PRAGMA busy_timeout = 0")
        if not await self._begin_soon(db):
            await self._wait_patiently(db, self._busy_timeout_ms)
        self._check_schema(db)

    @staticmethod
    async def _begin_soon(db: sqlite3.Connection) -> bool:
        """``BEGIN IMMEDIATE`` in the event loop, asked again every :data:`LOCK_POLL` for up
        to :data:`LOCK_POLL_FOR` while another writer holds the lock; whether it began.

        Another writer (a worker of the same door, with ``[server] workers``) holds the lock
        for one commit, a millisecond or so: asked again that soon, the lock is taken as it
        is let go, where SQLite's busy handler, waiting 1, 2, 5, 10 ms and more between its
        tries, kept a play waiting for tens of milliseconds. Each try costs microseconds."""
        deadline = time.monotonic() + LOCK_POLL_FOR
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                return True
            except sqlite3.OperationalError as error:
                if not is_busy(error):
                    raise
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(LOCK_POLL)

    async def _wait_patiently(self, db: sqlite3.Connection, busy_timeout_ms: int) -> None:
        for tries_left in reversed(range(BUSY_TRIES)):
            try:
                await self.call(self._wait_and_begin, db, busy_timeout_ms)
                return
            except sqlite3.OperationalError as error:
                if not is_busy(error) or not tries_left:
                    raise
            await asyncio.sleep(BUSY_PAUSE)

    def _check_schema(self, db: sqlite3.Connection) -> None:
        """Under the write lock: the database is still at the schema this door expects."""
        if self._schema is None:
            return
        found = db.execute("PRAGMA user_version").fetchone()[0]
        if found == self._schema:
            return
        db.execute("ROLLBACK")
        if self._moved is None:
            self._moved = SchemaMoved(
                f"the database was moved to schema version {found} under this door (which "
                f"knows version {self._schema}): no more writes until a door that knows it runs"
            )
            log.critical("%s", self._moved)
        raise self._moved

    @staticmethod
    def _wait_and_begin(db: sqlite3.Connection, busy_timeout_ms: int) -> None:
        db.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        try:
            db.execute("BEGIN IMMEDIATE")
        finally:
            db.execute("PRAGMA busy_timeout = 0")

    async def _together(self, group: list[_Pending], began: float) -> bool:
        """In the transaction begun: each write in its savepoint, then one commit; False if
        the group as a whole failed (rolled back: nothing of it stored, nobody answered)."""
        assert self._db is not None
        db = self._db
        if len(group) == 1:
            await self._commit_one(group[0], began)
            return True
        try:
            outcomes = [_in_savepoint(db, pending.work) for pending in group]
            await self._commit(group, outcomes, began)
        except sqlite3.Error:
            # A statement of SQLite's own failed (or a write's failure took the transaction
            # with it): no write of the group is stored; each is tried alone.
            _roll_back(db)
            return False
        return True

    async def _alone(self, pending: _Pending) -> None:
        """``pending``'s write in a transaction of its own."""
        began = time.perf_counter()
        try:
            await self._begin()
        except (sqlite3.Error, SchemaMoved) as error:
            _answer([pending], [WriteResult(error=error)])
            return
        await self._commit_one(pending, began)

    async def _commit_one(self, pending: _Pending, began: float) -> None:
        """In the transaction begun: ``pending``'s write, then the commit."""
        assert self._db is not None
        db = self._db
        try:
            value = pending.work(db)
            await self._commit([pending], [WriteResult(value)], began)
        except Exception as error:
            _roll_back(db)
            _answer([pending], [WriteResult(error=error)])

    async def _commit(
        self, group: list[_Pending], outcomes: list[WriteResult], began: float
    ) -> None:
        """``COMMIT`` in the writer's thread, which then has the event loop, in one callback,
        count the commit, answer its writes and wake this task: a turn of the loop sooner
        than if this task, woken by the thread, answered them."""
        assert self._db is not None
        db = self._db
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        sent = time.perf_counter()

        def committed(times: _CommitTimes) -> None:
            self._committed(len(group), began, times)
            _answer(group, outcomes)
            _settle(done, None)

        def commit() -> None:
            started = time.perf_counter()
            try:
                db.execute("COMMIT")
            except BaseException as error:
                _tell(loop, _fail, done, error)
            else:
                _tell(loop, committed, _CommitTimes(sent, started, time.perf_counter()))

        self.send(commit)
        await done

    async def close(self) -> None:
        """Commit what is queued, then close."""
        if self._committer.running and not self._closing:
            self._closing = True
            # Writes are committed in the order they came: once this one is, all are.
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._queue.append(_Pending(lambda db: None, future, time.perf_counter()))
            self._wake.set()
            with suppress(StoreError):
                await future
        await self._committer.close()
        self._closing = True
        await self._checkpointer.close()
        await self._checkpoints.close()
        await super().close()


def _tell(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
    """From a connection's thread: have the event loop call ``callback(*args)``; nothing
    if the loop has closed (nobody is waiting any more)."""
    with suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, *args)


def _settle(future: asyncio.Future[T], result: T) -> None:
    if not future.done():  # whoever waited may have been cancelled
        future.set_result(result)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _answer(group: list[_Pending], outcomes: list[WriteResult]) -> None:
    """Tell each write's caller what it came to (one who stopped waiting is not told)."""
    now = time.perf_counter()
    for pending, outcome in zip(group, outcomes, strict=True):
        if pending.future.done():
            continue
        pending.answered = now
        if outcome.error is None:
            pending.future.set_result(outcome.value)
        else:
            pending.future.set_exception(as_store_error(outcome.error))


def _checkpoint(db: sqlite3.Connection) -> None:
    """Copy what the WAL holds into the database, as far as no reader still needs it."""
    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()


def _in_savepoint(db: sqlite3.Connection, work: Work) -> WriteResult:
    """``work(db)`` inside a savepoint, undone if it raises; sqlite3.Error if the savepoint
    itself fails (the transaction is then lost)."""
    db.execute("SAVEPOINT write")
    try:
        value = work(db)
    except Exception as error:
        db.execute("ROLLBACK TO write")
        db.execute("RELEASE write")
        return WriteResult(error=error)
    db.execute("RELEASE write")
    return WriteResult(value)


def _roll_back(db: sqlite3.Connection) -> None:
    # A failure may have rolled the transaction back already (SQLite does on some errors).
    with suppress(sqlite3.Error):
        if db.in_transaction:
            db.execute("ROLLBACK")
