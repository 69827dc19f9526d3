"""Logging a telnet caller in: alias and password, with a pause that grows after each wrong
password and a hang-up after :data:`LOGIN_TRIES`; a new alias leads to signing up
(:mod:`door.visit.signup`). And :func:`claim_node`: one caller, one node.
"""

from __future__ import annotations

import asyncio
import logging

from ansi.text import sanitize
from door.net.clocks import span
from door.store.accounts import (
    alias_key,
)
from door.store.records import User
from door.views.pages import (
    Text,
    art_welcome_lines,
    welcome_lines,
)
from door.visit.art import art_for
from door.visit.context import Visit, caller_address
from door.visit.screens import ask_line, wait_key
from door.visit.signup import ALIAS_LENGTH, PASSWORD_LENGTH, sign_up
from door.words import _, ngettext

log = logging.getLogger("door")


LOGIN_TRIES = 3
LOGIN_DELAY = 1.0  # seconds after the first wrong password; doubled after each one
NEW = "NEW"


async def log_in(visit: Visit) -> User | None:
    """Ask for an alias and password (or sign up); None when the caller fails too often."""
    config = visit.config
    head = art_for(visit, "welcome")
    if head is None:
        lines = welcome_lines(config.bbs.name, config.bbs.sysop, visit.node)
    else:  # the sysop's art says the rest
        lines = art_welcome_lines(config.bbs.name, visit.node)
    failures = 0
    message = ""  # shown until the caller's next answer: a wrong password stays in view
    while failures < LOGIN_TRIES:
        alias = await ask_line(
            visit,
            "Canfield",
            lines,
            # TRANSLATORS: NEW is typed as it is, in every language
            _("Your alias (or NEW): "),
            message,
            max_length=ALIAS_LENGTH,
            skip_blank=True,  # an Enter alone draws no page: a flood of them costs nothing
            head=head,
        )
        message = ""
        if not alias:  # Q on a welcome of more than one page: shown again
            continue
        if alias.upper() == NEW:
            user = await sign_up(visit, "")
        elif await visit.store.find_user(alias) is None:
            user = await sign_up(visit, alias)
        else:
            wait = await visit.store.login_wait(alias_key(alias), caller_address(visit))
            if wait > 0:
                # Wrong passwords from many calls: the alias (or the address) rests a while.
                failures += 1
                log.info("node %d: log-in as %s refused for now", visit.node, sanitize(alias))
                message = _try_again_in(wait)
                continue
            password = await ask_line(
                visit,
                "Canfield",
                lines,
                _("Password for {alias}: ").format(alias=sanitize(alias)),
                max_length=PASSWORD_LENGTH,
                mask=True,
                head=head,
            )
            user = await visit.store.authenticate(alias, password, address=caller_address(visit))
            if user is None:
                failures += 1
                log.info("node %d: wrong password for %s", visit.node, sanitize(alias))
                message = _("Wrong password for {alias}. Try again.").format(alias=sanitize(alias))
                if failures < LOGIN_TRIES:
                    await asyncio.sleep(LOGIN_DELAY * 2 ** (failures - 1))  # slower each time
                continue
        if user is not None:
            return user
    await visit.terminal.hang_up(_("Too many wrong passwords. Goodbye."))
    return None


async def claim_node(visit: Visit, user: User) -> bool:
    """Make this node the one ``user`` is logged in on; False if they would rather not.

    A user already on another node is asked whether to take that call over: its visit ends
    as at a shutdown, with its game saved, before this one goes on, so that two visits never
    play one game.
    """
    nodes = visit.nodes
    if nodes is None:
        return True
    while (other := await nodes.other_node(user.id, besides=visit.node)) is not None:
        answer = await wait_key(  # one key answers it, as every other Y/N question
            visit,
            "Canfield",
            [Text(_("You are logged in on node {node} already.").format(node=other)), ""],
            _("Take over your call on node {node}? (Y/N) ").format(node=other),
        )
        if answer != "Y":
            return False
        await nodes.take_over_node(other)
        log.info("node %d: %s took over node %d", visit.node, sanitize(user.alias), other)
    nodes.log_in(visit.node, user.id)
    return True


def _try_again_in(seconds: float) -> str:
    """Why the alias rests, and for how long: a whole sentence for each unit (a span glued
    into a sentence would stay English in another language)."""
    count, in_minutes = span(seconds)
    if in_minutes:
        text = ngettext(
            "Too many wrong passwords lately. Try again in {count} minute.",
            "Too many wrong passwords lately. Try again in {count} minutes.",
            count,
        )
    else:
        text = ngettext(
            "Too many wrong passwords lately. Try again in {count} second.",
            "Too many wrong passwords lately. Try again in {count} seconds.",
            count,
        )
    return text.format(count=count)
