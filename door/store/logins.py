"""Wrong passwords and sign-ups, kept in the database so that a restart resets nothing.

A back-off per alias, across every connection and address: the first
:data:`FREE_ALIAS_FAILURES` wrong passwords cost nothing more than the visit's own pause;
each one after locks the alias for twice as long as the last, from 15 seconds up to
:data:`ALIAS_LOCK_MAX` (5 minutes), so that a guesser gets a dozen tries an hour and the
real owner never waits more than 5 minutes. The same per address, across aliases, from
:data:`FREE_ADDRESS_FAILURES` on, up to :data:`ADDRESS_LOCK_MAX`. Failures are forgotten
:data:`FORGET_AFTER` after the last one, and an alias's when its owner logs in.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from door.store.base import StoreBase, execute, fetch_all, moment, stamp

FREE_ALIAS_FAILURES = 3
FREE_ADDRESS_FAILURES = 10
FIRST_LOCK = timedelta(seconds=15)
ALIAS_LOCK_MAX = timedelta(minutes=5)
ADDRESS_LOCK_MAX = timedelta(minutes=15)
FORGET_AFTER = timedelta(hours=1)
SIGN_UP_WINDOW = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class Failures:
    """Wrong passwords for one alias (or from one address) since they were last forgotten."""

    count: int
    last: datetime
    locked_until: datetime


def lock_after(failures: int, free: int, longest: timedelta) -> timedelta:
    """How long the ``failures``-th wrong password in a row locks out the next try.

    >>> [lock_after(n, 3, ALIAS_LOCK_MAX).seconds for n in range(1, 10)]
    [0, 0, 0, 15, 30, 60, 120, 240, 300]
    """
    if failures <= free:
        return timedelta(0)
    return min(longest, FIRST_LOCK * 2 ** min(failures - free - 1, 20))


class LoginStore(StoreBase):
    """Wrong passwords per alias and per address, and sign-ups per address."""

    async def login_wait(self, alias_key: str, address: str) -> float:
        """Seconds until a log-in as ``alias_key`` from ``address`` may be tried; 0 now."""
        wait, _ = await self.login_standing(alias_key, address)
        return wait

    async def login_standing(self, alias_key: str, address: str) -> tuple[float, int]:
        """:meth:`login_wait`, and the wrong passwords from ``address`` not yet forgotten."""
        now = self._clock()
        rows = await self._read(
            "SELECT max(locked_until), "
            "sum(CASE WHEN kind = 'address' AND last_failure >= ? THEN failures ELSE 0 END) "
            "FROM login_failures "
            "WHERE (kind = 'alias' AND key = ?) OR (kind = 'address' AND key = ?)",
            (stamp(now - FORGET_AFTER), alias_key, address),
        )
        until, failures = rows[0]
        wait = max(0.0, (moment(until) - now).total_seconds()) if until else 0.0
        return wait, int(failures or 0)

    async def record_login(self, alias_key: str, address: str, succeeded: bool) -> None:
        """Count a wrong password against the alias and the address, or forget the alias's
        failures when its owner got in."""
        now = self._clock()

        def record(db: sqlite3.Connection) -> None:
            if succeeded:
                execute(
                    db, "DELETE FROM login_failures WHERE kind = 'alias' AND key = ?", (alias_key,)
                )
                return
            for kind, key, free, longest in (
                ("alias", alias_key, FREE_ALIAS_FAILURES, ALIAS_LOCK_MAX),
                ("address", address, FREE_ADDRESS_FAILURES, ADDRESS_LOCK_MAX),
            ):
                if not key:
                    continue
                rows = fetch_all(
                    db,
                    "SELECT failures, last_failure FROM login_failures WHERE kind = ? AND key = ?",
                    (kind, key),
                )
                fresh = rows and now - moment(rows[0][1]) < FORGET_AFTER
                count = rows[0][0] + 1 if fresh else 1
                until = now + lock_after(count, free, longest)
                execute(
                    db,
                    "INSERT INTO login_failures (kind, key, failures, last_failure, locked_until) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET "
                    "failures = excluded.failures, last_failure = excluded.last_failure, "
                    "locked_until = excluded.locked_until",
                    (kind, key, count, stamp(now), stamp(until)),
                )
            # What is an hour old is forgotten; the table stays as small as the hour's guessing.
            execute(
                db,
                "DELETE FROM login_failures WHERE last_failure < ?",
                (stamp(now - FORGET_AFTER),),
            )

        await self._write(record)

    async def login_failures(self, alias_key: str) -> Failures | None:
        """The alias's wrong passwords not yet forgotten, if any (for the sysop)."""
        rows = await self._read(
            "SELECT failures, last_failure, locked_until FROM login_failures "
            "WHERE kind = 'alias' AND key = ?",
            (alias_key,),
        )
        if not rows or self._clock() - moment(rows[0][1]) >= FORGET_AFTER:
            return None
        return Failures(rows[0][0], moment(rows[0][1]), moment(rows[0][2]))

    async def sign_ups_lately(self, address: str) -> int:
        """Accounts signed up from ``address`` in the last hour."""
        since = stamp(self._clock() - SIGN_UP_WINDOW)
        rows = await self._read(
            "SELECT count(*) FROM sign_ups WHERE address = ? AND at >= ?", (address, since)
        )
        return int(rows[0][0])

    async def record_sign_up(self, address: str) -> None:
        now = self._clock()

        def record(db: sqlite3.Connection) -> None:
            execute(db, "INSERT INTO sign_ups (address, at) VALUES (?, ?)", (address, stamp(now)))
            execute(db, "DELETE FROM sign_ups WHERE at < ?", (stamp(now - SIGN_UP_WINDOW),))

        await self._write(record)
