"""Real services for integration tests: a migrated Neo4j driver and a unique scope per test.

The services are the ones `make test` started (or NEO4J_URI / REDIS_URL point at); the
session fixture `services` starts the project's own local ones when they are not running.
Reviews run here too: an arq pool on the session queue, and the deps of a review with the
offline rule model (`offline_deps`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.settings import Settings
from jobs.deps import Deps
from jobs.queue import open_pool
from tests.support.processes import forget_queue_async
from tests.support.review_jobs import review_deps


@pytest_asyncio.fixture
async def pool(services: Settings) -> AsyncIterator[ArqRedis]:
    arq = await open_pool(services)
    yield arq
    await forget_queue_async(arq, services.queue_name)
    await arq.aclose()


@pytest_asyncio.fixture
async def offline_deps(
    neo4j_driver: AsyncDriver, services: Settings, pool: ArqRedis, scope: str
) -> AsyncIterator[Deps]:
    """Review deps and workers with no model configured (the offline rule model), in the
    examples' timezone (Asia/Shanghai)."""
    settings = services.model_copy(update={"model_base_url": None, "timezone": "Asia/Shanghai"})
    async with review_deps(neo4j_driver, settings, pool) as deps:
        yield deps
