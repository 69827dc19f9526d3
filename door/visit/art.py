"""The sysop's own ANSI art (:mod:`door.art`) as one caller is to see it."""

from __future__ import annotations

from ansi.art import Art
from door.visit.context import Visit


def art_for(visit: Visit, name: str) -> Art | None:
    """The sysop's art for the screen called ``name`` (``welcome``, ``menu`` ...) as this
    caller sees it: the .ans on an ANSI screen, the .asc on a plain one; None (the door's
    own screen) when there is none, or it is wider than the caller's window. The caller's
    charset and suits are the terminal's: the same cells reach CP437, UTF-8 and suits as
    letters alike."""
    art = visit.config.art.screen(name)
    if art is None:
        return None
    return art.for_caller(ansi=visit.look.ansi, width=visit.terminal.info.width)
