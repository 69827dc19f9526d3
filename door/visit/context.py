"""What the door knows of one caller's visit: their terminal, who they are, how they see."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ansi.screen import ScreenBuffer
from door.config import Config
from door.net.terminal import Terminal
from door.solving.pool import Solving
from door.store import Store
from door.store.records import User
from door.views.board import Look, plain_lines


@dataclass
class Visit:
    """One caller's visit. ``bbs`` is the BBS that sent the caller with a drop file;
    ``solving`` the door's solver (None: hints from it, winnable deals and the deal of the
    day are not offered)."""

    terminal: Terminal
    store: Store
    config: Config
    node: int
    user: User | None = None
    bbs: str | None = None
    look: Look = field(default_factory=Look)
    solving: Solving | None = None

    def __post_init__(self) -> None:
        self.look = replace(self.look, ansi=self.terminal.ansi)

    def adopt(self, user: User) -> None:
        """The caller is ``user``: take on their saved terminal choices."""
        self.user = user
        self.terminal.alias = user.alias
        if user.charset is not None:
            self.terminal.charset = user.charset
        if user.ansi is not None:
            self.terminal.ansi = user.ansi
        self.look = Look(ansi=self.terminal.ansi, suit_letters=user.suit_letters)

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
        self.look = Look(
            ansi=self.terminal.ansi,
            suit_letters=self.look.suit_letters if suit_letters is None else suit_letters,
        )
        if self.user is not None:
            self.user = await self.store.save_preferences(
                self.user.id, self.terminal.ansi, self.terminal.charset, self.look.suit_letters
            )

    def show(self, screen: ScreenBuffer) -> None:
        """Send a whole page: drawn in place (ANSI) or as plain lines."""
        if self.look.ansi:
            self.terminal.write(screen.render_full())
            return
        lines = plain_lines(screen)
        self.terminal.write("\r\n" + "\r\n".join(lines) + " ")
