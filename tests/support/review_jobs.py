"""Review helpers for tests over real Neo4j, Redis and the scripted model: the clock `BASE`,
conversations to push, scripted leaf and navigation replies, a burst-mode worker, counts, and
cleanup of the deployment-wide records (lease, app settings) of this session's queue."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.principal import WORKER
from engine.review import lifecycle as lc
from engine.review.activity import Activity
from engine.review.types import Scope
from engine.settings import Settings
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind
from jobs.deps import Deps
from jobs.review import reads
from jobs.review.common import app_of, runs_of
from jobs.review.runs import Opened, open_run
from jobs.signal.record import signal_store
from jobs.story.common import story_repo
from jobs.worker import create_worker
from tests.support.scripted_model import text

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)


async def clear_deployment(driver: AsyncDriver, settings: Settings) -> None:
    await driver.execute_query(
        "MATCH (n) WHERE (n:ReviewLease AND n.key ENDS WITH $queue) "
        "OR (n:AppSettings AND n.key = $queue) DETACH DELETE n",
        queue=settings.queue_name,
        database_=settings.neo4j_database,
    )


@asynccontextmanager
async def review_deps(
    driver: AsyncDriver, settings: Settings, pool: ArqRedis | None
) -> AsyncIterator[Deps]:
    """The deps a review use case gets from the API or a worker: the app switch on, the
    deployment's lease and app settings cleared before and after."""
    await clear_deployment(driver, settings)
    deps = Deps(settings=settings, driver=driver, pool=pool, worker_id="test-api")
    app = app_of(deps)
    await app.put((await app.get()).model_copy(update={"heartbeat_enabled": True}), now=BASE)
    try:
        yield deps
    finally:
        await clear_deployment(driver, settings)


async def run_worker(settings: Settings) -> None:
    """A real arq worker in burst mode: runs every queued job, then returns."""
    worker = create_worker(settings, burst=True)
    try:
        await worker.async_run()
    finally:
        await worker.close()


def conversation(n: int, *, start: datetime = BASE, step: timedelta = timedelta(minutes=3)) -> str:
    people = ["张三", "李四", "王五"]
    lines = []
    for i in range(n):
        at = (start + i * step).isoformat()
        lines.append(
            f"[{at}] {people[i % 3]}: 第{i + 1}条：v2.0 提测进展，问题 #{100 + i} 已处理\n"
        )
    return "".join(lines)


def per_batch_for(body: str, batches: int) -> int:
    """A per-batch budget that packs `body`'s messages into exactly `batches` leaf batches."""
    lines = body.splitlines(keepends=True)
    size = -(-len(lines) // batches)
    return max(sum(len(x) for x in lines[i : i + size]) for i in range(0, len(lines), size))


async def push_conversation(
    deps: Deps, scope: str, source_id: str, body: str, version: str = "v1"
) -> None:
    await story_repo(deps).upsert_source(
        SourceInput(
            scope=scope, id=source_id, kind=SourceKind.CONVERSATION, version=version, text=body
        ),
        now=BASE,
    )


def leaf_reply(
    label: str,
    *,
    entities: list[dict[str, Any]] | None = None,
    at: datetime = BASE,
    grounded_in: tuple[str, ...] = (),
) -> Any:
    """A leaf answer; with `grounded_in`, given only when the request carries those texts."""
    return text(
        json.dumps(
            {
                "facts": [
                    {
                        "text": f"{label}：v2.0 提测推进",
                        "at": at.isoformat(),
                        "entities": [e["ref"] for e in entities or []],
                    }
                ],
                "entities": entities or [],
                "summary": label,
            },
            ensure_ascii=False,
        ),
        grounded_in=grounded_in,
    )


def nav_reply(summary: str = "本阶段：v2.0 提测推进", grounded_in: tuple[str, ...] = ()) -> Any:
    """A navigation answer; with `grounded_in`, given only when the request carries those
    texts (the summaries it merges)."""
    return text(
        json.dumps({"summary": summary, "children": []}, ensure_ascii=False),
        grounded_in=grounded_in,
    )


async def count(driver: AsyncDriver, settings: Settings, cypher: str, **params: Any) -> int:
    records, _, _ = await driver.execute_query(cypher, database_=settings.neo4j_database, **params)
    return int(records[0][0])


async def scope_activity(deps: Deps, scope: str) -> list[Activity]:
    """The first page of `activity(scope)`, newest first, as an all-scope caller reads it."""
    page = await reads.activity(
        deps,
        WORKER,
        statuses=None,
        scope=Scope.projects(scope),
        config_id=None,
        since=None,
        until=None,
        first=50,
        after=None,
        with_total=False,
    )
    return page.items


async def review_around_now(deps: Deps, scope: str) -> lc.RunOutcome | None:
    """A manual review of the hour around now, run to its end by a burst worker (with the
    effect jobs it enqueued); its outcome."""
    now = utcnow()
    got = await open_run(
        deps, Scope.projects(scope), interval=(now - timedelta(hours=1), now + timedelta(hours=1))
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)  # the review, then the effect jobs it enqueued
    run = (await runs_of(deps).get(got.run.run_id)).run
    assert run.result_id, run
    return run.outcome


async def snapshot(deps: Deps, scope: str) -> tuple[dict[str, str], list[str], int]:
    """(event id -> title, signal kinds, relation count) as of now."""
    graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
    signals = (await signal_store(deps).page(scope, as_of=utcnow(), first=50)).items
    return (
        {e.id: e.title for e in graph.events},
        sorted(str(s.kind) for s in signals),
        len(graph.relations),
    )
