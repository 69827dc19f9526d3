"""A contest game is on its contest's table alone: never on its level's high scores, the
standings or the caller's statistics (the contest's deals are everyone's, and the close
resigns what is left unfinished, a loss nobody chose)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from door.config import Config
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
