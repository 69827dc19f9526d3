"""The door's words: the catalogs as a sysop and a translator meet them.

The template holds every text the code marks (extracted again here with Babel and compared),
every language the door ships has each of them with its placeholders, the sysop picks the
board's language and may reword any text in a folder of their own, and `check-config` says
what a sysop's catalog lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_keywords, parse_mapping_cfg
from babel.messages.pofile import write_po

from door.config import ConfigError, load_config
from door.store import Store
from door.words import Catalogs, _, speaking
from door.words.catalogs import LOCALE, problems, read_catalog, shipped_languages, template
from door.words.refresh import ENGINE_KEYWORDS
from tests.support.served_door import check_config

ROOT = Path(__file__).resolve().parents[1]


def _extracted() -> set[str | tuple[str, ...]]:
    with (ROOT / "babel.cfg").open() as file:
        method_map, options_map = parse_mapping_cfg(file)
    keywords = {**DEFAULT_KEYWORDS, **parse_keywords(list(ENGINE_KEYWORDS))}
    found: set[str | tuple[str, ...]] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        ROOT, method_map, options_map, keywords=keywords
    ):
        found.add(message)
    return found


def test_the_template_holds_every_text_the_code_marks_and_no_other() -> None:
    in_code = _extracted()
    in_template = {
        entry.id if isinstance(entry.id, str) else tuple(entry.id)
        for entry in template()
        if entry.id
    }
    assert in_code - in_template == set(), "run: python -m door.words.refresh"
    assert in_template - in_code == set(), "run: python -m door.words.refresh"


@pytest.mark.parametrize("language", shipped_languages()[1:])
def test_every_shipped_language_has_every_text_and_its_placeholders(language: str) -> None:
    catalog = read_catalog(LOCALE / language / "LC_MESSAGES" / "canfield.po", language)
    assert problems(catalog) == []
    assert not [entry.id for entry in catalog if entry.id and entry.fuzzy], "fuzzy entries"


def test_the_board_speaks_the_language_sysop_toml_names(tmp_path: Path) -> None:
    (tmp_path / "sysop.toml").write_text('[words]\nlanguage = "de"\n')
    config = load_config(tmp_path / "sysop.toml")
    assert config.words.language == "de"
    assert config.words.languages == ("en", "de")
    with speaking(config.words.words(None)):
        assert _("Goodbye.") == "Auf Wiedersehen."
    assert _("Goodbye.") == "Goodbye."
    (tmp_path / "sysop.toml").write_text('[words]\nlanguage = "klingon"\n')
    with pytest.raises(
        ConfigError, match=r'words\.language = "klingon" is not accepted: .*"en", "de"'
    ):
        load_config(tmp_path / "sysop.toml")


def test_a_sysop_rewords_the_english_and_adds_a_language(tmp_path: Path) -> None:
    words = tmp_path / "words"
    words.mkdir()
    (words / "en.po").write_text(
        'msgid "Goodbye."\nmsgstr "So long, and thanks for all the cards."\n'
    )
    (words / "pt_BR.po").write_text('msgid "Goodbye."\nmsgstr "Tchau."\n')
    (tmp_path / "sysop.toml").write_text('[words]\nfolder = "words"\nlanguage = "pt_BR"\n')
    config = load_config(tmp_path / "sysop.toml")
    assert config.words.languages == ("en", "de", "pt_BR")
    assert config.words.name("pt_BR") == "Português (Brasil)"
    assert config.words.words(None).gettext("Goodbye.") == "Tchau."
    assert config.words.words("en").gettext("Goodbye.") == "So long, and thanks for all the cards."
    assert config.words.words("de").gettext("Goodbye.") == "Auf Wiedersehen."
    assert config.words.words("gone").gettext("Goodbye.") == "Tchau."  # no longer offered


def test_a_broken_catalog_or_folder_is_refused_with_its_name(tmp_path: Path) -> None:
    (tmp_path / "sysop.toml").write_text('[words]\nfolder = "words"\n')
    with pytest.raises(ConfigError, match=r'words\.folder = "words" is not a folder'):
        load_config(tmp_path / "sysop.toml")
    (tmp_path / "words").mkdir()
    (tmp_path / "words" / "de.po").write_bytes(b'msgid "Goodbye.\nmsgstr \xff\n')
    with pytest.raises(ConfigError, match=r"words\.folder: de\.po is not a gettext catalog"):
        load_config(tmp_path / "sysop.toml")


def test_a_text_whose_placeholder_a_sysop_lost_is_shown_in_the_doors_own_words(
    tmp_path: Path,
) -> None:
    entry = next(e for e in template() if isinstance(e.id, str) and "{" in e.id)
    shipped = Catalogs.read().words("de").gettext(entry.id)
    words = tmp_path / "words"
    words.mkdir()
    (words / "de.po").write_text(
        f'msgid "{entry.id}"\nmsgstr "Kaputt {{nothing}}"\n\nmsgid "Goodbye."\nmsgstr "Tschüss."\n'
    )
    catalogs = Catalogs.read("de", words)
    assert catalogs.words("de").gettext(entry.id) == shipped != entry.id
    assert catalogs.words("de").gettext("Goodbye.") == "Tschüss."


def test_check_config_says_what_a_sysops_catalog_lacks(tmp_path: Path) -> None:
    words = tmp_path / "words"
    words.mkdir()
    entry = next(e for e in template() if isinstance(e.id, str) and "{" in e.id)
    # Every other text is there (what check-config lists of a long list is its first ten).
    catalog = Catalog(locale="de")
    for other in template():
        if other.id and other.id != "Goodbye.":
            catalog.add(other.id, "Kaputt" if other.id == entry.id else other.id)
    with (words / "de.po").open("wb") as file:
        write_po(file, catalog)
    (tmp_path / "sysop.toml").write_text('[words]\nfolder = "words"\n')
    result = check_config(tmp_path / "sysop.toml")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].startswith("Words: de.po: ")
    assert any(line.strip().startswith("lost {") and entry.id[:20] in line for line in lines)
    assert any(line.strip().startswith("missing: 'Goodbye.'") for line in lines)


async def test_a_callers_language_is_kept_for_their_next_call(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "door.db") as store:
        user = await store.create_user("Zoe", "a long secret phrase")
        assert user.language is None
        assert (await store.save_language(user.id, "de")).language == "de"
    async with Store.open(tmp_path / "door.db") as store:
        found = await store.find_user("Zoe")
        assert found is not None and found.language == "de"
