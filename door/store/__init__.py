"""The door's memory: users, games, variants and scoreboards in SQLite (one file, WAL mode).

Nothing outside this package writes SQL: the visit, the game loop and the sysop's tools
ask a :class:`Store` for what they need.

- :mod:`door.store.api` the :class:`Store`: opening, backups, and the parts below
- :mod:`door.store.base` writes, reads and the helpers every part shares
- :mod:`door.store.group_commit` the writer: writes committed in groups, its thread and
  checkpoints
- :mod:`door.store.reading` the reader, on a second connection (aiosqlite)
- :mod:`door.store.users` users: create, log in, drop-file callers, rename, delete
- :mod:`door.store.games` variants and games: deal, record every play, finish, resume
- :mod:`door.store.scoreboards` statistics, high scores, standings, resets
- :mod:`door.store.daily` the deal of the day: each day's deal, its games and boards
- :mod:`door.store.winnable` deals proved winnable, kept ready for winnable-only levels
- :mod:`door.store.contests` contests: their sealed deals, games, tables and clock
- :mod:`door.store.league` the InterBBS league: the hub's boards, deals given and results;
  a member's copies of the hub's contests and what waits to be sent
- :mod:`door.store.schema` the tables, as migration steps applied at open
- :mod:`door.store.accounts` the alias and password rules, and scrypt hashing
- :mod:`door.store.common_passwords` the commonest passwords, refused for a new one
- :mod:`door.store.hashing` where password hashes run, one at a time per alias and address
- :mod:`door.store.logins` wrong passwords and sign-ups counted, and the back-off after them
- :mod:`door.store.statistics` a user's record worked out from their games
- :mod:`door.store.records` the frozen dataclasses the store hands back, and its errors

Design notes. :class:`Store` is made of six parts (users, games, scoreboards, the deal of
the day, winnable deals, contests), each a mixin over :class:`~door.store.base.StoreBase`,
not parts it holds: they share the one writer, the one reader and the clock that the base
keeps, and differ only in their SQL, so one object with one set of methods is what the door
calls, and a part that needs another's answer (a level's variant, from the games part) asks
``self``. Each part's module is where a reader looks for its tables' queries.
"""

from door.store.accounts import (
    ALIAS_MAX,
    ALIAS_MIN,
    PASSWORD_MAX,
    PASSWORD_MIN,
    check_alias,
    check_password,
    clean_alias,
)
from door.store.api import Store
from door.store.base import Clock
from door.store.records import (
    AliasRefused,
    AliasTaken,
    DailyDay,
    DailyDeal,
    DailyResult,
    DiskFault,
    GameConflict,
    GameRecord,
    HighScore,
    NotFound,
    PasswordRefused,
    SchemaMoved,
    SchemaTooNew,
    Standing,
    Statistics,
    StoreBusy,
    StoreError,
    StoreFault,
    User,
    UserSummary,
    VariantRow,
    WriterFailed,
)
from door.store.schema import MIGRATIONS, SCHEMA_VERSION
from door.store.scoreboards import ALL_LEVELS

__all__ = [
    "ALIAS_MAX",
    "ALIAS_MIN",
    "ALL_LEVELS",
    "MIGRATIONS",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "SCHEMA_VERSION",
    "AliasRefused",
    "AliasTaken",
    "Clock",
    "DailyDay",
    "DailyDeal",
    "DailyResult",
    "DiskFault",
    "GameConflict",
    "GameRecord",
    "HighScore",
    "NotFound",
    "PasswordRefused",
    "SchemaMoved",
    "SchemaTooNew",
    "Standing",
    "Statistics",
    "Store",
    "StoreBusy",
    "StoreError",
    "StoreFault",
    "User",
    "UserSummary",
    "VariantRow",
    "WriterFailed",
    "check_alias",
    "check_password",
    "clean_alias",
]
