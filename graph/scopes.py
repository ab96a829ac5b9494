"""Scopes as a whole: which scopes hold data, what each holds, and deleting one.

Counts read `cypher/platform/scope_counts.cypher` (index seeks per scope). A delete runs
`scope_delete.cypher` in an auto-commit transaction (its `CALL ... IN TRANSACTIONS` commits
every 1,000 nodes) and then records a `ScopeDeletion` node.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import Query

from engine.clock import FOREVER
from graph.base import Store, mapped_errors
from graph.temporal import to_neo4j


@dataclass(frozen=True)
class ScopeCounts:
    scope: str
    events: int
    entities: int
    relations: int
    sources: int
    concerns: int
    watches: int


@dataclass(frozen=True)
class ScopeDeleted:
    id: str
    scope: str
    deleted_nodes: int
    by: str
    at: datetime


class ScopeStore(Store):
    async def names(self) -> list[str]:
        """Every scope that holds story data, sources, concerns or watches."""
        return [r["scope"] for r in await self.query("platform/scope_names")]

    async def counts(self, scopes: list[str]) -> list[ScopeCounts]:
        records = await self.query("platform/scope_counts", scopes=scopes, forever=FOREVER)
        return [ScopeCounts(**dict(r)) for r in records]

    async def delete(self, scope: str, *, record_id: str, by: str, at: datetime) -> ScopeDeleted:
        """Delete every node of `scope` in batches of 1,000, then record who did it."""
        key = "platform/scope_delete"
        statement = Query(self._named.text(key), metadata={"query": key}, timeout=self.timeout)
        with mapped_errors():
            async with self.driver.session(database=self.database) as session:
                result = await session.run(statement, scope=scope)
                record = await result.single()
        deleted = int(record["deleted"]) if record else 0
        row: dict[str, Any] = {
            "id": record_id,
            "deleted_scope": scope,
            "by": by,
            "at": to_neo4j(at),
            "deleted_nodes": deleted,
        }
        await self.query("platform/scope_deletion_record", write=True, row=row)
        return ScopeDeleted(id=record_id, scope=scope, deleted_nodes=deleted, by=by, at=at)
