"""Texts made in one place and told to a caller in another, in the caller's language.

A refusal at the door (too many calls from an address, every node busy) is logged in
English and told to the caller in the board's language; a farewell made by the sysop's
kick, or by a front process, is told as the caller's visit hangs up, in theirs. Such a text
travels as a ``str`` whose value is its English (what the log writes), and is said where it
is told with :func:`told`:

- a text of the door's own, marked with ``N_`` where it is kept, is looked up in the
  catalog as it stands (the English is its msgid, across processes too);
- a :class:`Said`, a text with values (a count, the sysop's reason), is made again from
  its ``_()`` or ``ngettext()`` in the language spoken where it is told.

>>> from door.words import ngettext
>>> busy = Said(lambda: ngettext("{count} node", "{count} nodes", 3).format(count=3))
>>> busy, told(busy, ENGLISH_WORDS)
('3 nodes', '3 nodes')
>>> from door.words.catalogs import Catalogs
>>> told(Said(lambda: _("Goodbye.")), Catalogs.read().words("de"))
'Auf Wiedersehen.'
"""

from __future__ import annotations

from collections.abc import Callable
from gettext import NullTranslations

from door.words.speaking import ENGLISH_WORDS, _, speaking


class Said(str):
    """A text in English (its value as a ``str``, for the log) that ``words`` makes again,
    in the language spoken when it is told."""

    words: Callable[[], str]

    def __new__(cls, words: Callable[[], str], english: str | None = None) -> Said:
        """``english``: the text's English, when ``words`` can't make it (it gives a text
        said already, in another process, in the language it is to be told in)."""
        if english is None:
            with speaking(ENGLISH_WORDS):
                english = words()
        said = super().__new__(cls, english)
        said.words = words
        return said


def told(text: str, words: NullTranslations) -> str:
    """``text`` in the language of ``words``: a :class:`Said` made again in it, a text of the
    door's as its catalog has it; any other text (a caller's or the sysop's) as it is."""
    if not text:
        return text  # gettext's "" is the catalog's header
    with speaking(words):
        return text.words() if isinstance(text, Said) else _(text)
