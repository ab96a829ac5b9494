"""Page latency at 1x and 10x the scope size (issue 14 item 1: a page costs what it returns).

    .venv/bin/python -m bench.page_scale [--entities 1000] [--runs 30]

Writes two scopes of the same shape, one 10x the other (entities with 3 versions each, two
relations and three events per entity), through the repository's own UNWIND write queries,
then times, in process against the real Neo4j (the GraphQL schema executed with the
project's driver, no HTTP):
  - `entities(first: 50)`, `relations(first: 50)`, `events(first: 50)`, and
    `entities(first: 50) { history }`, p50 at 1x and 10x and their ratio (target <= 1.3);
  - the read the lists made before issue 14 (the whole scope through `storyGraph`'s
    statements, sorted and paged in Python), for comparison.
Neo4j comes from the environment as for `storygraph serve`. The scopes are removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import AsyncDriver

from api.auth import OPEN_PRINCIPAL
from api.context import Context
from api.schema import build_schema
from engine.settings import Settings
from engine.story.clock import FOREVER
from engine.story.models import Actor, Entity, Event, Relation, Version
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.codec import version_row
from graph.story.repository import StoryRepository
from jobs.localredis import with_redis_password

START = datetime(2025, 1, 1, tzinfo=UTC)
BATCH = 2000


def _versions(
    cls: type[Version],
    n: int,
    versions: int,
    fields: Callable[[int], dict[str, Any]],
    scope: str,
    stem: str,
) -> list[list[Version]]:
    """`versions` waves of `n` objects; wave k is seq k+1 of every object."""
    waves = []
    for k in range(versions):
        wave = []
        for i in range(n):
            wave.append(
                cls.model_validate(
                    {
                        "id": f"{scope}:{stem}:{i:06d}",
                        "scope": scope,
                        "seq": k + 1,
                        "recorded_at": START + timedelta(days=k, seconds=i),
                        "by": Actor.run("bench"),
                        **fields(i),
                    }
                )
            )
        waves.append(wave)
    return waves


async def _write(driver: AsyncDriver, database: str, stem: str, rows: list[Version]) -> None:
    text = queries().text(f"story/write_{stem}_versions")
    for at in range(0, len(rows), BATCH):
        chunk = [version_row(v) for v in rows[at : at + BATCH]]
        await driver.execute_query(text, rows=chunk, forever=FOREVER, database_=database)


async def seed(driver: AsyncDriver, database: str, scope: str, entities: int) -> None:
    """`entities` entities (3 versions), 2 relations and 3 events (2 versions) per entity."""
    n = entities
    plans: list[tuple[str, type[Version], int, int, Callable[[int], dict[str, Any]]]] = [
        ("entity", Entity, n, 3, lambda i: {"name": f"n{(i * 7919) % n:06d}", "kind": "person"}),
        (
            "relation",
            Relation,
            2 * n,
            2,
            lambda i: {
                "from_id": f"{scope}:entity:{i % n:06d}",
                "to_id": f"{scope}:entity:{(i * 31 + 1) % n:06d}",
                "type": f"t{i % 5}",
            },
        ),
        (
            "event",
            Event,
            3 * n,
            2,
            lambda i: {"title": f"e{i}", "at": START + timedelta(minutes=i), "result_id": "r"},
        ),
    ]
    for stem, cls, count, versions, fields in plans:
        for wave in _versions(cls, count, versions, fields, scope, stem):
            await _write(driver, database, stem, wave)


async def drop(driver: AsyncDriver, database: str, scope: str) -> None:
    async with driver.session(database=database) as session:  # IN TRANSACTIONS: auto-commit
        result = await session.run(
            "MATCH (n {scope: $scope}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS",
            scope=scope,
        )
        await result.consume()


READS = {
    "entities(first: 50)": "{ entities(scope: $s, first: 50) { edges { node { id name } } } }",
    "relations(first: 50)": "{ relations(scope: $s, first: 50) { edges { node { id type } } } }",
    "events(first: 50)": "{ events(scope: $s, first: 50) { edges { node { id at } } } }",
    "entities(first: 50) with history": (
        "{ entities(scope: $s, first: 50) { edges { node { id history { seq recordedAt } } } } }"
    ),
}


async def timed(run: Callable[[], Awaitable[Any]], runs: int) -> float:
    await run()  # warm
    took = []
    for _ in range(runs):
        t0 = time.perf_counter()
        await run()
        took.append((time.perf_counter() - t0) * 1000)
    return statistics.median(took)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entities", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--old-runs", type=int, default=3)
    args = parser.parse_args()
    settings = with_redis_password(Settings.from_env())
    driver = open_driver(settings)
    db = settings.neo4j_database
    await migrate(driver, db)
    await driver.execute_query("CALL db.awaitIndexes(300)", database_=db)
    schema = build_schema(settings)
    context = Context(
        request=None,  # type: ignore[arg-type]  # no HTTP request: the bench calls the schema in-process
        settings=settings,
        driver=driver,
        pool=None,  # type: ignore[arg-type]
        principal=OPEN_PRINCIPAL,
    )
    run_id = uuid.uuid4().hex[:8]
    scopes = {1: f"bench-pages-{run_id}-x1", 10: f"bench-pages-{run_id}-x10"}
    try:
        for factor, scope in scopes.items():
            await seed(driver, db, scope, args.entities * factor)
        print(
            f"entities per scope: {args.entities} and {args.entities * 10} "
            "(3 versions each; 2 relations and 3 events per entity, 2 versions each)"
        )
        print(f"{'read':40} {'p50 1x':>10} {'p50 10x':>10} {'ratio':>7}")
        for label, text in READS.items():
            p50 = {}
            for factor, scope in scopes.items():

                async def run(scope: str = scope, text: str = text) -> None:
                    context.loaders.clear()
                    q = f"query($s: String!) {text}"
                    result = await schema.execute(
                        q, variable_values={"s": scope}, context_value=context
                    )
                    assert result.errors is None, result.errors

                p50[factor] = await timed(run, args.runs)
            print(f"{label:40} {p50[1]:10.1f} {p50[10]:10.1f} {p50[10] / p50[1]:7.2f}")
        repo = StoryRepository(driver, db)
        old = {}
        for factor, scope in scopes.items():

            async def whole(scope: str = scope) -> None:
                graph = await repo.story_graph(scope)
                sorted(graph.entities, key=lambda e: (e.name, e.id))[:50]

            old[factor] = await timed(whole, args.old_runs)
        print(
            f"{'before: whole scope, paged in Python':40} {old[1]:10.1f} {old[10]:10.1f} "
            f"{old[10] / old[1]:7.2f}"
        )
    finally:
        for scope in scopes.values():
            await drop(driver, db, scope)
        await driver.close()


if __name__ == "__main__":
    asyncio.run(main())
