"""The league's hub: its API on the door's web port.

- ``GET /league/hub`` the hub's name, tag and public key (for ``sysop league join``)
- ``GET /league/contests`` the league's contests: rules, times, seals, and deals and salts
  once closed, signed
- ``POST /league/deal`` a member's signed request for one deal of an open contest, which
  a caller of its has started
- ``POST /league/result`` a member's signed finished game, replayed here on its sealed deal
- ``GET /league/table/ID`` a contest's table, signed, with an ETag

Every request is bounded: its size (:data:`~door.league.protocol.MAX_BODY`), the time spent
on it, and each board's rate. A refusal says why, to the member and in the hub's log; a
stranger's (a request no member's key signed: an unknown or suspended board, a bad
signature) is logged a line a minute per address, the rest counted, as the web port's are.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ansi.text import sanitize
from door.config import Config
from door.engine import Variant
from door.engine.status import Status
from door.league.protocol import (
    MAX_ALIAS,
    MAX_BODY,
    MOST_BYTES,
    REQUEST_SECONDS,
    SKEW,
    plays_of,
    read_capped,
    replay_problem,
)
from door.league.signing import BadSignature, open_signed, public_text, sign, unverified
from door.net.listening import AddressLog
from door.net.web import forwarded_address
from door.store import NotFound, Store, StoreError
from door.store.contests import Contest, ContestState, standing_json
from door.store.league import LeagueResult

log = logging.getLogger("door")


@dataclass(frozen=True, slots=True)
class HubLimits:
    """Each board's requests: ``per_second`` on average, ``burst`` at once."""

    per_second: float = 20.0
    burst: float = 200.0


class Refused(Exception):
    """A request the hub will not take, and why, in words for the member's sysop; ``most``,
    the bytes a request may have, when it was refused for its length."""

    def __init__(self, reason: str, status: int = 403, most: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.most = most


class LeagueHub:
    """The hub's handlers, on its store, its settings as they are now and its key."""

    def __init__(
        self,
        store: Store,
        config: Callable[[], Config],
        key: Ed25519PrivateKey,
        limits: HubLimits = HubLimits(),
    ) -> None:
        self._store = store
        self._config = config
        self._key = key
        self._limits = limits
        self._buckets: dict[str, tuple[float, float]] = {}  # board: (tokens, when)
        # Requests no member's key signed: anyone may send them, as fast as they like.
        self._strangers = AddressLog(logging.WARNING)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/league/hub", self._about)
        app.router.add_get("/league/contests", self._bounded(self._contests))
        app.router.add_post("/league/deal", self._bounded(self._deal))
        app.router.add_post("/league/result", self._bounded(self._result))
        app.router.add_get("/league/table/{contest}", self._bounded(self._table))

    def _signed(self, message: dict[str, Any], status: int = 200) -> web.Response:
        return web.Response(
            body=sign(message, self._key), status=status, content_type="application/json"
        )

    def _bounded(self, handler: Callable[[web.Request], Any]) -> Callable[[web.Request], Any]:
        async def bounded(request: web.Request) -> web.StreamResponse:
            try:
                async with asyncio.timeout(REQUEST_SECONDS):
                    response: web.StreamResponse = await handler(request)
                    return response
            except Refused as refusal:
                refused: dict[str, Any] = {"kind": "refused", "reason": refusal.reason}
                if refusal.most is not None:
                    refused[MOST_BYTES] = refusal.most
                return self._signed(refused, refusal.status)
            except TimeoutError:
                return self._signed({"kind": "refused", "reason": "the hub took too long"}, 503)

        return bounded

    async def _about(self, request: web.Request) -> web.Response:
        league = self._config().league
        about = {"name": league.name, "tag": league.tag, "key": public_text(self._key)}
        return web.json_response(about)

    async def _contests(self, request: web.Request) -> web.Response:
        now = self._store.now()
        published = [await self._published(c) for c in await self._store.league_contests()]
        return self._signed({"kind": "contests", "at": now.isoformat(), "contests": published})

    async def _published(self, contest: Contest) -> dict[str, Any]:
        knobs = next(r.knobs for r in await self._store.variants() if r.id == contest.variant_id)
        deals = await self._store.contest_deals(contest.id)
        return {
            "id": contest.id,
            "name": contest.name,
            "level": contest.level,
            "knobs": knobs,
            "opens": contest.opens.isoformat(),
            "closes": contest.closes.isoformat(),
            "seals": [deal.seal for deal in deals],
            "revealed": [
                {"number": d.number, "deal": d.deal, "salt": d.salt}
                for d in (deals if contest.revealed else [])
            ],
        }

    async def _table(self, request: web.Request) -> web.Response:
        contest = await self._league_contest(request.match_info["contest"])
        rows = await self._store.contest_table(contest.id)
        own = self._config().league.tag
        table = [standing_json(row) | {"bbs": row.bbs or own} for row in rows]
        body = json.dumps(table, sort_keys=True).encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag})
        response = self._signed({"kind": "table", "contest": contest.id, "rows": table})
        response.headers["ETag"] = etag
        return response

    async def _league_contest(self, text: object) -> Contest:
        found = [c for c in await self._store.league_contests() if str(c.id) == str(text)]
        if not found:
            raise Refused("no such league contest", 404)
        return found[0]

    # --- a member's signed requests -------------------------------------------------------

    async def _signed_request(self, request: web.Request, kind: str) -> tuple[str, dict[str, Any]]:
        """The board and the message of a member's request, once every check has passed."""
        body = await read_capped(request.content, MAX_BODY)
        if body is None:
            raise Refused(f"a request is {MAX_BODY} bytes at most", 413, most=MAX_BODY)
        try:
            claimed = unverified(body)
        except BadSignature as error:
            raise Refused(str(error), 400) from None
        tag = str(claimed.get("board", ""))[:16]
        try:
            board = await self._store.league_board(tag)
        except NotFound:
            self._stranger_refused(request, tag, "a board the league does not know")
            raise Refused(f"the league has no board tagged {sanitize(tag)!r}") from None
        if board.suspended is not None:
            self._stranger_refused(request, board.tag, "suspended")
            raise Refused("this board is suspended from the league by the hub's sysop")
        try:
            message = open_signed(body, board.public_key)
        except BadSignature as error:
            self._stranger_refused(request, board.tag, str(error))
            raise Refused(f"{error}: not signed by the key the hub has for {board.tag}") from None
        # Spent once the board's own key has signed it: junk naming a board spends nothing
        # of that board's allowance.
        self._spend(board.tag)
        if message.get("kind") != kind:
            raise Refused(f"this is the {kind} request's address", 400)
        try:
            sent = datetime.fromisoformat(str(message["sent"]))
            nonce = str(message["nonce"])
        except (KeyError, ValueError):
            raise Refused("a request carries the time it was sent and a nonce", 400) from None
        now = self._store.now()
        if sent.tzinfo is None or abs(sent - now) > SKEW:
            self._refused(board.tag, "sent at a time too far from the hub's clock")
            raise Refused(
                f"sent at {sent.isoformat()}, more than {SKEW} from the hub's clock "
                f"({now.isoformat()}): check the board's clock"
            )
        if not 16 <= len(nonce) <= 64:
            raise Refused("a nonce is 16 to 64 characters", 400)
        try:
            await self._store.use_nonce(board.tag, nonce, sent, 2 * SKEW)
        except StoreError as error:
            self._refused(board.tag, str(error))
            raise Refused(str(error)) from None
        return board.tag, message

    def _spend(self, tag: str) -> None:
        """Take one of the board's tokens; Refused when it has none left."""
        now = time.monotonic()
        tokens, then = self._buckets.get(tag, (self._limits.burst, now))
        tokens = min(self._limits.burst, tokens + (now - then) * self._limits.per_second)
        if tokens < 1:
            self._buckets[tag] = (tokens, now)
            raise Refused("too many requests from this board: wait a moment", 429)
        self._buckets[tag] = (tokens - 1, now)

    def _refused(self, tag: str, reason: str) -> None:
        log.warning("league: a request from %s refused: %s", sanitize(tag), sanitize(reason))

    def _stranger_refused(self, request: web.Request, tag: str, reason: str) -> None:
        """A request refused before any member's key was found to sign it: logged a line a
        minute per address, the rest counted, as the web port's refusals are."""
        peer = request.remote or "unknown"
        forwarded = ",".join(request.headers.getall("X-Forwarded-For", [])) or None
        address = forwarded_address(peer, forwarded, self._config().web.proxies)
        self._strangers.note(
            address,
            f"league: a request from {sanitize(tag)} refused: {sanitize(reason)} ({address})",
        )

    async def _deal(self, request: web.Request) -> web.Response:
        tag, message = await self._signed_request(request, "deal")
        contest = await self._league_contest(message.get("contest"))
        number = message.get("number")
        if not isinstance(number, int) or not 1 <= number <= contest.deals:
            raise Refused(f"the contest has deals 1 to {contest.deals}", 400)
        if contest.state(self._store.now()) != ContestState.OPEN:
            self._refused(tag, f"a deal of {contest.name} asked for while it is not open")
            raise Refused(f"the contest {contest.name!r} is not open")
        deal = await self._store.issue_league_deal(contest, tag, number)
        return self._signed(
            {
                "kind": "deal",
                "nonce": message["nonce"],
                "contest": contest.id,
                "number": number,
                "deal": deal.deal,
            }
        )

    async def _result(self, request: web.Request) -> web.Response:
        tag, message = await self._signed_request(request, "result")
        nonce = message["nonce"]
        try:
            accepted, reason = await self._judge(tag, message)
        except Refused as refusal:
            self._refused(tag, refusal.reason)
            return self._signed(
                {"kind": "answer", "nonce": nonce, "accepted": False, "reason": refusal.reason}
            )
        return self._signed(
            {"kind": "answer", "nonce": nonce, "accepted": accepted, "reason": reason}
        )

    async def _judge(self, tag: str, message: dict[str, Any]) -> tuple[bool, str]:
        contest = await self._league_contest(message.get("contest"))
        result = _result_of(contest, message)
        issued = await self._store.league_issued(contest.id, tag, result.number)
        if issued is None or issued > contest.closes:
            raise Refused(f"deal {result.number} was never given to {tag} while it was open")
        if result.finished > contest.closes + SKEW:
            raise Refused(
                f"the game ended at {result.finished.isoformat()}, after the close "
                f"({contest.closes.isoformat()}) by more than {SKEW}"
            )
        if result.finished < issued - SKEW:
            raise Refused("the game ended before its deal was given to the board")
        variant = await self._variant(contest)
        deal = next(
            d for d in await self._store.contest_deals(contest.id) if d.number == result.number
        )
        # A long game's replay takes tens of ms: in a thread, so callers' plays go on.
        problem = await asyncio.to_thread(
            replay_problem,
            variant,
            deal.deal,
            result.plays,
            result.status,
            result.score,
            result.moves,
        )
        if problem is not None:
            raise Refused(f"the plays do not replay: {problem}")
        try:
            new = await self._store.keep_league_result(tag, result)
        except StoreError as error:
            raise Refused(str(error)) from None
        if new:
            log.info(
                "league: %s of %s scored %d on deal %d of %s",
                sanitize(result.alias),
                sanitize(tag),
                result.score,
                result.number,
                sanitize(contest.name),
            )
            return True, "accepted"
        return True, "accepted before"

    async def _variant(self, contest: Contest) -> Variant:
        knobs = next(r.knobs for r in await self._store.variants() if r.id == contest.variant_id)
        return Variant.from_dict(knobs)


def _result_of(contest: Contest, message: dict[str, Any]) -> LeagueResult:
    """The result a member's message says, checked for form; Refused if it is malformed."""
    number, alias = message.get("number"), message.get("alias")
    if not isinstance(number, int) or not 1 <= number <= contest.deals:
        raise Refused(f"the contest has deals 1 to {contest.deals}")
    if not isinstance(alias, str) or not 0 < len(alias) <= MAX_ALIAS or sanitize(alias) != alias:
        raise Refused(f"an alias is 1 to {MAX_ALIAS} printable characters")
    plays = plays_of(message.get("plays"))
    if plays is None:
        raise Refused("the plays are a list of short texts")
    score, moves = message.get("score"), message.get("moves")
    whole = all(isinstance(n, int) and not isinstance(n, bool) for n in (score, moves))
    try:
        if not whole:
            raise ValueError("score and moves are whole numbers")
        status = Status(str(message.get("status")))
        finished = datetime.fromisoformat(str(message["finished"]))
    except (KeyError, ValueError, TypeError):
        raise Refused("a result gives its status, score, moves and when it ended") from None
    assert isinstance(score, int) and isinstance(moves, int)
    if finished.tzinfo is None:
        raise Refused("a result's time gives its zone")
    return LeagueResult(contest.id, number, alias, plays, status, score, moves, finished)
