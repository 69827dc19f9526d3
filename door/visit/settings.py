"""The caller's terminal settings page: ANSI or plain, the character set, suits as symbols or
letters, the board or a line per play, hot keys or lines, and an SSH key to log in with.
"""

from __future__ import annotations

import logging

from ansi.text import sanitize
from door.engine import Card
from door.store.records import User
from door.views.board import LABEL, VALUE, Look, card_text
from door.views.pages import (
    Entry,
    PageLine,
    Text,
)
from door.visit.context import Visit
from door.visit.screens import ask_line, wait_key

log = logging.getLogger("door")


async def settings(visit: Visit) -> None:
    message = ""
    while True:
        terminal = visit.terminal
        lines: list[PageLine] = [
            Entry("A", f"ANSI colour screen: {'on' if visit.look.ansi else 'off (plain text)'}"),
            Entry("S", f"Character set: {terminal.charset}"),
            Entry("L", f"Suits drawn as: {_suits_word(visit)}"),
            Entry(
                "G",
                "Game shown as: "
                + ("a line per play (R: the board)" if visit.look.terse else "the whole board"),
            ),
        ]
        user = visit.user
        ssh_key = None
        if user is not None and user.bbs is None:  # a BBS's callers log in at their BBS
            ssh_key = await visit.store.ssh_key(user.id)
            lines.append(Entry("K", f"SSH key for logging in: {'added' if ssh_key else 'none'}"))
        lines += [
            Entry("H", f"Keys on the board: {_keys_setting(visit)}"),
            Entry("Q", "Back to the menu"),
            "",
            Text("Your cards look like this (as on the game board):", LABEL),
            Text(preview_cards(visit.look), VALUE),
            "",
            "If a suit is missing or garbled there, press S for the next character set.",
        ]
        key = await wait_key(visit, "Terminal settings", lines, "Your choice: ", message)
        if key == "A":
            await visit.set_look(ansi=not visit.look.ansi)
        elif key == "S":
            order = ("cp437", "utf-8", "ascii")
            await visit.set_look(charset=order[(order.index(terminal.charset) + 1) % 3])
        elif key == "L":
            await visit.set_look(suit_letters=not visit.look.suit_letters)
        elif key == "K" and user is not None and user.bbs is None:
            message = await ssh_key_setting(visit, user, ssh_key)
            continue
        elif key == "G":
            await visit.set_game_view(terse=not visit.look.terse)
        elif key == "H":
            await visit.set_hot_keys(not visit.hot_keys)
        elif key in ("Q", "\r"):
            return
        message = "Saved for your next call."


SSH_KEY_LENGTH = 1000  # an RSA key of 4096 bits is some 740 characters


async def ssh_key_setting(visit: Visit, user: User, ssh_key: str | None) -> str:
    """Add the SSH public key the caller pastes, or remove theirs; the message to show."""
    if ssh_key is not None:
        answer = await wait_key(
            visit,
            "SSH key",
            [Text("You log in over SSH with a key, or with your password."), ""],
            "Remove your SSH key? (Y/N) ",
        )
        if answer != "Y":
            return ""
        await visit.store.set_ssh_key(user.id, None)
        return "SSH key removed: over SSH you log in with your password."
    text = await ask_line(
        visit,
        "SSH key",
        [
            "Over SSH you can log in with a key instead of your password. Paste your "
            "public key: one line, as in the file id_ed25519.pub of your .ssh folder.",
        ],
        "Key (Enter to go back): ",
        max_length=SSH_KEY_LENGTH,
    )
    if not text:
        return ""
    line = public_key_line(text)
    if line is None:
        return "That is not an SSH public key. Nothing was changed."
    await visit.store.set_ssh_key(user.id, line)
    log.info("node %d: %s added an SSH key", visit.node, sanitize(user.alias))
    return "SSH key added: log in with it on your next call over SSH."


PREVIEW = ("TH", "KS", "AD", "7C")


def preview_cards(look: Look) -> str:
    """A ten and a card of each suit, drawn as the game board draws them for ``look``."""
    return "  ".join(card_text(Card.parse(name), look).strip() for name in PREVIEW)


def _suits_word(visit: Visit) -> str:
    """How suits are drawn, honestly: symbols need ANSI and a charset that has them."""
    if visit.look.suit_letters:
        return "letters"
    if not visit.look.ansi or visit.terminal.charset == "ascii":
        return "symbols (letters in plain text and ASCII)"
    return "symbols"


def _keys_setting(visit: Visit) -> str:
    if visit.hot_keys:
        return "hot keys (a command acts at once)"
    return "lines (Enter ends each command)"


def public_key_line(text: str) -> str | None:
    """A public key as a caller pastes it, as the door keeps it (``type base64``), or None
    when it is not one.

    >>> public_key_line("not a key") is None
    True
    """
    # asyncssh is imported here, not with the module: a door run by a BBS never needs it.
    import asyncssh

    try:
        key = asyncssh.import_public_key(text.strip())
    except (asyncssh.KeyImportError, ValueError, TypeError):
        return None
    # The line the SSH way in (door.net.ssh) checks an offered key against: type and base64.
    return " ".join(key.export_public_key("openssh").decode("ascii").split()[:2])
