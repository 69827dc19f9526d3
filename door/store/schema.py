"""The database schema, as a list of migration steps, and the code that applies them.

``PRAGMA user_version`` holds the number of steps a database has had. At open, every step
after that number runs, each in its own transaction together with the version bump, so a
database is always at one whole version. A later version of the door adds a step at the end
of :data:`MIGRATIONS` and never edits an earlier one.

Times are stored as ISO 8601 text in UTC with microseconds (``2026-11-29T12:00:00.000000+00:00``),
which sorts in time order. Aliases are compared by ``alias_key`` (folded case, see
:mod:`door.store.accounts`) because SQLite's NOCASE only folds ASCII.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from door.files import private_temp, sync_folder
from door.store.records import SchemaTooNew

_VERSION_1 = (
    """
    CREATE TABLE users (
        id            INTEGER PRIMARY KEY,
        alias         TEXT NOT NULL,
        alias_key     TEXT NOT NULL,
        bbs           TEXT,                       -- NULL: a caller over telnet
        bbs_key       TEXT NOT NULL DEFAULT '',   -- folded bbs; '' for telnet callers
        real_name     TEXT,
        password      TEXT,                       -- scrypt$log2n$r$p$salt$hash; NULL for drop files
        ansi          INTEGER,                    -- NULL: detect at each call
        charset       TEXT CHECK (charset IN ('cp437', 'utf-8', 'ascii')),
        suit_letters  INTEGER NOT NULL DEFAULT 0,
        created       TEXT NOT NULL,
        last_seen     TEXT NOT NULL,
        UNIQUE (bbs_key, alias_key)
    )
    """,
    """
    CREATE TABLE variants (
        id       INTEGER PRIMARY KEY,
        level    INTEGER NOT NULL,
        knobs    TEXT NOT NULL,                   -- every knob, JSON with sorted keys
        created  TEXT NOT NULL,
        UNIQUE (level, knobs)
    )
    """,
    """
    CREATE TABLE games (
        id          INTEGER PRIMARY KEY,
        user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        variant_id  INTEGER NOT NULL REFERENCES variants (id),
        level       INTEGER NOT NULL,             -- the menu number, as in variants.level
        deal        INTEGER,                      -- deal number; NULL for an explicit order
        deal_order  TEXT NOT NULL,                -- the 52 cards in dealing order
        position    TEXT NOT NULL,                -- position JSON with history, docs/rules.md §18
        history     TEXT GENERATED ALWAYS AS (json_extract(position, '$.history')) VIRTUAL,
        status      TEXT NOT NULL CHECK (status IN ('playing', 'won', 'stuck', 'resigned')),
        score       INTEGER NOT NULL,
        moves       INTEGER NOT NULL,
        cards_up    INTEGER NOT NULL,             -- cards on the foundations
        assisted    INTEGER NOT NULL DEFAULT 0,   -- a hint was taken
        started     TEXT NOT NULL,
        finished    TEXT,
        CHECK ((status = 'playing') = (finished IS NULL))
    )
    """,
    # One unfinished game per user and level.
    "CREATE UNIQUE INDEX games_unfinished ON games (user_id, level) WHERE status = 'playing'",
    "CREATE INDEX games_by_user ON games (user_id, level, finished)",
    "CREATE INDEX games_by_variant ON games (variant_id, status, score)",
    """
    CREATE TABLE score_resets (
        level     INTEGER PRIMARY KEY,            -- 0: every level
        reset_at  TEXT NOT NULL
    )
    """,
)

# The solver's features: the deal of the day (its deal, and which games play it) and the
# winnable deals found ahead of time for levels that deal only those.
_VERSION_2 = (
    # The ISO date of the deal of the day a game plays; NULL for every other game.
    "ALTER TABLE games ADD COLUMN day TEXT",
    # A saved deal-of-the-day game is not the caller's saved game of its level.
    "DROP INDEX games_unfinished",
    "CREATE UNIQUE INDEX games_unfinished ON games (user_id, level, coalesce(day, '')) "
    "WHERE status = 'playing'",
    # The deal of the day is played once per user and day.
    "CREATE UNIQUE INDEX games_daily ON games (user_id, day) WHERE day IS NOT NULL",
    """
    CREATE TABLE daily_deals (
        day         TEXT PRIMARY KEY,             -- ISO date, the server's local day
        level       INTEGER NOT NULL,             -- the menu number it is played at
        variant_id  INTEGER NOT NULL REFERENCES variants (id),
        deal        INTEGER NOT NULL,             -- proved winnable under that variant
        chosen      TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE winnable_deals (
        variant_id  INTEGER NOT NULL REFERENCES variants (id),
        deal        INTEGER NOT NULL,             -- proved winnable under that variant
        found       TEXT NOT NULL,
        PRIMARY KEY (variant_id, deal)
    )
    """,
)

# Logging in over SSH with a key: the caller's public key, one OpenSSH line
# ("ssh-ed25519 AAAA..."), or NULL for none.
_VERSION_3 = ("ALTER TABLE users ADD COLUMN ssh_key TEXT",)

# How the game is shown to a caller: 'board' (the whole board, kept up to date), 'terse' (a
# line per play); NULL: the board for ANSI callers, lines for plain ones.
_VERSION_4 = (
    "ALTER TABLE users ADD COLUMN game_view TEXT CHECK (game_view IN ('board', 'terse'))",
)

# Honest scoreboards: deals a caller chose are practice; a scored game's deal is sealed with
# a secret salt; the door keeps secrets of its own (the deal of the day's). Games played
# before this step keep their places: they are scored (practice 0) and have no seal (salt
# NULL), which is how `sysop game` tells them apart.
_VERSION_5 = (
    # 1: a numbered deal or a replay, played and saved but never on the scoreboards.
    "ALTER TABLE games ADD COLUMN practice INTEGER NOT NULL DEFAULT 0",
    # The secret salt of the game's seal (hex); NULL for practice and for older games.
    "ALTER TABLE games ADD COLUMN salt TEXT",
    "CREATE INDEX games_by_deal ON games (deal) WHERE status = 'playing'",
    # Deals chosen before were drawn from a range small enough to search by the cards in
    # view, or (the deal of the day) from the date alone: the winnable stock is dealt anew,
    # and a day's deal nobody has played yet is chosen again from the door's secret.
    "DELETE FROM winnable_deals",
    "DELETE FROM daily_deals WHERE day NOT IN (SELECT day FROM games WHERE day IS NOT NULL)",
    """
    CREATE TABLE door_secrets (
        name   TEXT PRIMARY KEY,                  -- 'daily': the deal of the day's secret
        value  TEXT NOT NULL,
        made   TEXT NOT NULL
    )
    """,
)

# Wrong passwords, remembered across restarts: a back-off per alias (whether or not a user
# has it) and per address; and sign-ups per address, limited per hour.
_VERSION_6 = (
    """
    CREATE TABLE login_failures (
        kind          TEXT NOT NULL CHECK (kind IN ('alias', 'address')),
        key           TEXT NOT NULL,              -- alias_key, or the address (an IPv6 /64)
        failures      INTEGER NOT NULL,           -- since the failures were last forgotten
        last_failure  TEXT NOT NULL,
        locked_until  TEXT NOT NULL,              -- no log-in is tried before this time
        PRIMARY KEY (kind, key)
    )
    """,
    """
    CREATE TABLE sign_ups (
        address  TEXT NOT NULL,                   -- the address (an IPv6 /64)
        at       TEXT NOT NULL
    )
    """,
    "CREATE INDEX sign_ups_by_address ON sign_ups (address, at)",
)

# How a caller types on the board: hot keys (1), lines ending with Enter (0), or NULL for
# the door's default (hot keys on an ANSI screen, lines on a plain one).
_VERSION_7 = ("ALTER TABLE users ADD COLUMN hot_keys INTEGER",)

# What `sysop status` and the daily limit read: the games started since midnight.
_VERSION_8 = ("CREATE INDEX games_by_start ON games (started)",)
# Contests: a set of sealed deals everyone plays once between two times, and one table.
# A contest's deals are drawn from `secrets` when it is declared and kept with their salts;
# its games are ordinary games that name the contest and the deal's place in it (1 to N).
_VERSION_9 = (
    """
    CREATE TABLE contests (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL,
        name_key    TEXT NOT NULL UNIQUE,         -- the name folded, to compare
        level       INTEGER NOT NULL,             -- the menu number it is played at
        variant_id  INTEGER NOT NULL REFERENCES variants (id),
        opens       TEXT NOT NULL,
        closes      TEXT NOT NULL,
        made        TEXT NOT NULL,
        opened      TEXT,                         -- when the door opened it (seals shown)
        closed      TEXT,                         -- when it closed (deals and salts shown)
        CHECK (closes > opens)
    )
    """,
    """
    CREATE TABLE contest_deals (
        contest_id  INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
        number      INTEGER NOT NULL,             -- 1 to N: how callers know the deal
        deal        INTEGER NOT NULL,             -- from `secrets`; secret until the close
        salt        TEXT NOT NULL,                -- the salt of the deal's seal
        PRIMARY KEY (contest_id, number)
    )
    """,
    "ALTER TABLE games ADD COLUMN contest_id INTEGER REFERENCES contests (id)",
    "ALTER TABLE games ADD COLUMN contest_deal INTEGER",
    # A contest game is not the caller's saved game of its level, and each deal is played
    # once per caller.
    "DROP INDEX games_unfinished",
    "CREATE UNIQUE INDEX games_unfinished ON games (user_id, level, coalesce(day, ''), "
    "coalesce(contest_id, 0), coalesce(contest_deal, 0)) WHERE status = 'playing'",
    "CREATE UNIQUE INDEX games_contest ON games (user_id, contest_id, contest_deal) "
    "WHERE contest_id IS NOT NULL",
    "CREATE INDEX games_by_contest ON games (contest_id) WHERE contest_id IS NOT NULL",
)

# A play is stored as its command: a game's row keeps the counts the scoreboards read and a
# full copy of its position (with the history up to then), written every so many plays and
# when the game ends; the plays since that copy are rows of their own, in order. ``plays``:
# the length of the whole history stored.
_VERSION_10 = (
    """
    CREATE TABLE plays (
        game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number   INTEGER NOT NULL,                -- its place in the game's history, from 1
        command  TEXT NOT NULL,
        PRIMARY KEY (game_id, number)
    ) WITHOUT ROWID
    """,
    "ALTER TABLE games ADD COLUMN plays INTEGER NOT NULL DEFAULT 0",
    "UPDATE games SET plays = json_array_length(history)",
)

# The InterBBS league. A contest is the door's own (league 0) or the league's (1): on the hub
# one its sysop declared for the league, on a member the hub's contest as fetched (hub_id,
# the hub's id of it). A member's copy has its seals from the start and each deal's number
# only once a caller starts it (its salt at the close); the hub keeps its members' boards and
# keys, the deals it gave each board, the results it accepted and the nonces it has seen.
_VERSION_11 = (
    "ALTER TABLE contests ADD COLUMN league INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE contests ADD COLUMN hub_id INTEGER",
    "CREATE UNIQUE INDEX contests_by_hub_id ON contests (hub_id) WHERE hub_id IS NOT NULL",
    """
    CREATE TABLE league_seals (
        contest_id  INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
        number      INTEGER NOT NULL,
        seal        TEXT NOT NULL,
        PRIMARY KEY (contest_id, number)
    )
    """,
    """
    CREATE TABLE league_sent (
        game_id   INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        answered  TEXT NOT NULL,
        accepted  INTEGER NOT NULL,              -- 0: refused, for the reason given
        reason    TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE league_tables (
        contest_id  INTEGER PRIMARY KEY REFERENCES contests (id) ON DELETE CASCADE,
        etag        TEXT NOT NULL,
        fetched     TEXT NOT NULL,
        rows        TEXT NOT NULL                -- the hub's table, JSON
    )
    """,
    "CREATE TABLE league_state (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """
    CREATE TABLE league_boards (
        tag         TEXT PRIMARY KEY,
        tag_key     TEXT NOT NULL UNIQUE,
        name        TEXT NOT NULL,
        public_key  TEXT NOT NULL UNIQUE,
        added       TEXT NOT NULL,
        suspended   TEXT                         -- when its sysop suspended it; NULL: in play
    )
    """,
    """
    CREATE TABLE league_issued (
        contest_id  INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
        board       TEXT NOT NULL,
        number      INTEGER NOT NULL,
        issued      TEXT NOT NULL,
        PRIMARY KEY (contest_id, board, number)
    )
    """,
    """
    CREATE TABLE league_results (
        id          INTEGER PRIMARY KEY,
        contest_id  INTEGER NOT NULL REFERENCES contests (id) ON DELETE CASCADE,
        board       TEXT NOT NULL,
        alias       TEXT NOT NULL,
        alias_key   TEXT NOT NULL,
        number      INTEGER NOT NULL,
        plays       TEXT NOT NULL,               -- JSON list of the plays, replayed
        status      TEXT NOT NULL,
        score       INTEGER NOT NULL,
        moves       INTEGER NOT NULL,
        finished    TEXT NOT NULL,               -- when the member says it ended
        received    TEXT NOT NULL,
        UNIQUE (contest_id, board, alias_key, number)
    )
    """,
    """
    CREATE TABLE league_nonces (
        board  TEXT NOT NULL,
        nonce  TEXT NOT NULL,
        sent   TEXT NOT NULL,
        PRIMARY KEY (board, nonce)
    ) WITHOUT ROWID
    """,
)

# The language each caller reads the door in (NULL: the board's, as sysop.toml says); and
# each alias's skeleton (accounts.alias_skeleton) kept and indexed, so that a new alias's
# look-alike is found by the index, not by working out every user's skeleton again at each
# sign-up (a board of 10,000 users paid 10,000 calls of it, in the event loop).
_VERSION_12 = (
    "ALTER TABLE users ADD COLUMN language TEXT",
    "ALTER TABLE users ADD COLUMN skeleton TEXT",
    "UPDATE users SET skeleton = alias_skeleton(alias)",
    "CREATE INDEX users_by_skeleton ON users (skeleton) WHERE bbs_key = ''",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    _VERSION_1,
    _VERSION_2,
    _VERSION_3,
    _VERSION_4,
    _VERSION_5,
    _VERSION_6,
    _VERSION_7,
    _VERSION_8,
    _VERSION_9,
    _VERSION_10,
    _VERSION_11,
    _VERSION_12,
)
"""Step N (1-based) takes a database from version N-1 to N."""

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def before_migration(database: Path, version: int) -> Path:
    """Where a database at schema ``version`` is copied before it is migrated:
    ``canfield-schema-6.db`` beside ``canfield.db``.

    >>> before_migration(Path("/srv/canfield.db"), 6)
    PosixPath('/srv/canfield-schema-6.db')
    """
    return database.with_name(f"{database.stem}-schema-{version}{database.suffix or '.db'}")


def migrate(db: sqlite3.Connection) -> int:
    """Bring the database to :data:`SCHEMA_VERSION`; returns the version it was at.

    A database with tables in it is first copied whole beside itself (see
    :func:`before_migration`), so a migration that goes wrong, or a door that turns out
    too new, can be undone by hand. The connection must be in autocommit mode
    (``isolation_level=None``).
    """
    found = before = schema_version(db)
    if found > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"the database is at schema version {found}, newer than this door's "
            f"{SCHEMA_VERSION}: run a newer canfield-door"
        )
    if 0 < found < SCHEMA_VERSION:
        _copy_before_migration(db, found)
    while found < SCHEMA_VERSION:
        db.execute("BEGIN IMMEDIATE")
        try:
            # Read again under the write lock: another process may have migrated meanwhile.
            found = schema_version(db)
            if found < SCHEMA_VERSION:
                for statement in MIGRATIONS[found]:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {found + 1}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        found = schema_version(db)
    return before


def _copy_before_migration(db: sqlite3.Connection, version: int) -> None:
    """The database as it is now, owner-only, whole or not at all, beside itself."""
    database = Path(db.execute("PRAGMA database_list").fetchone()[2])
    target = before_migration(database, version)
    partial = private_temp(target)
    try:
        copy = sqlite3.connect(partial)
        try:
            db.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")
        finally:
            copy.close()
        os.replace(partial, target)
        sync_folder(target.parent)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
