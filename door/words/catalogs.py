"""The catalogs the door speaks from: its own, compiled at start, and the sysop's.

The door ships a template of every text (``locale/canfield.pot``) and a catalog for each
language it speaks besides English (``locale/<code>/LC_MESSAGES/canfield.po``). Each is
read with Babel and compiled in memory when the door starts, so there is no build step to
forget. A sysop may put catalogs of their own in a folder (``[words] folder``): a
``<code>.po`` there rewords the door's own catalog for that language entry by entry (an
``en.po`` rewords the English), or adds a language the door does not ship.

>>> catalogs = Catalogs.read()
>>> catalogs.words("de").gettext("Goodbye.") != "Goodbye."
True
>>> catalogs.name("de"), catalogs.name("en")
('Deutsch', 'English')
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from io import BytesIO
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po

from door.words.speaking import ENGLISH_WORDS

ENGLISH = "en"
DOMAIN = "canfield"
LOCALE = Path(__file__).parent / "locale"
TEMPLATE = LOCALE / f"{DOMAIN}.pot"
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)[^{}]*\}")
_CODE = re.compile(r"[a-z]{2,3}(_[A-Z]{2})?")


class CatalogError(ValueError):
    """A catalog that can't be read as one."""


def shipped_languages() -> tuple[str, ...]:
    """English and every language the door has a catalog of."""
    found = sorted(path.parent.parent.name for path in LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (ENGLISH, *found)


def read_catalog(path: Path, language: str | None = None) -> Catalog:
    """The catalog in the ``.po`` or ``.pot`` file at ``path``."""
    try:
        with path.open("rb") as file:
            return read_po(file, locale=language, abort_invalid=True)
    except (PoFileError, UnicodeDecodeError, ValueError) as error:
        raise CatalogError(f"{path.name} is not a gettext catalog: {error}") from None


def compiled(catalog: Catalog) -> gettext.GNUTranslations:
    """``catalog`` compiled as ``msgfmt`` would, in memory (untranslated and fuzzy entries
    left out, so that they fall back to the next catalog)."""
    buffer = BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


@cache
def _shipped(language: str) -> gettext.GNUTranslations:
    path = LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    return compiled(read_catalog(path, language))


@cache
def template() -> Catalog:
    """Every text of the door's, as Babel extracted them."""
    return read_catalog(TEMPLATE)


def placeholders(text: str) -> frozenset[str]:
    """The ``{name}`` fields a text is formatted with."""
    return frozenset(_PLACEHOLDER.findall(text))


def problems(catalog: Catalog, expected: Catalog | None = None) -> list[str]:
    """What ``catalog`` lacks against the door's texts (``expected``: the template): an
    entry missing or not translated (a form of a plural too), a ``{placeholder}`` lost or
    one the English has not. Empty when it has every text."""
    found: list[str] = []
    for entry in expected if expected is not None else template():
        if not entry.id:
            continue
        english = _forms(entry.id)
        shown = english[0] if len(english[0]) <= 50 else english[0][:47] + "..."
        own = catalog.get(entry.id)
        strings = _forms(own.string) if own is not None and own.string else []
        if not strings or not all(strings):
            found.append(f"missing: {shown!r}")
            continue
        wanted, given = _fields(english), _fields(strings)
        if given != wanted:
            lost, added = sorted(wanted - given), sorted(given - wanted)
            what = (
                "lost " + ", ".join(f"{{{name}}}" for name in lost)
                if lost
                else ("added " + ", ".join(f"{{{name}}}" for name in added))
            )
            found.append(f"{what}: {shown!r}")
    return found


def _placeholders_kept(catalog: Catalog) -> Catalog:
    """``catalog`` without the texts whose ``{placeholders}`` differ from the door's (a field
    it does not fill would fail the screen): those are shown in the door's own words."""
    for message in catalog:
        expected = template().get(message.id) if message.id else None
        if expected is None or not message.string:
            continue
        if _fields(_forms(message.string)) != _fields(_forms(expected.id)):
            message.string = "" if isinstance(message.id, str) else ("",) * len(message.string)
    return catalog


def _fields(forms: list[str]) -> frozenset[str]:
    """The ``{placeholders}`` of a text's forms, held together (a singular may leave out
    the count: "eine Karte")."""
    return frozenset().union(*map(placeholders, forms))


def _forms(text: str | tuple[str, ...] | list[str]) -> list[str]:
    """A text's forms: one, or a plural's each."""
    return [text] if isinstance(text, str) else list(text)


def language_name(language: str) -> str:
    """A language's name in itself, as a caller who speaks it looks for it."""
    try:
        name = Locale.parse(language).get_display_name(language) or language
    except (UnknownLocaleError, ValueError):
        return language
    return name[:1].upper() + name[1:]


@dataclass(frozen=True, slots=True)
class Catalogs:
    """The languages a board speaks: the door's own catalogs, each reworded by the sysop's
    ``<code>.po`` in ``folder`` if there is one, and the board's ``language`` for callers
    who have not chosen one."""

    language: str = ENGLISH
    folder: Path | None = None
    by_language: Mapping[str, gettext.NullTranslations] = field(
        default_factory=lambda: {ENGLISH: ENGLISH_WORDS}
    )

    @classmethod
    def read(cls, language: str = ENGLISH, folder: Path | None = None) -> Catalogs:
        """The door's catalogs and the sysop's in ``folder``, speaking ``language`` to
        callers who have not chosen. Raises :class:`CatalogError` for a file that is not a
        catalog, ``LookupError`` for a ``language`` there is no catalog of."""
        by_language: dict[str, gettext.NullTranslations] = {
            code: ENGLISH_WORDS if code == ENGLISH else _shipped(code)
            for code in shipped_languages()
        }
        for path in sysop_catalogs(folder):
            own = compiled(_placeholders_kept(read_catalog(path, path.stem)))
            shipped = by_language.get(path.stem)
            if shipped is not None and shipped is not ENGLISH_WORDS:
                own.add_fallback(shipped)
            by_language[path.stem] = own
        if language not in by_language:
            raise LookupError(language)
        return cls(language, folder, by_language)

    @property
    def languages(self) -> tuple[str, ...]:
        """The codes of the languages a caller may choose, English first."""
        return (ENGLISH, *sorted(code for code in self.by_language if code != ENGLISH))

    def words(self, language: str | None) -> gettext.NullTranslations:
        """The catalog for ``language``; the board's for None or one no longer offered."""
        chosen = self.by_language.get(language) if language is not None else None
        return chosen if chosen is not None else self.by_language[self.language]

    def name(self, language: str) -> str:
        return language_name(language)


def sysop_catalogs(folder: Path | None) -> Iterable[Path]:
    """The ``<code>.po`` files in the sysop's ``folder``, by their language's code."""
    if folder is None:
        return ()
    return sorted(path for path in folder.glob("*.po") if _CODE.fullmatch(path.stem))
