"""The league's messages: how a member's request is made, the limits the hub holds every
request to, and a member's game replayed on its sealed deal.

Every request a member sends is signed with its key and carries its board's tag, a nonce and
the time it was sent: the hub checks the signature with the key its sysop added for that
tag, refuses a time more than :data:`SKEW` from its own clock, and a nonce it has seen (so a
request copied off the wire is refused when sent again). Every answer the hub gives is
signed with its key, which the member pinned when it joined, and names the nonce of the
request it answers.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from door.engine import Game, IllegalMove, Variant
from door.engine.status import Status
from door.league.signing import sign

SKEW = timedelta(minutes=5)
"""How far a member's clock may be from the hub's: a request sent, or a game finished after
the close, by more than this is refused."""

MAX_BODY = 64 * 1024
"""Bytes of a request the hub reads at most; a longer one is refused, the limit named in the
refusal (:data:`MOST_BYTES`), so that a member whose result is longer knows the refusal is
for good."""

MOST_BYTES = "most"  # the field of a refusal for length: the bytes the hub reads at most

MAX_PLAYS = 6000
"""Plays a league game holds at most (an undo is one too): the most a request can carry. A
play as a game's history spells it is 4 characters at most (``10 9``); counted as 5, it
takes 10 bytes of the signed request (its text, two quotes escaped in the envelope, a
comma), so 6,000 of them are 60,000 bytes, leaving over 5,000 of :data:`MAX_BODY` for the
rest of a result (its alias, times, nonce and signature take under 1,000). A league game
ends, resigned, at its 6,000th play (``door/visit/contests.py``), so that every one can be
sent; a game of Canfield takes a few hundred."""
MAX_PLAY_LENGTH = 16
MAX_ALIAS = 40
REQUEST_SECONDS = 10.0
"""How long the hub spends on one request, and a member waits for an answer."""

ENDED = (Status.WON, Status.STUCK, Status.RESIGNED)


def request(
    kind: str, board: str, fields: dict[str, Any], key: Ed25519PrivateKey, now: datetime
) -> tuple[bytes, str]:
    """A member's signed request and its nonce."""
    nonce = secrets.token_hex(16)
    message = {"kind": kind, "board": board, "nonce": nonce, "sent": now.isoformat(), **fields}
    return sign(message, key), nonce


def replay_problem(
    variant: Variant,
    deal: int,
    plays: Sequence[str],
    status: Status,
    score: int,
    moves: int,
) -> str | None:
    """Why ``plays`` on ``deal`` do not end where the member says, or None if they do.

    >>> from door.engine import Variant
    >>> replay_problem(Variant(), 1, [], Status.RESIGNED, 0, 0) is None
    True
    >>> replay_problem(Variant(), 1, ["9 9"], Status.RESIGNED, 0, 0)
    "play 1 ('9 9') is refused by the rules"
    """
    if status not in ENDED:
        return f"a result is a finished game, not one {status}"
    game = Game.deal(variant, deal)
    for index, play in enumerate(plays, start=1):
        if game.status != Status.PLAYING:
            return f"play {index} ({play!r}) comes after the game was over"
        try:
            game.play(play)
        except IllegalMove:
            return f"play {index} ({play!r}) is refused by the rules"
    if status == Status.RESIGNED and game.status == Status.PLAYING:
        game.resign()
    if (game.status, game.score, game.moves) != (status, score, moves):
        return (
            f"the plays give {game.status} with score {game.score} in {game.moves} moves, not "
            f"{status} with score {score} in {moves}"
        )
    return None


async def read_capped(content: Any, cap: int) -> bytes | None:
    """A body read whole from an aiohttp stream (``read(n)`` gives what has come so far, not
    n bytes), or None once it is over ``cap`` bytes."""
    body = b""
    while len(body) <= cap:
        chunk = await content.read(cap + 1 - len(body))
        if not chunk:
            return body
        body += chunk
    return None


def plays_of(value: object) -> tuple[str, ...] | None:
    """A result's plays, if they are a list of short texts within the limits."""
    if not isinstance(value, list) or len(value) > MAX_PLAYS:
        return None
    if not all(isinstance(play, str) and 0 < len(play) <= MAX_PLAY_LENGTH for play in value):
        return None
    return tuple(value)
