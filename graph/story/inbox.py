"""The inbox's reads: one page of a scope's pending suggestions and stopped
supervision runs merged in Cypher by a descending keyset (time, id), the evidence the
suggestions cite, and counts per kind."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from engine.clock import FOREVER, from_epoch_us
from engine.page import Page
from engine.story.inbox import InboxItem, StoppedRun, split_kinds
from engine.story.models import Reference, Suggestion
from graph.base import Store
from graph.story.codec import decode, from_props
from graph.temporal import from_neo4j


def stopped_run(props: dict[str, Any]) -> StoppedRun:
    error = json.loads(props["error"]) if props.get("error") else {}
    doc = json.loads(props["doc"]) if props.get("doc") else {}
    at = from_neo4j(props["updated_at"])
    created = from_neo4j(props["created_at"])
    assert at is not None and created is not None
    return StoppedRun(
        run_id=props["id"],
        status=props["status"],
        trigger=props.get("trigger") or "",
        mode=props.get("mode") or "",
        created_at=created,
        at=at,
        error_stage=error.get("stage"),
        error_kind=error.get("kind"),
        error_message=error.get("message"),
        pause_reason=doc.get("pause_reason"),
    )


class StoryInbox(Store):
    async def page(
        self, scope: str, kinds: list[str], after: tuple[int, str] | None, limit: int
    ) -> Page[InboxItem]:
        after_at: datetime = from_epoch_us(after[0]) if after else FOREVER
        suggestion_kinds, statuses = split_kinds(kinds)
        rows = await self.read_one(
            "inbox/pending_page",
            scope=scope,
            kinds=suggestion_kinds,
            statuses=statuses,
            forever=FOREVER,
            after_at=after_at,
            after_id=after[1] if after else "",
            limit=limit + 1,
        )
        shown = rows[:limit]
        suggestions = [
            decode(Suggestion, r["v"], believed=True) if r["v"] is not None else None for r in shown
        ]
        cited: dict[str, list[Reference]] = {}
        wanted = [
            {"id": s.id, "target": s.target_id, "result": s.result_id, "repeat_of": s.repeat_of}
            for s in suggestions
            if s is not None
        ]
        if wanted:
            for r in await self.read_one("inbox/evidence", scope=scope, items=wanted):
                cited.setdefault(r["sid"], []).append(from_props(Reference, r["r"]))
        items = [
            InboxItem(s, cited.get(s.id, []), r["target_seq"] or 0)
            if s is not None
            else InboxItem(None, [], 0, stopped_run(r["run"]))
            for s, r in zip(suggestions, shown, strict=True)
        ]
        return Page(items, len(rows) > limit, None)

    async def counts(self, scope: str) -> dict[str, int]:
        rows = await self.read_one("inbox/pending_counts", scope=scope, forever=FOREVER)
        runs = await self.read_one("inbox/run_counts", scope=scope, statuses=["failed", "paused"])
        return {r["kind"]: r["n"] for r in [*rows, *runs]}
