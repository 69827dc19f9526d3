"""A member board's side of the league: the hub's contests copied, a deal fetched when a
caller first starts it, finished games sent in order, and the hub's table fetched.

The member keeps playing while the hub is away: its callers play the deals it already has,
their results wait in its database (every finished league game without the hub's answer,
see :mod:`door.store.league`) and go out, oldest first, at the next sync that reaches the
hub. After a failure the next sync waits longer, doubling up to :data:`MAX_BACK_OFF`.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import aiohttp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ansi.text import sanitize
from door.config import Config
from door.league.protocol import MOST_BYTES, REQUEST_SECONDS, read_capped, request
from door.league.signing import BadSignature, load_private_key, open_signed
from door.store import Store
from door.store.contests import Contest, ContestDeal
from door.store.league import MirroredContest
from door.tasks import Supervised

log = logging.getLogger("door")

ANSWER_LIMIT = 4 * 1024 * 1024  # bytes of a hub's answer: its contests and their tables

SYNC_EVERY = 60.0
"""Seconds between two syncs of a running door, when nothing wakes it sooner."""

FIRST_BACK_OFF = 5.0
MAX_BACK_OFF = 600.0
HUB_KEY = "hub_key"  # the member's note of the hub's pinned key
BACK_OFF = "back_off"  # seconds to wait after the last failure
NEXT_TRY = "next_try"  # no sync before this time (ISO), after a failure


class HubUnreachable(Exception):
    """The hub did not answer, or answered with what is not its signed word."""


class LeagueRefusal(Exception):
    """The hub refused a request, for the reason it gave; ``too_long`` when the request is
    longer than the hub said it reads (a refusal no sending again can change)."""

    def __init__(self, reason: str, *, too_long: bool = False) -> None:
        super().__init__(reason)
        self.too_long = too_long


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one sync did."""

    contests: int
    sent: int
    refused: int
    waiting: int


class LeagueMember:
    """A member board talking to its hub: ``key`` signs its requests, ``hub_key`` (the
    hub's pinned public key) checks every answer."""

    def __init__(self, store: Store, config: Config, key: Ed25519PrivateKey, hub_key: str) -> None:
        assert config.league.hub_url is not None and config.league.tag is not None
        self.store = store
        self.config = config
        self._key = key
        self._hub_key = hub_key
        self._url = config.league.hub_url
        self._tag = config.league.tag
        self._syncing = asyncio.Lock()

    async def _call(
        self, method: str, path: str, body: bytes | None = None, etag: str | None = None
    ) -> tuple[int, dict[str, Any] | None, str | None]:
        """(status, the hub's signed message or None for 304, its ETag)."""
        headers = {"Content-Type": "application/json"}
        if etag is not None:
            headers["If-None-Match"] = etag
        timeout = aiohttp.ClientTimeout(total=REQUEST_SECONDS)
        try:
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.request(method, self._url + path, data=body, headers=headers) as response,
            ):
                if response.status == 304:
                    return 304, None, etag
                raw = await read_capped(response.content, ANSWER_LIMIT)
                if raw is None:
                    raise HubUnreachable(f"the hub's answer is over {ANSWER_LIMIT} bytes")
                message = open_signed(raw, self._hub_key)
                return response.status, message, response.headers.get("ETag")
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            raise HubUnreachable(f"the hub at {self._url} did not answer: {error}") from None
        except BadSignature as error:
            raise HubUnreachable(f"the hub's answer is not signed by its key: {error}") from None

    async def _post(self, path: str, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        body, nonce = request(kind, self._tag, fields, self._key, self.store.now())
        _, message, _ = await self._call("POST", path, body)
        assert message is not None
        if message.get("kind") == "refused":
            reason = sanitize(str(message.get("reason")))
            log.warning("league: the hub refused a %s request: %s", kind, reason)
            # The hub's refusal names no request (it did not read this one): the length it
            # names is believed only of a request this long, which no answer can shorten.
            most = message.get(MOST_BYTES)
            too_long = isinstance(most, int) and not isinstance(most, bool) and len(body) > most
            raise LeagueRefusal(reason, too_long=too_long)
        if message.get("nonce") != nonce:
            raise HubUnreachable("the hub's answer is not to this request")
        return message

    async def fetch_contests(self) -> list[Contest]:
        """Copy the hub's contests (their seals, and their deals once closed)."""
        status, message, _ = await self._call("GET", "/league/contests")
        if message is None or message.get("kind") != "contests":
            raise HubUnreachable(f"the hub's contests did not come (HTTP {status})")
        kept = []
        for published in message["contests"]:
            kept.append(await self.store.mirror_league_contest(_mirrored(published)))
        return kept

    async def fetch_deal(self, contest: Contest, number: int) -> None:
        """Have deal ``number`` of the contest for a caller to play: from the hub, the first
        time one of this board's callers starts it. Never shown or logged before the close."""
        if any(deal.number == number for deal in await self.store.contest_deals(contest.id)):
            return
        assert contest.hub_id is not None
        answer = await self._post(
            "/league/deal", "deal", {"contest": contest.hub_id, "number": number}
        )
        if answer.get("contest") != contest.hub_id or answer.get("number") != number:
            raise HubUnreachable("the hub's answer is for another deal")
        await self.store.keep_league_deal(contest, number, int(answer["deal"]))

    async def send_results(self) -> tuple[int, int]:
        """Send the finished games the hub has not answered, oldest first: (accepted,
        refused). Stops at the first that does not reach the hub (HubUnreachable); one longer
        than the hub reads is refused for good, as one the hub answered."""
        accepted = refused = 0
        while True:
            waiting = await self.store.unsent_league_results()
            if not waiting:
                return accepted, refused
            for unsent in waiting:
                result = unsent.result
                fields = {
                    "contest": result.contest,
                    "number": result.number,
                    "alias": result.alias,
                    "plays": list(result.plays),
                    "status": str(result.status),
                    "score": result.score,
                    "moves": result.moves,
                    "finished": result.finished.isoformat(),
                }
                try:
                    answer = await self._post("/league/result", "result", fields)
                except LeagueRefusal as refusal:
                    if not refusal.too_long:  # the request itself: its time, the board
                        raise HubUnreachable(str(refusal)) from None
                    # The game is too long for the hub, now and when sent again: its answer
                    # for good, so that the results after it go on.
                    ok, reason = False, str(refusal)
                else:
                    ok, reason = bool(answer.get("accepted")), sanitize(str(answer.get("reason")))
                await self.store.mark_league_sent(unsent.game_id, ok, reason)
                if ok:
                    accepted += 1
                else:
                    refused += 1
                    log.warning(
                        "league: the hub refused %s's game of deal %d: %s",
                        sanitize(result.alias), result.number, reason,
                    )  # fmt: skip

    async def fetch_tables(self, contests: list[Contest]) -> None:
        """The hub's table of each contest that has opened, when it has changed."""
        now = self.store.now()
        for contest in contests:
            if contest.opens > now or contest.hub_id is None:
                continue
            etag = await self.store.league_table_tag(contest.id)
            status, message, tag = await self._call(
                "GET", f"/league/table/{contest.hub_id}", etag=etag
            )
            if status == 304 or message is None:
                continue
            if message.get("kind") != "table" or message.get("contest") != contest.hub_id:
                raise HubUnreachable(f"the hub's table did not come (HTTP {status})")
            rows = [
                row | {"bbs": None if row.get("bbs") == self._tag else row.get("bbs")}
                for row in message["rows"]
            ]
            await self.store.keep_league_table(contest.id, tag or "", rows)

    async def sync(self, *, force: bool = False) -> SyncReport:
        """Contests, then results, then tables; HubUnreachable if the hub did not answer
        (the next sync then waits its back-off, unless ``force``)."""
        async with self._syncing:
            if not force and not await self._due():
                raise HubUnreachable("the hub did not answer lately: waiting before trying again")
            try:
                contests = await self.fetch_contests()
                sent, refused = await self.send_results()
                await self.fetch_tables(contests)
            except HubUnreachable as error:
                await self._failed(str(error))
                raise
            await self.store.set_league_value(BACK_OFF, "0")
            await self.store.set_league_value(NEXT_TRY, "")
            waiting = len(await self.store.unsent_league_results())
            return SyncReport(len(contests), sent, refused, waiting)

    async def _due(self) -> bool:
        next_try = await self.store.league_value(NEXT_TRY)
        return not next_try or datetime.fromisoformat(next_try) <= self.store.now()

    async def _failed(self, why: str) -> None:
        before = float(await self.store.league_value(BACK_OFF) or 0)
        back_off = min(MAX_BACK_OFF, max(FIRST_BACK_OFF, 2 * before))
        await self.store.set_league_value(BACK_OFF, str(back_off))
        until = self.store.now() + timedelta(seconds=back_off)
        await self.store.set_league_value(NEXT_TRY, until.isoformat())
        log.warning("league: %s; trying again in %d seconds", sanitize(why), back_off)


async def league_member(store: Store, config: Config) -> LeagueMember | None:
    """The member the settings make of this door, or None (not a member, no key yet, or the
    hub's key not pinned: ``sysop league key`` and ``sysop league join`` say so)."""
    league = config.league
    if league.hub_url is None:
        return None
    hub_key = league.hub_key or await store.league_value(HUB_KEY)
    if hub_key is None:
        log.warning("league: the hub's key is not pinned (canfield-door sysop league join)")
        return None
    try:
        key = load_private_key(config.league_key)
    except (OSError, ValueError):
        log.warning("league: no key at %s (canfield-door sysop league key)", config.league_key)
        return None
    return LeagueMember(store, config, key, hub_key)


async def league_sync(store: Store, config: Config) -> LeagueSync | None:
    """A running door's league syncs, if it is a member ready to sync."""
    member = await league_member(store, config)
    return None if member is None else LeagueSync(member)


async def brief_sync(store: Store, config: Config) -> BriefSync | None:
    """Door mode's league link, having synced at the call's start, if it is a member."""
    member = await league_member(store, config)
    if member is None:
        return None
    link = BriefSync(member)
    await link.sync()
    return link


DEAL_SECONDS = 5.0
"""How long a caller waits, at most, for the hub to give a deal they start."""

BRIEF_SYNC_SECONDS = 2.0
"""How long door mode spends syncing at a call's start and end, at most."""


class LeagueSync:
    """A running door's syncs: a supervised job, every :data:`SYNC_EVERY` seconds and when
    woken (a league game has ended), waiting its back-off after a failure. The app's league
    link (:class:`door.app.LeagueLink`)."""

    def __init__(self, member: LeagueMember) -> None:
        self.member = member
        self._wake = asyncio.Event()
        self._job = Supervised("league sync", self._keep_in_step)

    def start(self) -> None:
        self._job.start()

    def wake(self) -> None:
        self._wake.set()

    def game_ended(self) -> None:
        self.wake()

    async def fetch_deal(self, contest: Contest, number: int) -> None:
        async with asyncio.timeout(DEAL_SECONDS):
            await self.member.fetch_deal(contest, number)

    async def close(self) -> None:
        await self._job.close()

    async def _keep_in_step(self) -> None:
        while True:
            self._wake.clear()
            wait = SYNC_EVERY
            try:
                await self.member.sync()
            except HubUnreachable:
                wait = float(await self.member.store.league_value(BACK_OFF) or FIRST_BACK_OFF)
            with suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait)


def _mirrored(published: dict[str, Any]) -> MirroredContest:
    return MirroredContest(
        hub_id=int(published["id"]),
        name=sanitize(str(published["name"]))[:60],
        level=int(published["level"]),
        knobs=dict(published["knobs"]),
        opens=datetime.fromisoformat(published["opens"]),
        closes=datetime.fromisoformat(published["closes"]),
        seals=tuple(str(seal) for seal in published["seals"]),
        revealed=tuple(
            ContestDeal(int(d["number"]), int(d["deal"]), str(d["salt"]))
            for d in published["revealed"]
        ),
    )


class BriefSync:
    """Door mode's league link: a sync at the call's start and end, each cut short after
    :data:`BRIEF_SYNC_SECONDS` (what it did not finish, the next call or ``league sync``
    does: the results wait in the database)."""

    def __init__(self, member: LeagueMember) -> None:
        self.member = member

    async def sync(self) -> None:
        try:
            async with asyncio.timeout(BRIEF_SYNC_SECONDS):
                await self.member.sync()
        except (HubUnreachable, TimeoutError) as error:
            log.info("league: no sync this time: %s", sanitize(str(error)) or "too slow")

    def game_ended(self) -> None:
        """Nothing now: the call's end syncs."""

    async def fetch_deal(self, contest: Contest, number: int) -> None:
        async with asyncio.timeout(DEAL_SECONDS):
            await self.member.fetch_deal(contest, number)
