"""The one async Neo4j driver of a process, opened and closed by its lifespan."""

from __future__ import annotations

import asyncio

from neo4j import AsyncDriver, AsyncGraphDatabase

from engine.settings import Settings


def neo4j_password(settings: Settings) -> str:
    """The password from settings, else the one the local server was given at first start."""
    if settings.neo4j_password is not None:
        return settings.neo4j_password.get_secret_value()
    path = settings.neo4j_password_file
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    raise RuntimeError(
        f"No Neo4j password: set NEO4J_PASSWORD or run `storygraph neo4j start` to create {path}."
    )


# How long a caller waits while Neo4j is unreachable. Workers keep the driver's 30 s retry
# (a job would rather wait than fail); the API answers UNAVAILABLE after a few seconds,
# because a person or a client is waiting (`open_driver(settings, patience_s=API_PATIENCE_S)`).
WORKER_PATIENCE_S = 30.0
API_PATIENCE_S = 4.0


def open_driver(settings: Settings, *, patience_s: float = WORKER_PATIENCE_S) -> AsyncDriver:
    return AsyncGraphDatabase.driver(
        settings.effective_neo4j_uri,
        auth=(settings.neo4j_user, neo4j_password(settings)),
        max_connection_pool_size=50,
        connection_acquisition_timeout=patience_s,
        connection_timeout=min(patience_s, 30.0),
        max_transaction_retry_time=patience_s,
        notifications_min_severity="OFF",
    )


PING_WITHIN_S = 2.0


async def ping(driver: AsyncDriver, database: str, within_s: float = PING_WITHIN_S) -> bool:
    """True when the server answers a trivial query within `within_s`; never raises.

    One auto-commit query, not `execute_query`: the managed path retries a refused
    connection for ~30 s, and a health check must answer "no" while Neo4j is down."""
    try:
        async with asyncio.timeout(within_s):
            async with driver.session(database=database) as session:
                result = await session.run("RETURN 1 AS ok")
                record = await result.single()
        return bool(record is not None and record["ok"] == 1)
    except Exception:  # noqa: BLE001 - reachability is a yes/no answer
        return False
