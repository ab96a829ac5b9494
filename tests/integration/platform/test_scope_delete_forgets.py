"""`storygraph scope delete` moves the scope's past-cache counter, like the API's
deleteScope: no cached past answer of the deleted scope (or of a new scope of the same name)
is served after it."""

from __future__ import annotations

import asyncio
import uuid

from neo4j import AsyncDriver
from redis.asyncio import Redis as redis_Redis

from api.cli import scope as scope_cli
from engine.settings import Settings
from jobs.past_epoch import counter_key


async def test_the_cli_delete_moves_the_scopes_past_cache_counter(
    services: Settings, neo4j_driver: AsyncDriver
) -> None:
    scope = f"cli-del-{uuid.uuid4().hex[:8]}"
    client = redis_Redis.from_url(services.effective_redis_url)
    try:
        before = int(await client.get(counter_key(scope)) or 0)
        # the CLI runs its own event loop: off this test's loop, in a thread
        lines = await asyncio.to_thread(scope_cli.run, services, "delete", scope)
        assert lines and lines[0].startswith(f"deleted scope {scope}")
        assert int(await client.get(counter_key(scope)) or 0) >= before + 2
    finally:
        await client.delete(counter_key(scope))
        await client.aclose()
        await neo4j_driver.execute_query(
            "MATCH (d:ScopeDeletion {deleted_scope: $scope}) DELETE d",
            scope=scope,
            database_=services.neo4j_database,
        )
