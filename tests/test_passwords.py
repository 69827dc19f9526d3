"""Password guessing: a back-off per alias and per address kept in the database (so hanging
up or a restart skips nothing), rules for new passwords, the documented length, sign-ups
per address, and what the sysop sees."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from door.store import Store
from door.store.logins import ALIAS_LOCK_MAX, FREE_ADDRESS_FAILURES, FREE_ALIAS_FAILURES
from tests.support.door_server import RunningDoor, door_config, open_door
from tests.support.storms import WAIT
from tests.support.telnet_caller import Caller

GOOD = "seven green apples"


class Clock:
    """The store's clock, moved on by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def guess(door: RunningDoor, alias: str, password: str) -> Caller:
    """One call: an alias and a password, then what the door said (the caller stays on)."""
    caller = await Caller.connect(door.port)
    await caller.wait_for("Your alias", WAIT)
    await caller.type(alias)
    await caller.wait_for(r"Password for|Try again in", WAIT)
    if "Password for" in caller.display():
        await caller.type(password)
        await caller.wait_for(r"Wrong password|Your choice", WAIT)
    return caller


@pytest.mark.slow
async def test_guesses_from_many_calls_lock_the_alias_even_after_a_restart(tmp_path) -> None:
    clock = Clock()
    config = door_config(tmp_path, max_per_address=64)
    door = await open_door(config, clock=clock)
    try:
        await door.store.create_user("Alice", GOOD)
        for n in range(FREE_ALIAS_FAILURES + 1):  # a new call for each guess
            caller = await guess(door, "alice", f"guess number {n}")
            assert "Wrong password" in caller.text
            await caller.hang_up()
    finally:
        await door.close()
    door = await open_door(config, clock=clock)  # a restart
    try:
        caller = await guess(door, "ALICE", GOOD)
        assert "Too many wrong passwords lately. Try again in 15 seconds." in caller.text
        assert "Password for" not in caller.text  # not even asked: nothing to guess
        await caller.hang_up()
        clock.now += ALIAS_LOCK_MAX  # the owner waits no longer than this
        caller = await guess(door, "Alice", GOOD)
        assert "Hello, Alice." in caller.display()
        await caller.hang_up()
        assert await door.store.login_failures("alice") is None  # forgotten once she got in
    finally:
        await door.close()


@pytest.mark.slow
async def test_guesses_across_aliases_lock_the_address(tmp_path) -> None:
    clock = Clock()
    door = await open_door(door_config(tmp_path, max_per_address=64), clock=clock)
    try:
        aliases = [f"User{n}" for n in range(FREE_ADDRESS_FAILURES + 1)]
        for alias in aliases:
            await door.store.create_user(alias, GOOD)
        for alias in aliases:  # one guess each: no alias is locked on its own
            caller = await guess(door, alias, "wrong guess")
            await caller.hang_up()
        caller = await guess(door, aliases[0], GOOD)
        assert "Try again in" in caller.text
        await caller.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_an_unknown_alias_counts_like_a_known_one(tmp_path) -> None:
    async with Store.open(tmp_path / "door.db") as store:
        await store.create_user("Known", GOOD)
        for alias in ("Known", "Unknown"):
            for _ in range(FREE_ALIAS_FAILURES + 1):
                assert await store.authenticate(alias, "wrong", address="192.0.2.1") is None
            assert await store.login_wait(alias.casefold(), "") > 0
        # Locked: even the right password is not tried.
        assert await store.authenticate("Known", GOOD) is None


async def sign_up_with(door: RunningDoor, alias: str, password: str) -> Caller:
    """A sign-up as far as the door lets it go: to the main menu, or the first refusal (the
    question asked again, with the reason above it)."""
    caller = await Caller.connect(door.port)
    await caller.wait_for("Your alias", WAIT)
    await caller.type(alias)
    await caller.wait_for(r"Sign up\?", WAIT)
    await caller.type("Y")
    await caller.wait_for("Password:|this hour|Alias:", WAIT, in_text=True)
    if "this hour" in caller.text or "Alias:" in caller.display():
        return caller
    await caller.type(password)
    await caller.wait_for("Password again", WAIT)
    await caller.type(password)
    await caller.wait_for(r"Password:|Your choice", WAIT)
    return caller


async def test_weak_passwords_are_refused_at_sign_up(tmp_path) -> None:
    door = await open_door(door_config(tmp_path, max_per_address=64))
    try:
        for password, problem in [
            ("1234", "at least 8 characters"),
            ("Newcomer", "can't be your alias"),
            ("password123", "among the commonest"),
        ]:
            caller = await sign_up_with(door, "Newcomer", password)
            assert problem in caller.display(), password
            await caller.hang_up()
        assert await door.store.find_user("Newcomer") is None
    finally:
        await door.close()


@pytest.mark.slow
async def test_the_whole_documented_length_of_a_password_counts(tmp_path) -> None:
    door = await open_door(door_config(tmp_path, max_per_address=64))
    long = "correct horse battery staple " * 2  # 58 characters
    try:
        caller = await sign_up_with(door, "Longpass", long)
        assert "Your choice" in caller.display()
        await caller.hang_up()
        cut = await guess(door, "Longpass", long[:40])
        assert "Wrong password" in cut.text
        await cut.hang_up()
        whole = await guess(door, "Longpass", long)
        assert "Hello, Longpass." in whole.display()
        await whole.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
async def test_sign_ups_per_address_are_limited_per_hour(tmp_path) -> None:
    clock = Clock()
    door = await open_door(
        door_config(tmp_path, signups_per_hour=2, max_per_address=64), clock=clock
    )
    try:
        for alias in ("First", "Second"):
            caller = await sign_up_with(door, alias, GOOD)
            assert "Your choice" in caller.display()
            await caller.hang_up()
        third = await sign_up_with(door, "Third", GOOD)
        assert "Too many new accounts from your address this hour" in third.text
        await third.hang_up()
        clock.now += timedelta(hours=1, seconds=1)
        later = await sign_up_with(door, "Third", GOOD)
        assert "Your choice" in later.display()
        await later.hang_up()
    finally:
        await door.close()


@pytest.mark.slow
def test_the_sysop_sees_wrong_passwords(tmp_path: Path) -> None:
    async def guesses() -> None:
        async with Store.open(tmp_path / "door.db") as store:
            await store.create_user("Alice", GOOD)
            await store.create_user("Bob", GOOD)
            for _ in range(FREE_ALIAS_FAILURES + 1):
                await store.authenticate("Alice", "wrong", address="192.0.2.1")

    asyncio.run(guesses())

    def sysop(*args: str) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "door", "sysop", "--database", "door.db", *args],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    shown = sysop("user", "alice")
    assert f"Wrong passwords lately: {FREE_ALIAS_FAILURES + 1}" in shown
    assert "Log-ins as Alice rest for" in shown
    assert "Wrong passwords lately: none" in sysop("user", "show", "Bob")


# -- aliases that deceive ------------------------------------------------------------------

DECEIVING = [
    ("Sysop", "kept for the sysop"),  # the sysop's name in the shipped sysop.toml
    ("SYS0P", "kept for the sysop"),
    ("Admin", "kept for the door"),
    ("Guest", "kept for the door"),
    ("\u0405ysop", "shown on every screen"),  # a Cyrillic S
    ("\u3164\u3164", "shown on every screen"),  # Hangul fillers: invisible
    ("Blank\u2800", "shown on every screen"),  # a blank braille cell
    ("Hi\u203c\u00a7\u2663\u25ba", "shown on every screen"),  # XOFF, NAK, ENQ, DLE
    ("\u263aCode", "shown on every screen"),  # Ctrl-A on a CP437 line
    ("\u6f22" * 10, "shown on every screen"),  # wide: 20 columns of a table
    ("Al1ce", "a look-alike"),
]


@pytest.mark.slow
async def test_aliases_that_deceive_are_refused(tmp_path) -> None:
    door = await open_door(door_config(tmp_path, max_per_address=64))
    try:
        await door.store.create_user("Alice", GOOD)
        for alias, problem in DECEIVING:
            caller = await sign_up_with(door, alias, GOOD)
            assert problem in caller.display(), (alias, caller.display())
            await caller.hang_up()
        for alias in ("Zoë", "François", "Ëlla"):  # letters of other tongues are welcome
            caller = await sign_up_with(door, alias, GOOD)
            assert "Your choice" in caller.display(), alias
            await caller.hang_up()
        assert await door.store.counts() == (4, 0)
    finally:
        await door.close()


@pytest.mark.slow
async def test_a_resting_alias_is_told_how_long_in_the_boards_language(tmp_path) -> None:
    (tmp_path / "sysop.toml").write_text('[words]\nlanguage = "de"\n')
    clock = Clock()
    door = await open_door(
        door_config(tmp_path, tmp_path / "sysop.toml", max_per_address=64), clock=clock
    )
    try:
        await door.store.create_user("Alice", GOOD)
        for n in range(FREE_ALIAS_FAILURES + 1):
            caller = await Caller.connect(door.port)
            await caller.wait_for("Dein Name", WAIT)
            await caller.type("alice")
            await caller.wait_for("Passwort für", WAIT)
            await caller.type(f"guess number {n}")
            await caller.wait_for("Falsches Passwort", WAIT)
            await caller.hang_up()
        caller = await Caller.connect(door.port)
        await caller.wait_for("Dein Name", WAIT)
        await caller.type("Alice")
        await caller.wait_for("Versuch es in", WAIT)
        assert (
            "Zu viele falsche Passwörter in letzter Zeit. Versuch es in 15 Sekunden noch einmal."
            in " ".join(caller.display().split())
        )
        await caller.hang_up()
    finally:
        await door.close()
