"""Watch integration fixtures: a job ctx built like the worker's (pointed at the shared
scripted model server, or offline), a second scope, seeded sources.

The checker job runs in the test's event loop against the real Neo4j and talks HTTP to the
scripted OpenAI-compatible server on loopback; nothing is monkeypatched.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest_asyncio
from neo4j import AsyncDriver

from engine.settings import Settings
from jobs.worker import worker_context
from tests.support.scripted_model import ScriptedModelServer
from tests.support.watch_world import World, seed_world


@pytest_asyncio.fixture
async def ctx(
    neo4j_driver: AsyncDriver, settings: Settings, model_server: ScriptedModelServer
) -> AsyncIterator[dict[str, Any]]:
    """What the arq worker puts into a job's ctx (`worker_context`), pointed at the shared
    scripted model server."""
    configured = settings.model_copy(
        update={
            "model_base_url": model_server.base_url,
            "model_name": "scripted-checker",
        }
    )
    async with httpx.AsyncClient() as http:
        yield worker_context(configured, driver=neo4j_driver, http=http, worker_id="test-worker")


@pytest_asyncio.fixture
async def offline_ctx(
    neo4j_driver: AsyncDriver, settings: Settings
) -> AsyncIterator[dict[str, Any]]:
    """A worker ctx without a model endpoint: the gateway falls back to offline rules."""
    offline = settings.model_copy(update={"model_base_url": None})
    async with httpx.AsyncClient() as http:
        yield worker_context(offline, driver=neo4j_driver, http=http, worker_id="offline-test")


@pytest_asyncio.fixture
async def other_scope(neo4j_driver: AsyncDriver, settings: Settings) -> AsyncIterator[str]:
    """A second project, cleaned like `scope`."""
    name = f"test-other-{uuid.uuid4().hex[:10]}"
    yield name
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) DETACH DELETE n",
        scope=name,
        database_=settings.neo4j_database,
    )


@pytest_asyncio.fixture
async def world(neo4j_driver: AsyncDriver, settings: Settings, scope: str) -> World:
    return await seed_world(neo4j_driver, settings.neo4j_database, scope)
