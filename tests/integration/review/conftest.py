"""Review tests: settings pointing at the shared scripted model server (`model_server`), an
arq pool, services bound to the session queue, and cleanup of the deployment-wide records
(lease, app settings) after every test. Helpers (clock, conversations, replies, a burst
worker) live in tests/support/review_jobs.py.

Everything a review writes carries the test's `scope` property, so the shared `scope`
fixture removes it; the lease and the app switch are keyed by this session's queue name,
so other sessions running against the same Neo4j never see them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.settings import Settings
from jobs.llm.gateway import build_gateway
from jobs.queue import open_pool
from jobs.review.services import ReviewServices
from tests.support.processes import forget_queue_async
from tests.support.review_jobs import BASE, clear_deployment
from tests.support.scripted_model import ScriptedModelServer


@pytest.fixture
def model_settings(services: Settings, model_server: ScriptedModelServer) -> Settings:
    return services.model_copy(update={"model_base_url": model_server.base_url})


@pytest_asyncio.fixture
async def pool(services: Settings) -> AsyncIterator[ArqRedis]:
    arq = await open_pool(services)
    yield arq
    await forget_queue_async(arq, services.queue_name)
    await arq.aclose()


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
