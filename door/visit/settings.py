"""The caller's terminal settings page: ANSI or plain, the character set, suits as symbols or
letters, the board or a line per play, hot keys or lines, an SSH key to log in with, and the
language they read the door in (W: one the board offers, or the board's own).

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
from door.visit.screens import ask_line, wait_key, whole_number
from door.words import N_, _

log = logging.getLogger("door")


async def settings(visit: Visit) -> None:
    message = ""
    while True:
        terminal = visit.terminal
        if visit.look.ansi:
            ansi = _("ANSI colour screen: on")
        else:
            ansi = _("ANSI colour screen: off (plain text)")
        if visit.look.terse:
            view = _("Game shown as: a line per play (R: the board)")
        else:
            view = _("Game shown as: the whole board")
        lines: list[PageLine] = [
            Entry("A", ansi),
            Entry("S", _("Character set: {charset}").format(charset=_charset_setting(visit))),
            Entry("L", _("Suits drawn as: {suits}").format(suits=_suits_word(visit))),
            Entry("G", view),
        ]
        user = visit.user
        ssh_key = None
        if user is not None and user.bbs is None:  # a BBS's callers log in at their BBS
            ssh_key = await visit.store.ssh_key(user.id)
            if ssh_key:
                key_line = _("SSH key for logging in: added")
            else:
                key_line = _("SSH key for logging in: none")
            lines.append(Entry("K", key_line))
        lines += [
            Entry("H", _("Keys on the board: {keys}").format(keys=_keys_setting(visit))),
            Entry(LANGUAGE, _("Language: {language}").format(language=_language_setting(visit))),
            Entry("Q", _("Back to the menu")),
            "",
            Text(_("Your cards look like this (as on the game board):"), LABEL),
            *sample_lines(visit.look),
            "",
            _(
                "If a suit is missing or garbled there, or a card does not stand over its "
                "marks, press L for suits as letters, which every screen shows, or S to choose "
                "another character set (or to let the door find out by itself)."
            ),
        ]
        key = await wait_key(visit, _("Terminal settings"), lines, _("Your choice: "), message)
        if key == "A":
            await visit.set_look(ansi=not visit.look.ansi)
        elif key == "S":
            message = await charset_setting(visit)
            continue
        elif key == "L":
            letters = not visit.look.suit_letters
            shown = _("Suits as letters") if letters else _("Suits as symbols")
            if not await keep_look(visit, shown, terminal.charset, letters):
                message = _(NOT_CHANGED)
                continue
            await visit.set_look(suit_letters=letters)
        elif key == "K" and user is not None and user.bbs is None:
            message = await ssh_key_setting(visit, user, ssh_key)
            continue
        elif key == "G":
            await visit.set_game_view(terse=not visit.look.terse)
        elif key == "H":
            await visit.set_hot_keys(not visit.hot_keys)
        elif key == LANGUAGE:
            message = await language_setting(visit)
            continue
        elif key in ("Q", "\r"):
            return
        message = _(SAVED)


NOT_CHANGED = N_("Nothing was changed.")
SAVED = N_("Saved for your next call.")
AUTOMATIC = "A"
LANGUAGE = "W"
BOARDS_LANGUAGE = "A"
# The character sets a caller may choose: the key, the charset, its name and what it is.
CHARSETS = (
    ("C", "cp437", "CP437", N_("CP437, the IBM PC's: SyncTERM, NetRunner and most BBS terminals")),
    (
        "U",
        "utf-8",
        "UTF-8",
        N_("UTF-8: PuTTY, xterm, Windows Terminal and most terminals of today"),
    ),
    ("P", "ascii", "ASCII", N_("Plain ASCII: suits as letters (H D C S)")),
)


async def charset_setting(visit: Visit) -> str:
    """Let the caller choose their character set, or leave it to the door's own check at
    each call; a choice is shown (cards as the board draws them) and kept only once the
    caller says so. The message to show."""
    found = visit.detected
    if found.suit_letters:
        automatic = _("Automatic: found out at each call (this call: {charset}, suits as letters)")
    else:
        automatic = _("Automatic: found out at each call (this call: {charset}, suit symbols)")
    lines: list[PageLine] = [
        Entry(AUTOMATIC, automatic.format(charset=found.charset)),
        *(Entry(key, _(text)) for key, _charset, _name, text in CHARSETS),
        Entry("Q", _("Back, nothing changed")),
        "",
        _("Now: {charset}. Each choice shows your cards in it before it is kept.").format(
            charset=_charset_setting(visit)
        ),
    ]
    key = await wait_key(visit, _("Character set"), lines, _("Your choice: "))
    if key == AUTOMATIC:
        name, charset, letters = _("Automatic"), found.charset, found.suit_letters
    else:
        chosen = [(charset, name) for k, charset, name, _text in CHARSETS if k == key]
        if not chosen:
            return ""
        (charset, name), letters = chosen[0], False  # a charset chosen: its own suits
    title = _("Character set: {charset}").format(charset=name)
    if not await keep_look(visit, title, charset, letters):
        return _(NOT_CHANGED)
    if key == AUTOMATIC:
        await visit.find_charset_by_itself()
        return _("The door finds out by itself at each call.")
    await visit.set_look(charset=charset, suit_letters=letters)
    return _(SAVED)


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
                Text(_("Your cards would look like this (as on the game board):"), LABEL),
                *sample_lines(visit.look),
                "",
                _(
                    "Each card should show its rank and suit and stand over its three marks. "
                    "If a suit is missing or garbled, or the cards stand left of their marks, "
                    "answer N."
                ),
            ],
            _("Keep this? (Y/N) "),
        )
    finally:
        terminal.info = before
    return answer == "Y"


async def language_setting(visit: Visit) -> str:
    """Let the caller choose the language they read the door in, among those the board
    offers (each by its own name), or leave it to the board's. A choice is kept at once,
    for this call and the next ones. The message to show, in the language now spoken."""
    words = visit.config.words
    offered = words.languages
    lines: list[PageLine] = [
        Entry(
            BOARDS_LANGUAGE,
            _("The board's language: {language}").format(language=words.name(words.language)),
        ),
        *(Entry(str(number), words.name(code)) for number, code in enumerate(offered, 1)),
        Entry("Q", _("Back, nothing changed")),
        "",
        _("Now: {language}.").format(language=_language_setting(visit)),
    ]
    if len(offered) > 9:  # two digits need a line, not a key
        key = (
            await ask_line(visit, _("Language"), lines, _("Your choice: "), max_length=3)
        ).upper()
    else:
        key = await wait_key(visit, _("Language"), lines, _("Your choice: "))
    if key == BOARDS_LANGUAGE:
        language = None
    else:
        number = whole_number(key)
        if number is None or not 1 <= number <= len(offered):
            return ""
        language = offered[number - 1]
    await visit.set_language(language)
    return _(SAVED)


SSH_KEY_LENGTH = 1000  # an RSA key of 4096 bits is some 740 characters


async def ssh_key_setting(visit: Visit, user: User, ssh_key: str | None) -> str:
    """Add the SSH public key the caller pastes, or remove theirs; the message to show."""
    if ssh_key is not None:
        answer = await wait_key(
            visit,
            _("SSH key"),
            [Text(_("You log in over SSH with a key, or with your password.")), ""],
            _("Remove your SSH key? (Y/N) "),
        )
        if answer != "Y":
            return ""
        await visit.store.set_ssh_key(user.id, None)
        return _("SSH key removed: over SSH you log in with your password.")
    text = await ask_line(
        visit,
        _("SSH key"),
        [
            _(
                "Over SSH you can log in with a key instead of your password. Paste your "
                "public key: one line, as in the file id_ed25519.pub of your .ssh folder."
            ),
        ],
        _("Key (Enter to go back): "),
        max_length=SSH_KEY_LENGTH,
    )
    if not text:
        return ""
    line = public_key_line(text)
    if line is None:
        return _("That is not an SSH public key. Nothing was changed.")
    await visit.store.set_ssh_key(user.id, line)
    log.info("node %d: %s added an SSH key", visit.node, sanitize(user.alias))
    return _("SSH key added: log in with it on your next call over SSH.")


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
    return _("automatic (this call: {charset})").format(charset=visit.terminal.charset)


def _suits_word(visit: Visit) -> str:
    """How suits are drawn, honestly: symbols need ANSI and a charset that has them."""
    if visit.look.suit_letters:
        return _("letters")
    if not visit.look.ansi or visit.terminal.charset == "ascii":
        return _("symbols (letters in plain text and ASCII)")
    return _("symbols")


def _keys_setting(visit: Visit) -> str:
    if visit.hot_keys:
        return _("hot keys (a command acts at once)")
    return _("lines (Enter ends each command)")


def _language_setting(visit: Visit) -> str:
    """The language the caller reads the door in, by its own name: as chosen, or the
    board's."""
    words = visit.config.words
    name = words.name(visit.language)
    chosen = visit.user.language if visit.user is not None else None
    if chosen in words.languages:
        return name
    return _("the board's ({language})").format(language=name)


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
