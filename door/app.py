"""The door's one application object: the services every visit shares, built once.

``serve`` builds an :class:`App` when it opens the database, door mode and the console for
their one visit, the tests for their doors; a visit is handed the app, its terminal and its
node, and nothing else that the door as a whole owns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from door.config import Config
from door.net.nodes import Nodes
from door.solving.pool import Solving
from door.store import Store
from door.store.contests import Contest


class RunningDoor(Protocol):
    """What a visit asks of the door serving it: its settings as they are now (the sysop may
    have had sysop.toml read again), and to hear when a game ends (the bulletin)."""

    @property
    def config(self) -> Config: ...

    def game_ended(self) -> None: ...


class LeagueLink(Protocol):
    """A member board's link to its league's hub, as a visit uses it: have a league deal to
    deal (fetched from the hub the first time a caller here starts it), and hear when a
    league game ends (its result goes out)."""

    async def fetch_deal(self, contest: Contest, number: int) -> None: ...

    def game_ended(self) -> None: ...


@dataclass(frozen=True, slots=True)
class SteadyDoor:
    """A door whose settings stay as they were read at its start and which keeps no
    bulletins: door mode's and the console's one visit, and the tests' doors."""

    config: Config

    def game_ended(self) -> None:
        """Nothing to do: no bulletin is kept up to date here."""


@dataclass(frozen=True, slots=True)
class App:
    """The door's services: the ``store``; the ``door`` serving the visits, asked for its
    settings as they are now; the ``solving`` pool (None: hints from the solver, winnable
    deals and the deal of the day are not offered); the table of ``nodes`` every way in
    shares (None in door mode, where the BBS keeps nodes); the ``league`` link of a member
    board (None: not a member)."""

    store: Store
    door: RunningDoor
    solving: Solving | None = None
    nodes: Nodes | None = None
    league: LeagueLink | None = None

    @property
    def config(self) -> Config:
        """The door's settings as they are now: a reload shows here at once."""
        return self.door.config

    def game_ended(self) -> None:
        """A caller's game has ended (won, stuck or resigned): for the bulletins."""
        self.door.game_ended()
