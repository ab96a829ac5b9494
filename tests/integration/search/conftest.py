"""Search over the real Neo4j: a story repository to write with, deps to search with, and
for hybrid search the prompt-grounded embeddings stand-in on loopback with deps that use it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import pytest_asyncio
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.story import StoryRepository
from jobs.deps import Deps
from jobs.llm.embeddings import OpenAIEmbeddingClient, build_embedder
from jobs.queue import open_pool
from tests.support.grounded_embeddings import (
    EMBED_DIMENSIONS,
    EMBED_MODEL,
    GroundedEmbeddingServer,
)
from tests.support.story import StepClock

# every test of the session embeds with one model and dimension (the vector index is one)


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def repo(neo4j_driver: AsyncDriver, settings: Settings) -> StoryRepository:
    return StoryRepository(neo4j_driver, settings.neo4j_database)


@pytest.fixture
def deps(neo4j_driver: AsyncDriver, settings: Settings, clock: StepClock) -> Deps:
    return Deps(settings=settings, driver=neo4j_driver, pool=None, clock=clock)


@pytest.fixture(scope="session")
def embedding_server() -> Iterator[GroundedEmbeddingServer]:
    with GroundedEmbeddingServer(EMBED_DIMENSIONS) as server:
        yield server


@pytest.fixture
def embeddings(embedding_server: GroundedEmbeddingServer) -> Iterator[GroundedEmbeddingServer]:
    """The stand-in, up and with a fresh log for the test."""
    embedding_server.down = False
    embedding_server.inputs.clear()
    yield embedding_server
    embedding_server.down = False


@pytest.fixture
def embedding_settings(settings: Settings, embeddings: GroundedEmbeddingServer) -> Settings:
    return settings.model_copy(
        update={
            "embedding_base_url": embeddings.base_url,
            "embedding_model": EMBED_MODEL,
            "embedding_dimensions": EMBED_DIMENSIONS,
            "embedding_batch_size": 4,
            "embedding_search_deadline_seconds": 2.0,
            "search_min_similarity": 0.3,
        }
    )


@pytest_asyncio.fixture
async def embedder(embedding_settings: Settings) -> AsyncIterator[OpenAIEmbeddingClient]:
    async with httpx.AsyncClient() as http:
        client = build_embedder(embedding_settings, http)
        assert client is not None
        yield client


@pytest.fixture
def hybrid_deps(
    neo4j_driver: AsyncDriver,
    embedding_settings: Settings,
    clock: StepClock,
    embedder: OpenAIEmbeddingClient,
) -> Deps:
    return Deps(
        settings=embedding_settings,
        driver=neo4j_driver,
        pool=None,
        clock=clock,
        embedder=embedder,
    )


@pytest_asyncio.fixture
async def pool(services: Settings) -> AsyncIterator[ArqRedis]:
    redis = await open_pool(services)
    yield redis
    await redis.aclose()
