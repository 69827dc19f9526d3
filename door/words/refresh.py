"""``python -m door.words.refresh``: the template extracted again from the code, and every
language's catalog brought up to it (new texts added untranslated, gone ones kept as
obsolete), as Babel's ``pybabel extract`` and ``pybabel update`` do, with the door's options.

Run it from the repository's folder after changing a text, then translate what it added.
"""

from __future__ import annotations

from importlib.metadata import version

from babel.messages.frontend import CommandLineInterface

from door.words.catalogs import DOMAIN, LOCALE, TEMPLATE

ENGINE_KEYWORDS = ("IllegalMove", "Advice:2")
EXTRACT = [
    "extract",
    "--mapping-file=babel.cfg",
    "--no-location",
    "--sort-output",
    "--add-comments=TRANSLATORS:",
    # The engine's texts, which it cannot mark with _() (it imports nothing of the door's):
    # the reason a play is refused, and why a hint's play is worth making.
    *(f"--keyword={keyword}" for keyword in ENGINE_KEYWORDS),
    "--project=Canfield door",
    f"--version={version('canfield-door')}",
    "--copyright-holder=the Canfield door's authors",
    f"--output-file={TEMPLATE}",
    ".",
]
UPDATE = [
    "update",
    f"--input-file={TEMPLATE}",
    f"--output-dir={LOCALE}",
    f"--domain={DOMAIN}",
    "--no-fuzzy-matching",
    "--ignore-obsolete",
]


def main() -> None:
    CommandLineInterface().run(["pybabel", "--quiet", *EXTRACT])
    if any(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        CommandLineInterface().run(["pybabel", "--quiet", *UPDATE])


if __name__ == "__main__":
    main()
