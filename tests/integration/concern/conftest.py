"""Concern integration fixtures: a per-test arq queue and pool, a job ctx built by the
worker's own `worker_context` (driver, settings, redis, http, a counting offline gateway),
raising a concern and draining the queue. The moved clock (March 2035) and the builders are
in tests/support/concern_jobs.py.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import httpx
import pytest
import pytest_asyncio
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.model import Concern, RaiseConcernInput
from engine.principal import WORKER
from engine.settings import Settings
from jobs.concern.commands import raise_concern
from jobs.queue import open_pool
from jobs.worker import worker_context
from tests.support.concern_jobs import (
    T0,
    CountingGateway,
    concern_deps,
    delegation,
    upsert_people_of,
)


@pytest.fixture
def queue_name(settings: Settings) -> str:
    return f"{settings.queue_name}:concern:{uuid.uuid4().hex[:8]}"


@pytest_asyncio.fixture
async def pool(services: Settings) -> AsyncIterator[ArqRedis]:
    redis = await open_pool(services)
    yield redis
    await redis.aclose()


@pytest_asyncio.fixture
async def job_ctx(
    neo4j_driver: AsyncDriver, settings: Settings, pool: ArqRedis, queue_name: str
) -> AsyncIterator[dict[str, Any]]:
    async with httpx.AsyncClient() as http:
        yield worker_context(
            settings.model_copy(update={"queue_name": queue_name}),
            driver=neo4j_driver,
            http=http,
            worker_id=f"test-{uuid.uuid4().hex[:6]}",
            redis=pool,
            gateway=CountingGateway(),
        )


@pytest.fixture
def raise_one(
    neo4j_driver: AsyncDriver, settings: Settings, pool: ArqRedis, queue_name: str, scope: str
):  # type: ignore[no-untyped-def]
    async def go(data: RaiseConcernInput | None = None, *, now: datetime = T0) -> Concern:
        deps = concern_deps(neo4j_driver, settings, pool, queue_name)
        data = data or delegation()
        await upsert_people_of(deps, scope, data)
        return await raise_concern(deps, WORKER, data, scope=scope, at=now)

    return go


@pytest.fixture
def drain(settings: Settings, queue_name: str):  # type: ignore[no-untyped-def]
    """Run a real arq worker in burst mode over this test's queue until it is empty; the
    worker builds its own gateway from the settings (offline, or `model_base_url`)."""
    from arq.worker import Worker

    from jobs.worker import create_worker

    async def go(**overrides: Any) -> Worker:
        worker_settings = settings.model_copy(update={"queue_name": queue_name, **overrides})
        worker = create_worker(worker_settings, burst=True, crons=False)
        try:
            await worker.main()
        finally:
            await worker.close()
        assert worker.jobs_failed == 0
        return worker

    return go
