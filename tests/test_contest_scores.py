"""A contest game is on its contest's table alone: never on its level's high scores, the
standings or the caller's statistics (the contest's deals are everyone's, and the close
resigns what is left unfinished, a loss nobody chose)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from door.bulletin import gather, render
from door.config import Config
from door.contests import keep_contests_on_time
from door.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


async def test_contest_games_stay_off_the_levels_lists(tmp_path) -> None:
    clock = Clock()
    level = Config().level(1)
    async with Store.open(tmp_path / "door.db", clock=clock) as store:
        contest = await store.declare_contest(
            "Cup", level, 2, clock.now, clock.now + timedelta(days=1)
        )
        ann = await store.create_user("Ann", "secret-one1")
        # Ann resigns a contest deal and leaves the other begun: the close resigns it.
        game_id, game = await store.start_contest_game(ann.id, contest, 1, level)
        game.play("V")
        await store.record_play(game_id, game)
        game.resign()
        await store.finish_game(game_id, game)
        await store.start_contest_game(ann.id, contest, 2, level)
        clock.now = contest.closes + timedelta(minutes=1)
        await store.settle_contests()

        assert [row.alias for row in await store.contest_table(contest.id)] == ["Ann"]
        assert await store.high_scores(level) == []
        assert await store.standings() == []
        stats = await store.statistics(ann.id, level)
        assert stats.played == 0
        assert await store.recent_results(ann.id) == []
        assert await store.reset_scores(1) == 0


async def test_one_is_said_in_the_singular(tmp_path, caplog) -> None:
    clock = Clock()
    config = Config()
    level = config.level(1)
    async with Store.open(tmp_path / "door.db", clock=clock) as store:
        contest = await store.declare_contest(
            "Solo", level, 1, clock.now, clock.now + timedelta(days=1)
        )
        ann = await store.create_user("Ann", "secret-one1")
        await store.start_contest_game(ann.id, contest, 1, level)
        clock.now = contest.closes + timedelta(minutes=1)
        with caplog.at_level(logging.INFO, logger="door"):
            await keep_contests_on_time(store)
        assert "(1 unfinished game resigned by the close)" in caplog.text
        text = render(await gather(store, config), "ascii").decode("ascii")
        assert "Contest: Solo (1 deal, level 1," in text
