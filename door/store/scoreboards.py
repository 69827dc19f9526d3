"""A user's statistics, the high-score lists, the standings and their resets."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import datetime

from door.engine.status import Status
from door.engine.variant import Scoring
from door.levels import Level
from door.store.accounts import bbs_key
from door.store.base import Row, execute, fetch_all, moment
from door.store.games import UNFINISHED, VariantStore
from door.store.records import HighScore, Standing, Statistics
from door.store.statistics import summarize

ALL_LEVELS = 0  # score_resets.level for a reset of every level


def to_high_score(row: Row) -> HighScore:
    return HighScore(
        alias=row[0],
        bbs=row[1],
        score=row[2],
        won=bool(row[3]),
        moves=row[4],
        finished=moment(row[5]),
        assisted=bool(row[6]),
        game_id=row[7],
    )


class ScoreStore(VariantStore):
    """Everything worked out from finished games."""

    async def statistics(self, user_id: int, level: Level) -> Statistics:
        """The user's record at this level, over every set of rules it has had; practice
        games are counted apart, and contest games not at all (their record is the contest's
        table)."""

        # One statement, so that its parts agree: one state of the database.
        mine = "user_id = ? AND level = ? AND status != 'playing' AND contest_id IS NULL"
        rows = await self._read(
            "SELECT (SELECT json_group_array(json_array(status, score)) FROM "
            f"(SELECT status, score FROM games WHERE {mine} AND NOT practice "
            "ORDER BY finished, id)), "
            f"(SELECT count(*) FROM games WHERE {mine} AND practice), "
            f"(SELECT coalesce(sum(status = 'won'), 0) FROM games WHERE {mine} AND practice), "
            f"EXISTS (SELECT 1 FROM games WHERE {UNFINISHED}), "
            "(SELECT coalesce(sum(g.score), 0) FROM games g "
            "JOIN variants v ON v.id = g.variant_id "
            "WHERE g.user_id = ? AND g.level = ? AND NOT g.practice AND g.contest_id IS NULL "
            "AND json_extract(v.knobs, '$.scoring') = 'vegas')",
            (user_id, level.number) * 5,
        )
        finished, practice_played, practice_won, unfinished, vegas = rows[0]
        balance = int(vegas) if level.variant.scoring == Scoring.VEGAS else None
        stats = summarize(
            level.number,
            [(Status(status), score) for status, score in json.loads(finished)],
            balance,
            bool(unfinished),
        )
        return replace(stats, practice_played=practice_played, practice_won=practice_won)

    async def recent_results(
        self, user_id: int, limit: int = 10, level_number: int | None = None
    ) -> list[tuple[int, Status]]:
        """(cards on the foundations, status) of the user's last finished scored games, oldest
        first."""
        rows = await self._read(
            "SELECT cards_up, status FROM games WHERE user_id = ? AND status != 'playing' "
            "AND NOT practice AND contest_id IS NULL "
            "AND (? IS NULL OR level = ?) ORDER BY finished DESC, id DESC LIMIT ?",
            (user_id, level_number, level_number, limit),
        )
        return [(row[0], Status(row[1])) for row in reversed(rows)]

    # -- scoreboards ---------------------------------------------------------------------

    async def high_scores(
        self, level: Level, limit: int = 10, bbs: str | None = None
    ) -> list[HighScore]:
        """The best finished games under the level's current rules (never practice, never a
        contest's: those are on the contest's table, and one may be resigned by its close),
        since its last reset; with ``bbs``, only those of that board's callers.

        Best first: higher score, then won before lost, fewer moves, earlier finish.
        """
        variant_id = await self._current_variant_id(level)
        if variant_id is None:
            return []
        rows = await self._read(
            "SELECT u.alias, u.bbs, g.score, g.status = 'won', g.moves, g.finished, "
            "g.assisted, g.id FROM games g JOIN users u ON u.id = g.user_id "
            "WHERE g.variant_id = ? AND g.status != 'playing' AND NOT g.practice "
            "AND g.contest_id IS NULL AND g.finished > "
            "coalesce((SELECT max(reset_at) FROM score_resets WHERE level IN (?, ?)), '') "
            "AND (? IS NULL OR u.bbs_key = ?) "
            "ORDER BY g.score DESC, g.status = 'won' DESC, g.moves, g.finished, g.id LIMIT ?",
            (variant_id, level.number, ALL_LEVELS, bbs, _board_key(bbs), limit),
        )
        return [to_high_score(row) for row in rows]

    async def standings(self, limit: int = 20, bbs: str | None = None) -> list[Standing]:
        """Every user with a game (with ``bbs``, every caller of that board), over finished
        games of all levels (Palace's board), contest games apart (as for the high scores).

        Most wins first, then the better percentage, the better best score, the alias.
        """
        rows = await self._read(
            "SELECT u.alias, u.bbs, sum(g.status != 'playing') AS played, "
            "sum(g.status = 'won') AS wins, "
            "max(CASE WHEN g.status != 'playing' THEN g.score END) AS best, "
            "max(g.status = 'playing'), sum(g.status != 'playing' AND g.assisted) "
            "FROM users u JOIN games g ON g.user_id = u.id "
            "AND (NOT g.practice OR g.status = 'playing') AND g.contest_id IS NULL "
            "WHERE (? IS NULL OR u.bbs_key = ?) GROUP BY u.id "
            "ORDER BY wins DESC, CAST(wins AS REAL) / nullif(played, 0) DESC, "
            "best DESC, u.alias_key, u.bbs_key LIMIT ?",
            (bbs, _board_key(bbs), limit),
        )
        return [
            Standing(
                alias=row[0],
                bbs=row[1],
                games=row[2],
                wins=row[3],
                percentage=100.0 * row[3] / row[2] if row[2] else None,
                best=row[4],
                unfinished=bool(row[5]),
                assisted=row[6],
            )
            for row in rows
        ]

    async def reset_scores(self, level_number: int | None = None) -> int:
        """Start a level's high-score list afresh (every level's with None).

        Nothing is deleted: the reset time is kept per level, and the high-score lists show
        only games finished after it. Statistics and standings keep every game. Returns how
        many finished games it hid (under any of the level's rules, old ones included).
        """
        if level_number is not None and level_number < 1:
            raise ValueError("levels are numbered from 1")
        level = ALL_LEVELS if level_number is None else level_number
        now = self._now()

        def reset(db: sqlite3.Connection) -> int:
            hidden = fetch_all(
                db,
                "SELECT count(*) FROM games g WHERE g.status != 'playing' AND NOT g.practice "
                "AND g.contest_id IS NULL AND (? = 0 OR g.level = ?) AND g.finished > coalesce("
                "(SELECT max(reset_at) FROM score_resets r WHERE r.level IN (g.level, 0)), '')",
                (level, level),
            )
            execute(
                db,
                "INSERT INTO score_resets (level, reset_at) VALUES (?, ?) "
                "ON CONFLICT (level) DO UPDATE SET reset_at = excluded.reset_at",
                (level, now),
            )
            return int(hidden[0][0])

        return await self._write(reset)

    async def scores_reset_at(self, level_number: int) -> datetime | None:
        """When the level's high-score list was last started afresh, if ever."""
        rows = await self._read(
            "SELECT max(reset_at) FROM score_resets WHERE level IN (?, ?)",
            (level_number, ALL_LEVELS),
        )
        return None if rows[0][0] is None else moment(rows[0][0])


def _board_key(bbs: str | None) -> str | None:
    return None if bbs is None else bbs_key(bbs)
