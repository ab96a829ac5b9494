"""The story graph's changes between two record times, one page per statement.

`cypher/story/diff_page.cypher` finds the objects changed in the window through each
version label's (scope, recorded_at) index and returns each one's version at `since` and at
`until`; `engine.story.diff` makes the entries. The references a page cites are one more
statement (`cypher/story/diff_references.cypher`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.clock import EARLIEST, from_epoch_us, utc
from engine.page import Page
from engine.signal.stored import Signal
from engine.story.diff import BOOKKEEPING, Diffable, DiffEntry, entry
from engine.story.models import (
    Actor,
    Entity,
    Event,
    Reference,
    Relation,
    Story,
    Suggestion,
    Summary,
)
from graph.base import Store
from graph.story.codec import decode, from_props

MODELS: dict[str, type[Diffable]] = {
    "story": Story,
    "event": Event,
    "entity": Entity,
    "relation": Relation,
    "suggestion": Suggestion,
    "summary": Summary,
    "signal": Signal,
}
# what the query leaves out when it compares two versions of a kind: their bookkeeping, and
# the kind's engine-only fields (an object whose only change is one of those is no change)
_BOOKKEEPING = {
    kind: sorted((BOOKKEEPING - {"id", "scope"}) | getattr(m, "INTERNAL_FIELDS", frozenset()))
    for kind, m in MODELS.items()
}


def _model(kind: str, props: dict[str, Any] | None) -> Diffable | None:
    if props is None:
        return None
    cls = MODELS[kind]
    if cls is Summary:
        return from_props(cls, props)
    return decode(cls, props, believed=True)  # type: ignore[type-var]


class StoryDiff(Store):
    @staticmethod
    def page_params(
        scope: str,
        since: datetime,
        until: datetime,
        after: tuple[int, str] | None,
        limit: int,
    ) -> dict[str, Any]:
        """The parameters of `story/diff_page` (one row more than the page: has_next)."""
        return {
            "scope": scope,
            "since": utc(since),  # compared as UTC instants (engine/story/clock.py)
            "until": utc(until),
            "after_at": from_epoch_us(after[0]) if after else EARLIEST,
            "after_id": after[1] if after else "",
            "limit": limit + 1,
            "bookkeeping": _BOOKKEEPING,
        }

    async def page(
        self,
        scope: str,
        since: datetime,
        until: datetime,
        after: tuple[int, str] | None,
        limit: int,
    ) -> Page[DiffEntry]:
        rows = await self.read_one(
            "story/diff_page", **self.page_params(scope, since, until, after, limit)
        )
        entries = []
        for row in rows[:limit]:
            after_model = _model(row["kind"], row["after"])
            assert after_model is not None
            made = entry(
                row["kind"],
                _model(row["kind"], row["before"]),
                after_model,
                from_epoch_us(row["at"]),
            )
            if made is not None:
                entries.append(made)
        return Page(await self._authored(scope, entries), len(rows) > limit, None)

    async def _authored(self, scope: str, entries: list[DiffEntry]) -> list[DiffEntry]:
        """An entry without an author of its own (a stage summary) is by its result's
        publisher, so it reads as who did it, never as a result id."""
        unsigned = sorted({e.result_id for e in entries if e.by is None and e.result_id})
        if not unsigned:
            return entries
        rows = await self.read_one("story/result_publishers", scope=scope, ids=unsigned)
        publishers = {r["id"]: Actor.parse(r["by"]) for r in rows if r["by"]}
        return [
            e.model_copy(update={"by": publishers[e.result_id]})
            if e.by is None and e.result_id in publishers
            else e
            for e in entries
        ]

    async def count(self, scope: str, since: datetime, until: datetime) -> int:
        """How many objects changed in the window (the diff's totalCount)."""
        params = self.page_params(scope, since, until, None, 0)
        del params["limit"]
        rows = await self.read_one("story/diff_count", **params)
        return int(rows[0]["n"])

    async def references(self, scope: str, entries: list[DiffEntry]) -> dict[str, list[Reference]]:
        """The references each entry's change cites (by the result that made it)."""
        pairs = [{"owner": e.object_id, "result": e.result_id} for e in entries if e.result_id]
        if not pairs:
            return {}
        rows = await self.read_one("story/diff_references", scope=scope, pairs=pairs)
        cited: dict[str, list[Reference]] = {}
        for row in rows:
            ref = from_props(Reference, row["r"])
            cited.setdefault(ref.owner_id, []).append(ref)
        return cited
