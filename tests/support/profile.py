"""PROFILE helpers: what a named query costs Neo4j (issue 14: a page costs what it returns)."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver

from engine.settings import Settings
from graph.queries import queries


def db_hits(plan: Any) -> int:
    """The db hits of a profiled plan and all its children."""
    return int(plan.get("dbHits", 0)) + sum(db_hits(c) for c in plan.get("children", []))


async def profile(
    driver: AsyncDriver, settings: Settings, key: str, **params: Any
) -> tuple[list[Any], int]:
    """The rows the named query answers and its total db hits, run under PROFILE."""
    records, summary, _ = await driver.execute_query(
        "PROFILE " + queries().text(key), params, database_=settings.neo4j_database
    )
    assert summary.profile is not None
    return list(records), db_hits(summary.profile)
