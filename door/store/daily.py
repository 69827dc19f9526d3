"""The deal of the day: the deal chosen for each day, the games that play it, its boards."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import date
from pathlib import Path

from door.engine import Game
from door.engine.status import Status
from door.fairness import new_door_secret
from door.files import create_once
from door.levels import Level
from door.store.base import execute, fetch_all, moment
from door.store.games import LATER_PLAYS, VariantStore, rebuild
from door.store.records import DailyDay, DailyDeal, DailyResult

log = logging.getLogger("door")

DAILY_SECRET = "daily"  # door_secrets.name of the secret each day's deal is drawn from


class DailyStore(VariantStore):
    """Each day's deal, stored once so that every caller gets the same one all day."""

    @property
    def secret_path(self) -> Path:
        """The deal of the day's secret, in an owner-only file of its own beside the database
        (``canfield.db.secret``): out of the database, so out of every backup of it."""
        return Path(f"{self.path}.secret")

    async def daily_secret(self) -> str:
        """The door's own secret for the deals of the day, made the first time it is asked
        (the door asks when it opens its database) and kept for good in :attr:`secret_path`.

        A secret an older door kept in the database moves to the file (and out of the
        database). A database without its file (a backup restored elsewhere) gets a new
        secret: the days already chosen keep their deals, later days are drawn anew.
        """
        path = self.secret_path
        try:
            return (await asyncio.to_thread(path.read_text)).strip()
        except FileNotFoundError:
            pass
        rows = await self._read("SELECT value FROM door_secrets WHERE name = ?", (DAILY_SECRET,))
        kept = str(rows[0][0]) if rows else None
        made = await asyncio.to_thread(create_once, path, (kept or new_door_secret()).encode())
        chosen = await self._read("SELECT count(*) FROM daily_deals")
        if kept is None and chosen[0][0]:
            log.warning(
                "the deal of the day's secret was made anew in %s: the days already chosen "
                "keep their deals, later days are drawn from the new secret",
                path,
            )
        elif kept is not None:
            log.info("the deal of the day's secret moved out of the database to %s", path)
        await self._write(
            lambda db: execute(db, "DELETE FROM door_secrets WHERE name = ?", (DAILY_SECRET,))
        )
        return made.decode().strip()

    def today(self) -> date:
        """The server's local date, by the store's clock."""
        return self._clock().astimezone().date()

    async def daily_deal(self, day: date) -> DailyDeal | None:
        """The deal of the day chosen for ``day``, if it has been chosen."""
        rows = await self._read(
            "SELECT day, level, variant_id, deal FROM daily_deals WHERE day = ?",
            (day.isoformat(),),
        )
        return DailyDeal(*rows[0]) if rows else None

    async def choose_daily_deal(self, day: date, level: Level, deal: int) -> DailyDeal:
        """Keep ``deal`` as the deal of ``day`` unless one was kept first; the one kept."""
        variant_id = await self.variant_id(level)
        now = self._now()

        def keep(db: sqlite3.Connection) -> DailyDeal:
            execute(
                db,
                "INSERT OR IGNORE INTO daily_deals (day, level, variant_id, deal, chosen) "
                "VALUES (?, ?, ?, ?, ?)",
                (day.isoformat(), level.number, variant_id, deal, now),
            )
            rows = fetch_all(
                db,
                "SELECT day, level, variant_id, deal FROM daily_deals WHERE day = ?",
                (day.isoformat(),),
            )
            return DailyDeal(*rows[0])

        return await self._write(keep)

    async def daily_game(self, user_id: int, day: date) -> tuple[int, Status, Game] | None:
        """The user's game of the deal of ``day``: (id, status, game), or None if not begun."""
        rows = await self._read(
            f"SELECT id, status, position, {LATER_PLAYS} FROM games WHERE user_id = ? AND day = ?",
            (user_id, day.isoformat()),
        )
        if not rows:
            return None
        game_id, status, position, later = rows[0]
        return game_id, Status(status), rebuild(game_id, position, later)

    async def unfinished_daily_games(self, user_id: int | None, before: date) -> list[int]:
        """The deal-of-the-day games of days before ``before`` still unfinished: the user's,
        or everyone's with None."""
        rows = await self._read(
            "SELECT id FROM games WHERE (? IS NULL OR user_id = ?) AND day < ? "
            "AND status = 'playing' ORDER BY day, id",
            (user_id, user_id, before.isoformat()),
        )
        return [row[0] for row in rows]

    async def daily_board(self, day: date) -> list[DailyResult]:
        """Every game of the deal of ``day``: wins first, then by score, fewer moves, earlier
        finish; unfinished games last."""
        rows = await self._read(
            "SELECT u.alias, u.bbs, g.status, g.score, g.moves, g.assisted, g.finished "
            "FROM games g JOIN users u ON u.id = g.user_id WHERE g.day = ? "
            "ORDER BY g.status = 'playing', g.status = 'won' DESC, g.score DESC, g.moves, "
            "g.finished, g.id",
            (day.isoformat(),),
        )
        return [
            DailyResult(
                alias=row[0],
                bbs=row[1],
                status=Status(row[2]),
                score=row[3],
                moves=row[4],
                assisted=bool(row[5]),
                finished=None if row[6] is None else moment(row[6]),
            )
            for row in rows
        ]

    async def daily_days(self, before: date, limit: int = 9) -> list[DailyDay]:
        """The deals of the days before ``before``, latest first, with how many played."""
        rows = await self._read(
            "SELECT d.day, d.level, d.deal, count(g.id) FROM daily_deals d "
            "LEFT JOIN games g ON g.day = d.day WHERE d.day < ? "
            "GROUP BY d.day ORDER BY d.day DESC LIMIT ?",
            (before.isoformat(), limit),
        )
        return [DailyDay(*row) for row in rows]
