"""Deals proved winnable ahead of time, kept per level's rules until a caller is dealt one."""

from __future__ import annotations

import sqlite3

from door.levels import Level
from door.store.base import execute, fetch_all
from door.store.games import VariantStore


class WinnableStore(VariantStore):
    """Deals the solver proved winnable, kept with the rules of the level as they were when
    it proved them: a level whose knobs change starts a new stock."""

    async def add_winnable(self, level: Level, deal: int) -> None:
        """Keep ``deal``, proved winnable under the level's current rules."""
        variant_id = await self.variant_id(level)
        now = self._now()
        await self._write(
            lambda db: execute(
                db,
                "INSERT OR IGNORE INTO winnable_deals (variant_id, deal, found) VALUES (?, ?, ?)",
                (variant_id, deal, now),
            )
        )

    async def take_winnable(self, level: Level) -> int | None:
        """Take the oldest deal kept for the level's current rules (it is dealt only once);
        None when none is left."""
        variant_id = await self.variant_id(level)

        def take(db: sqlite3.Connection) -> int | None:
            rows = fetch_all(
                db,
                "SELECT deal FROM winnable_deals WHERE variant_id = ? ORDER BY found, deal LIMIT 1",
                (variant_id,),
            )
            if not rows:
                return None
            execute(
                db,
                "DELETE FROM winnable_deals WHERE variant_id = ? AND deal = ?",
                (variant_id, rows[0][0]),
            )
            return int(rows[0][0])

        return await self._write(take)

    async def winnable_deals(self, level: Level) -> list[int]:
        """The deals kept for the level's current rules, the next to be dealt first."""
        variant_id = await self.variant_id(level)
        rows = await self._read(
            "SELECT deal FROM winnable_deals WHERE variant_id = ? ORDER BY found, deal",
            (variant_id,),
        )
        return [int(row[0]) for row in rows]
