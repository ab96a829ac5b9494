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
from jobs.deps import Deps
from jobs.llm.gateway import build_gateway
from jobs.queue import open_pool
from jobs.review.model import Gateway
from tests.support.processes import forget_queue_async
from tests.support.review_jobs import review_deps
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


@pytest.fixture
def gateway(model_settings: Settings, http: httpx.AsyncClient) -> Gateway:
    """The model gateway a worker opens at start-up, aimed at the scripted model server."""
    return build_gateway(model_settings, http=http)


@pytest_asyncio.fixture
async def deps(
    neo4j_driver: AsyncDriver, model_settings: Settings, pool: ArqRedis, scope: str
) -> AsyncIterator[Deps]:
    """The deps a review use case gets from the API or a worker, app switch on, lease free."""
    async with review_deps(neo4j_driver, model_settings, pool) as deps:
        yield deps


@pytest_asyncio.fixture
async def offline_deps(
    neo4j_driver: AsyncDriver, services: Settings, pool: ArqRedis, scope: str
) -> AsyncIterator[Deps]:
    """Review deps and workers with no model configured (the offline rule model), in the
    examples' timezone (Asia/Shanghai)."""
    settings = services.model_copy(update={"model_base_url": None, "timezone": "Asia/Shanghai"})
    async with review_deps(neo4j_driver, settings, pool) as deps:
        yield deps
