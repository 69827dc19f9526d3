"""What the door knows of one caller's visit: their terminal, who they are, how they see."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol

from ansi.screen import ScreenBuffer
from door.config import Config
from door.net.nodes import Nodes, address_key
from door.net.presence import Presence
from door.net.terminal import Terminal
from door.solving.pool import Solving
from door.store import Store
from door.store.records import User
from door.views.board import Look, plain_lines


class RunningDoor(Protocol):
    """What a visit asks of the door serving it: its settings as they are now (the sysop may
    have had sysop.toml read again), and to hear when a game ends (the bulletin)."""

    @property
    def config(self) -> Config: ...

    def game_ended(self) -> None: ...


@dataclass
class Visit:
    """One caller's visit. ``bbs`` is the BBS that sent the caller with a drop file;
    ``solving`` the door's solver (None: hints from it, winnable deals and the deal of the
    day are not offered); ``door`` the running door, when there is one to ask; ``nodes`` the
    table of nodes the caller's node is in (None in door mode, where the BBS keeps nodes).
    ``presence`` is what the sysop sees of the call: its node's record, or in door mode one
    of the visit's own that nobody reads."""

    terminal: Terminal
    store: Store
    config: Config
    node: int
    user: User | None = None
    bbs: str | None = None
    look: Look = field(default_factory=Look)
    solving: Solving | None = None
    door: RunningDoor | None = None
    nodes: Nodes | None = None
    #: The caller's choice of keys on the board: hot keys, or lines (None: not chosen).
    hot_keys_chosen: bool | None = None
    presence: Presence = field(init=False)

    def __post_init__(self) -> None:
        call = self.nodes.call(self.node) if self.nodes is not None else None
        self.presence = call.presence if call is not None else Presence()
        letters = self.look.suit_letters or self.terminal.info.suit_letters
        self._see(
            replace(
                self.look,
                ansi=self.terminal.ansi,
                suit_letters=letters,
                terse=not self.terminal.ansi,
            )
        )

    def _see(self, look: Look) -> None:
        """Show the door to the caller as ``look`` says from now on. Suits as letters go with
        letters for every glyph of CP437's control range (►, ▲ ...): the terminal sends
        those as ASCII stand-ins."""
        self.look = look
        info = self.terminal.info
        if info.suit_letters != look.suit_letters:
            self.terminal.info = replace(info, suit_letters=look.suit_letters)

    def refresh(self) -> None:
        """Take on the door's settings as they are now: called at each menu, so a level the
        sysop changed is offered from the next menu on, never under a game in progress."""
        if self.door is not None:
            self.config = self.door.config

    def game_ended(self) -> None:
        """A game of this caller's has ended (won, stuck or resigned)."""
        if self.door is not None:
            self.door.game_ended()

    def doing(self, activity: str) -> None:
        """Say what the caller is doing, for the sysop's view of the nodes."""
        self.presence.activity = activity

    def adopt(self, user: User) -> None:
        """The caller is ``user``: take on their saved terminal choices.

        A charset the caller chose wins over what the door found out; until they choose,
        suits are letters when their screen showed none.
        """
        self.user = user
        self.presence.alias = user.alias
        self.terminal.logged_in = True
        letters = user.suit_letters
        if user.charset is not None:
            self.terminal.charset = user.charset
        else:
            letters = letters or self.terminal.info.suit_letters
        if user.ansi is not None:
            self.terminal.ansi = user.ansi
        self._see(self._look(letters))
        self.hot_keys_chosen = user.hot_keys

    def _look(self, suit_letters: bool) -> Look:
        """How the caller sees the door now: the game in lines if they chose so, or, until
        they choose, if their screen is plain text."""
        view = self.user.game_view if self.user is not None else None
        terse = view == "terse" if view is not None else not self.terminal.ansi
        return Look(ansi=self.terminal.ansi, suit_letters=suit_letters, terse=terse)

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
        self._see(self._look(self.look.suit_letters if suit_letters is None else suit_letters))
        if self.user is not None:
            self.user = await self.store.save_preferences(
                self.user.id, self.terminal.ansi, self.terminal.charset, self.look.suit_letters
            )

    async def set_game_view(self, *, terse: bool) -> None:
        """Show the game as a line per play (``terse``) or as the board, from now on and on
        the caller's next calls."""
        if self.user is not None:
            self.user = await self.store.save_game_view(self.user.id, "terse" if terse else "board")
        self._see(replace(self.look, terse=terse))

    def show(self, screen: ScreenBuffer) -> None:
        """Send a whole page: drawn in place (ANSI) or as plain lines."""
        if self.look.ansi:
            page = screen.render_full()
        else:
            page = "\r\n" + "\r\n".join(plain_lines(screen)) + " "
        self.terminal.write(page)
        self.presence.replay = lambda: page  # the text only: the page's cells are let go


def caller_address(visit: Visit) -> str:
    """Where the caller is calling from, as limits per address count it; '' if unknown."""
    call = visit.nodes.call(visit.node) if visit.nodes is not None else None
    return address_key(call.address) if call is not None else ""
