"""Known entities of a review's story scope, looked up by the names its texts contain
(engine/review/known.py has the rules; cypher/review/known_entities.cypher the lookup), and
known events, looked up by the texts their references cite (engine/review/known_events.py;
cypher/review/known_events.cypher)."""

from __future__ import annotations

from collections.abc import Sequence

from neo4j import AsyncManagedTransaction

from engine.clock import FOREVER
from engine.review.known import MAX_KNOWN, KnownEntity, lookup_keys, relevant
from engine.review.known_events import MAX_KNOWN_EVENTS, KnownEvent, relevant_events
from graph.base import Store
from graph.temporal import from_neo4j


class KnownEntities(Store):
    async def lookup(
        self, story_scope: str, texts: Sequence[str], *, limit: int = MAX_KNOWN
    ) -> list[KnownEntity]:
        """The stored Main entities of `story_scope` that `texts` name, at most `limit`."""
        texts = [t for t in texts if t]
        keys = lookup_keys(texts)
        if not keys:
            return []

        async def work(tx: AsyncManagedTransaction) -> list[KnownEntity]:
            rows = await self.rows(
                tx,
                "review/known_entities",
                scope=story_scope,
                keys=keys,
                texts=texts,
                forever=FOREVER,
            )
            return [
                KnownEntity(
                    id=r["id"],
                    name=r["name"],
                    kind=r["kind"] or "",
                    description=r["description"] or "",
                    aliases=sorted(n for n in r["names"] if n != r["name"]),
                )
                for r in rows
            ]

        return relevant(await self.read(work), texts, limit=limit)


class KnownEvents(Store):
    async def lookup(
        self,
        story_scope: str,
        source_ids: Sequence[str],
        texts: Sequence[str],
        *,
        limit: int = MAX_KNOWN_EVENTS,
    ) -> list[KnownEvent]:
        """The current events of `story_scope` whose references cite a version of one of
        `source_ids` with a text that occurs in `texts`, at most `limit`."""
        texts = [t for t in texts if t]
        if not texts or not source_ids:
            return []

        async def work(tx: AsyncManagedTransaction) -> list[KnownEvent]:
            rows = await self.rows(
                tx,
                "review/known_events",
                scope=story_scope,
                source_ids=sorted(set(source_ids)),
                texts=texts,
                forever=FOREVER,
            )
            return [
                KnownEvent(id=r["id"], title=r["title"], at=from_neo4j(r["at"]), cited=r["cited"])
                for r in rows
            ]

        return relevant_events(await self.read(work), texts, limit=limit)
