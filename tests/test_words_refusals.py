"""What the door tells a caller from outside their screens, in their language: the engine's
reason for a refused play, the sysop's message, a kick and the shutdown.

A German caller here is a user whose language is "de" (``Store.save_language``) on a board
that speaks English: what they are told before logging in is the board's English, what they
are told after it German, and an English caller on the same door meanwhile hears English.
The steps after a German caller's log-in wait for the door to go quiet rather than for the
words of its screens, which are theirs to say.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal

import pytest

from door.engine import Game, IllegalMove
from door.views.board import Look
from door.views.refusals import refusal_words
from door.words import speaking
from tests.support.live_door import WAIT, LiveDoor, start_live, sysop
from tests.support.telnet_caller import Caller
from tests.support.tour import quiet
from tests.support.visits import DEAL, sign_up

REFUSED = "S 4"  # at the start of DEAL on level 1: the reserve's 4♦ on column 4's J♦


async def german(door: LiveDoor, alias: str, password: str) -> Caller:
    """``alias`` signed up, made a German speaker, and logged in again."""
    caller = await sign_up(door, alias, password)
    await caller.hang_up()
    user = await door.store.find_user(alias)
    assert user is not None
    await door.store.save_language(user.id, "de")
    caller = await Caller.connect(door.port)
    await caller.wait_for("Your alias")  # the board's English, before the log-in
    await caller.type(alias)
    await caller.wait_for("Password for")
    since = len(caller.received)
    await caller.type(password)
    await quiet(caller, since)
    return caller


async def step(caller: Caller, keys: str, *, enter: bool = True) -> None:
    """Type ``keys`` and wait until the door has drawn what they bring."""
    since = len(caller.received)
    await caller.type(keys, enter=enter)
    await quiet(caller, since)


def shown(text: str) -> str:
    """A pattern for ``text`` as a screen shows it: wrapped, or in one line."""
    return r"\s+".join(map(re.escape, text.split()))


@pytest.mark.slow
async def test_a_refused_play_is_told_in_the_callers_language_with_its_cards(tmp_path):
    door = await start_live(tmp_path)
    try:
        caller = await german(door, "Greta", "geheim-eins1")
        await step(caller, "#", enter=False)
        await step(caller, str(DEAL))
        await step(caller, "1", enter=False)  # level 1
        game = Game.deal(door.config.level(1).variant, DEAL)
        with pytest.raises(IllegalMove) as refusal:
            game.play(REFUSED)
        with speaking(door.config.words.words("de")):
            looks = (Look(), Look(suit_letters=True))  # as the caller's screen shows suits
            said = {refusal_words(refusal.value, look) for look in looks}
        assert "4♦ passt nicht auf J♦: Spalte 4 braucht eine schwarze Karte mit Wert 10" in said
        await caller.type(REFUSED)
        await caller.wait_for("|".join(map(shown, said)))
        assert "can't go on" not in caller.display()
        await caller.hang_up()
    finally:
        await door.service.stop()
        async with asyncio.timeout(WAIT):
            await door.task


@pytest.mark.slow
async def test_the_sysop_and_the_shutdown_speak_each_callers_language(tmp_path):
    door = await start_live(tmp_path)
    try:
        alice = await sign_up(door)
        greta = await german(door, "Greta", "geheim-eins1")
        karl = await german(door, "Karl", "geheim-zwei2")
        status, _out, err = await sysop(door, "send", "all", "Back in five minutes")
        assert status == 0, err
        await alice.wait_for("Sysop: Back in five minutes")
        await greta.wait_for("Sysop schreibt: Back in five minutes")
        node = next(call.node for call in door.service.nodes.calls if call.alias == "Karl")
        status, _out, err = await sysop(door, "kick", str(node), "Wartung")
        assert status == 0, err
        await karl.wait_closed()
        assert "Der Sysop hat deinen Anruf beendet: Wartung. Dein Spiel ist gespeichert." in (
            karl.text
        )
        os.kill(os.getpid(), signal.SIGTERM)
        await alice.wait_for("The door is shutting down. Your game is saved.")
        await greta.wait_for(shown("Die Door wird heruntergefahren. Dein Spiel ist gespeichert."))
        await alice.wait_closed()
        await greta.wait_closed()
        assert "Die Door" not in alice.display() and "shutting down" not in greta.display()
    finally:
        await door.service.stop()
        async with asyncio.timeout(WAIT):
            await door.task
