"""Showing a page of text and waiting for the caller's answer.

Every page of the visit comes here: its lines are laid out at the screen's width
(:func:`door.views.pages.lay_out`), and a text longer than one page is shown a page at a time,
the caller's answer asked for on the last.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from ansi.art import Art
from ansi.screen import ScreenBuffer
from door.views.board import Look, notice_text
from door.views.pages import TEXT_COL, PageLine, draw_rows, fits_under, pages_of, prompt_row
from door.visit.context import Visit

MORE = "Any key for more, Q to stop. "
STOP = "Q"


async def show_lines(
    visit: Visit,
    title: str,
    lines: Sequence[PageLine],
    prompt: str,
    message: str = "",
    head: Art | None = None,
) -> bool:
    """Show ``lines`` under ``title`` with ``prompt`` on their last page; the pages before it
    wait for a key each. False when the caller pressed Q on one of those (the last page is
    then not shown). ``head``: the sysop's art above the title, on a page of one page whose
    lines fit under it in the caller's window (else the door's own head).

    The pages are laid out for the caller's window as it is when each is drawn: a change of
    its size draws the page shown again, the last page (with ``prompt``) if that was the one.
    """
    number = 1
    while True:
        last = number >= len(pages_of(lines, visit.look))
        visit.show(partial(_page, title, lines, number, last, prompt, message, head))
        message = ""
        await visit.terminal.flush()
        if last:
            return True
        if await visit.terminal.read_key() == STOP:
            return False
        number += 1


def _page(
    title: str,
    lines: Sequence[PageLine],
    number: int,
    last: bool,
    prompt: str,
    message: str,
    head: Art | None,
    look: Look,
) -> ScreenBuffer:
    """Page ``number`` of ``lines`` (``last``: the last page, whichever number that is now)
    drawn for ``look``, on a screen of its size; ``head`` above a page that is the only one
    and fits under it."""
    pages = pages_of(lines, look)
    index = len(pages) - 1 if last else min(number, len(pages)) - 1
    heading = f"{title} ({index + 1}/{len(pages)})" if len(pages) > 1 else title
    if head is not None and (len(pages) > 1 or not fits_under(head, pages[0], look)):
        head = None
    screen = ScreenBuffer(look.width, look.height)
    draw_rows(screen, heading, pages[index], look, prompt if last else MORE, message, head)
    return screen


async def wait_key(
    visit: Visit,
    title: str,
    lines: Sequence[PageLine],
    prompt: str,
    message: str = "",
    head: Art | None = None,
) -> str:
    """Show a page and wait for one key (upper case, or Enter as ``"\\r"``)."""
    if not await show_lines(visit, title, lines, prompt, message, head):
        return STOP
    return await visit.terminal.read_key()


async def ask_line(
    visit: Visit,
    title: str,
    lines: Sequence[PageLine],
    prompt: str,
    message: str = "",
    *,
    max_length: int = 60,
    mask: bool = False,
    skip_blank: bool = False,
    head: Art | None = None,
) -> str:
    """Show a page and read a line the caller types, stripped (see ``Terminal.read_line``;
    ``skip_blank``: an empty line is not an answer, and the page is not drawn again)."""
    if not await show_lines(visit, title, lines, prompt, message, head):
        return ""
    line = await visit.terminal.read_line(max_length, mask=mask, skip_blank=skip_blank)
    return line.strip()


async def say(visit: Visit, text: str) -> None:
    """A line while the door works, without a page around it: on an ANSI screen on the
    message row of the page or board shown, in the message's colours, as a notice goes (a
    page's prompt then written again); on a plain one, on a line of its own from the column
    every line starts in."""
    terminal, look = visit.terminal, visit.look
    if not look.ansi:
        terminal.write(f"\r\n{' ' * (TEXT_COL - 1)}{text}\r\n")
    elif terminal.on_notice is not None:
        terminal.write(terminal.on_notice(text))
    else:
        terminal.write(notice_text(text, prompt_row(look) - 1, look.width))
    await terminal.flush()


def whole_number(text: str) -> int | None:
    """A number the caller typed: ASCII digits only, else None (never an exception).

    ``str.isdigit`` is true of ``²`` (CP437 0xFD) and of other scripts' digits, which
    ``int`` refuses or reads as another number: only 0-9 count.

    >>> whole_number("42"), whole_number(" 7 "), whole_number("²"), whole_number("-1")
    (42, 7, None, None)
    >>> whole_number("٣"), whole_number(""), whole_number("1 2")
    (None, None, None)
    """
    text = text.strip()
    if not text or not text.isascii() or not text.isdigit():
        return None
    return int(text)
