"""A second scope beside the test's own (`scope`), removed after the test like it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from neo4j import AsyncDriver

from engine.settings import Settings


@pytest_asyncio.fixture
async def other_scope(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> AsyncIterator[str]:
    name = f"{scope}-other"
    yield name
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) DETACH DELETE n", scope=name, database_=settings.neo4j_database
    )
