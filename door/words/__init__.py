"""The door's words in each caller's language: GNU gettext catalogs, read with Babel.

Every text a caller reads is written in English in the code, inside ``_()`` (or
``ngettext()`` for a count, ``N_()`` for a text kept in a table and translated where it is
shown); Babel extracts them into ``locale/canfield.pot`` (``babel.cfg`` says from where),
and each language's ``locale/<code>/LC_MESSAGES/canfield.po`` gives them in that language.

- :mod:`door.words.speaking`: the language the code running for a caller speaks in:
  ``_``, ``ngettext`` and ``N_``, and :func:`~door.words.speaking.speaking`
- :mod:`door.words.catalogs`: the catalogs read and compiled at start (the door's own and
  the sysop's), the languages a caller may choose, and what a catalog lacks
- :mod:`door.words.told`: texts made in one place (and logged in English) and told to a
  caller in another, in the caller's language: a refusal at the door, a farewell
- :mod:`door.words.refresh`: ``python -m door.words.refresh``, the template extracted again
  and each language's catalog brought up to it
"""

from door.words.catalogs import ENGLISH, Catalogs, shipped_languages
from door.words.speaking import N_, _, ngettext, speak, speaking

__all__ = ["ENGLISH", "N_", "Catalogs", "_", "ngettext", "shipped_languages", "speak", "speaking"]
