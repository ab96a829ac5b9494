"""Page latency at 1x and 10x the scope size (a page costs what it returns).

    .venv/bin/python -m bench.page_scale [--entities 1000] [--runs 30] [--work-items 1000]

Writes two scopes of the same shape, one 10x the other (entities with 3 versions each, two
relations and three events per entity), through the repository's own UNWIND write queries,
then times, in process against the real Neo4j (the GraphQL schema executed with the
project's driver, no HTTP):
  - `entities(first: 50)`, `relations(first: 50)`, `events(first: 50)`, and
    `entities(first: 50) { history }`, p50 at 1x and 10x and their ratio (target <= 1.3);
  - the read the lists made  (the whole scope through `storyGraph`'s
    statements, sorted and paged in Python), for comparison;
  - the work lists (concerns, concern messages, watches, supervision runs, activity, as an
    admin and as a token limited to the scope): `--work-items` and 10x as many of each kind
    written by one UNWIND in the properties their pages read, then each list's named page
    statement through the driver, first page of 50, p50 at 1x and 10x side by side, ratio
    (target <= 1.3) and PROFILE db hits.
Neo4j comes from the environment as for `storygraph serve`. The scopes are removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import AsyncDriver, Query

from api.context import Context
from api.schema import build_schema
from bench.story_profile import db_hits
from engine.clock import FOREVER, utcnow
from engine.principal import OPEN_PRINCIPAL
from engine.settings import Settings
from engine.story.models import Actor, Entity, Event, Relation, Version
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.codec import version_row
from graph.story.repository import StoryRepository
from local.redis_server import with_redis_password

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
        # the outer transaction lasts the whole deletion: longer than the 30 s default on a
        # busy machine (bench.datagen's cleanup has the same bound)
        result = await session.run(
            Query(
                "MATCH (n {scope: $scope}) CALL (n) { DETACH DELETE n } "
                "IN TRANSACTIONS OF 5000 ROWS",
                timeout=3600,
            ),
            scope=scope,
        )
        await result.consume()


# --- the work lists (concerns, concern messages, watches, runs, activity) ---------------

WORK_T0 = datetime(2026, 3, 1, tzinfo=UTC)
WORK_PERSON = "p_boss"
WORK_LABELS = ("Concern", "Watch", "OutboxMessage", "SupervisionRun", "HeartbeatRun")

# One node of each listed kind per minute, with the properties their pages seek, filter,
# order and return (the runs' deployment is named after the scope unless given).
WORK_SEED = """
UNWIND range($lo, $hi) AS i
WITH i, $t0 + duration({minutes: i}) AS t, $scope + '-' + right('00000' + toString(i), 6) AS k
CREATE (:Concern {scope: $scope, concern_id: 'con-' + k, status: 'waiting_reply',
                  priority: 'medium', created_at: t, doc: '{"id": "con-' + k + '"}'})
CREATE (:Watch {scope: $scope, id: 'w-' + k, created_at: t, status: 'active'})
CREATE (:OutboxMessage {scope: $scope, recipient_person_id: $person, key: 'o-' + k, seq: i,
                        status: 'sent', deliver_at: t, concern_id: 'con-' + k})
CREATE (:SupervisionRun {deployment: $deployment, scope: $scope, scope_key: $scope,
                         id: 'r-' + k, created_at: t})
CREATE (:HeartbeatRun {deployment: $deployment, scope: $scope, scope_key: $scope, id: 'h-' + k,
                       claim_key: 'h-' + k, claimed_at: t + duration({seconds: 30}),
                       doc: '{"id": "h-' + k + '"}'})
"""


def work_first_pages(scope: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each work list's page statement and the parameters of its first page (no filter): the
    runs and activity as an admin lists them (every scope of the deployment) and as a caller
    limited to the scope lists them (`*_in_scopes`)."""
    concern = {"statuses": None, "priorities": None, "person_id": None}
    activity: dict[str, Any] = {"deployment": scope, "after_at": None, "after_key": None}
    activity |= {"scope_key": None, "config_id": None, "since": None, "until": None}
    runs: dict[str, Any] = {
        "deployment": scope,
        "scope_key": None,
        "after_created_at": None,
        "after_id": None,
    }
    return {
        "concerns": (
            "concern/page",
            {"scope": scope, **concern, "after_created_at": None, "after_id": None},
        ),
        "watches": (
            "watch/page_watches",
            {"scope": scope, "after_created_at": None, "after_id": None},
        ),
        "concernMessages": (
            "concern/outbox_page_recipient",
            {"scope": scope, "person_id": WORK_PERSON, "statuses": None}
            | {"after_deliver_at": None, "after_seq": None, "after_key": None},
        ),
        "supervisionRuns": ("review/runs_list", runs),
        "supervisionRuns in scopes": ("review/runs_list_in_scopes", {**runs, "scopes": [scope]}),
        "activity": ("review/activity_page", activity),
        "activity in scopes": ("review/activity_page_in_scopes", {**activity, "scopes": [scope]}),
    }


async def seed_work_lists(
    driver: AsyncDriver,
    database: str,
    scope: str,
    n: int,
    *,
    deployment: str | None = None,
    start_at: datetime = WORK_T0,
) -> None:
    """`n` concerns, watches, messages to one person, supervision runs and heartbeat runs
    (activity rows), one a minute from `start_at`."""
    for start in range(0, n, BATCH):
        await driver.execute_query(
            WORK_SEED,
            lo=start + 1,
            hi=min(n, start + BATCH),
            scope=scope,
            deployment=deployment or scope,
            t0=start_at,
            person=WORK_PERSON,
            database_=database,
        )


async def drop_work_lists(driver: AsyncDriver, database: str, scope: str) -> None:
    for label in WORK_LABELS:
        async with driver.session(database=database) as session:  # IN TRANSACTIONS
            result = await session.run(
                f"MATCH (n:{label}) WHERE n.scope = $scope "
                "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS",
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


async def side_by_side(
    runs: Mapping[int, Callable[[], Awaitable[Any]]], rounds: int
) -> dict[int, float]:
    """p50 of each size's read, the sizes interleaved round by round (the order alternates),
    so a slow moment of the machine falls on both: a page of a few ms is compared at 1x and
    10x, not before and after whatever else the machine did in between."""
    for run in runs.values():
        await run()  # warm
    took: dict[int, list[float]] = {size: [] for size in runs}
    order = list(runs)
    for i in range(rounds):
        for size in order if i % 2 == 0 else reversed(order):
            t0 = time.perf_counter()
            await runs[size]()
            took[size].append((time.perf_counter() - t0) * 1000)
    return {size: statistics.median(t) for size, t in took.items()}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entities", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--old-runs", type=int, default=3)
    parser.add_argument("--work-items", type=int, default=1000, help="rows of each work list")
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
            calls = {}
            for factor, scope in scopes.items():

                async def run(scope: str = scope, text: str = text) -> None:
                    context.loaders.clear()
                    q = f"query($s: String!) {text}"
                    result = await schema.execute(
                        q, variable_values={"s": scope}, context_value=context
                    )
                    assert result.errors is None, result.errors

                calls[factor] = run
            p50 = await side_by_side(calls, args.runs)
            print(f"{label:40} {p50[1]:10.1f} {p50[10]:10.1f} {p50[10] / p50[1]:7.2f}")
        repo = StoryRepository(driver, db)
        old = {}
        for factor, scope in scopes.items():

            async def whole(scope: str = scope) -> None:
                graph = await repo.story_graph(scope, as_of=utcnow())
                sorted(graph.entities, key=lambda e: (e.name, e.id))[:50]

            old[factor] = await timed(whole, args.old_runs)
        print(
            f"{'before: whole scope, paged in Python':40} {old[1]:10.1f} {old[10]:10.1f} "
            f"{old[10] / old[1]:7.2f}"
        )
        await work_lists(driver, db, run_id, args.work_items, args.runs)
    finally:
        for scope in scopes.values():
            await drop(driver, db, scope)
        await driver.close()


async def work_lists(driver: AsyncDriver, db: str, run_id: str, items: int, runs: int) -> None:
    """Each work list's first page (50) at `items` and 10x `items` rows of its kind: p50 of
    the named statement through the driver, both sizes interleaved, and its PROFILE db hits
    (target ratio <= 1.3)."""
    scopes = {1: f"bench-work-{run_id}-x1", 10: f"bench-work-{run_id}-x10"}
    try:
        for factor, scope in scopes.items():
            await seed_work_lists(driver, db, scope, items * factor)
        print(f"\nwork lists: {items} and {items * 10} of each kind; first page of 50")
        print(f"{'read':60} {'p50 1x':>10} {'p50 10x':>10} {'ratio':>7} {'db hits 1x/10x':>16}")
        for name in work_first_pages(""):
            calls, hits = {}, {}
            for factor, scope in scopes.items():
                key, params = work_first_pages(scope)[name]
                text = queries().text(key)

                async def run(text: str = text, params: dict[str, Any] = params) -> None:
                    await driver.execute_query(text, params, limit=50, database_=db)

                calls[factor] = run
                _, summary, _ = await driver.execute_query(
                    "PROFILE " + text, params, limit=50, database_=db
                )
                hits[factor] = db_hits(summary.profile)
            p50 = await side_by_side(calls, runs)
            label = f"{name} ({key})"
            print(
                f"{label:60} {p50[1]:10.2f} {p50[10]:10.2f} "
                f"{p50[10] / p50[1]:7.2f} {hits[1]:>7}/{hits[10]:<8}"
            )
    finally:
        for scope in scopes.values():
            await drop_work_lists(driver, db, scope)


if __name__ == "__main__":
    asyncio.run(main())
