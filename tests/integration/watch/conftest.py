"""Watch integration fixtures: the scripted model server, a job ctx, seeded sources.

The checker job runs in the test's event loop against the real Neo4j and talks HTTP to the
scripted OpenAI-compatible server on loopback; nothing is monkeypatched.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from engine.settings import Settings
from tests.integration.watch.helpers import World, seed_world
from tests.support.scripted_model import ScriptedModelServer


@pytest.fixture(scope="session")
def _watch_model_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def model_server(_watch_model_server: ScriptedModelServer) -> Iterator[ScriptedModelServer]:
    _watch_model_server.reset()
    yield _watch_model_server
    _watch_model_server.reset()


@pytest.fixture
def ctx(neo4j_driver: AsyncDriver, settings: Settings,
        model_server: ScriptedModelServer) -> dict[str, Any]:
    """What the arq worker puts into a job's ctx, pointed at the scripted model."""
    configured = settings.model_copy(update={
        "model_base_url": model_server.base_url, "model_name": "scripted-checker",
    })
    return {"settings": configured, "driver": neo4j_driver, "worker_id": "test-worker"}


@pytest.fixture
def offline_ctx(neo4j_driver: AsyncDriver, settings: Settings) -> dict[str, Any]:
    """A worker ctx without a model endpoint: the gateway falls back to offline rules."""
    return {"settings": settings.model_copy(update={"model_base_url": None}),
            "driver": neo4j_driver, "worker_id": "offline-test"}


@pytest_asyncio.fixture
async def other_scope(neo4j_driver: AsyncDriver, settings: Settings) -> AsyncIterator[str]:
    """A second project, cleaned like `scope`."""
    name = f"test-other-{uuid.uuid4().hex[:10]}"
    yield name
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) DETACH DELETE n", scope=name,
        database_=settings.neo4j_database,
    )


@pytest_asyncio.fixture
async def world(neo4j_driver: AsyncDriver, settings: Settings, scope: str) -> World:
    return await seed_world(neo4j_driver, settings.neo4j_database, scope)
