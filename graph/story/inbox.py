"""The inbox's reads (issue 29): one page of a scope's pending suggestions paged in Cypher by
a descending keyset (recorded_at, id), the evidence they cite, and counts per kind."""

from __future__ import annotations

from datetime import datetime

from engine.clock import FOREVER, from_epoch_us
from engine.page import Page
from engine.story.inbox import InboxItem
from engine.story.models import Reference, Suggestion
from graph.base import Store
from graph.story.codec import decode, from_props


class StoryInbox(Store):
    async def page(
        self, scope: str, kinds: list[str], after: tuple[int, str] | None, limit: int
    ) -> Page[InboxItem]:
        after_at: datetime = from_epoch_us(after[0]) if after else FOREVER
        rows = await self.read_one(
            "inbox/pending_page",
            scope=scope,
            kinds=kinds,
            forever=FOREVER,
            after_at=after_at,
            after_id=after[1] if after else "",
            limit=limit + 1,
        )
        suggestions = [decode(Suggestion, r["v"], believed=True) for r in rows[:limit]]
        cited: dict[str, list[Reference]] = {}
        if suggestions:
            wanted = [
                {
                    "id": s.id,
                    "target": s.target_id,
                    "result": s.result_id,
                    "repeat_of": s.repeat_of,
                }
                for s in suggestions
            ]
            for r in await self.read_one("inbox/evidence", scope=scope, items=wanted):
                cited.setdefault(r["sid"], []).append(from_props(Reference, r["r"]))
        items = [
            InboxItem(s, cited.get(s.id, []), r["target_seq"] or 0)
            for s, r in zip(suggestions, rows, strict=False)
        ]
        return Page(items, len(rows) > limit, None)

    async def counts(self, scope: str) -> dict[str, int]:
        rows = await self.read_one("inbox/pending_counts", scope=scope, forever=FOREVER)
        return {r["kind"]: r["n"] for r in rows}
