"""The language the code running for a caller speaks in.

Each caller's visit runs in a task of its own, and a :class:`~contextvars.ContextVar` is
the task's own too: the visit says once which catalog it speaks from (:func:`speak`), and
every ``_()`` the visit's code calls, however deep, reads from that one, with no language
handed down through every view. Callbacks the visit schedules (a timer's) keep the language
they were scheduled in; code that writes to a caller from another task (the sysop's
message, the door going down) says whose language it speaks with :func:`speaking`.

>>> _("Goodbye.")
'Goodbye.'
>>> ngettext("{count} card", "{count} cards", 2).format(count=2)
'2 cards'
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

ENGLISH_WORDS = gettext.NullTranslations()
_speaking: ContextVar[gettext.NullTranslations] = ContextVar("speaking", default=ENGLISH_WORDS)


def _(message: str) -> str:
    """``message`` in the language spoken now."""
    return _speaking.get().gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a text for ``count`` of something, in the language spoken now (German,
    like English, has two; other languages have one or three or more)."""
    return _speaking.get().ngettext(singular, plural, count)


def N_(message: str) -> str:
    """``message`` as it is: marks a text for the catalog where it is kept (a table made
    at import, before any caller), to be translated by ``_()`` where it is shown."""
    return message


def speak(words: gettext.NullTranslations) -> None:
    """Speak from ``words`` from now on, in this task (and the callbacks it schedules)."""
    _speaking.set(words)


def spoken() -> gettext.NullTranslations:
    """The catalog spoken from now."""
    return _speaking.get()


@contextmanager
def speaking(words: gettext.NullTranslations) -> Iterator[None]:
    """Speak from ``words`` for the block only: for writing to a caller from code that runs
    for someone else (the sysop's commands, the door's shutdown)."""
    token = _speaking.set(words)
    try:
        yield
    finally:
        _speaking.reset(token)
