"""Markers by folder: tests/unit -> unit, tests/integration -> integration, tests/e2e -> e2e
(page tests in tests/e2e also carry `browser`).

Under `pytest -n N` (`TEST_WORKERS=N make test`, see ops/test.sh) each worker past the first has a
Neo4j and a Redis of its own, on the first's ports plus 1000 x its number, which ops/services.sh
started: the product's scans (the reconciler, the heartbeat cron, the inbox) read every scope,
so two sessions on one database would act on each other's work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Fixtures used across folders (the scripted model server) are defined once, here.
pytest_plugins = ["tests.support.fixtures"]

_HERE = Path(__file__).resolve().parent

# a worker's services are on the first's ports plus this times its number (ops/services.sh)
WORKER_PORT_STEP = 1000


def pytest_configure(config: pytest.Config) -> None:
    """A worker past the first moves to its own services' ports before any test module reads
    the environment, so every Settings and every process a test spawns follows."""
    k = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    if k == 0 or os.environ.get("NEO4J_URI") or os.environ.get("REDIS_URL"):
        return  # services given by URL are shared: ops/test.sh runs such a suite in one process
    for name, default in (
        ("NEO4J_BOLT_PORT", 7687),
        ("NEO4J_HTTP_PORT", 7474),
        ("REDIS_PORT", 6379),
    ):
        os.environ[name] = str(int(os.environ.get(name, default)) + WORKER_PORT_STEP * k)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        rel = Path(str(item.fspath)).resolve().relative_to(_HERE)
        kind = rel.parts[0]
        if kind in ("unit", "integration", "e2e"):
            item.add_marker(getattr(pytest.mark, kind))


# --- real services (integration and e2e) ------------------------------------------------

import uuid  # noqa: E402
from collections.abc import AsyncIterator  # noqa: E402

import pytest_asyncio  # noqa: E402
from neo4j import AsyncDriver  # noqa: E402

from engine.settings import Settings  # noqa: E402


@pytest.fixture(scope="session")
def settings() -> Settings:
    """Settings from the environment; the test session is an entry point like api/ and jobs/,
    so it loads the password of the project's own Redis as they do (`make test` has started
    the services, and so written that password, before pytest runs)."""
    from local.redis_server import with_redis_password

    return with_redis_password(
        Settings.from_env(queue_name=f"storygraph:test:{uuid.uuid4().hex[:8]}")
    )


@pytest.fixture(scope="session")
def services(settings: Settings) -> Settings:
    """Start the project's own Neo4j and Redis when none is configured (idempotent)."""
    from local.redis_server import with_redis_password
    from local.services import ensure_services

    ensure_services(settings)
    return with_redis_password(settings)  # a first start has just written the password


@pytest_asyncio.fixture(scope="session")
async def neo4j_driver(services: Settings) -> AsyncIterator[AsyncDriver]:
    from graph.driver import open_driver
    from graph.migrate import migrate

    driver = open_driver(services)
    await driver.verify_connectivity()
    await migrate(driver, services.neo4j_database)
    yield driver
    await driver.close()


@pytest_asyncio.fixture
async def scope(neo4j_driver: AsyncDriver, settings: Settings) -> AsyncIterator[str]:
    """A project scope id no other test uses; everything tagged with it is removed after."""
    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) DETACH DELETE n",
        scope=name,
        database_=settings.neo4j_database,
    )
