"""Contests: a set of sealed deals every caller plays once between two times, and their table.

A contest's deals are drawn from :mod:`secrets` when the sysop declares it and kept with a
salt each; their seals are shown from the opening, their numbers and salts only once the
contest has closed. Its games are ordinary games that name the contest and the deal's place
in it (1 to N), so they are replayed and checked like any other. A contest opens and closes
by the store's clock; :meth:`ContestStore.settle_contests` records each opening and closing
(and closes the games still unfinished at the close: they count as resigned).
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Literal

from door.engine import Game
from door.engine.status import Status
from door.fairness import new_salt, seal, secret_deal_number
from door.levels import Level
from door.store.base import Row, execute, fetch_all, moment, stamp
from door.store.games import (
    LATER_PLAYS,
    GameStore,
    game_counts,
    order_text,
    position_json,
    rebuild,
)
from door.store.records import NotFound, StoreError

NAME_MAX = 30
MAX_DEALS = 10
MAX_LENGTH = timedelta(days=90)  # the longest a contest stays open
MAX_LEAD = timedelta(days=365)  # the furthest ahead a contest may be declared to open
"""Deals a contest may have: one key each on its page (0 for the tenth)."""


class ContestState(StrEnum):
    """Where a contest stands: not open yet, open for play, or closed (its deals shown)."""

    COMING = "coming"
    OPEN = "open"
    CLOSED = "closed"


# What the door records of a contest, when it saw it: each the name of its column.
ContestEvent = Literal["opened", "closed"]

_CONTEST_COLUMNS = (
    "id, name, level, variant_id, opens, closes, made, opened, closed, league, hub_id"
)


@dataclass(frozen=True, slots=True)
class Contest:
    """A contest as declared: ``deals`` deals at menu level ``level`` (under the rules of
    ``variant_id``), playable from ``opens`` until ``closes``. ``opened`` and ``closed`` are
    when the door saw it open and close; its deals are revealed once ``closed`` is set."""

    id: int
    name: str
    level: int
    variant_id: int
    deals: int
    opens: datetime
    closes: datetime
    made: datetime
    opened: datetime | None = None
    closed: datetime | None = None
    league: bool = False
    hub_id: int | None = None

    @property
    def mirrored(self) -> bool:
        """A member's copy of the league hub's contest: its table and deals are the hub's."""
        return self.hub_id is not None

    def state(self, now: datetime) -> ContestState:
        """Coming, open or closed, by the clock, or by what the door
        has recorded (a sysop's command may run on a clock a little behind the door's)."""
        if self.closed is not None or now >= self.closes:
            return ContestState.CLOSED
        if self.opened is not None or now >= self.opens:
            return ContestState.OPEN
        return ContestState.COMING

    @property
    def revealed(self) -> bool:
        """Whether its deals and salts may be shown: only once the door has closed it."""
        return self.closed is not None


@dataclass(frozen=True, slots=True)
class ContestDeal:
    """A deal of a contest: its place ``number`` (1 to N), its deal number and salt."""

    number: int
    deal: int
    salt: str

    @property
    def seal(self) -> str:
        return seal(self.deal, self.salt)


@dataclass(frozen=True, slots=True)
class ContestPlay:
    """A caller's game of one deal of a contest; ``status`` is ``playing`` while unfinished."""

    number: int
    game_id: int
    status: Status
    score: int
    moves: int
    assisted: bool


@dataclass(frozen=True, slots=True)
class ContestStanding:
    """A row of a contest's table: over the caller's finished games of its deals, their
    total score and moves, when they finished the last, and how many are still unfinished."""

    alias: str
    bbs: str | None
    played: int
    score: int
    moves: int
    finished: datetime | None
    assisted: bool
    playing: int


@dataclass(frozen=True, slots=True)
class ContestChange:
    """What :meth:`ContestStore.settle_contests` did: ``what`` is ``opened`` or ``closed``;
    ``resigned`` the games it closed unfinished."""

    contest: Contest
    what: ContestEvent
    resigned: int = 0


def standing_json(row: ContestStanding) -> dict[str, Any]:
    """A row of a table as JSON values (as the league's hub sends it)."""
    return {
        "alias": row.alias,
        "bbs": row.bbs,
        "played": row.played,
        "score": row.score,
        "moves": row.moves,
        "finished": None if row.finished is None else stamp(row.finished),
        "assisted": row.assisted,
        "playing": row.playing,
    }


def standing_of(row: dict[str, Any]) -> ContestStanding:
    """A row of a table from :func:`standing_json`'s values."""
    finished = row["finished"]
    return ContestStanding(
        alias=str(row["alias"]),
        bbs=None if row["bbs"] is None else str(row["bbs"]),
        played=int(row["played"]),
        score=int(row["score"]),
        moves=int(row["moves"]),
        finished=None if finished is None else moment(str(finished)),
        assisted=bool(row["assisted"]),
        playing=int(row["playing"]),
    )


def name_key(name: str) -> str:
    """How contest names are compared: case and compatibility forms folded, spaces single.

    >>> name_key("Winter  Cup") == name_key("WINTER CUP")
    True
    """
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def check_name(name: str) -> str | None:
    """Why ``name`` will not do as a contest's name, or None.

    >>> check_name("Winter Cup 2026"), check_name("")
    (None, 'a name needs a letter or a digit')
    >>> check_name("a\\x1bb")
    "a name holds letters, digits, spaces and - _ . ' ! only"
    """
    if not any(char.isalnum() for char in name):
        return "a name needs a letter or a digit"
    if len(name) > NAME_MAX:
        return f"a name has at most {NAME_MAX} characters"
    if any(not (char.isalnum() or char in " -_.'!") for char in name):
        return "a name holds letters, digits, spaces and - _ . ' ! only"
    return None


def _contest(row: Row, deals: int) -> Contest:
    return Contest(
        id=row[0],
        name=row[1],
        level=row[2],
        variant_id=row[3],
        deals=deals,
        opens=moment(row[4]),
        closes=moment(row[5]),
        made=moment(row[6]),
        opened=None if row[7] is None else moment(row[7]),
        closed=None if row[8] is None else moment(row[8]),
        league=bool(row[9]),
        hub_id=row[10],
    )


def _contests_sql(where: str = "") -> str:
    return (
        f"SELECT {_CONTEST_COLUMNS}, max((SELECT count(*) FROM contest_deals d "
        "WHERE d.contest_id = c.id), (SELECT count(*) FROM league_seals s "
        f"WHERE s.contest_id = c.id)) FROM contests c {where} ORDER BY opens, id"
    )


def _contests_of(rows: list[Row]) -> list[Contest]:
    return [_contest(row[:-1], row[-1]) for row in rows]


def _contests(db: sqlite3.Connection, where: str = "", params: tuple = ()) -> list[Contest]:
    return _contests_of(fetch_all(db, _contests_sql(where), params))


def _named(found: list[Contest], name: str) -> Contest:
    if not found:
        raise NotFound(f"no contest called {name!r}")
    return found[0]


def contest_named(db: sqlite3.Connection, name: str) -> Contest:
    return _named(_contests(db, "WHERE name_key = ?", (name_key(name),)), name)


def fresh_deal(level: Level) -> int:
    """A secret deal number whose game is not over before its first play."""
    while True:
        number = secret_deal_number()
        if Game.deal(level.variant, number).status == Status.PLAYING:
            return number


class ContestStore(GameStore):
    """Declaring, listing and withdrawing contests; their games, tables and clock."""

    def now(self) -> datetime:
        """The time by the store's clock (which tests set)."""
        return self._clock()

    async def declare_contest(
        self,
        name: str,
        level: Level,
        deals: int,
        opens: datetime,
        closes: datetime,
        league: bool = False,
    ) -> Contest:
        """Keep a new contest and draw its deals (``league``: the league's, on its hub).
        StoreError if the name is taken or will not do, if it would be open at once with
        another of its kind (the door's own, or the league's), or if it closes before it
        opens or in the past."""
        name = " ".join(name.split())
        problem = check_name(name)
        if problem:
            raise StoreError(problem)
        if not 1 <= deals <= MAX_DEALS:
            raise StoreError(f"a contest has 1 to {MAX_DEALS} deals")
        if closes <= opens:
            raise StoreError("a contest must close after it opens")
        if closes - opens > MAX_LENGTH:
            raise StoreError(f"a contest runs {MAX_LENGTH.days} days at most")
        if closes <= self._clock():
            raise StoreError("that contest would be over already")
        variant_id = await self.variant_id(level)
        drawn = [(number, fresh_deal(level), new_salt()) for number in range(1, deals + 1)]
        now = self._now()

        def keep(db: sqlite3.Connection) -> Contest:
            if fetch_all(db, "SELECT 1 FROM contests WHERE name_key = ?", (name_key(name),)):
                raise StoreError(f"there is a contest called {name!r} already")
            overlapping = _contests(
                db,
                "WHERE opens < ? AND closes > ? AND league = ?",
                (stamp(closes), stamp(opens), int(league)),
            )
            if overlapping:
                other = overlapping[0]
                raise StoreError(f"the contest {other.name!r} runs then (one contest at a time)")
            _, contest_id = execute(
                db,
                "INSERT INTO contests (name, name_key, level, variant_id, opens, closes, made, "
                "league) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    name_key(name),
                    level.number,
                    variant_id,
                    stamp(opens),
                    stamp(closes),
                    now,
                    int(league),
                ),
            )
            db.executemany(
                "INSERT INTO contest_deals (contest_id, number, deal, salt) VALUES (?, ?, ?, ?)",
                [(contest_id, *deal) for deal in drawn],
            )
            return _contests(db, "WHERE id = ?", (contest_id,))[0]

        return await self._write(keep)

    async def contests(self) -> list[Contest]:
        """Every contest, by opening time."""
        return await self._read_contests()

    async def contest(self, name: str) -> Contest:
        """The contest called ``name`` (case aside); NotFound if none is."""
        return _named(await self._read_contests("WHERE name_key = ?", (name_key(name),)), name)

    async def withdraw_contest(self, name: str) -> Contest:
        """Forget a contest that has not opened yet, and its deals; StoreError once open."""
        now = self._clock()

        def forget(db: sqlite3.Connection) -> Contest:
            contest = contest_named(db, name)
            if contest.state(now) != ContestState.COMING:
                raise StoreError(f"the contest {contest.name!r} has opened: it stands")
            execute(db, "DELETE FROM contests WHERE id = ?", (contest.id,))
            return contest

        return await self._write(forget)

    async def contest_now(self, league: bool = False) -> Contest | None:
        """The contest callers see: the open one, else the next to open, else the last; of
        the door's own, or (``league``) of the league's."""
        now = self._clock()
        every = [contest for contest in await self.contests() if contest.league == league]
        for wanted in (ContestState.OPEN, ContestState.COMING):
            found = [contest for contest in every if contest.state(now) == wanted]
            if found:
                return found[0]
        return every[-1] if every else None

    async def contest_seals(self, contest: Contest) -> list[str]:
        """The seals of a contest's deals, 1 to N (a member's copy has them from the hub)."""
        if contest.mirrored:
            rows = await self._read(
                "SELECT seal FROM league_seals WHERE contest_id = ? ORDER BY number",
                (contest.id,),
            )
            return [row[0] for row in rows]
        return [deal.seal for deal in await self.contest_deals(contest.id)]

    async def contest_deals(self, contest_id: int) -> list[ContestDeal]:
        """A contest's deals, 1 to N, with their secret numbers and salts: show a caller
        only their seals until the contest is revealed. (A member's copy of a league
        contest holds only the deals its callers have started, each with its salt once the
        hub has shown it at the close.)"""
        rows = await self._read(
            "SELECT number, deal, salt FROM contest_deals WHERE contest_id = ? ORDER BY number",
            (contest_id,),
        )
        return [ContestDeal(*row) for row in rows]

    async def contest_holding(self, deal: int) -> Contest | None:
        """The contest not yet closed whose deals include ``deal``, if any."""

        found = await self._read_contests(
            "WHERE closed IS NULL AND id IN (SELECT contest_id FROM contest_deals WHERE deal = ?)",
            (deal,),
        )
        return found[0] if found else None

    async def contest_of_game(self, game_id: int) -> tuple[Contest, int] | None:
        """The contest a game plays a deal of, and the deal's place in it; None for others."""

        rows = await self._read(
            "SELECT contest_id, contest_deal FROM games WHERE id = ?", (game_id,)
        )
        if not rows or rows[0][0] is None:
            return None
        return (await self._read_contests("WHERE id = ?", (rows[0][0],)))[0], rows[0][1]

    async def _read_contests(self, where: str = "", params: tuple = ()) -> list[Contest]:
        return _contests_of(await self._read(_contests_sql(where), params))

    async def contest_plays(self, user_id: int, contest_id: int) -> dict[int, ContestPlay]:
        """The user's games of a contest's deals, by the deal's place."""
        rows = await self._read(
            "SELECT contest_deal, id, status, score, moves, assisted FROM games "
            "WHERE user_id = ? AND contest_id = ?",
            (user_id, contest_id),
        )
        return {
            row[0]: ContestPlay(row[0], row[1], Status(row[2]), row[3], row[4], bool(row[5]))
            for row in rows
        }

    async def contest_game(
        self, user_id: int, contest_id: int, number: int
    ) -> tuple[int, Status, Game] | None:
        """The user's game of deal ``number`` of the contest: (id, status, game), or None."""
        rows = await self._read(
            f"SELECT id, status, position, {LATER_PLAYS} FROM games WHERE user_id = ? "
            "AND contest_id = ? AND contest_deal = ?",
            (user_id, contest_id, number),
        )
        if not rows:
            return None
        game_id, status, position, later = rows[0]
        return game_id, Status(status), rebuild(game_id, position, later)

    async def start_contest_game(
        self, user_id: int, contest: Contest, number: int, level: Level
    ) -> tuple[int, Game]:
        """Deal deal ``number`` of an open contest to the user: their one attempt at it.
        StoreError if they have begun it already or the contest is not open."""
        deals = {deal.number: deal for deal in await self.contest_deals(contest.id)}
        if number not in deals:
            raise NotFound(f"the contest {contest.name!r} has no deal {number}")
        chosen = deals[number]
        game = Game.deal(level.variant, chosen.deal)
        variant_id = await self.variant_id(level)
        now = self._clock()
        if contest.state(now) != ContestState.OPEN:
            raise StoreError(f"the contest {contest.name!r} is not open")
        status, score, moves, cards_up = game_counts(game)
        finished = None if status == Status.PLAYING else stamp(now)
        values = (
            user_id, variant_id, level.number, chosen.deal, order_text(game), position_json(game),
            status, score, moves, cards_up, stamp(now), finished, chosen.salt, contest.id, number,
        )  # fmt: skip

        def insert(db: sqlite3.Connection) -> int:
            played = fetch_all(
                db,
                "SELECT 1 FROM games WHERE user_id = ? AND contest_id = ? AND contest_deal = ?",
                (user_id, contest.id, number),
            )
            if played:
                raise StoreError(f"deal {number} of {contest.name!r} has been played already")
            _, game_id = execute(
                db,
                "INSERT INTO games (user_id, variant_id, level, deal, deal_order, position, "
                "status, score, moves, cards_up, started, finished, salt, contest_id, "
                "contest_deal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            return game_id

        return await self._write(insert), game

    async def contest_table(self, contest_id: int) -> list[ContestStanding]:
        """A contest's table: every caller who has begun one of its deals, by total score
        over the deals they finished, then fewer moves, then who finished first. On the
        league's hub, its members' callers are ranked beside the door's own (their board as
        their ``bbs``); on a member, a league contest's table is the hub's, as last fetched."""
        mirrored = await self._read(
            "SELECT rows FROM league_tables WHERE contest_id = ?", (contest_id,)
        )
        if mirrored:
            return [standing_of(row) for row in json.loads(mirrored[0][0])]
        rows = await self._read(
            "SELECT alias, bbs, count(finished), coalesce(sum(CASE WHEN finished IS NOT NULL "
            "THEN score END), 0), coalesce(sum(CASE WHEN finished IS NOT NULL "
            "THEN moves END), 0), max(finished), max(assisted), sum(status = 'playing') "
            "FROM (SELECT u.alias AS alias, u.bbs AS bbs, 'u' || g.user_id AS who, "
            "g.finished AS finished, g.score AS score, g.moves AS moves, "
            "g.assisted AS assisted, g.status AS status, g.id AS first "
            "FROM games g JOIN users u ON u.id = g.user_id WHERE g.contest_id = ? "
            "UNION ALL SELECT r.alias, r.board, 'b' || r.board || ' ' || r.alias_key, "
            "r.finished, r.score, r.moves, 0, r.status, r.id + 1000000000000 "
            "FROM league_results r WHERE r.contest_id = ?) "
            "GROUP BY who "
            "ORDER BY count(finished) = 0, 4 DESC, 5, max(finished), min(first)",
            (contest_id, contest_id),
        )
        return [
            ContestStanding(
                alias=row[0],
                bbs=row[1],
                played=row[2],
                score=row[3],
                moves=row[4],
                finished=None if row[5] is None else moment(row[5]),
                assisted=bool(row[6]),
                playing=row[7],
            )
            for row in rows
        ]

    async def settle_contests(self) -> list[ContestChange]:
        """Record the contests that have opened, and close those whose time is up: their
        unfinished games count as resigned, then their deals may be shown. What changed."""
        now = self._clock()
        changes: list[ContestChange] = []
        for contest in await self.contests():
            state = contest.state(now)
            if contest.opened is None and state != ContestState.COMING:
                opened = await self._mark(contest.id, "opened")
                changes.append(ContestChange(opened, "opened"))
            if contest.closed is None and state == ContestState.CLOSED:
                resigned = await self._close_games(contest.id)
                closed = await self._mark(contest.id, "closed")
                changes.append(ContestChange(closed, "closed", resigned))
        return changes

    async def next_contest_change(self) -> datetime | None:
        """When a contest next opens or closes (a time past if one is overdue), if any."""
        rows = await self._read(
            "SELECT min(CASE WHEN opened IS NULL THEN opens ELSE closes END) FROM contests "
            "WHERE closed IS NULL"
        )
        return None if rows[0][0] is None else moment(rows[0][0])

    async def _close_games(self, contest_id: int) -> int:
        rows = await self._read(
            f"SELECT id, position, {LATER_PLAYS} FROM games WHERE contest_id = ? "
            "AND status = 'playing'",
            (contest_id,),
        )
        for game_id, position, later in rows:
            game = rebuild(game_id, position, later)
            game.resign()
            await self.finish_game(game_id, game)
        return len(rows)

    async def _mark(self, contest_id: int, column: ContestEvent) -> Contest:
        now = self._now()

        def mark(db: sqlite3.Connection) -> Contest:
            execute(
                db,
                f"UPDATE contests SET {column} = coalesce({column}, ?) WHERE id = ?",
                (now, contest_id),
            )
            return _contests(db, "WHERE id = ?", (contest_id,))[0]

        return await self._write(mark)
