"""Contests at work: their clock (each opens and closes on its own, whoever asks first: the
running door's :class:`ContestClock`, or the next caller in door mode) and a contest's table
as data, for the bulletins, the sysop's results and a web page.

What a contest shows depends on where it stands: nothing of its deals before it opens, the
seals of its deals from its opening, and their numbers and salts once it has closed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from ansi.text import sanitize
from door.store import Store
from door.store.contests import Contest, ContestDeal, ContestStanding, ContestState
from door.tasks import Supervised
from door.views.layout import counted, local_time

log = logging.getLogger("door")

RECHECK_SECONDS = 60.0
"""How often the clock looks again unasked (a contest declared without a reload)."""

CONTEST_WAIT = 0.5
"""Seconds, at least, between two looks brought forward for a contest's time."""


async def keep_contests_on_time(store: Store) -> bool:
    """Open and close the contests whose time has come, and say so in the log (seals, not
    deals: a deal's number never reaches the log before its contest closes). Whether any
    did (the bulletins then show it)."""
    changes = await store.settle_contests()
    for change in changes:
        name = sanitize(change.contest.name)
        if change.what == "opened":
            found = await store.contest_seals(change.contest)
            seals = ", ".join(f"{number}. {seal}" for number, seal in enumerate(found, start=1))
            log.info(
                "contest %s is open until %s; the seals of its deals: %s",
                name,
                local_time(change.contest.closes),
                seals,
            )
        else:
            log.info(
                "contest %s has closed (%s resigned by the close); its deals are shown",
                name,
                counted(change.resigned, "unfinished game"),
            )
    return bool(changes)


class ContestClock:
    """Opens and closes the contests on time while the door runs: a supervised job of its
    own (:class:`door.tasks.Supervised`), so that no solver search holds a contest back; a
    failure (the store's, say) is logged and the clock starts again a few seconds later.
    ``changed`` is called when a contest has opened or closed (for the bulletins)."""

    def __init__(self, store: Store, changed: Callable[[], None] | None = None) -> None:
        self._store = store
        self._changed = changed
        self._wake = asyncio.Event()
        self._job = Supervised("contest clock", self._keep_time)

    def start(self) -> None:
        self._job.start()

    def wake(self) -> None:
        """Look again now: a reload may bring a contest declared meanwhile."""
        self._wake.set()

    async def settle_now(self) -> bool:
        """Open and close what is due now, as the clock would, and wait for it to be done:
        the sysop's command has declared a contest (one that opens now is opened by the
        door, so its opening is in the door's log and bulletins). Whether any changed."""
        changed = await keep_contests_on_time(self._store)
        if changed and self._changed is not None:
            self._changed()
        self.wake()  # the next change may be sooner than the clock's wait
        return changed

    async def close(self) -> None:
        await self._job.close()

    async def _keep_time(self) -> None:
        while True:
            self._wake.clear()
            if await keep_contests_on_time(self._store) and self._changed is not None:
                self._changed()
            with suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), await self._until_next_change())

    async def _until_next_change(self) -> float:
        """Seconds until a contest next opens or closes: a minute at most, and at least
        :data:`CONTEST_WAIT`, so that the clock never spins on a change still overdue."""
        change = await self._store.next_contest_change()
        if change is None:
            return RECHECK_SECONDS
        seconds = (change - self._store.now()).total_seconds()
        return min(RECHECK_SECONDS, max(seconds, CONTEST_WAIT))


@dataclass(frozen=True, slots=True)
class ContestBoard:
    """A contest as anyone may see it now: ``seals`` from its opening on, ``deals`` (numbers
    and salts) once it has closed, and its table, best first."""

    contest: Contest
    state: ContestState
    seals: tuple[str, ...]
    deals: tuple[ContestDeal, ...]
    rows: tuple[ContestStanding, ...]


async def contest_board(
    store: Store, contest: Contest | None = None, bbs: str | None = None
) -> ContestBoard | None:
    """The board of ``contest``, or of the latest contest that has opened (None if none
    has); with ``bbs``, only that board's callers."""
    now = store.now()
    if contest is None:
        opened = [c for c in await store.contests() if c.state(now) != ContestState.COMING]
        if not opened:
            return None
        contest = opened[-1]
    state = contest.state(now)
    deals = await store.contest_deals(contest.id)
    rows = await store.contest_table(contest.id)
    if bbs is not None:
        rows = [row for row in rows if row.bbs == bbs]
    return ContestBoard(
        contest=contest,
        state=state,
        seals=() if state == ContestState.COMING else tuple(await store.contest_seals(contest)),
        # A member's copy of a league contest shows its deals once the hub has shown them.
        deals=tuple(deal for deal in deals if deal.salt) if contest.revealed else (),
        rows=tuple(rows),
    )


def board_json(board: ContestBoard) -> dict[str, Any]:
    """A contest's board as plain JSON values (for the JSON bulletin and web pages)."""
    contest = board.contest
    return {
        "name": sanitize(contest.name),
        "level": contest.level,
        "deals": contest.deals,
        "opens": contest.opens.isoformat(),
        "closes": contest.closes.isoformat(),
        "state": board.state,
        "seals": list(board.seals),
        "revealed": [
            {"number": deal.number, "deal": deal.deal, "salt": deal.salt, "seal": deal.seal}
            for deal in board.deals
        ],
        "table": [
            {
                "rank": rank,
                "alias": sanitize(row.alias),
                "bbs": None if row.bbs is None else sanitize(row.bbs),
                "played": row.played,
                "score": row.score,
                "moves": row.moves,
                "finished": None if row.finished is None else row.finished.isoformat(),
                "assisted": row.assisted,
                "unfinished": row.playing,
            }
            for rank, row in enumerate(board.rows, start=1)
        ],
    }
