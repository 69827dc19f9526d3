"""Doors of an InterBBS league for tests, on 127.0.0.1: a hub serving the league's API on its
web port, and member boards with their keys added at the hub and its key pinned, all on one
test clock; and a league game played on a member's store."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

from door.app import App, SteadyDoor
from door.config import Config, LeagueConfig, WebConfig
from door.engine import Game, Variant
from door.engine.hints import visible_hint
from door.engine.status import Status
from door.league.member import HUB_KEY, LeagueMember, LeagueSync, league_member
from door.league.signing import private_key_file, public_text
from door.levels import Level
from door.net.nodes import Nodes
from door.running.ways import Ways, open_ways
from door.store import Store, User
from door.store.contests import Contest
from tests.support.contests import Clock
from tests.support.door_caller import write_config
from tests.support.door_server import door_config

HUB_TAG = "HUB"


@dataclasses.dataclass
class Hub:
    store: Store
    config: Config
    ways: Ways
    clock: Clock

    @property
    def url(self) -> str:
        assert self.ways.web is not None
        return f"http://127.0.0.1:{self.ways.web.port}"

    async def close(self) -> None:
        await self.ways.close(grace=0.5)
        await self.store.close()


@dataclasses.dataclass
class Member:
    store: Store
    config: Config
    link: LeagueMember

    async def close(self) -> None:
        await self.store.close()


def hub_config(folder: Path) -> Config:
    folder.mkdir(parents=True, exist_ok=True)
    config = door_config(folder)
    return dataclasses.replace(
        config,
        web=dataclasses.replace(config.web, port=0, host="127.0.0.1"),
        league=LeagueConfig(hub=True, tag=HUB_TAG, name="The Hub"),
    )


def member_config(folder: Path, tag: str, hub_url: str) -> Config:
    folder.mkdir(parents=True, exist_ok=True)
    config = door_config(folder)
    return dataclasses.replace(
        config, web=WebConfig(), league=LeagueConfig(hub_url=hub_url, tag=tag, name=f"Board {tag}")
    )


async def open_hub(folder: Path, clock: Clock) -> Hub:
    config = hub_config(folder)
    store = await Store.open(config.server.database, clock=clock)
    app = App(store, SteadyDoor(config), None, Nodes(config.server))
    ways = await open_ways(app, detect_timeout=0.5)
    return Hub(store, config, ways, clock)


async def open_member(folder: Path, tag: str, hub: Hub, *, add: bool = True) -> Member:
    """A member board: its key made, added at the hub (``add``), the hub's key pinned."""
    config = member_config(folder, tag, hub.url)
    store = await Store.open(config.server.database, clock=hub.clock)
    key = private_key_file(config.league_key)
    if add:
        await hub.store.add_league_board(tag, f"Board {tag}", public_text(key))
    hub_key = private_key_file(hub.config.league_key)
    await store.set_league_value(HUB_KEY, public_text(hub_key))
    link = await league_member(store, config)
    assert link is not None
    return Member(store, config, link)


async def declare(hub: Hub, name: str = "League Cup", deals: int = 3) -> Contest:
    """A league contest at the hub, open now for a day."""
    now = hub.clock.now
    contest = await hub.store.declare_contest(
        name, hub.config.level(2), deals, now, now + timedelta(days=1), league=True
    )
    await hub.store.settle_contests()
    return contest


async def league_contest(member: Member) -> Contest:
    found = [c for c in await member.store.contests() if c.mirrored]
    assert found, "the member has no copy of the league's contest"
    return found[-1]


async def play_league_deal(
    member: Member, user: User, contest: Contest, number: int, plays: int = 12
) -> Game:
    """A caller of the member plays deal ``number``: the deal fetched, some plays the hints
    choose, then resigned unless over; the finished game as stored."""
    await member.link.fetch_deal(contest, number)
    level = await contest_level_of(member, contest)
    game_id, game = await member.store.start_contest_game(user.id, contest, number, level)
    for _ in range(plays):
        hint = visible_hint(game)
        if hint is None or game.status != Status.PLAYING:
            break
        game.play(hint)
        await member.store.record_play(game_id, game)
    if game.status == Status.PLAYING:
        game.resign()
    await member.store.finish_game(game_id, game)
    return game


async def contest_level_of(member: Member, contest: Contest) -> Level:
    """The rules of a league contest, as the member keeps them."""
    knobs = next(r.knobs for r in await member.store.variants() if r.id == contest.variant_id)
    return Level(contest.level, f"Level {contest.level}", Variant.from_dict(knobs))


@dataclasses.dataclass
class ServingMember:
    """A member board serving telnet callers, its league syncs running."""

    store: Store
    config: Config
    ways: Ways
    sync: LeagueSync

    @property
    def telnet(self) -> SimpleNamespace:  # what the helpers of the visits call
        return SimpleNamespace(port=self.ways.telnet.port)

    async def close(self) -> None:
        await self.ways.close(grace=0.5)
        await self.sync.close()
        await self.store.close()


async def open_serving_member(folder: Path, tag: str, hub: Hub) -> ServingMember:
    """A member board as ``serve`` runs it, on the hub's clock, with its league syncs."""
    member = await open_member(folder, tag, hub)
    sync = LeagueSync(member.link)
    app = App(member.store, SteadyDoor(member.config), None, Nodes(member.config.server), sync)
    ways = await open_ways(app, detect_timeout=0.5)
    sync.start()
    return ServingMember(member.store, member.config, ways, sync)


async def door_mode_member(folder: Path, tag: str, hub: Hub) -> Path:
    """A member board run by a BBS in door mode: its sysop.toml (the path), its database
    made, its key added at the hub and the hub's key pinned, as `sysop league key` and
    `sysop league join` leave them."""
    folder.mkdir(parents=True, exist_ok=True)
    path = write_config(folder)
    league = f'\n[league]\nhub = "{hub.url}"\ntag = "{tag}"\nname = "Board {tag}"\n'
    path.write_text(path.read_text(encoding="utf-8") + league, encoding="utf-8")
    member = await open_member(folder, tag, hub)
    await member.close()
    return path


async def reopen_hub(hub: Hub) -> Hub:
    """The hub started again on its database (its ways were closed)."""
    await hub.store.close()
    return await open_hub(hub.config.server.database.parent, hub.clock)
