"""concerns(...) for the API: one scope's concerns, filtered and keyset-paged in Cypher."""

from __future__ import annotations

from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.concern.model import Concern
from engine.page import Page
from graph.base import Store
from graph.concern.codec import concern_from_doc
from graph.temporal import to_neo4j


class ConcernListing(Store):
    async def page(
        self,
        *,
        scope: str,
        statuses: list[str] | None = None,
        priorities: list[str] | None = None,
        person_id: str | None = None,
        after: tuple[datetime, str] | None = None,
        first: int,
        with_total: bool = False,
    ) -> Page[Concern]:
        """Newest first after the keyset (created_at, concern_id); one statement cut at
        `first`, the count a second one only when asked."""
        filters = {
            "scope": scope,
            "statuses": statuses,
            "priorities": priorities,
            "person_id": person_id,
        }

        async def work(tx: AsyncManagedTransaction) -> Page[Concern]:
            found = await self.rows(
                tx,
                "concern/page",
                **filters,
                after_created_at=to_neo4j(after[0]) if after else None,
                after_id=after[1] if after else None,
                limit=first + 1,
            )
            total = None
            if with_total:
                total = int((await self.rows(tx, "concern/count", **filters))[0]["total"])
            return Page.of([concern_from_doc(r["doc"]) for r in found], first, total)

        return await self.read(work)
