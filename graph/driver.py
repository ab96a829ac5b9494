"""The one async Neo4j driver of a process, opened and closed by its lifespan."""

from __future__ import annotations

import asyncio
from typing import Any

from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncResult, AsyncSession, Query

from engine.settings import Settings
from graph.queries import queries


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
    driver = AsyncGraphDatabase.driver(
        settings.effective_neo4j_uri,
        auth=(settings.neo4j_user, neo4j_password(settings)),
        max_connection_pool_size=50,
        connection_acquisition_timeout=patience_s,
        connection_timeout=min(patience_s, 30.0),
        max_transaction_retry_time=patience_s,
        notifications_min_severity="OFF",
    )
    return with_tx_timeout(driver, settings.neo4j_tx_timeout_seconds)


class TimedSession(AsyncSession):
    """A session whose every transaction (auto-commit `run`, `begin_transaction`, managed
    `execute_read`/`execute_write`, and the driver's `execute_query`, which runs through a
    session) carries a timeout unless the caller set one: the server ends a transaction that
    runs longer, so no query can hold a connection and its locks indefinitely."""

    tx_timeout: float

    async def run(
        self, query: Any, parameters: dict[str, Any] | None = None, **kwargs: Any
    ) -> AsyncResult:
        if isinstance(query, Query):
            if query.timeout is None:
                query = Query(query.text, query.metadata, self.tx_timeout)
        elif isinstance(query, str) and query:
            query = Query(query, timeout=self.tx_timeout)  # type: ignore[arg-type]
        return await super().run(query, parameters, **kwargs)

    async def _open_transaction(  # type: ignore[override]
        self,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - the driver's parameter
        **kwargs: Any,
    ) -> None:
        await super()._open_transaction(
            timeout=self.tx_timeout if timeout is None else timeout, **kwargs
        )


def with_tx_timeout(driver: AsyncDriver, seconds: float) -> AsyncDriver:
    """`driver`, its sessions made `TimedSession`s with `seconds` as their default timeout.

    The Python driver has no driver-wide transaction timeout, and queries run from many
    modules (named queries, transaction functions, migrations), so the default is set where
    every session is made. `tests/integration/platform/test_tx_timeout.py` pins this hook."""
    pool = driver._pool  # type: ignore[attr-defined]

    def timed(session_config: Any) -> AsyncSession:
        session = TimedSession(pool, session_config)
        session.tx_timeout = seconds
        return session

    driver._session = timed  # type: ignore[attr-defined, method-assign]
    return driver


PING_WITHIN_S = 2.0


async def ping(driver: AsyncDriver, database: str, within_s: float = PING_WITHIN_S) -> bool:
    """True when the server answers a trivial query within `within_s`; never raises.

    One auto-commit query, not `execute_query`: the managed path retries a refused
    connection for ~30 s, and a health check must answer "no" while Neo4j is down."""
    try:
        async with asyncio.timeout(within_s):
            async with driver.session(database=database) as session:
                result = await session.run(queries()["platform/ping"])
                record = await result.single()
        return bool(record is not None and record["ok"] == 1)
    except Exception:  # noqa: BLE001 - reachability is a yes/no answer
        return False
