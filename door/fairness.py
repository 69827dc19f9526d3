"""What keeps the scoreboards honest: secret deal numbers, the seal on each scored game, and
the deal of the day's secret start.

The shuffle and the solver are public, so a deal number is as good as the whole deck. A
scored game's number therefore comes from :mod:`secrets`, over the whole range of deal
numbers (too many to try each against the cards in view), and stays hidden until the game
ends. At the start the caller is shown the game's **seal**, a hash of the number and a
secret salt; at the end the number and the salt are shown, and anyone can check that the
seal matches, so the deal was fixed before the first card was turned:

>>> seal(48213, "00112233445566778899aabbccddeeff")
'1e7c0fb88f48d5426e35598029d61f47'

(The README shows the same check in a few lines of Python.)
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import date

from door.engine.shuffle import MAX_DEAL_NUMBER

SEAL_LENGTH = 32
"""Hex digits of the seal shown: 128 bits, too many to find two deals with one seal."""

SALT_BYTES = 16


def secret_deal_number() -> int:
    """A deal number nobody can foresee: any of the 2**63 numbers, from :mod:`secrets`."""
    return secrets.randbelow(MAX_DEAL_NUMBER + 1)


def new_salt() -> str:
    """A secret salt for one game's seal, as hex."""
    return secrets.token_hex(SALT_BYTES)


def new_door_secret() -> str:
    """The secret a door keeps in its database, from which each day's deal is drawn."""
    return secrets.token_hex(32)


def seal(deal: int, salt: str) -> str:
    """The seal of a deal: the first :data:`SEAL_LENGTH` hex digits of the SHA-256 digest of
    the text ``DEAL:SALT`` (the deal number in decimal, the salt as shown)."""
    return hashlib.sha256(f"{deal}:{salt}".encode()).hexdigest()[:SEAL_LENGTH]


def daily_start(day: date, door_secret: str) -> int:
    """The day's starting deal number: the SHA-256 digest of ``SECRET YYYY-MM-DD`` read as a
    big-endian number, within the range of deal numbers. Without the door's secret nobody
    can work it out, however well they know the date."""
    digest = hashlib.sha256(f"{door_secret} {day.isoformat()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (MAX_DEAL_NUMBER + 1)
