"""Review tests: a scripted model server, an arq pool, services bound to the session queue,
and cleanup of the deployment-wide records (lease, app settings) after every test.

Everything a review writes carries the test's `scope` property, so the shared `scope`
fixture removes it; the lease and the app switch are keyed by this session's queue name,
so other sessions running against the same Neo4j never see them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import pytest_asyncio
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.model.gateway import build_gateway
from engine.settings import Settings
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind
from jobs.queue import open_pool
from jobs.tasks.review_services import ReviewServices
from jobs.worker import create_worker
from tests.support.scripted_model import ScriptedModelServer, text

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)


@pytest.fixture(scope="session")
def model_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def scripted(model_server: ScriptedModelServer) -> Iterator[ScriptedModelServer]:
    model_server.reset()
    yield model_server
    model_server.reset()


@pytest.fixture
def model_settings(services: Settings, model_server: ScriptedModelServer) -> Settings:
    return services.model_copy(update={"model_base_url": model_server.base_url})


@pytest_asyncio.fixture
async def pool(services: Settings) -> AsyncIterator[ArqRedis]:
    arq = await open_pool(services)
    yield arq
    await arq.delete(f"arq:queue:{services.queue_name}", f"storygraph:pool:{services.queue_name}")
    await arq.aclose()


async def clear_deployment(driver: AsyncDriver, settings: Settings) -> None:
    await driver.execute_query(
        "MATCH (n) WHERE (n:ReviewLease AND n.key ENDS WITH $queue) "
        "OR (n:AppSettings AND n.key = $queue) DETACH DELETE n",
        queue=settings.queue_name,
        database_=settings.neo4j_database,
    )


@pytest_asyncio.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest_asyncio.fixture
async def svc(
    neo4j_driver: AsyncDriver,
    model_settings: Settings,
    pool: ArqRedis,
    http: httpx.AsyncClient,
    scope: str,
) -> AsyncIterator[ReviewServices]:
    """Review services as the API and a worker see them, app switch on, lease free."""
    await clear_deployment(neo4j_driver, model_settings)
    services = ReviewServices(
        settings=model_settings,
        driver=neo4j_driver,
        worker_id="test-api",
        pool=pool,
        gateway=build_gateway(model_settings, http=http),
    )
    await services.app.put(
        (await services.app.get()).model_copy(update={"heartbeat_enabled": True}), now=BASE
    )
    yield services
    await clear_deployment(neo4j_driver, model_settings)


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
    svc: ReviewServices, scope: str, source_id: str, body: str, version: str = "v1"
) -> None:
    await svc.story.upsert_source(
        SourceInput(
            scope=scope, id=source_id, kind=SourceKind.CONVERSATION, version=version, text=body
        ),
        recorded_at=BASE,
    )


def leaf_reply(
    label: str, *, entities: list[dict[str, Any]] | None = None, at: datetime = BASE
) -> Any:
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
        )
    )


def nav_reply(summary: str = "本阶段：v2.0 提测推进") -> Any:
    return text(json.dumps({"summary": summary, "children": []}, ensure_ascii=False))


async def count(driver: AsyncDriver, settings: Settings, cypher: str, **params: Any) -> int:
    records, _, _ = await driver.execute_query(cypher, database_=settings.neo4j_database, **params)
    return int(records[0][0])
