"""The words of a screen's lines, for tests of what a page says."""

from __future__ import annotations

from door.views.pages import Entry, Term, Text


def words_of(lines) -> list[str]:
    """The words a page's lines say, in order (a Styled line, never wrapped, says none here)."""
    words: list[str] = []
    for line in lines:
        if isinstance(line, Entry):
            words += [line.key, *line.text.split()]
        elif isinstance(line, Term):
            words += [*line.term.split(), *line.text.split()]
        elif isinstance(line, Text):
            words += line.text.split()
        elif isinstance(line, str):
            words += line.split()
    return words
