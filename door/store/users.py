"""Users: telnet callers with an alias and a password, and callers handed over by a BBS."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from ansi.charset import CHARSETS
from ansi.text import sanitize
from door.store.accounts import (
    alias_key,
    alias_skeleton,
    bbs_key,
    board_alias,
    check_alias,
    check_board_alias,
    check_password,
    clean_alias,
    hash_password,
    needs_rehash,
    verify_password,
)
from door.store.base import Row, change_one, execute, fetch_all, moment
from door.store.hashing import checks, hashing
from door.store.logins import LoginStore
from door.store.records import (
    AliasRefused,
    AliasTaken,
    NotFound,
    PasswordRefused,
    StoreError,
    User,
    UserSummary,
)

# Drop files carry aliases the BBS has already vetted, up to 40 characters (door.net.dropfile).
DROP_ALIAS_LIMIT = 40
BBS_NAME_LIMIT = 60

T = TypeVar("T")

GAME_VIEWS = ("board", "terse", None)


async def _hashing(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` in a hashing thread, off the event loop, in line with log-ins."""
    return await hashing().run(0, function, *args)


USER_COLUMNS = (
    "id, alias, bbs, ansi, charset, suit_letters, created, last_seen, real_name, game_view, "
    "hot_keys, language"
)


def to_user(row: Row) -> User:
    return User(
        id=row[0],
        alias=row[1],
        bbs=row[2],
        ansi=None if row[3] is None else bool(row[3]),
        charset=row[4],
        suit_letters=bool(row[5]),
        created=moment(row[6]),
        last_seen=moment(row[7]),
        real_name=row[8],
        game_view=row[9],
        hot_keys=None if row[10] is None else bool(row[10]),
        language=row[11],
    )


USER_BY_ID = f"SELECT {USER_COLUMNS} FROM users WHERE id = ?"
TAKEN = "SELECT alias FROM users WHERE bbs_key = ? AND alias_key = ?"
# The first telnet caller's alias that looks like one with the skeleton given (the function
# is the store's own, see door.store.base.add_functions).
LOOK_ALIKE = "SELECT alias FROM users WHERE bbs_key = '' AND skeleton = ? ORDER BY id LIMIT 1"


def one_user(rows: list[Row], user_id: int) -> User:
    """The user of ``USER_BY_ID``'s rows; NotFound if there are none."""
    if not rows:
        raise NotFound(f"no user {user_id}")
    return to_user(rows[0])


def user_by_id(db: sqlite3.Connection, user_id: int) -> User:
    return one_user(fetch_all(db, USER_BY_ID, (user_id,)), user_id)


def refuse_taken(db: sqlite3.Connection, alias: str, bbs: str | None) -> None:
    taken = fetch_all(db, TAKEN, (bbs_key(bbs), alias_key(alias)))
    if taken:
        where = f" at {bbs}" if bbs else ""
        raise AliasTaken(f"The alias {taken[0][0]} is taken{where}")
    if bbs is None:  # callers over telnet and SSH choose their aliases: no look-alikes
        other = fetch_all(db, LOOK_ALIKE, (alias_skeleton(alias),))
        if other:
            raise AliasTaken(f"The alias {other[0][0]} is taken (and {alias} looks like it)")


class UserStore(LoginStore):
    """Creating, finding, changing and deleting users."""

    async def create_user(self, alias: str, password: str) -> User:
        """A new caller over telnet. AliasRefused, PasswordRefused or AliasTaken if not."""
        problem = check_alias(alias)
        if problem:
            raise AliasRefused(problem)
        problem = check_password(password)
        if problem:
            raise PasswordRefused(problem)
        hashed = await _hashing(hash_password, password)
        return await self._insert_user(clean_alias(alias), None, None, hashed)

    async def _insert_user(
        self, alias: str, bbs: str | None, real_name: str | None, password: str | None
    ) -> User:
        now = self._now()

        def insert(db: sqlite3.Connection) -> User:
            refuse_taken(db, alias, bbs)
            _, user_id = execute(
                db,
                "INSERT INTO users (alias, alias_key, skeleton, bbs, bbs_key, real_name, "
                "password, created, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    alias,
                    alias_key(alias),
                    alias_skeleton(alias),
                    bbs,
                    bbs_key(bbs),
                    real_name,
                    password,
                    now,
                    now,
                ),
            )
            return user_by_id(db, user_id)

        return await self._write(insert)

    async def authenticate(self, alias: str, password: str, *, address: str = "") -> User | None:
        """The telnet caller with this alias (any case) if the password is theirs, else None.

        Wrong passwords count against the alias and ``address`` (see
        :mod:`door.store.logins`); while either is locked out, None without a try.
        """
        key = alias_key(alias)
        # One check at a time per alias and per address (see door.store.hashing): guesses
        # made at once are counted, and locked out, as guesses made one after another.
        async with checks().holding(f"alias {key}", f"address {address}" if address else ""):
            wait, standing = await self.login_standing(key, address)
            if wait > 0:
                return None
            rows = await self._read(
                "SELECT id, password FROM users WHERE bbs_key = '' AND alias_key = ?", (key,)
            )
            stored = rows[0][1] if rows else None
            # Hashing and counting run even for an unknown alias: the time taken tells nothing.
            matched = await hashing().run(standing, verify_password, password, stored)
            await self.record_login(key, address, matched)
        if not matched:
            return None
        user_id = rows[0][0]
        if needs_rehash(stored):  # made by an older door at lower costs: made again now
            hashed = await _hashing(hash_password, password)
            sql = "UPDATE users SET password = ? WHERE id = ? AND password = ?"
            await self._write(lambda db: execute(db, sql, (hashed, user_id, stored)))
        return await self.user(user_id)

    async def drop_file_user(self, alias: str, bbs: str, real_name: str | None = None) -> User:
        """The user a BBS's drop file (or a linked board) names: found by alias within that
        BBS, or created.

        The BBS has vetted the alias, up to 40 characters; the door cleans it
        (:func:`sanitize`, :func:`~door.store.accounts.board_alias`) and refuses one with
        characters not every screen shows (AliasRefused). The real name is updated if the BBS
        now gives another.
        """
        alias = board_alias(sanitize(alias, DROP_ALIAS_LIMIT))
        bbs = sanitize(bbs, BBS_NAME_LIMIT)
        real_name = sanitize(real_name, DROP_ALIAS_LIMIT) if real_name else None
        if not alias or not bbs:
            raise AliasRefused("A drop file must give the caller's alias and the BBS's name")
        problem = check_board_alias(alias)
        if problem:
            raise AliasRefused(problem)
        now = self._now()

        def find_or_insert(db: sqlite3.Connection) -> User:
            found = fetch_all(
                db,
                "SELECT id FROM users WHERE bbs_key = ? AND alias_key = ?",
                (bbs_key(bbs), alias_key(alias)),
            )
            if found:
                user_id = found[0][0]
                if real_name:
                    execute(db, "UPDATE users SET real_name = ? WHERE id = ?", (real_name, user_id))
            else:
                _, user_id = execute(
                    db,
                    "INSERT INTO users (alias, alias_key, skeleton, bbs, bbs_key, real_name, "
                    "created, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        alias,
                        alias_key(alias),
                        alias_skeleton(alias),
                        bbs,
                        bbs_key(bbs),
                        real_name,
                        now,
                        now,
                    ),
                )
            return user_by_id(db, user_id)

        return await self._write(find_or_insert)

    async def user(self, user_id: int) -> User:
        """The user with this id; NotFound if there is none."""
        return one_user(await self._read(USER_BY_ID, (user_id,)), user_id)

    async def look_alike(self, alias: str) -> str | None:
        """The alias of a telnet or SSH caller that ``alias`` is, or looks like, if any."""

        cleaned = clean_alias(alias)
        # One statement, by the indexes: whether it is taken, what it looks like once
        # cleaned, and what it looks like as typed.
        skeletons = alias_skeleton(cleaned), alias_skeleton(alias)
        rows = await self._read(
            f"SELECT EXISTS (SELECT 1 FROM users WHERE bbs_key = '' AND alias_key = ?), "
            f"({LOOK_ALIKE}), CASE WHEN ? = ? THEN NULL ELSE ({LOOK_ALIKE}) END",
            (alias_key(cleaned), skeletons[0], *skeletons, skeletons[1]),
        )
        taken, cleaned_like, typed_like = rows[0]
        if skeletons[0] == skeletons[1]:
            typed_like = cleaned_like
        if not taken and cleaned_like is None:
            return None
        return typed_like or alias

    async def find_user(self, alias: str, bbs: str | None = None) -> User | None:
        """The user with this alias (any case) among telnet callers, or among ``bbs``'s."""
        rows = await self._read(
            f"SELECT {USER_COLUMNS} FROM users WHERE bbs_key = ? AND alias_key = ?",
            (bbs_key(bbs), alias_key(alias)),
        )
        return to_user(rows[0]) if rows else None

    async def users_named(self, alias: str) -> list[User]:
        """Every user with this alias (any case), telnet's first, then by BBS."""
        rows = await self._read(
            f"SELECT {USER_COLUMNS} FROM users WHERE alias_key = ? ORDER BY bbs_key",
            (alias_key(alias),),
        )
        return [to_user(row) for row in rows]

    async def board_names(self) -> list[str]:
        """The boards users call from (linked boards and BBSes running the door), by name."""
        rows = await self._read(
            "SELECT min(bbs) FROM users WHERE bbs IS NOT NULL GROUP BY bbs_key ORDER BY bbs_key"
        )
        return [row[0] for row in rows]

    async def set_password(self, user_id: int, password: str) -> None:
        """Give a telnet caller a new password (drop-file callers log in at their BBS)."""
        problem = check_password(password)
        if problem:
            raise PasswordRefused(problem)
        user = await self.user(user_id)
        if user.bbs is not None:
            raise StoreError(f"{user.alias} comes from {user.bbs} and logs in there")
        hashed = await _hashing(hash_password, password)
        sql = "UPDATE users SET password = ? WHERE id = ?"
        await self._write(lambda db: change_one(db, sql, (hashed, user_id)))

    async def rename_user(self, user_id: int, alias: str) -> User:
        """Give a user a new alias (a new case of the same one is fine)."""
        problem = check_alias(alias)
        if problem:
            raise AliasRefused(problem)
        alias = clean_alias(alias)

        def rename(db: sqlite3.Connection) -> User:
            user = user_by_id(db, user_id)
            if alias_key(alias) != alias_key(user.alias):
                refuse_taken(db, alias, user.bbs)
            execute(
                db,
                "UPDATE users SET alias = ?, alias_key = ?, skeleton = ? WHERE id = ?",
                (alias, alias_key(alias), alias_skeleton(alias), user_id),
            )
            return user_by_id(db, user_id)

        return await self._write(rename)

    async def delete_user(self, user_id: int) -> int:
        """Delete a user and all their games; how many games went with them."""

        def delete(db: sqlite3.Connection) -> int:
            games = fetch_all(db, "SELECT count(*) FROM games WHERE user_id = ?", (user_id,))
            change_one(db, "DELETE FROM users WHERE id = ?", (user_id,))
            return int(games[0][0])

        return await self._write(delete)

    async def save_preferences(
        self, user_id: int, ansi: bool | None, charset: str | None, suit_letters: bool
    ) -> User:
        """Keep the caller's terminal choices for their next call."""
        if charset is not None and charset not in CHARSETS:
            raise ValueError(f"charset must be one of {', '.join(CHARSETS)} or None")

        def save(db: sqlite3.Connection) -> User:
            change_one(
                db,
                "UPDATE users SET ansi = ?, charset = ?, suit_letters = ? WHERE id = ?",
                (None if ansi is None else int(ansi), charset, int(suit_letters), user_id),
            )
            return user_by_id(db, user_id)

        return await self._write(save)

    async def ssh_key(self, user_id: int) -> str | None:
        """The SSH public key the user logs in with (an OpenSSH line), or None."""
        rows = await self._read("SELECT ssh_key FROM users WHERE id = ?", (user_id,))
        if not rows:
            raise NotFound(f"no user {user_id}")
        return rows[0][0]

    async def set_ssh_key(self, user_id: int, key: str | None) -> None:
        """Let the user log in over SSH with ``key`` (an OpenSSH public key line); None: not."""
        sql = "UPDATE users SET ssh_key = ? WHERE id = ?"
        await self._write(lambda db: change_one(db, sql, (key, user_id)))

    async def user_with_ssh_key(self, alias: str, key: str) -> User | None:
        """The caller (not a BBS's) with this alias, if ``key`` is the SSH key they added."""
        rows = await self._read(
            f"SELECT {USER_COLUMNS} FROM users "
            "WHERE bbs_key = '' AND alias_key = ? AND ssh_key = ?",
            (alias_key(alias), key),
        )
        return to_user(rows[0]) if rows else None

    async def save_game_view(self, user_id: int, game_view: str | None) -> User:
        """Keep how the caller wants the game shown: ``board``, ``terse`` or None (by
        terminal)."""
        if game_view not in GAME_VIEWS:
            raise ValueError(f"game_view must be one of {', '.join(map(str, GAME_VIEWS))}")

        def save(db: sqlite3.Connection) -> User:
            change_one(db, "UPDATE users SET game_view = ? WHERE id = ?", (game_view, user_id))
            return user_by_id(db, user_id)

        return await self._write(save)

    async def save_hot_keys(self, user_id: int, hot_keys: bool | None) -> User:
        """Keep the caller's choice of hot keys (or lines) on the board; None: the default."""
        value = None if hot_keys is None else int(hot_keys)

        def save(db: sqlite3.Connection) -> User:
            change_one(db, "UPDATE users SET hot_keys = ? WHERE id = ?", (value, user_id))
            return user_by_id(db, user_id)

        return await self._write(save)

    async def save_language(self, user_id: int, language: str | None) -> User:
        """Keep the language the caller reads the door in (a catalog's code, such as
        ``de``); None: the board's."""
        if language is not None and not (0 < len(language) <= 16 and language.isascii()):
            raise ValueError("language must be a catalog's code or None")

        def save(db: sqlite3.Connection) -> User:
            change_one(db, "UPDATE users SET language = ? WHERE id = ?", (language, user_id))
            return user_by_id(db, user_id)

        return await self._write(save)

    async def touch(self, user_id: int) -> None:
        """The user was here just now."""
        now = self._now()
        await self._write(
            lambda db: change_one(db, "UPDATE users SET last_seen = ? WHERE id = ?", (now, user_id))
        )

    async def user_summaries(self) -> list[UserSummary]:
        """Every user with the number of games they started, by alias."""
        rows = await self._read(
            f"SELECT {', '.join('u.' + c for c in USER_COLUMNS.split(', '))}, count(g.id) "
            "FROM users u LEFT JOIN games g ON g.user_id = u.id "
            "GROUP BY u.id ORDER BY u.alias_key, u.bbs_key"
        )
        return [UserSummary(to_user(row), row[-1]) for row in rows]
