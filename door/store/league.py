"""The InterBBS league's tables: on the hub, its member boards and their keys, the deals given
to each board, the results accepted and the nonces seen; on a member, its copies of the
hub's contests (seals from the start, each deal only once a caller starts it), the answers
to the results it sent, and the hub's table as last fetched.

A member keeps no queue of results to send: what it has to send is every finished game of a
league contest that has no answer yet, read from the games themselves, so a result can be
lost neither between a game's end and its queueing nor by a kill at any moment.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from door.engine import Variant
from door.engine.status import Status
from door.levels import Level
from door.store.accounts import alias_key
from door.store.base import execute, fetch_all, moment, stamp
from door.store.contests import Contest, ContestDeal, ContestStore, name_key
from door.store.games import LATER_PLAYS, rebuild
from door.store.records import NotFound, StoreError


@dataclass(frozen=True, slots=True)
class LeagueBoard:
    """A member board as the hub knows it."""

    tag: str
    name: str
    public_key: str
    added: datetime
    suspended: datetime | None


@dataclass(frozen=True, slots=True)
class LeagueResult:
    """A finished game of a league contest, as a member sends it and the hub keeps it."""

    contest: int  # the hub's id of the contest
    number: int
    alias: str
    plays: tuple[str, ...]
    status: Status
    score: int
    moves: int
    finished: datetime


@dataclass(frozen=True, slots=True)
class UnsentResult:
    """A member's finished league game that the hub has not answered yet."""

    game_id: int
    result: LeagueResult


@dataclass(frozen=True, slots=True)
class MirroredContest:
    """A league contest as the hub publishes it, for a member to keep a copy of."""

    hub_id: int
    name: str
    level: int
    knobs: dict[str, Any]
    opens: datetime
    closes: datetime
    seals: tuple[str, ...]
    revealed: tuple[ContestDeal, ...]


class LeagueStore(ContestStore):
    """The league's boards, deals, results and copies (see the module's notes)."""

    # --- the hub: its boards ----------------------------------------------------------

    async def add_league_board(self, tag: str, name: str, public_key: str) -> LeagueBoard:
        """A new member board; StoreError if its tag or key is another board's."""
        now = self._now()

        def add(db: sqlite3.Connection) -> LeagueBoard:
            taken = fetch_all(
                db,
                "SELECT tag FROM league_boards WHERE tag_key = ? OR public_key = ?",
                (tag.casefold(), public_key),
            )
            if taken:
                raise StoreError(f"the board {taken[0][0]!r} has that tag or that key already")
            execute(
                db,
                "INSERT INTO league_boards (tag, tag_key, name, public_key, added) "
                "VALUES (?, ?, ?, ?, ?)",
                (tag, tag.casefold(), name, public_key, now),
            )
            return _board(fetch_all(db, f"{_BOARDS} WHERE tag = ?", (tag,))[0])

        return await self._write(add)

    async def league_boards(self) -> list[LeagueBoard]:
        return [_board(row) for row in await self._read(f"{_BOARDS} ORDER BY tag_key")]

    async def league_board(self, tag: str) -> LeagueBoard:
        """The board tagged ``tag`` (case aside); NotFound if none is."""
        rows = await self._read(f"{_BOARDS} WHERE tag_key = ?", (tag.casefold(),))
        if not rows:
            raise NotFound(f"no league board tagged {tag!r}")
        return _board(rows[0])

    async def suspend_league_board(self, tag: str, suspended: bool) -> LeagueBoard:
        """Suspend the board (its requests are refused) or let it play again."""
        board = await self.league_board(tag)
        await self._write(
            lambda db: execute(
                db,
                "UPDATE league_boards SET suspended = ? WHERE tag = ?",
                (self._now() if suspended else None, board.tag),
            )
        )
        return await self.league_board(tag)

    async def remove_league_board(self, tag: str) -> LeagueBoard:
        """Forget the board and its key (its accepted results stay on the tables)."""
        board = await self.league_board(tag)
        await self._write(
            lambda db: execute(db, "DELETE FROM league_boards WHERE tag = ?", (board.tag,))
        )
        return board

    # --- the hub: requests, deals and results ------------------------------------------

    async def use_nonce(self, board: str, nonce: str, sent: datetime, window: timedelta) -> None:
        """Note a request's nonce; StoreError if the board has sent it before. Nonces older
        than ``window`` (requests that old are refused by their time) are forgotten."""
        forget_before = stamp(self._clock() - window)

        def use(db: sqlite3.Connection) -> None:
            execute(db, "DELETE FROM league_nonces WHERE sent < ?", (forget_before,))
            seen = fetch_all(
                db, "SELECT 1 FROM league_nonces WHERE board = ? AND nonce = ?", (board, nonce)
            )
            if seen:
                raise StoreError("that request was sent before (its nonce has been seen)")
            execute(
                db,
                "INSERT INTO league_nonces (board, nonce, sent) VALUES (?, ?, ?)",
                (board, nonce, stamp(sent)),
            )

        await self._write(use)

    async def league_contests(self) -> list[Contest]:
        """The league contests this hub's sysop declared."""
        return [c for c in await self.contests() if c.league and not c.mirrored]

    async def issue_league_deal(self, contest: Contest, board: str, number: int) -> ContestDeal:
        """Deal ``number`` of an open league contest, for a board to deal to its callers;
        when each board was first given each deal is kept."""
        deals = {deal.number: deal for deal in await self.contest_deals(contest.id)}
        if number not in deals:
            raise NotFound(f"the contest {contest.name!r} has no deal {number}")
        await self._write(
            lambda db: execute(
                db,
                "INSERT OR IGNORE INTO league_issued (contest_id, board, number, issued) "
                "VALUES (?, ?, ?, ?)",
                (contest.id, board, number, self._now()),
            )
        )
        return deals[number]

    async def league_issued(self, contest_id: int, board: str, number: int) -> datetime | None:
        """When the board was first given deal ``number`` of the contest, if it was."""
        rows = await self._read(
            "SELECT issued FROM league_issued WHERE contest_id = ? AND board = ? AND number = ?",
            (contest_id, board, number),
        )
        return moment(rows[0][0]) if rows else None

    async def keep_league_result(self, board: str, result: LeagueResult) -> bool:
        """Keep a result the hub has replayed: True if new, False if the very same game was
        kept before (a result sent again after its answer was lost). StoreError if the
        caller has played that deal otherwise: a second attempt."""
        now = self._now()
        plays = json.dumps(list(result.plays), separators=(",", ":"))
        key = alias_key(result.alias)

        def keep(db: sqlite3.Connection) -> bool:
            before = fetch_all(
                db,
                "SELECT plays FROM league_results WHERE contest_id = ? AND board = ? "
                "AND alias_key = ? AND number = ?",
                (result.contest, board, key, result.number),
            )
            if before:
                if before[0][0] == plays:
                    return False
                raise StoreError(
                    f"{result.alias} of {board} has played deal {result.number} already: a "
                    "second attempt is not taken"
                )
            execute(
                db,
                "INSERT INTO league_results (contest_id, board, alias, alias_key, number, "
                "plays, status, score, moves, finished, received) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    result.contest,
                    board,
                    result.alias,
                    key,
                    result.number,
                    plays,
                    result.status,
                    result.score,
                    result.moves,
                    stamp(result.finished),
                    now,
                ),
            )
            return True

        return await self._write(keep)

    # --- a member: its copies of the hub's contests -------------------------------------

    async def mirror_league_contest(self, published: MirroredContest) -> Contest:
        """Keep (or bring up to date) the copy of a hub's contest: its seals, and its deals
        and salts once the hub shows them."""
        level = Level(
            published.level, f"Level {published.level}", Variant.from_dict(published.knobs)
        )
        variant_id = await self.variant_id(level)
        now = self._now()
        key = f"league {published.hub_id}: {name_key(published.name)}"

        def keep(db: sqlite3.Connection) -> int:
            found = fetch_all(db, "SELECT id FROM contests WHERE hub_id = ?", (published.hub_id,))
            if found:
                contest_id = int(found[0][0])
                execute(
                    db,
                    "UPDATE contests SET name = ?, opens = ?, closes = ? WHERE id = ?",
                    (published.name, stamp(published.opens), stamp(published.closes), contest_id),
                )
            else:
                _, contest_id = execute(
                    db,
                    "INSERT INTO contests (name, name_key, level, variant_id, opens, closes, "
                    "made, league, hub_id) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
                    (
                        published.name,
                        key,
                        published.level,
                        variant_id,
                        stamp(published.opens),
                        stamp(published.closes),
                        now,
                        published.hub_id,
                    ),
                )
            db.executemany(
                "INSERT OR IGNORE INTO league_seals (contest_id, number, seal) VALUES (?, ?, ?)",
                [(contest_id, n, seal) for n, seal in enumerate(published.seals, start=1)],
            )
            for deal in published.revealed:
                execute(
                    db,
                    "INSERT INTO contest_deals (contest_id, number, deal, salt) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (contest_id, number) "
                    "DO UPDATE SET salt = excluded.salt",
                    (contest_id, deal.number, deal.deal, deal.salt),
                )
                execute(
                    db,
                    "UPDATE games SET salt = ? WHERE contest_id = ? AND contest_deal = ?",
                    (deal.salt, contest_id, deal.number),
                )
            return contest_id

        contest_id = await self._write(keep)
        return (await self._read_contests("WHERE id = ?", (contest_id,)))[0]

    async def keep_league_deal(self, contest: Contest, number: int, deal: int) -> None:
        """Keep the deal the hub gave for a caller to play (its salt comes at the close)."""
        await self._write(
            lambda db: execute(
                db,
                "INSERT OR IGNORE INTO contest_deals (contest_id, number, deal, salt) "
                "VALUES (?, ?, ?, '')",
                (contest.id, number, deal),
            )
        )

    async def unsent_league_results(self, limit: int = 100) -> list[UnsentResult]:
        """Finished games of league contests the hub has not answered, oldest first."""
        rows = await self._read(
            f"SELECT games.id, c.hub_id, games.contest_deal, u.alias, games.position, "
            f"{LATER_PLAYS}, games.finished, c.closes FROM games "
            "JOIN contests c ON c.id = games.contest_id JOIN users u ON u.id = games.user_id "
            "WHERE c.hub_id IS NOT NULL AND games.finished IS NOT NULL "
            "AND games.id NOT IN (SELECT game_id FROM league_sent) "
            "ORDER BY games.finished, games.id LIMIT ?",
            (limit,),
        )
        found = []
        for game_id, hub_id, number, alias, position, later, finished, closes in rows:
            game = rebuild(game_id, position, later)
            # A game the close resigned ended at the close, however late the door saw it.
            ended = min(moment(finished), moment(closes))
            result = LeagueResult(
                contest=hub_id,
                number=number,
                alias=alias,
                plays=tuple(game.history),
                status=game.status,
                score=game.score,
                moves=game.moves,
                finished=ended,
            )
            found.append(UnsentResult(game_id, result))
        return found

    async def mark_league_sent(self, game_id: int, accepted: bool, reason: str) -> None:
        """The hub's answer to a result: it is not sent again."""
        now = self._now()
        await self._write(
            lambda db: execute(
                db,
                "INSERT OR REPLACE INTO league_sent (game_id, answered, accepted, reason) "
                "VALUES (?, ?, ?, ?)",
                (game_id, now, int(accepted), reason),
            )
        )

    async def league_answers(self) -> list[tuple[int, bool, str]]:
        """Every answer the hub gave: (game id, accepted, reason)."""
        rows = await self._read(
            "SELECT game_id, accepted, reason FROM league_sent ORDER BY game_id"
        )
        return [(row[0], bool(row[1]), row[2]) for row in rows]

    async def league_table_tag(self, contest_id: int) -> str | None:
        """The ETag of the hub's table as last fetched, if it was."""
        rows = await self._read(
            "SELECT etag FROM league_tables WHERE contest_id = ?", (contest_id,)
        )
        return rows[0][0] if rows else None

    async def keep_league_table(
        self, contest_id: int, etag: str, rows: Sequence[dict[str, Any]]
    ) -> None:
        now = self._now()
        await self._write(
            lambda db: execute(
                db,
                "INSERT OR REPLACE INTO league_tables (contest_id, etag, fetched, rows) "
                "VALUES (?, ?, ?, ?)",
                (contest_id, etag, now, json.dumps(list(rows))),
            )
        )

    async def league_value(self, name: str) -> str | None:
        """A member's own note (the hub's pinned key, the back-off)."""
        rows = await self._read("SELECT value FROM league_state WHERE name = ?", (name,))
        return rows[0][0] if rows else None

    async def set_league_value(self, name: str, value: str) -> None:
        await self._write(
            lambda db: execute(
                db, "INSERT OR REPLACE INTO league_state (name, value) VALUES (?, ?)", (name, value)
            )
        )


_BOARDS = "SELECT tag, name, public_key, added, suspended FROM league_boards"


def _board(row: Sequence[Any]) -> LeagueBoard:
    return LeagueBoard(
        tag=row[0],
        name=row[1],
        public_key=row[2],
        added=moment(row[3]),
        suspended=None if row[4] is None else moment(row[4]),
    )
