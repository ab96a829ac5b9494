"""The isolation snapshot sees what it must (tests/support/isolation_snapshot.py): an edge
written from outside into one of B's nodes, and any Redis key that appears or changes,
whatever it names."""

from __future__ import annotations

import uuid

from neo4j import AsyncDriver
from redis.asyncio import Redis

from engine.settings import Settings
from tests.support.isolation_snapshot import redis_keys, scope_nodes, unexplained


async def test_an_edge_from_outside_into_b_changes_the_snapshot(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    db = settings.neo4j_database
    outsider = f"outside-{uuid.uuid4().hex[:8]}"
    await neo4j_driver.execute_query(
        "CREATE (:IsoProbe {scope: $b, id: 'b1'}), (:IsoProbe {scope: $o, id: 'o1'})",
        b=scope, o=outsider, database_=db,
    )  # fmt: skip
    try:
        before = await scope_nodes(neo4j_driver, db, scope, "no-library", other_scope="none")
        await neo4j_driver.execute_query(
            "MATCH (o:IsoProbe {scope: $o}), (b:IsoProbe {scope: $b}) CREATE (o)-[:POINTS_AT]->(b)",
            b=scope, o=outsider, database_=db,
        )  # fmt: skip
        after = await scope_nodes(neo4j_driver, db, scope, "no-library", other_scope="none")
        assert after != before
        assert "POINTS_AT" in "".join(after) and "POINTS_AT" not in "".join(before)
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n:IsoProbe) WHERE n.scope IN [$b, $o] DETACH DELETE n",
            b=scope, o=outsider, database_=db,
        )  # fmt: skip


async def test_every_new_or_changed_key_is_reported_unless_accounted_for(
    services: Settings,
) -> None:
    redis = Redis.from_url(services.effective_redis_url)
    tag = uuid.uuid4().hex[:8]
    try:
        await redis.set(f"iso:{tag}:kept", "1")
        await redis.set(f"iso:{tag}:changed", "1")
        before = await redis_keys(redis)
        await redis.set(f"iso:{tag}:changed", "2")
        await redis.set(f"iso:{tag}:new", "x")
        await redis.set(f"iso:{tag}:mine", "x")
        after = await redis_keys(redis)

        def mine(key: str, _digest: str) -> bool:
            return key == f"iso:{tag}:mine" or not key.startswith(f"iso:{tag}:")

        assert unexplained(before, after, mine) == [f"+ iso:{tag}:changed", f"+ iso:{tag}:new"]
    finally:
        await redis.delete(*[f"iso:{tag}:{k}" for k in ("kept", "changed", "new", "mine")])
        await redis.aclose()
