"""`storyGraphDiff` at 1x and 10x history (its cost grows with the changes
returned, not with the scope).

    .venv/bin/python -m bench.diff_scale [--entities 1000] [--changes 200] [--runs 30]

Writes two scopes through the repository's own UNWIND write queries: the page bench's shape
(`bench.page_scale.seed`: entities with 3 versions, 2 relations and 3 events per entity, 2
versions each) at 1x and 10x, and then, in both, the same window of `--changes` entity
revisions a month later. Times the first page (50) and a deep page (after 150) of the diff
over that window in process (the use case's repository, no HTTP), rounds alternated between
the two scopes, and prints p50 at 1x and 10x, the ratio (target <= 1.3) and the PROFILE db
hits of the page statement at both sizes (target ratio <= 1.3). The floor beside it: the
bare index range read of the window's versions (`MATCH (v:EntityVersion) WHERE scope AND
recorded_at in the window RETURN count(v)`), through the same driver.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from datetime import timedelta
from typing import Any

from neo4j import AsyncDriver

from bench.page_scale import START, _write, drop, seed
from bench.story_profile import db_hits
from engine.settings import Settings
from engine.story.models import Actor, Entity
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.diff import StoryDiff
from graph.temporal import to_epoch_us
from local.redis_server import with_redis_password

WINDOW = START + timedelta(days=30)
SINCE, UNTIL = WINDOW - timedelta(hours=1), WINDOW + timedelta(days=1)
FLOOR = """MATCH (v:EntityVersion)
WHERE v.scope = $scope AND v.recorded_at > $since AND v.recorded_at <= $until
RETURN count(v) AS n"""


async def revise(driver: AsyncDriver, database: str, scope: str, changes: int) -> None:
    """Version 4 of the first `changes` entities, recorded inside the window."""
    rows = [
        Entity(
            id=f"{scope}:entity:{i:06d}",
            scope=scope,
            seq=4,
            recorded_at=WINDOW + timedelta(seconds=i),
            by=Actor.user("bench"),
            name=f"revised {i}",
            kind="person",
            description="changed in the window",
        )
        for i in range(changes)
    ]
    await _write(driver, database, "entity", list(rows))


async def timed(call: Any) -> float:
    t0 = time.perf_counter()
    await call()
    return (time.perf_counter() - t0) * 1000


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entities", type=int, default=1000)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    settings = with_redis_password(Settings.from_env())
    driver = open_driver(settings)
    db = settings.neo4j_database
    await migrate(driver, db)
    await driver.execute_query("CALL db.awaitIndexes(300)", database_=db)
    store = StoryDiff(driver, db)
    run_id = uuid.uuid4().hex[:8]
    scopes = {1: f"bench-diff-{run_id}-x1", 10: f"bench-diff-{run_id}-x10"}
    try:
        for factor, scope in scopes.items():
            await seed(driver, db, scope, args.entities * factor)
            await revise(driver, db, scope, args.changes)
        first = await store.page(scopes[1], SINCE, UNTIL, None, 150)
        last = first.items[-1]
        deep = (to_epoch_us(last.changed_at), last.object_id)
        print(
            f"history: {args.entities} and {args.entities * 10} entities (3 versions each, "
            f"2 relations and 3 events per entity); the same {args.changes} revisions in the window"
        )
        print(f"{'diff page':28} {'p50 1x':>9} {'p50 10x':>9} {'ratio':>6} "
              f"{'hits 1x':>8} {'hits 10x':>9} {'ratio':>6}")  # fmt: skip
        text = queries().text("story/diff_page")
        for label, after in (("first 50", None), ("50 after 150", deep)):
            times: dict[int, list[float]] = {1: [], 10: []}
            for _ in range(args.runs):
                for factor, scope in scopes.items():

                    async def call(
                        scope: str = scope, after: tuple[int, str] | None = after
                    ) -> None:
                        page = await store.page(scope, SINCE, UNTIL, after, 50)
                        assert len(page.items) == 50

                    times[factor].append(await timed(call))
            hits = {}
            for factor, scope in scopes.items():
                params = StoryDiff.page_params(scope, SINCE, UNTIL, after, 50)
                _, summary, _ = await driver.execute_query("PROFILE " + text, params, database_=db)
                hits[factor] = db_hits(summary.profile)
            p1, p10 = statistics.median(times[1]), statistics.median(times[10])
            print(
                f"{label:28} {p1:8.1f}ms {p10:8.1f}ms {p10 / p1:6.2f} "
                f"{hits[1]:8d} {hits[10]:9d} {hits[10] / max(hits[1], 1):6.2f}"
            )
        floor: dict[int, list[float]] = {1: [], 10: []}
        for _ in range(args.runs):
            for factor, scope in scopes.items():

                async def bare(scope: str = scope) -> None:
                    await driver.execute_query(
                        FLOOR, scope=scope, since=SINCE, until=UNTIL, database_=db
                    )

                floor[factor].append(await timed(bare))
        f1, f10 = statistics.median(floor[1]), statistics.median(floor[10])
        print(f"{'floor: window range read':28} {f1:8.1f}ms {f10:8.1f}ms {f10 / f1:6.2f}")
    finally:
        for scope in scopes.values():
            await drop(driver, db, scope)
        await driver.close()


if __name__ == "__main__":
    asyncio.run(main())
