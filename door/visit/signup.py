"""Signing up: a new caller chooses an alias (not taken, nor a look-alike of one, nor reserved)
and a password, within the sign-ups an address may make in an hour.
"""

from __future__ import annotations

import logging

from ansi.text import sanitize
from door.store import AliasTaken
from door.store.accounts import (
    PASSWORD_MAX,
    check_alias,
    check_new_password,
    check_reserved,
)
from door.store.records import User
from door.views.pages import (
    PageLine,
)
from door.visit.context import Visit, caller_address
from door.visit.screens import ask_line, say, wait_key
from door.words import _

log = logging.getLogger("door")


ALIAS_LENGTH = 20
PASSWORD_LENGTH = PASSWORD_MAX


async def sign_up(visit: Visit, alias: str) -> User | None:
    """Create an account; None if the caller gives up."""
    lines: list[PageLine] = [
        _(
            "A new caller! Choose an alias of 2 to 20 letters, digits or signs, and a password "
            "you will type each time you call."
        ),
    ]
    title = _("Sign up")
    message = ""  # why the last answer would not do, shown at the next question only
    if alias:
        answer = await wait_key(
            visit,
            title,
            lines,
            _("Nobody called {alias} is here. Sign up? (Y/N) ").format(alias=sanitize(alias)),
        )
        if answer != "Y":
            return None
    limit = visit.config.server.signups_per_hour
    if limit and await visit.store.sign_ups_lately(caller_address(visit)) >= limit:
        log.info("node %d: sign-up refused: %d from the address this hour", visit.node, limit)
        await say(visit, _("Too many new accounts from your address this hour. Call again later."))
        return None
    while True:
        if not alias:
            alias = await ask_line(
                visit, title, lines, _("Alias: "), message, max_length=ALIAS_LENGTH
            )
            message = ""
            if not alias:
                return None
        # The checks say what is wrong in the caller's language (the one spoken now).
        problem = check_alias(alias) or check_reserved(alias, visit.config.bbs.sysop)
        refusal = _sentence(problem) if problem else ""
        if not refusal and await visit.store.look_alike(alias) is not None:
            refusal = _("Someone has that alias (or a look-alike).")
        if refusal:
            message = refusal
            alias = ""
            continue
        password = await ask_line(
            visit, title, lines, _("Password: "), message, max_length=PASSWORD_LENGTH, mask=True
        )
        message = ""
        again = await ask_line(
            visit, title, lines, _("Password again: "), max_length=PASSWORD_LENGTH, mask=True
        )
        problem = check_new_password(password, alias)
        refusal = _sentence(problem) if problem else ""
        if not refusal and password != again:
            refusal = _("The two passwords differ.")
        if refusal:
            message = refusal
            continue
        try:
            user = await visit.store.create_user(alias, password)
        except AliasTaken:
            message = _("Someone took that alias a moment ago.")
            alias = ""
            continue
        await visit.store.record_sign_up(caller_address(visit))
        log.info("node %d: %s signed up", visit.node, sanitize(user.alias))
        return user


def _sentence(text: str) -> str:
    """A reason as a sentence of its own: "someone has it" -> "Someone has it."."""
    return text[:1].upper() + text[1:] + "."
