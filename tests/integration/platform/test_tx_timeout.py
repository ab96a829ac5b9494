"""Every transaction carries the client's timeout (NEO4J_TX_TIMEOUT_SECONDS), whichever way
it runs: a deliberately slow query is ended by the server at the timeout and answers the
GraphQL code TIMEOUT, instead of running on. The project's own Neo4j also gets it as
db.transaction.timeout."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import pytest_asyncio
from graphql import GraphQLError
from neo4j import AsyncDriver, AsyncManagedTransaction, Query
from neo4j.exceptions import Neo4jError

from api.errors import shape_error
from engine.settings import Settings
from graph.driver import open_driver
from local.neo4j_server import LocalNeo4j

# 10^10 rows of a Cartesian product: minutes of work without a timeout
SLOW = "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(*) AS n"
TIMEOUT_S = 1.0


@pytest_asyncio.fixture
async def timed(services: Settings) -> AsyncIterator[AsyncDriver]:
    driver = open_driver(services.model_copy(update={"neo4j_tx_timeout_seconds": TIMEOUT_S}))
    yield driver
    await driver.close()


async def _execute_query(d: AsyncDriver, db: str) -> object:
    return await d.execute_query(SLOW, database_=db)


async def _named_query(d: AsyncDriver, db: str) -> object:
    # what Queries["area/name"] hands out: a Query with metadata and no timeout of its own
    return await d.execute_query(Query(SLOW, metadata={"query": "test/slow"}), database_=db)


async def _auto_commit(d: AsyncDriver, db: str) -> object:
    async with d.session(database=db) as session:
        result = await session.run(SLOW)
        return await result.single()


async def _managed(d: AsyncDriver, db: str) -> object:
    async def work(tx: AsyncManagedTransaction) -> object:
        result = await tx.run(SLOW)
        return await result.single()

    async with d.session(database=db) as session:
        return await session.execute_read(work)


async def _explicit(d: AsyncDriver, db: str) -> object:
    async with d.session(database=db) as session:
        async with await session.begin_transaction() as tx:
            result = await tx.run(SLOW)
            return await result.single()


PATHS: dict[str, Callable[[AsyncDriver, str], Awaitable[object]]] = {
    "execute_query": _execute_query,
    "named_query": _named_query,
    "auto_commit": _auto_commit,
    "execute_read": _managed,
    "begin_transaction": _explicit,
}


@pytest.mark.parametrize("path", list(PATHS))
async def test_a_slow_query_is_ended_at_the_timeout(
    timed: AsyncDriver, services: Settings, path: str
) -> None:
    # the server's own code says the transaction timeout ended it (SLOW alone runs far
    # past the per-test timeout)
    with pytest.raises(Neo4jError) as ended:
        await PATHS[path](timed, services.neo4j_database)
    assert "TransactionTimedOut" in (ended.value.code or ""), ended.value.code
    shaped = shape_error(GraphQLError("x", original_error=ended.value))
    assert shaped.extensions == {"code": "TIMEOUT"}
    assert "timeout" in shaped.message


async def test_a_caller_may_still_give_a_transaction_its_own_timeout(
    timed: AsyncDriver, services: Settings
) -> None:
    async with timed.session(database=services.neo4j_database) as session:
        result = await session.run(Query("RETURN 1 AS ok", timeout=60))
        assert (await result.single())["ok"] == 1  # type: ignore[index]


def test_the_local_server_config_has_the_timeout(tmp_path: Path) -> None:
    settings = Settings(local_dir=tmp_path, neo4j_tx_timeout_seconds=12.5)  # type: ignore[call-arg]
    conf = LocalNeo4j(settings)._write_config() / "neo4j.conf"
    assert "db.transaction.timeout=12.5s" in conf.read_text().splitlines()
    default = LocalNeo4j(Settings(local_dir=tmp_path / "d"))._write_config() / "neo4j.conf"  # type: ignore[call-arg]
    assert "db.transaction.timeout=30s" in default.read_text().splitlines()
