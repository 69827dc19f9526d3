"""What the door knows of one caller's visit: their terminal, who they are, how they see."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

from ansi.screen import ScreenBuffer
from ansi.sequences import clear_screen, move, reset
from door.app import App
from door.config import Config
from door.net.detection import TerminalInfo
from door.net.nodes import Nodes, address_key
from door.net.presence import Presence
from door.net.terminal import Terminal
from door.solving.pool import Solving
from door.store import Store
from door.store.records import User
from door.views.board import Look, notice_text, plain_lines
from door.views.layout import MIN_HEIGHT, MIN_WIDTH, fitted, too_small
from door.views.pages import prompt_row
from door.words import speak, speaking


@dataclass
class Visit:
    """One caller's visit on the door's ``app``. ``bbs`` is the BBS that sent the caller:
    a drop file's, or the linked board's. ``presence`` is what the sysop sees of the call:
    its node's record, or in door mode the call's own (:func:`~door.visit.session.run_visit`)."""

    terminal: Terminal
    app: App
    node: int
    user: User | None = None
    bbs: str | None = None
    #: The caller's choice of keys on the board: hot keys, or lines (None: not chosen).
    hot_keys_chosen: bool | None = None
    #: The door's settings as the visit follows them: taken on afresh at each menu
    #: (:meth:`refresh`), so that no reload changes them under a game.
    config: Config = field(init=False)
    #: The game shown a line per play instead of as the board.
    terse: bool = field(init=False)
    presence: Presence = field(init=False)
    #: The caller's terminal as the door found it by itself this call (its ANSI, charset
    #: and suits), before their saved choices: what "automatic" gives them.
    detected: TerminalInfo = field(init=False)

    def __post_init__(self) -> None:
        self.detected = self.terminal.info
        self.config = self.app.config
        self.terse = not self.terminal.ansi
        call = self.nodes.call(self.node) if self.nodes is not None else None
        self.presence = call.presence if call is not None else Presence()
        self.speak()

    @property
    def look(self) -> Look:
        """How the caller sees the door now, for the views to draw by.

        ANSI and suits as letters are the terminal's to keep (in its
        :class:`~door.net.detection.TerminalInfo`), not the visit's: the terminal writes by
        them too, every glyph of CP437's control range (the suits, ►, ▲ ...) as an ASCII
        stand-in when suits are letters, whatever the text (a page, a prompt's echo, the
        sysop's message).
        """
        info = self.terminal.info
        width, height = fitted(info.width, info.height) or (MIN_WIDTH, MIN_HEIGHT)
        return Look(info.ansi, info.suit_letters, self.terse, width, height)

    @property
    def too_small(self) -> bool:
        """Whether the caller's window is too small for any screen of the door's."""
        return fitted(self.terminal.info.width, self.terminal.info.height) is None

    # The app's services, as the rooms of a visit reach them.

    @property
    def store(self) -> Store:
        return self.app.store

    @property
    def solving(self) -> Solving | None:
        return self.app.solving

    @property
    def nodes(self) -> Nodes | None:
        return self.app.nodes

    def refresh(self) -> None:
        """Take on the door's settings as they are now: called at each menu, so a level the
        sysop changed is offered from the next menu on, never under a game in progress."""
        self.config = self.app.config
        self.speak()

    @property
    def language(self) -> str:
        """The code of the language the caller reads the door in: their own choice while
        the board offers it, else the board's."""
        chosen = self.user.language if self.user is not None else None
        words = self.config.words
        return chosen if chosen in words.languages else words.language

    def speak(self) -> None:
        """Speak the caller's language from now on, in this visit's task (every ``_()`` its
        code calls) and to what the door writes to them from elsewhere."""
        words = self.config.words.words(self.language)
        self.terminal.words = words
        speak(words)

    async def set_language(self, language: str | None) -> None:
        """Keep ``language`` (a catalog's code; None: the board's) as the caller's choice."""
        if self.user is not None:
            self.user = await self.store.save_language(self.user.id, language)
        self.speak()

    def game_ended(self) -> None:
        """A game of this caller's has ended (won, stuck or resigned)."""
        self.app.game_ended()

    def doing(self, activity: str) -> None:
        """Say what the caller is doing, for the sysop's view of the nodes."""
        self.presence.activity = activity

    def adopt(self, user: User) -> None:
        """The caller is ``user``: take on their saved terminal choices.

        A charset the caller chose wins over what the door found out; until they choose,
        suits are letters when their screen showed none.
        """
        self.user = user
        self.detected = self.terminal.info
        self.presence.alias = user.alias
        self.terminal.logged_in = True
        letters = user.suit_letters
        if user.charset is not None:
            self.terminal.charset = user.charset
        else:
            letters = letters or self.terminal.info.suit_letters
        if user.ansi is not None:
            self.terminal.ansi = user.ansi
        self._see(letters)
        self.hot_keys_chosen = user.hot_keys
        self.speak()

    def _see(self, suit_letters: bool) -> None:
        """Suits as letters (or not) from now on, and the game in lines if the caller chose
        so or, until they choose, if their screen is plain text."""
        info = self.terminal.info
        if info.suit_letters != suit_letters:
            self.terminal.info = replace(info, suit_letters=suit_letters)
        view = self.user.game_view if self.user is not None else None
        self.terse = view == "terse" if view is not None else not self.terminal.ansi

    @property
    def hot_keys(self) -> bool:
        """Whether board commands act when complete (else on Enter). Until the caller
        chooses: hot keys on an ANSI screen, lines on a plain one, whose terminals often
        send a line at a time and could not show a half-typed command in place."""
        return self.look.ansi if self.hot_keys_chosen is None else self.hot_keys_chosen

    async def set_hot_keys(self, hot: bool) -> None:
        """Choose hot keys or lines, and keep the choice for the caller's next call."""
        self.hot_keys_chosen = hot
        if self.user is not None:
            self.user = await self.store.save_hot_keys(self.user.id, hot)

    async def set_look(
        self,
        *,
        ansi: bool | None = None,
        suit_letters: bool | None = None,
        charset: str | None = None,
    ) -> None:
        """Change how the caller sees the door, and keep it for their next call."""
        if ansi is not None:
            self.terminal.ansi = ansi
        if charset is not None:
            self.terminal.charset = charset
        letters = self.terminal.info.suit_letters if suit_letters is None else suit_letters
        self._see(letters)
        if self.user is not None:
            self.user = await self.store.save_preferences(
                self.user.id, self.terminal.ansi, self.terminal.charset, letters
            )

    @property
    def charset_chosen(self) -> bool:
        """Whether the caller chose their charset, rather than leave it to the door's own
        check at each call (a stored charset of None: automatic)."""
        return self.user is not None and self.user.charset is not None

    async def find_charset_by_itself(self) -> None:
        """Leave the charset and suits to the door's own check of the caller's screen: this
        call's finding from now on, and the check's at each call after."""
        self.terminal.charset = self.detected.charset
        self._see(self.detected.suit_letters)
        if self.user is not None:
            self.user = await self.store.save_preferences(
                self.user.id, self.terminal.ansi, None, False
            )

    async def set_game_view(self, *, terse: bool) -> None:
        """Show the game as a line per play (``terse``) or as the board, from now on and on
        the caller's next calls."""
        if self.user is not None:
            self.user = await self.store.save_game_view(self.user.id, "terse" if terse else "board")
        self.terse = terse

    def show(self, draw: Callable[[Look], ScreenBuffer]) -> None:
        """Send a whole page, as ``draw`` draws it for the caller's look (and size): drawn in
        place (ANSI) or as plain lines; drawn again whenever the window's size changes while
        it is shown. A window too small for any page is told what it needs instead.

        A notice that comes while the page is shown (a line from the sysop, a clock's
        warning) goes on an ANSI page's message row, its prompt then drawn again: nothing
        scrolls; under a plain page, on a line of its own, then the prompt.
        """
        self.terminal.on_resize = partial(self._show, draw)
        self._show(draw)

    def _show(self, draw: Callable[[Look], ScreenBuffer]) -> None:
        # In the caller's language: a resize calls this from the connection's code.
        with speaking(self.terminal.words):
            self._draw(draw)

    def _draw(self, draw: Callable[[Look], ScreenBuffer]) -> None:
        if self.too_small:
            self.show_too_small()
            return
        screen = draw(self.look)
        if self.look.ansi:
            page = screen.render_full()
            row = screen.cursor[0]
            prompt = screen.render_rows(range(row, row + 1))
            self.terminal.on_notice = partial(_notice_on_page, prompt, self.look)
        else:
            page = "\r\n" + "\r\n".join(plain_lines(screen)) + " "
            self.terminal.on_notice = None
        self.terminal.write(page)
        self.presence.replay = lambda: page  # the text only: the page's cells are let go

    def show_too_small(self, columns: int | None = None) -> None:
        """Tell a window too small for the door's screens what it needs, alone on it; or,
        given ``columns``, that the game's board needs that many."""
        lines = too_small(self.terminal.info.width, columns)
        if self.look.ansi:
            text = f"{reset()}{clear_screen()}{move(1, 1)}" + "\r\n".join(lines) + " "
        else:
            text = "\r\n" + "\r\n".join(lines) + " "
        self.terminal.on_notice = None
        self.terminal.write(text)
        self.presence.replay = lambda: text


def _notice_on_page(prompt: str, look: Look, text: str) -> str:
    """A notice on an ANSI page's message row, then the page's ``prompt`` row drawn again."""
    return notice_text(text, prompt_row(look) - 1, look.width) + prompt


def caller_address(visit: Visit) -> str:
    """Where the caller is calling from, as limits per address count it; '' if unknown."""
    call = visit.nodes.call(visit.node) if visit.nodes is not None else None
    return address_key(call.address) if call is not None else ""
