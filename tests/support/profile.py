"""PROFILE of a named query: its rows and what it cost Neo4j (a page costs what it
returns). The db hits of a plan are summed by `bench.story_profile.db_hits`, one of each."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver

from bench.story_profile import db_hits
from engine.settings import Settings
from graph.queries import queries


async def profile(
    driver: AsyncDriver, settings: Settings, key: str, **params: Any
) -> tuple[list[Any], int]:
    """The rows the named query answers and its total db hits, run under PROFILE."""
    records, summary, _ = await driver.execute_query(
        "PROFILE " + queries().text(key), params, database_=settings.neo4j_database
    )
    assert summary.profile is not None
    return list(records), db_hits(summary.profile)
