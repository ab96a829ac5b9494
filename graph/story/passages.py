"""Passages written and removed by the transactions that write and withdraw source versions.

Every path that creates a `SourceVersion` (upsertSource, a continued discussion's
conversation, save to knowledge) calls `write_passages` in its own transaction, so a version
and its searchable lines commit together; withdrawSource calls `remove_passages` with the
statement that removes the text (docs/rules/story-graph.md).
"""

from __future__ import annotations

from neo4j import AsyncManagedTransaction

from engine.search.passages import passage_rows
from engine.story.models import SourceVersion
from graph.base import rows


async def write_passages(tx: AsyncManagedTransaction, versions: list[SourceVersion]) -> None:
    batch = passage_rows(versions)
    if batch:
        await rows(tx, "search/write_passages", rows=batch)


async def remove_passages(
    tx: AsyncManagedTransaction, scope: str, source_id: str, version: str
) -> None:
    await rows(tx, "search/withdraw_passages", scope=scope, source_id=source_id, version=version)


def entry_version(row: dict[str, object]) -> SourceVersion:
    """A save-to-knowledge row (cypher/knowledge/write_entries.cypher) as the version it wrote."""
    return SourceVersion.model_validate(
        {k: row[k] for k in ("scope", "source_id", "version", "text", "recorded_at")}
    )
