"""Background jobs of the running door, supervised: started once, logged when they fail,
restarted (or stopped, loudly), and closed in order.

A job is an async function that runs as long as the door does (the bulletin and backup
keepers, the contest clock, the solver's background search). :class:`Supervised` runs it in
a task of its own; an exception escaping the job is logged with its traceback and the job
starts again after ``restart_delay`` seconds, or, with ``restart=False``, is logged as the
job's end and kept in :attr:`Supervised.failure`. A job never dies unseen.

>>> import asyncio
>>> async def demo() -> list[str]:
...     runs: list[str] = []
...     async def job() -> None:
...         runs.append("run")
...         if len(runs) == 1:
...             raise RuntimeError("the first run fails")
...         await asyncio.Event().wait()  # then runs until closed
...     supervised = Supervised("demo", job, restart_delay=0)
...     supervised.start()
...     await asyncio.sleep(0.01)
...     await close_in_order(supervised)
...     return runs + [str(supervised.running)]
>>> asyncio.run(demo())
['run', 'run', 'False']

Nothing here knows the door's rooms, so any of them (the store, the solver, the running door)
can use it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Protocol

log = logging.getLogger("door")

RESTART_DELAY = 5.0
"""Seconds before a failed job starts again: a job failing at once does not spin."""

Job = Callable[[], Awaitable[None]]


class Supervised:
    """One background job, ``name``d in the log; see the module."""

    def __init__(
        self, name: str, job: Job, *, restart: bool = True, restart_delay: float = RESTART_DELAY
    ) -> None:
        self.name = name
        self._job = job
        self._restart = restart
        self._restart_delay = restart_delay
        self._task: asyncio.Task[None] | None = None
        #: What ended a job that is not restarted, if it failed.
        self.failure: Exception | None = None
        #: How many times the job has failed.
        self.failures = 0

    @property
    def running(self) -> bool:
        """Whether the job is started and neither closed nor stopped by a failure."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start the job; starting it again while it runs does nothing."""
        if self._task is None:
            self._task = asyncio.create_task(self._supervise(), name=self.name)

    async def close(self) -> None:
        """Stop the job (cancelled where it waits) and wait until it has stopped."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    async def _supervise(self) -> None:
        while True:
            try:
                await self._job()
                return
            except Exception as error:  # CancelledError is not one: closing goes on
                self.failures += 1
                if not self._restart:
                    self.failure = error
                    log.critical("%s failed and is stopped", self.name, exc_info=error)
                    return
                log.error(
                    "%s failed; it starts again in %g s",
                    self.name,
                    self._restart_delay,
                    exc_info=error,
                )
            await asyncio.sleep(self._restart_delay)


class Closable(Protocol):
    """Anything with an ``async close()``: a job, or what holds one."""

    async def close(self) -> None: ...


async def close_in_order(*parts: Closable) -> None:
    """Close each part in turn, the next once the one before has closed (a part that another
    uses closes after it); a part that fails to close is logged, and the rest still close."""
    for part in parts:
        try:
            await part.close()
        except Exception:
            log.exception("%s did not close cleanly", type(part).__name__)
