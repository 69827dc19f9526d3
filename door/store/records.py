"""What the store hands back: frozen dataclasses, and the errors it raises."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from door.engine.status import Status


class StoreError(Exception):
    """The store can't do what was asked; the message says why in the sysop's words (but
    for the refusals below, which a caller reads)."""


class AliasRefused(StoreError, ValueError):
    """An alias that breaks the alias rules (see ``check_alias``); the message says which,
    in the language spoken where it was raised (:mod:`door.words`: in a visit, the
    caller's)."""


class PasswordRefused(StoreError, ValueError):
    """A password that breaks the password rules (see ``check_password``); the message says
    which, in the language spoken where it was raised, as :class:`AliasRefused`'s."""


class AliasTaken(StoreError):
    """Another user (of the same BBS, or over telnet) already has this alias. The message
    is the sysop's: a caller signing up is told in their own words (:mod:`door.visit.signup`)."""


class NotFound(StoreError, LookupError):
    """No such user or game (deleted by the sysop, or never there)."""


class GameConflict(StoreError):
    """The stored game is not where this copy of it thinks: played on meanwhile on another
    line, over, dealt differently, or a game already begun at that level or that day."""


class StoreFault(StoreError):
    """The database, not the request, failed: the change asked for was not stored, and
    nothing stored before it was lost. Its kinds below say why."""


class DiskFault(StoreFault):
    """The database could not be written (a full disk, a read-only file, an I/O error)."""


class StoreBusy(StoreFault):
    """Another program (a door-mode process, the sysop's command line) held the database's
    write lock longer than the store waits and tries again."""


class WriterFailed(StoreFault):
    """The store's writer failed while this change waited for it; it starts again."""


class SchemaMoved(StoreFault):
    """The database was moved to a newer schema under the running door: it takes no more
    writes until a door that knows that schema runs it."""


class SchemaTooNew(StoreError):
    """The database was written by a newer door than this one."""


@dataclass(frozen=True, slots=True)
class User:
    """A caller the door knows. ``bbs`` is None for callers over telnet.

    ``ansi`` and ``charset`` are None until the caller chooses (the door detects them);
    ``game_view`` too (``board`` or ``terse``; until chosen, it follows ``ansi``), and
    ``hot_keys`` (board commands act when complete; False: on Enter) likewise, and
    ``language`` (a catalog's code; until chosen, the board's).
    """

    id: int
    alias: str
    bbs: str | None
    ansi: bool | None
    charset: str | None
    suit_letters: bool
    created: datetime
    last_seen: datetime
    real_name: str | None = None
    game_view: str | None = None
    hot_keys: bool | None = None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class UserSummary:
    """A line of the sysop's user list: the user and how many games they have started."""

    user: User
    games: int


@dataclass(frozen=True, slots=True)
class VariantRow:
    """A set of rules a level has been played under; a level's knobs change, a new row."""

    id: int
    level: int
    knobs: dict[str, object]
    created: datetime


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game as stored, without the position (see ``Store.load_game`` for that)."""

    id: int
    user_id: int
    level: int
    variant_id: int
    deal: int | None
    status: Status
    score: int
    moves: int
    cards_up: int
    assisted: bool
    started: datetime
    finished: datetime | None
    history: tuple[str, ...]
    day: str | None = None
    """The ISO date of the deal of the day the game plays, or None."""
    practice: bool = False
    """A deal the caller chose (or a replay): never on the scoreboards."""
    salt: str | None = None
    """The secret salt of the game's seal; None for practice and for games dealt before
    deals were sealed."""


@dataclass(frozen=True, slots=True)
class Statistics:
    """A user's record at one level, over finished games (a resigned game is lost).

    ``win_percentage`` is 0.0 and the scores None before the first finished game.
    ``balance`` is the running vegas account (finished and unfinished vegas games of the
    level); None when the level does not use vegas scoring. Practice games count only in
    ``practice_played`` and ``practice_won``.
    """

    level: int
    played: int
    won: int
    lost: int
    win_percentage: float
    best_score: int | None
    average_score: float | None
    current_streak: int
    longest_streak: int
    balance: int | None
    unfinished: bool
    practice_played: int = 0
    practice_won: int = 0


@dataclass(frozen=True, slots=True)
class HighScore:
    """A row of a level's high-score list. ``assisted``: a hint was taken in the game."""

    alias: str
    bbs: str | None
    score: int
    won: bool
    moves: int
    finished: datetime
    assisted: bool
    game_id: int


@dataclass(frozen=True, slots=True)
class Standing:
    """A row of the standings (Palace's board), over finished games of every level.

    ``percentage`` is None for a user with no finished game yet; ``unfinished`` is shown as
    ``*`` beside a user who has a game to resume; ``assisted`` counts the finished games in
    which a hint was taken.
    """

    alias: str
    bbs: str | None
    games: int
    wins: int
    percentage: float | None
    best: int | None
    unfinished: bool
    assisted: int = 0


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """The deal of the day: the same deal number for every caller on ``day`` (ISO date),
    played at menu level ``level`` under the rules of ``variant_id``."""

    day: str
    level: int
    variant_id: int
    deal: int


@dataclass(frozen=True, slots=True)
class DailyResult:
    """A row of a deal of the day's board; ``status`` is ``playing`` while unfinished."""

    alias: str
    bbs: str | None
    status: Status
    score: int
    moves: int
    assisted: bool
    finished: datetime | None


@dataclass(frozen=True, slots=True)
class DailyDay:
    """A past deal of the day, for the list of earlier boards."""

    day: str
    level: int
    deal: int
    players: int
