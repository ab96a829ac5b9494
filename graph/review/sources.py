"""What a review reads: story-graph sources of its scope, as checkpoint units and texts.
A concern's conversation is not news to an ordinary review: only the review of that
concern's replies reads it (`jobs/review/conversation.py`).

Sources are pushed by apps through `upsertSource` (the story graph owns them); a review
reads the current version's units for the manifest and, per batch, the text of exactly the
cited versions — never today's text in place of another version (docs/rules/story-graph.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.review.checkpoints import SourceState
from engine.review.compose import project_of, story_scope
from engine.review.spans import source_state
from engine.review.types import Scope
from engine.signal.outcome import CONVERSATION_PREFIX
from graph.base import Store
from graph.temporal import from_neo4j


def _when(value: object, now: datetime) -> datetime:
    """A source's recorded time (a driver DateTime, decoded by `graph.temporal`); a source
    without one counts as recorded `now` (the use case's)."""
    decoded = from_neo4j(value)
    return decoded if isinstance(decoded, datetime) else now


class ReviewSources(Store):
    async def states(self, scope: Scope, *, now: datetime) -> list[SourceState]:
        async def work(tx: AsyncManagedTransaction) -> list[SourceState]:
            rows = await self.rows(
                tx,
                "review/sources_of_scopes",
                scopes=[story_scope(scope)],
                loop_prefix=CONVERSATION_PREFIX,
            )
            return [
                source_state(
                    r["id"],
                    r["version"],
                    r["text"],
                    project_id=project_of(r["scope"]),
                    recorded_at=_when(r["recorded_at"], now),
                    withdrawn=bool(r["withdrawn"]),
                )
                for r in rows
            ]

        return await self.read(work)

    async def texts(
        self, scope: Scope, keys: Iterable[tuple[str, str]]
    ) -> dict[tuple[str, str], str]:
        wanted = [{"source_id": s, "version": v} for s, v in sorted(set(keys))]

        async def work(tx: AsyncManagedTransaction) -> dict[tuple[str, str], str]:
            rows = await self.rows(
                tx, "review/source_texts", scopes=[story_scope(scope)], keys=wanted
            )
            return {(r["source_id"], r["version"]): r["text"] or "" for r in rows}

        return await self.read(work)
