"""A caller's whole visit over real TCP, read through a pyte screen."""

from __future__ import annotations

from client import Caller


async def sign_up(door, alias="Alice", password="secret1", **options) -> Caller:
    caller = await Caller.connect(door.port, **options)
    await caller.wait_for("Your alias")
    await caller.type(alias)
    await caller.wait_for("Sign up\\?")
    await caller.type("Y")
    await caller.wait_for("Password:")
    await caller.type(password)
    await caller.wait_for("Password again")
    await caller.type(password)
    await caller.wait_for("Your choice")
    return caller


async def test_sign_up_play_drop_and_resume(door):
    caller = await sign_up(door)
    assert "Hello, Alice." in caller.display()
    await caller.key("P")
    await caller.wait_for("Choose a level")
    await caller.key("\r")
    await caller.wait_for("Command")
    print(caller.display())
    await caller.type("V")
    await caller.wait_for("V played")
    print(caller.display())
    await caller.hang_up()
