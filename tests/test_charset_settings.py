"""The terminal settings' character set and suits: automatic (the door's own check at each
call) besides each charset, every choice shown as the board draws cards before it is kept,
and a help line that names what mends a screen with missing suits."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from door.store import Store
from tests.support.door_caller import DoorCall, door32, door_args, write_config, write_dropfile
from tests.support.visits import log_in, sign_up

ENIGMA = "Mystic BBS 1.12 A48"  # door32()'s board name; the caller is relayed as ENiGMA½ does


def stored_charset(database: Path, alias: str, bbs: str | None = None) -> tuple[str | None, bool]:
    async def look() -> tuple[str | None, bool]:
        async with Store.open(database, create=False) as store:
            user = await store.find_user(alias, bbs)
            assert user is not None
            return user.charset, user.suit_letters

    return asyncio.run(look())


def test_a_relayed_caller_sees_a_choice_before_it_is_kept_and_can_refuse_it(tmp_path):
    config = write_config(tmp_path)
    dropfile = write_dropfile(tmp_path, "DOOR32.SYS", door32())
    # A UTF-8 caller behind a BBS that re-encodes CP437 and drops 0x03-0x06 (ENiGMA½).
    call, slave = DoorCall.on_pty(door_args(dropfile, config), relay=True)
    try:
        call.wait_for("Your choice:")
        call.send("T")
        call.wait_for("Character set: automatic \\(this call: cp437\\)")
        shown = call.display()
        assert "Suits drawn as: letters" in shown
        assert " 10H    KS    AD    7C" in shown and " ^^^   ^^^   ^^^   ^^^" in shown
        assert "press L for suits as letters" in " ".join(shown.split())
        call.send("L")  # symbols: shown first, and here they are lost on the way
        call.wait_for("Keep this\\? \\(Y/N\\)")
        shown = call.display()
        assert "Suits as symbols" in shown
        assert " 10    K    A    7" in shown, "the relay drops the suits: the cards shift left"
        call.send("N")
        call.wait_for("Nothing was changed.")
        assert "Suits drawn as: letters" in call.display()
        call.send("S")
        call.wait_for("Automatic: found out at each call")
        assert "(this call: cp437, suits as letters)" in call.display()
        call.send("C")  # CP437's suit symbols: the relay drops them too
        call.wait_for("Keep this\\? \\(Y/N\\)")
        assert "Character set: CP437" in call.display()
        assert " 10    K    A    7" in call.display()
        call.send("N")
        call.wait_for("Nothing was changed.")
        call.send("Q")
        call.wait_for("Your choice:")
        call.send("G")
        assert call.wait_exit() == 0
    finally:
        call.close()
        os.close(slave)
    # Nothing kept: the door's own check decides again at the next call.
    assert stored_charset(tmp_path / "door.db", "Joe", ENIGMA) == (None, False)


@pytest.mark.slow
async def test_a_chosen_charset_is_kept_and_automatic_brings_the_check_back(door):
    caller = await sign_up(door)  # a UTF-8 terminal: the check finds UTF-8
    await caller.key("T")
    await caller.wait_for("Character set: automatic \\(this call: utf-8\\)")
    await caller.key("S")
    await caller.wait_for("P  Plain ASCII")
    await caller.key("P")
    await caller.wait_for("Keep this\\? \\(Y/N\\)")
    assert "Character set: ASCII" in caller.display()
    assert " 10H    KS    AD    7C" in caller.display()
    await caller.key("Y")
    await caller.wait_for("Character set: ascii")
    await caller.hang_up()
    user = await door.store.find_user("Alice")
    assert user is not None and user.charset == "ascii"

    again = await log_in(door)
    await again.key("T")
    await again.wait_for("Character set: ascii")  # kept: the check no longer decides
    await again.key("S")
    await again.wait_for("this call: utf-8, suit symbols")  # what the check found this call
    await again.key("A")
    await again.wait_for("Keep this\\? \\(Y/N\\)")
    assert " 10♥    K♠    A♦    7♣" in again.display()
    # The sample is drawn as the board draws cards: red and black on white.
    row = next(
        number
        for number, line in enumerate(again.screen.display)
        if " 10♥    K♠    A♦    7♣" in line
    )
    heart, spade = again.screen.buffer[row][4], again.screen.buffer[row][10]
    assert (heart.data, heart.fg, heart.bg) == ("♥", "red", "white")
    assert (spade.data, spade.fg, spade.bg) == ("♠", "black", "white")
    await again.key("Y")
    await again.wait_for("The door finds out by itself at each call.")
    assert "Character set: automatic (this call: utf-8)" in again.display()
    await again.hang_up()
    user = await door.store.find_user("Alice")
    assert user is not None and (user.charset, user.suit_letters) == (None, False)
