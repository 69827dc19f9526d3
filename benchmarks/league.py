"""The InterBBS league's hub under load, on 127.0.0.1: how many results a second it accepts
(each replayed on its sealed deal, checked and kept), and how long a game takes from its end
on a member to its place on the hub's table.

A hub (its league API on an aiohttp port of its own, without the per-board rate limit, to
find what it can do) and ``--boards`` member boards run in this one process on a shared
clock. Each board's ``--callers`` callers play every deal of a ten-deal league contest
(twelve plays the hints choose, then resigned) with the hub away; then every board sends its
results at once and the accepted results a second are counted. Then one member, its syncs
running as ``serve`` runs them, ends ``--games`` games one after another, and each is timed
from its end to its row on the hub's table (the sync is woken by the game's end, as a visit
wakes it). Both figures include the members' own work (signing, building the requests) on
the same two cores as the hub.

    python -m benchmarks.league [--boards 4] [--callers 25] [--games 20]
        [--json benchmarks/results/league.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from aiohttp import web

from door.league.hub import HubLimits, LeagueHub
from door.league.member import LeagueSync
from door.league.signing import private_key_file
from door.store import Store
from tests.support.contests import Clock
from tests.support.league import (
    Hub,
    Member,
    declare,
    hub_config,
    league_contest,
    open_member,
    play_league_deal,
)

DEALS = 10


class _Ways:
    """What :class:`tests.support.league.Hub` reads of the ways: the web port, and close."""

    def __init__(self, runner: web.AppRunner, port: int) -> None:
        self.runner = runner
        self.web = self
        self.port = port

    async def close(self, grace: float = 0.5) -> None:
        await self.runner.cleanup()


async def open_bench_hub(folder: Path, clock: Clock) -> Hub:
    """A hub serving only the league's API, with no limit on a board's rate."""
    config = hub_config(folder)
    store = await Store.open(config.server.database, clock=clock)
    hub = LeagueHub(store, lambda: config, private_key_file(config.league_key), HubLimits(1e9, 1e9))
    app = web.Application()
    hub.add_routes(app)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = int(runner.addresses[0][1])
    return Hub(store, config, _Ways(runner, port), clock)  # type: ignore[arg-type]


async def accepted_per_second(folder: Path, boards: int, callers: int) -> dict[str, float]:
    hub = await open_bench_hub(folder / "hub", Clock())
    members: list[Member] = []
    try:
        await declare(hub, "Bench Cup", deals=DEALS)
        for index in range(boards):
            member = await open_member(folder / f"b{index}", f"B{index}", hub)
            members.append(member)
            await member.link.sync()
            contest = await league_contest(member)
            for number in range(1, DEALS + 1):
                await member.link.fetch_deal(contest, number)
            for caller in range(callers):
                user = await member.store.create_user(f"Caller{caller}", "secret words")
                for number in range(1, DEALS + 1):
                    await play_league_deal(member, user, contest, number)
        waiting = 0
        for member in members:
            waiting += len(await member.store.unsent_league_results(10**6))
        started = time.perf_counter()
        sent = await asyncio.gather(*(m.link.send_results() for m in members))
        seconds = time.perf_counter() - started
        accepted = sum(ok for ok, _ in sent)
        refused = sum(no for _, no in sent)
        assert accepted == waiting and refused == 0, (accepted, refused, waiting)
        return {"results": accepted, "seconds": seconds, "per_second": accepted / seconds}
    finally:
        for member in members:
            await member.close()
        await hub.close()


async def end_to_table(folder: Path, games: int) -> dict[str, float]:
    hub = await open_bench_hub(folder / "hub", Clock())
    member = await open_member(folder / "m", "M", hub)
    sync = LeagueSync(member.link)
    try:
        contest_at_hub = await declare(hub, "Latency Cup", deals=DEALS)
        await member.link.sync()
        contest = await league_contest(member)
        sync.start()
        times: list[float] = []
        for index in range(games):
            user = await member.store.create_user(f"Player{index}", "secret words")
            await play_league_deal(member, user, contest, 1 + index % DEALS)
            ended = time.perf_counter()
            sync.game_ended()
            while len(await hub.store.contest_table(contest_at_hub.id)) < index + 1:
                await asyncio.sleep(0.002)
            times.append(time.perf_counter() - ended)
        return {
            "games": games,
            "median_ms": 1000 * statistics.median(times),
            "worst_ms": 1000 * max(times),
        }
    finally:
        await sync.close()
        await member.close()
        await hub.close()


async def run(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as folder:
        rate = await accepted_per_second(Path(folder) / "rate", args.boards, args.callers)
        latency = await end_to_table(Path(folder) / "latency", args.games)
    return {"accepted": rate, "end_to_table": latency}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--callers", type=int, default=25)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    figures = asyncio.run(run(args))
    rate, latency = figures["accepted"], figures["end_to_table"]
    print(
        f"hub: {rate['results']:.0f} results accepted in {rate['seconds']:.2f} s "
        f"({rate['per_second']:.0f} a second, each replayed on its deal)"
    )
    print(
        f"a game's end on a member to its row on the hub's table: median "
        f"{latency['median_ms']:.1f} ms, worst {latency['worst_ms']:.1f} ms "
        f"over {latency['games']:.0f} games"
    )
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
