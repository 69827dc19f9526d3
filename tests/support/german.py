"""A caller's visit in German, and what an English text left on a German screen looks like.

The visit is driven by the keys, which are the same in every language, and waits for the
door's texts by their German in the shipped catalog (:func:`said`): the same walk works
while a text is still English (it waits for the English) and once it is German. Each screen
is kept as the caller's terminal shows it; :func:`english_left` names the English on one.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from door.config import Config
from door.words import Catalogs
from door.words.catalogs import LOCALE, read_catalog, template
from tests.support.door_server import SHIPPED_CONFIG
from tests.support.telnet_caller import Caller
from tests.support.tour import DEAL, Tour, quiet, refused_commands
from tests.support.winning import saved_one_play_from_a_win

# A German sysop's own words in sysop.toml: the board's and the levels' names are theirs, in
# the board's language, not the door's.
GERMAN_NAMES = {
    '"The Canfield Door"': '"Die Canfield-Mailbox"',
    '"Level 1 - Draw one"': '"Stufe 1 - Eine Karte"',
    '"Level 2 - Draw three"': '"Stufe 2 - Drei Karten"',
    '"Level 3 - One pass"': '"Stufe 3 - Ein Durchgang"',
}

# Words of English that German never uses, as a caller reads them in running text (a key,
# such as NEW or UNDO, is in capitals and stays English on purpose): a text still English
# shows some of them whether or not its module marked it for the catalog.
ENGLISH_ONLY = frozenset(
    """the your you and with press any key game games played won lost quit goodbye deal
    deals choice again saved resume which this that for not yet level levels moves cards
    card column columns waste deck scores settings help rules statistics back can't don't
    won't isn't there here what have has are is of to from board boards new play""".split()
)
PAGE = re.compile(r"\((\d+)/(\d+)\)")


def german_sysop_toml(folder: Path, language: str = "de") -> Path:
    """The shipped sysop.toml with ``[words] language`` set, and for a German board the
    sysop's own names in German too; written into ``folder``."""
    text = SHIPPED_CONFIG.read_text(encoding="utf-8")
    text = text.replace('\nlanguage = "en"\n', f'\nlanguage = "{language}"\n')
    if language == "de":
        for english, german in GERMAN_NAMES.items():
            text = text.replace(f"name = {english}", f"name = {german}")
    path = folder / "sysop.toml"
    path.write_text(text, encoding="utf-8")
    return path


def sysops_words(config: Config) -> frozenset[str]:
    """The words of the names the sysop gave the board and its levels, lower case."""
    names = [config.bbs.name, *(level.name for level in config.levels)]
    return frozenset(word.lower() for name in names for word in re.findall(r"[\w']+", name))


@functools.cache
def _german() -> Catalogs:
    return Catalogs.read("de")


def _forms(text: str | tuple[str, ...] | list[str]) -> list[str]:
    return [text] if isinstance(text, str) else list(text)


def folded(text: str) -> str:
    """``text`` as an ASCII terminal shows it (ä as a, ß as s: the door's ASCII stand-ins
    keep one column a letter)."""
    return "".join(
        unicodedata.normalize("NFKD", char)[0] if not char.isascii() else char for char in text
    )


def said(english: str) -> str:
    """A pattern for the door's text that holds ``english``, as a German caller reads it:
    the German of the shortest text in the catalog that holds it (its first words without a
    placeholder, wrapped anywhere, any letter outside ASCII as one character), or
    ``english`` itself while no text holds it or it is not translated."""
    holders = [
        form for entry in template() if entry.id for form in _forms(entry.id) if english in form
    ]
    shown = english
    if holders:
        holder = min(holders, key=len)
        german = _german().words("de").gettext(holder)
        if german != holder:
            pieces = re.split(r"\{[^{}]*\}", german)
            shown = max(pieces, key=lambda piece: len(piece.split()))
    words = shown.split()[:3]
    return r"\s+".join(re.sub(r"[^\x00-\x7f]", ".", re.escape(word)) for word in words)


def either(*english: str) -> str:
    """A pattern for the texts holding ``english``, in German or still in English (waited
    for as it shows, then named by :func:`english_left`)."""
    patterns = [said(text) for text in english]
    patterns += [r"\s+".join(map(re.escape, text.split())) for text in english]
    return "|".join(f"(?i:{pattern})" for pattern in patterns)


@functools.cache
def _english_texts() -> tuple[tuple[str, ...], frozenset[str]]:
    """The English texts of the catalog to look for on a German screen: every stretch of
    three words or more between placeholders and sentence ends, and each text of one or two
    words; but what the German keeps as it is (a command, a name, a word both languages
    share, such as "Reserve")."""
    german = read_catalog(LOCALE / "de" / "LC_MESSAGES" / "canfield.po", "de")
    phrases: set[str] = set()
    short: set[str] = set()
    for entry in template():
        if not entry.id:
            continue
        forms = _forms(entry.id)
        own = german.get(entry.id)
        kept = " ".join(
            " ".join(folded(text).split()) for text in (_forms(own.string) if own else []) if text
        )
        for english in forms:
            if "{" not in english and len(english.split()) <= 2:
                word = " ".join(english.split()).strip(" .:!?")
                if re.search(r"[A-Za-z]{2}", word) and not _within(word, kept):
                    short.add(word)
                continue
            for piece in re.split(r"\{[^{}]*\}|(?<=[.!?:;])\s+|\n", english):
                stretch = " ".join(piece.split()).strip(" ,")
                if len(stretch.split()) >= 3 and not _within(stretch, kept):
                    phrases.add(stretch)
    return tuple(sorted(phrases, key=len, reverse=True)), frozenset(short)


def _within(words: str, text: str) -> bool:
    """Whether ``words`` stand in ``text`` whole (not as the end of a longer word)."""
    return re.search(rf"(?<![\w-]){re.escape(words)}(?![\w-])", text) is not None


def english_left(screen: list[str], ignore: frozenset[str] = frozenset()) -> list[str]:
    """The English on a screen meant to be German: texts of the catalog, and words German
    never uses (but the words in ``ignore``: the sysop's own names)."""
    text = " ".join(" ".join(screen).split())
    phrases, short = _english_texts()
    found = [phrase for phrase in phrases if phrase in text and _within(phrase, text)]
    for word in short:
        if not set(word.lower().split()) <= ignore and _within(word, text):
            found.append(word)
    for word in re.findall(r"[A-Za-z][a-z]*(?:'[a-z]+)?", text):
        if word.lower() in ENGLISH_ONLY and word.lower() not in ignore and word not in found:
            found.append(word)
    return found


class GermanTour(Tour):
    """A caller's way through the door, waiting for each text as a German caller reads it."""

    async def see(self, name: str | None, *english: str) -> None:
        """Wait for a text holding one of ``english`` and for the door to finish drawing."""
        await self.caller.wait_for(either(*english), timeout=20)
        await quiet(self.caller)
        if name:
            self.keep(name)

    async def pages(self, name: str, key: str = " ") -> None:
        """Keep each page of a numbered text (title ``(n/m)``), ``key`` turning them, until
        the last."""
        self.keep(f"{name} 1")
        for _turn in range(12):
            found = PAGE.search(self.caller.display())
            if found is None or found[1] == found[2]:
                return
            await self.press(f"{name} {int(found[1]) + 1}", key)


async def german_sign_up(visit: GermanTour, alias: str, password: str) -> None:
    caller = visit.caller
    shown = await caller.wait_for(either("Your alias", "Any key for more"))
    visit.keep("welcome")
    if not re.search(either("Your alias"), shown):  # the welcome on two pages
        await caller.key(" ")
        await visit.see("welcome 2", "Your alias")
    await caller.type(alias)
    await visit.see("sign up?", "Sign up?")
    await caller.type("Y")
    await visit.see("password", "Password:")
    await caller.type(password)
    await visit.see("password again", "Password again")
    await caller.type(password)
    await visit.see("main menu", "Your choice")


async def german_visit(door, visit: GermanTour, alias: str) -> None:
    """From the main menu: the terminal settings, a won game, a practice deal with each
    kind of refusal, an undo and the help, the scoreboards, the statistics, the rules, and
    goodbye."""
    caller = visit.caller
    await caller.key("T")
    await visit.see("terminal settings", "Terminal settings")
    await caller.key("Q")
    await visit.see(None, "Your choice")

    # A won game: the last play of a winning line, then the banner.
    _game, last = await saved_one_play_from_a_win(door, alias)
    await visit.press("main menu with a saved game", "X")
    await caller.key("R")
    await visit.see("a game one play from a win", "Command (? for help)")
    await caller.type(last)
    await visit.see("the win banner", "You won!", "Press Enter to go on")
    await caller.key("\r")
    await visit.see("main menu after a win", "Your choice")

    # A practice deal: each kind of refusal, a play and its undo, the help.
    await caller.key("#")
    await visit.see("deal number", "Deal number")
    await caller.type(str(DEAL))
    await visit.see("levels", "Choose a level")
    await caller.key("\r")
    await visit.see("the board", "Command (? for help)")
    for command in refused_commands():
        await visit.press(f"the refusal of {command}", command + "\r")
    await visit.press("a play", "V\r")
    await visit.press("the play undone", "U\r")
    await visit.press(None, "?")
    await visit.pages("help")
    await caller.key("\r")
    await visit.see(None, "Command (? for help)")
    await caller.key("Q")
    await visit.see("main menu with the deal saved", "Your choice")

    # The scoreboards, the statistics and the rules.
    await visit.press("scoreboards", "S")
    await visit.press("high scores", "1")
    await visit.press(None, " ")
    await visit.press("standings", "A")
    await visit.press(None, " ")
    await caller.key("Q")
    await visit.see(None, "Your choice")
    await visit.press(None, "M")
    await visit.pages("statistics")
    await caller.key(" ")
    await visit.see(None, "Your choice")
    await visit.press(None, "I")
    await visit.pages("rules")
    await caller.key(" ")
    await visit.see(None, "Your choice")
    await caller.key("G")
    await caller.wait_closed()
    visit.keep("goodbye")


async def connect(door, charset: str, size: tuple[int, int]) -> Caller:
    terms = {"utf-8": "xterm", "cp437": "syncterm", "ascii": "vt100"}
    return await Caller.connect(door.port, term=terms[charset], charset=charset, size=size)
