"""The words of a screen's lines, for tests of what a page says."""

from __future__ import annotations

from door.views.pages import Entry, Term, Text


def words_of(lines) -> list[str]:
    words: list[str] = []
    for line in lines:
        if isinstance(line, Entry):
            words += [line.key, *line.text.split()]
        elif isinstance(line, Term):
            words += [*line.term.split(), *line.text.split()]
        elif isinstance(line, Text):
            words += line.text.split()
        else:
            words += line.split()
    return words
