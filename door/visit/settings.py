"""The caller's terminal settings page: ANSI or plain, the character set, suits as symbols or
letters, the board or a line per play, hot keys or lines, and an SSH key to log in with.

The character set is automatic until the caller chooses one (a stored charset of None): the
door's own check of their screen at each call decides it, and the suits with it. A choice of
charset or suits is shown first, cards drawn exactly as the board draws them, and kept only
once the caller says so: a screen behind a BBS that loses the suits on the way shows it
there, before the choice is kept for every call after. Automatic can be chosen again.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ansi.text import sanitize
from door.engine import Card
from door.store.records import User
from door.views.board import LABEL, Look, column_sample
from door.views.pages import (
    Entry,
    PageLine,
    Styled,
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
            Entry("S", f"Character set: {_charset_setting(visit)}"),
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
            *sample_lines(visit.look),
            "",
            "If a suit is missing or garbled there, or a card does not stand over its marks, "
            "press L for suits as letters, which every screen shows, or S to choose another "
            "character set (or to let the door find out by itself).",
        ]
        key = await wait_key(visit, "Terminal settings", lines, "Your choice: ", message)
        if key == "A":
            await visit.set_look(ansi=not visit.look.ansi)
        elif key == "S":
            message = await charset_setting(visit)
            continue
        elif key == "L":
            letters = not visit.look.suit_letters
            shown = "as letters" if letters else "as symbols"
            if not await keep_look(visit, f"Suits {shown}", terminal.charset, letters):
                message = NOT_CHANGED
                continue
            await visit.set_look(suit_letters=letters)
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


NOT_CHANGED = "Nothing was changed."
AUTOMATIC = "A"
# The character sets a caller may choose: the key, the charset, its name and what it is.
CHARSETS = (
    ("C", "cp437", "CP437", "CP437, the IBM PC's: SyncTERM, NetRunner and most BBS terminals"),
    ("U", "utf-8", "UTF-8", "UTF-8: PuTTY, xterm, Windows Terminal and most terminals of today"),
    ("P", "ascii", "ASCII", "Plain ASCII: suits as letters (H D C S)"),
)


async def charset_setting(visit: Visit) -> str:
    """Let the caller choose their character set, or leave it to the door's own check at
    each call; a choice is shown (cards as the board draws them) and kept only once the
    caller says so. The message to show."""
    found = visit.detected
    found_suits = "suits as letters" if found.suit_letters else "suit symbols"
    lines: list[PageLine] = [
        Entry(
            AUTOMATIC,
            f"Automatic: found out at each call (this call: {found.charset}, {found_suits})",
        ),
        *(Entry(key, text) for key, _, _, text in CHARSETS),
        Entry("Q", "Back, nothing changed"),
        "",
        f"Now: {_charset_setting(visit)}. Each choice shows your cards in it before it is kept.",
    ]
    key = await wait_key(visit, "Character set", lines, "Your choice: ")
    if key == AUTOMATIC:
        name, charset, letters = "Automatic", found.charset, found.suit_letters
    else:
        chosen = [(charset, name) for k, charset, name, _ in CHARSETS if k == key]
        if not chosen:
            return ""
        (charset, name), letters = chosen[0], False  # a charset chosen: its own suits
    if not await keep_look(visit, f"Character set: {name}", charset, letters):
        return NOT_CHANGED
    if key == AUTOMATIC:
        await visit.find_charset_by_itself()
        return "The door finds out by itself at each call."
    await visit.set_look(charset=charset, suit_letters=letters)
    return "Saved for your next call."


async def keep_look(visit: Visit, title: str, charset: str, suit_letters: bool) -> bool:
    """Show the caller's cards in ``charset`` with suits as letters or not, as the board
    would draw them, and ask whether to keep that; the terminal is as it was after."""
    terminal = visit.terminal
    before = terminal.info
    terminal.info = replace(before, charset=charset, suit_letters=suit_letters)
    try:
        answer = await wait_key(
            visit,
            title,
            [
                Text("Your cards would look like this (as on the game board):", LABEL),
                *sample_lines(visit.look),
                "",
                "Each card should show its rank and suit and stand over its three marks. If a "
                "suit is missing or garbled, or the cards stand left of their marks, answer N.",
            ],
            "Keep this? (Y/N) ",
        )
    finally:
        terminal.info = before
    return answer == "Y"


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


def sample_lines(look: Look) -> list[PageLine]:
    """A ten and a card of each suit as a row of the board's columns draws them for
    ``look``, in its colours, and the marks under them each should stand over."""
    pieces, marks = column_sample([Card.parse(name) for name in PREVIEW], look)
    return [Styled(tuple(pieces)), Text(marks, LABEL)]


def _charset_setting(visit: Visit) -> str:
    """The caller's character set: as chosen, or as the door found it this call."""
    if visit.charset_chosen:
        return visit.terminal.charset
    return f"automatic (this call: {visit.terminal.charset})"


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
