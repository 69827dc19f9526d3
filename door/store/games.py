"""Variants (the rules each level has had) and games, stored after every play.

A play is stored as its command, a row of the ``plays`` table, beside the counts the
scoreboards read (status, score, moves, cards up); the game's whole position, history
included, is written only every :data:`FULL_COPY_EVERY` plays and when the game ends, and
then the plays it holds are dropped. A game is rebuilt from its last full copy and the plays
after it, replayed: the same game, with the same undo, as if the whole position had been
stored each time, at a fraction of the work for every play (no position to serialise).
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from door.engine import Card, Game, IllegalMove, Variant
from door.engine.status import Status
from door.fairness import new_salt
from door.levels import Level
from door.store.base import (
    Clock,
    Row,
    StoreBase,
    change_one,
    execute,
    fetch_all,
    local_midnight,
    moment,
    stamp,
)
from door.store.group_commit import Writer
from door.store.reading import Reader
from door.store.records import GameConflict, GameRecord, NotFound, StoreError, VariantRow
from door.store.users import user_by_id

# The plays stored after a game's last full copy, as a JSON array, in a games query.
LATER_PLAYS = (
    "(SELECT json_group_array(command) FROM "
    "(SELECT command FROM plays WHERE plays.game_id = games.id ORDER BY number))"
)
GAME_COLUMNS = (
    "id, user_id, level, variant_id, deal, status, score, moves, cards_up, assisted, "
    f"started, finished, history, day, practice, salt, {LATER_PLAYS}"
)
UNFINISHED = (
    "user_id = ? AND level = ? AND status = 'playing' AND day IS NULL AND contest_id IS NULL"
)
# A full copy of a game's position every so many plays: a game is rebuilt by replaying at
# most this many plays after its last copy.
FULL_COPY_EVERY = 32


def knobs_json(variant: Variant) -> str:
    return json.dumps(variant.to_dict(), sort_keys=True, separators=(",", ":"))


def order_text(game: Game) -> str:
    """The game's 52 cards in dealing order, as the games table keeps them."""
    return _order_text(game.order)


@functools.lru_cache(maxsize=2048)
def _order_text(order: tuple[Card, ...]) -> str:
    # Every play's write checks it: remembered for the games being played (under 2 MB).
    return " ".join(str(card) for card in order)


def position_json(game: Game) -> str:
    """The game's whole position, history included, as the games table keeps it."""
    return json.dumps(game.to_dict(), separators=(",", ":"))


def game_counts(game: Game) -> tuple[Status, int, int, int]:
    """(status, score, moves, cards up) as the games table keeps them."""
    return game.status, game.score, game.moves, game.cards_on_foundations


def _counts_update(
    game_id: int,
    counts: tuple[Status, int, int, int],
    stored_score: int,
    finished: str | None,
    plays: int,
) -> tuple[str, tuple[object, ...]]:
    """The statement that stores a game's counts over those of its unfinished row.

    Only what can have changed is set: SQLite rewrites every index that holds a column being
    set, or names it in its ``WHERE``, changed or not. A game still being played keeps its
    status and its empty ``finished``, so its indexes by user, by deal and of the unfinished
    stay as they are, and its score is set only when it moved: most plays write the game's
    row and its plays, two pages to the disk where setting every count wrote six."""
    status, score, moves, cards_up = counts
    if status != Status.PLAYING:
        return (
            "UPDATE games SET status = ?, score = ?, moves = ?, cards_up = ?, finished = ?, "
            "plays = ? WHERE id = ?",
            (status, score, moves, cards_up, finished, plays, game_id),
        )
    if score != stored_score:
        return (
            "UPDATE games SET score = ?, moves = ?, cards_up = ?, plays = ? WHERE id = ?",
            (score, moves, cards_up, plays, game_id),
        )
    return (
        "UPDATE games SET moves = ?, cards_up = ?, plays = ? WHERE id = ?",
        (moves, cards_up, plays, game_id),
    )


def rebuild(game_id: int, position: str, later: str) -> Game:
    """A stored game: its last full copy, then the plays stored after it (``LATER_PLAYS``)."""
    try:
        game = Game.from_dict(json.loads(position))
        for command in json.loads(later):
            game.play(command)
    except (ValueError, IllegalMove) as error:
        raise StoreError(f"game {game_id} can't be read back: {error}") from None
    return game


def to_game_record(row: Row) -> GameRecord:
    return GameRecord(
        id=row[0],
        user_id=row[1],
        level=row[2],
        variant_id=row[3],
        deal=row[4],
        status=Status(row[5]),
        score=row[6],
        moves=row[7],
        cards_up=row[8],
        assisted=bool(row[9]),
        started=moment(row[10]),
        finished=None if row[11] is None else moment(row[11]),
        history=(*json.loads(row[12] or "[]"), *json.loads(row[16])),
        day=row[13],
        practice=bool(row[14]),
        salt=row[15],
    )


GAME_BY_ID = f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?"


def one_game(rows: list[Row], game_id: int) -> GameRecord:
    """The record of ``GAME_BY_ID``'s rows; NotFound if there are none."""
    if not rows:
        raise NotFound(f"no game {game_id}")
    return to_game_record(rows[0])


def game_by_id(db: sqlite3.Connection, game_id: int) -> GameRecord:
    return one_game(fetch_all(db, GAME_BY_ID, (game_id,)), game_id)


def unfinished_game(db: sqlite3.Connection, user_id: int, level: int) -> int | None:
    """The user's saved game at this level (a deal of the day's or a contest's is not one)."""
    rows = fetch_all(db, f"SELECT id FROM games WHERE {UNFINISHED}", (user_id, level))
    return rows[0][0] if rows else None


def explain_unchanged(db: sqlite3.Connection, game_id: int, order: str, plays: int) -> None:
    """Why an update of a game (dealt in ``order``, ``plays`` plays in) changed nothing,
    as an error."""
    record = game_by_id(db, game_id)
    if record.status != Status.PLAYING:
        raise GameConflict(f"game {game_id} is over ({record.status}); it takes no more plays")
    rows = fetch_all(db, "SELECT deal_order FROM games WHERE id = ?", (game_id,))
    if rows[0][0] != order:
        raise GameConflict(f"game {game_id} was dealt differently from the game given")
    raise GameConflict(
        f"game {game_id} has moved on to play {len(record.history)} elsewhere "
        f"(this copy is at play {plays}): was it played in two sessions?"
    )


class VariantStore(StoreBase):
    """The rules each level has been played under, one row per distinct set of knobs."""

    def __init__(self, writer: Writer, reader: Reader, path: Path, clock: Clock) -> None:
        super().__init__(writer, reader, path, clock)
        self._variant_ids: dict[tuple[int, str], int] = {}

    async def variant_id(self, level: Level) -> int:
        """The row of this level's rules as they are now; a new row if the knobs changed."""
        key = (level.number, knobs_json(level.variant))
        if key not in self._variant_ids:
            now = self._now()

            def insert(db: sqlite3.Connection) -> int:
                execute(
                    db,
                    "INSERT OR IGNORE INTO variants (level, knobs, created) VALUES (?, ?, ?)",
                    (*key, now),
                )
                rows = fetch_all(db, "SELECT id FROM variants WHERE level = ? AND knobs = ?", key)
                return int(rows[0][0])

            self._variant_ids[key] = await self._write(insert)
        return self._variant_ids[key]

    async def variants(self) -> list[VariantRow]:
        """Every set of rules any level has had, oldest first."""
        rows = await self._read("SELECT id, level, knobs, created FROM variants ORDER BY id")
        return [VariantRow(row[0], row[1], json.loads(row[2]), moment(row[3])) for row in rows]

    async def _current_variant_id(self, level: Level) -> int | None:
        """Like :meth:`variant_id` but never writes: None if no game was ever dealt."""
        key = (level.number, knobs_json(level.variant))
        if key in self._variant_ids:
            return self._variant_ids[key]
        rows = await self._read("SELECT id FROM variants WHERE level = ? AND knobs = ?", key)
        return rows[0][0] if rows else None


class GameStore(VariantStore):
    """Dealing, recording every play, finishing and resuming games."""

    async def start_game(
        self,
        user_id: int,
        level: Level,
        game: Game,
        *,
        day: str | None = None,
        practice: bool = False,
    ) -> int:
        """Store a newly dealt game; its id. One unfinished game per user and level.

        A deal that is stuck from the start is stored as finished at once. ``day`` (an ISO
        date) marks the game as that day's deal of the day: one per user and day, and apart
        from the user's saved game of the level. A ``practice`` game (a deal the caller
        chose) never reaches the scoreboards; every other game gets a secret salt for its
        seal (see :mod:`door.fairness`).
        """
        if game.variant != level.variant:
            raise ValueError(f"the game is not dealt under the rules of level {level.number}")
        variant_id = await self.variant_id(level)
        now = self._now()
        values = (
            user_id,
            variant_id,
            level.number,
            game.deal_number,
            order_text(game),
            position_json(game),
            *game_counts(game),
            now,
            None if game.status == Status.PLAYING else now,
            day,
            int(practice),
            None if practice or game.deal_number is None else new_salt(),
        )

        def insert(db: sqlite3.Connection) -> int:
            user_by_id(db, user_id)
            if day is not None:
                played = fetch_all(
                    db, "SELECT 1 FROM games WHERE user_id = ? AND day = ?", (user_id, day)
                )
                if played:
                    raise GameConflict(f"user {user_id} has played the deal of the day {day}")
            elif unfinished_game(db, user_id, level.number) is not None:
                raise GameConflict(
                    f"user {user_id} already has an unfinished game at level {level.number}"
                )
            _, game_id = execute(
                db,
                "INSERT INTO games (user_id, variant_id, level, deal, deal_order, position, "
                "status, score, moves, cards_up, started, finished, day, practice, salt, plays) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, len(game.history)),
            )
            return game_id

        return await self._write(insert)

    async def record_play(self, game_id: int, game: Game) -> None:
        """Store the game after an accepted play or undo; committed when this returns.

        A game whose status is no longer ``playing`` is stored as finished. StoreError if
        the stored game is already over or was dealt differently, NotFound if it is gone,
        DiskFault if the database could not be written (the game stays as last stored).
        """
        order, plays = order_text(game), len(game.history)
        update = self._game_update(game_id, game, order, grown=True)

        def store(db: sqlite3.Connection) -> None:
            if not update(db):
                explain_unchanged(db, game_id, order, plays)

        await self._write(store)

    async def finish_game(self, game_id: int, game: Game) -> None:
        """Store a game that has just ended (won, stuck or resigned). Safe to call again."""
        if game.status == Status.PLAYING:
            raise ValueError("finish_game needs a game that is over; use record_play")
        order, plays = order_text(game), len(game.history)
        update = self._game_update(game_id, game, order, grown=False)

        def store(db: sqlite3.Connection) -> None:
            if not update(db) and game_by_id(db, game_id).status == Status.PLAYING:
                explain_unchanged(db, game_id, order, plays)

        await self._write(store)

    def _game_update(
        self, game_id: int, game: Game, order: str, grown: bool
    ) -> Callable[[sqlite3.Connection], bool]:
        """A write of the game over its stored self, if that is unfinished, of the same deal
        (dealt in ``order``, its :func:`order_text`), and not further on: each play and undo
        adds to the history (``grown``); resigning does not. A copy of the game that fell
        behind (two sessions) changes nothing.

        The plays the stored game lacks are added as rows, unless a full copy is due (see the
        module's docstring): then the whole position is written and those rows dropped.

        The game is read here, in the event loop, not when the write runs: the caller may
        play on before it does."""
        history = tuple(game.history)
        over = game.status != Status.PLAYING
        full_copy = over or len(history) % FULL_COPY_EVERY == 0
        position = position_json(game) if full_copy else None
        counts = game_counts(game)
        finished = self._now() if over else None

        def update(db: sqlite3.Connection) -> bool:
            rows = fetch_all(
                db,
                "SELECT plays, score FROM games "
                "WHERE id = ? AND status = 'playing' AND deal_order = ?",
                (game_id, order),
            )
            if not rows:
                return False
            stored_plays, stored_score = rows[0]
            if stored_plays + int(grown) > len(history):
                return False
            if position is not None:
                execute(db, "DELETE FROM plays WHERE game_id = ?", (game_id,))
                execute(db, "UPDATE games SET position = ? WHERE id = ?", (position, game_id))
            else:
                db.executemany(
                    "INSERT INTO plays (game_id, number, command) VALUES (?, ?, ?)",
                    [
                        (game_id, number, history[number - 1])
                        for number in range(stored_plays + 1, len(history) + 1)
                    ],
                )
            execute(db, *_counts_update(game_id, counts, stored_score, finished, len(history)))
            return True

        return update

    async def resume(self, user_id: int, level_number: int) -> tuple[int, Game] | None:
        """The user's unfinished game at this level, exactly as last stored, or None.

        The game is rebuilt from its position JSON by replaying its history, so undo works
        as it did before. StoreError if the stored game can't be read back.
        """

        rows = await self._read(
            f"SELECT id, position, {LATER_PLAYS} FROM games WHERE {UNFINISHED}",
            (user_id, level_number),
        )
        if not rows:
            return None
        game_id, position, later = rows[0]
        return game_id, rebuild(game_id, position, later)

    async def load_game(self, game_id: int) -> Game:
        """Any stored game rebuilt from its position JSON (to replay or check it)."""
        rows = await self._read(
            f"SELECT position, {LATER_PLAYS} FROM games WHERE id = ?", (game_id,)
        )
        if not rows:
            raise NotFound(f"no game {game_id}")
        return rebuild(game_id, *rows[0])

    async def game_record(self, game_id: int) -> GameRecord:
        """A stored game's facts (status, score, history...); NotFound if there is none."""
        return one_game(await self._read(GAME_BY_ID, (game_id,)), game_id)

    async def games_of(self, user_id: int) -> list[GameRecord]:
        """Every game of a user, oldest first."""
        rows = await self._read(
            f"SELECT {GAME_COLUMNS} FROM games WHERE user_id = ? ORDER BY id", (user_id,)
        )
        return [to_game_record(row) for row in rows]

    async def unfinished_levels(self, user_id: int) -> list[int]:
        """The levels at which the user has a game to resume, in order."""
        rows = await self._read(
            "SELECT level FROM games WHERE user_id = ? AND status = 'playing' AND day IS NULL "
            "AND contest_id IS NULL ORDER BY level",
            (user_id,),
        )
        return [row[0] for row in rows]

    async def games_started_today(self, user_id: int) -> int:
        """Games the user has started since midnight, the server's local time."""
        midnight = local_midnight(self._clock())
        rows = await self._read(
            "SELECT count(*) FROM games WHERE user_id = ? AND started >= ?",
            (user_id, stamp(midnight)),
        )
        return int(rows[0][0])

    async def mark_deal_assisted(self, deal: int) -> list[int]:
        """The sysop's solver was asked about ``deal``: every scored game of it still being
        played is marked as helped, since its player could learn the answer. Their ids."""
        rows = await self._write(
            lambda db: fetch_all(
                db,
                "UPDATE games SET assisted = 1 WHERE deal = ? AND status = 'playing' "
                "AND NOT practice RETURNING id",
                (deal,),
            )
        )
        return sorted(row[0] for row in rows)

    async def mark_assisted(self, game_id: int) -> None:
        """A hint was taken in this game: the scoreboards say so."""
        await self._write(
            lambda db: change_one(db, "UPDATE games SET assisted = 1 WHERE id = ?", (game_id,))
        )
