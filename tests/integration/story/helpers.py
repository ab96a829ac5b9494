"""Counting what a scope holds in Neo4j, to prove that a refused write wrote nothing."""

from __future__ import annotations

from neo4j import AsyncDriver


async def scope_counts(driver: AsyncDriver, database: str, scope: str) -> dict[str, int]:
    records, _, _ = await driver.execute_query(
        "MATCH (n {scope: $scope}) UNWIND labels(n) AS label "
        "RETURN label, count(*) AS n ORDER BY label",
        scope=scope,
        database_=database,
    )
    return {r["label"]: r["n"] for r in records}
