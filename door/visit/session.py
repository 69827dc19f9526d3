"""A caller's visit: welcome, log in, the main menu and everything it leads to.

The same visit serves a telnet caller (:func:`telnet_visit`, after a log in), an SSH caller
(:func:`ssh_visit`, logged in by SSH), a linked board's caller over RLOGIN
(:func:`linked_visit`) and a caller a BBS sends with a drop file (:func:`run_visit` with the
user already known). This module is where the ways in enter a visit; the rooms of the visit
are modules of their own: logging in (:mod:`door.visit.login`), signing up
(:mod:`door.visit.signup`), the main menu (:mod:`door.visit.menu`) and the games it starts
(:mod:`door.visit.games`), the terminal settings (:mod:`door.visit.settings`), a game's
board (:mod:`door.visit.play`) and the deal of the day (:mod:`door.visit.daily`). The limits
the ways in apply to a log-in (:data:`LOGIN_TRIES`, :data:`LOGIN_DELAY`,
:data:`PASSWORD_LENGTH`) are given here too.
"""

from __future__ import annotations

import logging
from functools import partial

from ansi.sequences import reset, show_cursor
from ansi.text import sanitize
from door.app import App
from door.contests import keep_contests_on_time
from door.net.presence import Presence
from door.net.terminal import MESSAGE_COLUMN, Terminal, last_words
from door.solving.daily import close_past_days
from door.store import Store
from door.store.accounts import board_alias, check_board_alias, check_reserved
from door.store.records import AliasRefused, User
from door.views.layout import wrap
from door.views.pages import goodbye_screen
from door.visit.art import art_for
from door.visit.context import Visit
from door.visit.login import LOGIN_DELAY, LOGIN_TRIES, PASSWORD_LENGTH, claim_node, log_in
from door.visit.menu import main_menu
from door.visit.signup import sign_up
from door.words import _, speaking

__all__ = [
    "LOGIN_DELAY",
    "LOGIN_TRIES",
    "PASSWORD_LENGTH",
    "board_user",
    "linked_visit",
    "run_visit",
    "ssh_visit",
    "telnet_visit",
]

log = logging.getLogger("door")


async def telnet_visit(app: App, terminal: Terminal, node: int) -> None:
    """A telnet caller: welcome, log in or sign up, then the main menu."""
    visit = Visit(terminal, app, node)
    visit.doing("logging in")
    user = await log_in(visit)
    if user is None:
        return
    await _known_visit(visit, user)


async def ssh_visit(app: App, terminal: Terminal, node: int, user: User | None) -> None:
    """An SSH caller, logged in by SSH as ``user``, or None to sign up first."""
    visit = Visit(terminal, app, node)
    if user is None:
        user = await sign_up(visit, "")
        if user is None:
            return
    await _known_visit(visit, user)


async def linked_visit(app: App, terminal: Terminal, node: int, alias: str, board: str) -> None:
    """A caller a linked board sends over RLOGIN: a user of that board, straight to the menu.

    A board vouches for its callers, but not for names kept for the door and its sysop
    (:func:`~door.store.accounts.check_reserved`): a caller sent as one is told so and hung up.
    """
    sysop = app.config.bbs.sysop
    user = await board_user(terminal, node, app.store, alias, board, sysop=sysop)
    if user is None:
        return
    await run_visit(app, terminal, node, user, bbs=board)


async def board_user(
    terminal: Terminal,
    node: int,
    store: Store,
    alias: str,
    bbs: str,
    real_name: str | None = None,
    *,
    sysop: str | None = None,
) -> User | None:
    """The user a BBS or a linked board sends (found or made by
    :meth:`~door.store.Store.drop_file_user`), or None when the alias can't be taken: one
    with characters not every screen shows, or (given the door's ``sysop``) a name kept for
    the door or its sysop. The caller is told which, and hung up."""
    try:
        problem = None if sysop is None else check_reserved(board_alias(alias), sysop)
        if problem:
            raise AliasRefused(problem)
        return await store.drop_file_user(alias, bbs, real_name)
    except AliasRefused as refused:
        shown = sanitize(board_alias(alias), 40)
        log.info("node %d: alias %s from %s refused: %s", node, shown, sanitize(bbs, 60), refused)
        # No visit speaks yet: the caller is told in the language their terminal was given
        # (the board's), the reason found again in it.
        with speaking(terminal.words):
            why = _reason(board_alias(alias), sysop) or str(refused)
            why = why[:1].lower() + why[1:]
            text = _("The door can't take the alias {alias}: {why}.").format(alias=shown, why=why)
        said = wrap(text, terminal.info.width - 1)
        await terminal.hang_up("\r\n".join(said))
        return None


def _reason(alias: str, sysop: str | None) -> str | None:
    """Why a BBS's or a linked board's ``alias`` can't be taken, in the language spoken."""
    reserved = None if sysop is None else check_reserved(alias, sysop)
    return reserved or check_board_alias(alias)


async def run_visit(
    app: App,
    terminal: Terminal,
    node: int,
    user: User,
    *,
    bbs: str | None = None,
    presence: Presence | None = None,
) -> None:
    """The main menu for ``user``, whom the BBS ``bbs`` (a drop file's, or a linked
    board) vouches for, until they say goodbye. ``presence``: where the sysop sees the
    call, when it holds no node of the app's (a door-mode call)."""
    visit = Visit(terminal, app, node, bbs=bbs)
    if presence is not None:
        visit.presence = presence
    await _known_visit(visit, user)


async def _known_visit(visit: Visit, user: User) -> None:
    """The main menu for a caller who is known, until they say goodbye.

    The caller's node becomes the one they are logged in on (:func:`claim_node`): one who
    is on another node already takes that call over, or leaves.
    """
    if not await claim_node(visit, user):
        await visit.terminal.hang_up(_("Goodbye."))
        return
    visit.adopt(user)
    await visit.store.touch(user.id)
    # Days whose deal of the day is over close their games, whoever's (door mode has no
    # background to do it at midnight).
    today = visit.store.today()
    message = ""
    if await close_past_days(visit.store, today, user.id):
        message = _("Your unfinished deal of an earlier day counts as resigned.")
    await close_past_days(visit.store, today)
    if await keep_contests_on_time(visit.store):  # likewise contests that open or close
        visit.game_ended()  # for the bulletins
    log.info("node %d: %s logged in", visit.node, sanitize(user.alias))
    await main_menu(visit, message)
    goodbye = _("Thanks for playing Canfield. Goodbye!")
    art = art_for(visit, "goodbye")
    if art is not None:
        visit.show(partial(goodbye_screen, art, goodbye))
        visit.terminal.write(reset() if visit.look.ansi else "\r\n")  # the caller's colours
    elif visit.look.ansi:
        # On the prompt's row, in the column every line starts in, in the caller's own
        # colours (ESC[0m), not the door's white on black: the last menu stays on the
        # screen, nothing scrolled, but not its message (a key that was not on it). Where
        # every hang-up's message goes.
        look = visit.look
        visit.terminal.write(
            f"{reset()}{show_cursor()}" + last_words([goodbye], look.width, look.height)
        )
    else:
        visit.terminal.write(f"\r\n{' ' * (MESSAGE_COLUMN - 1)}{goodbye}\r\n")
    await visit.terminal.flush(check_time=False)
