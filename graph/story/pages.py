"""Paged story reads: one page per statement, whatever the scope's size.

`entities`, `relations` and `events` each read their page in the order of an index
(`cypher/schema/061_story_pages`), after a keyset (the last row's sort key), and cut it at
`limit`; filters are part of the query. A count is a separate statement run only when a
client asks for `totalCount`. With a story or a window (from/to event time), the entity ids
its events touch are read first (bounded by the story or window) and the page is read among
them. A page's pending suggestions, its relations' end names and its histories are one
statement each.

Instants come back as epoch microseconds and are decoded once here (`graph.temporal`): the
driver's DateTime decoding dominated these reads. A page comes back as ONE record holding
its rows as a list: the Python driver spends ~50 µs on every record it reads (a message, two
socket reads, a Record), most of a 50-row page's driver time when each row was a record.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from neo4j import AsyncManagedTransaction

from engine.clock import EARLIEST, FOREVER
from engine.errors import InvalidInput
from engine.page import Page
from engine.story.filters import EntityFilter, EventFilter, RelationFilter, StoryWindow
from engine.story.models import Entity, Event, Relation, Suggestion, Version
from graph.base import Store
from graph.story.codec import decode

V = TypeVar("V", bound=Version)


class StoryPages(Store):
    async def _read(self, steps: list[tuple[str, dict[str, Any]]]) -> list[list[Any]]:
        """The named statements in one read transaction, in order; their rows."""

        if len(steps) == 1:
            name, params = steps[0]
            return [await self.read_one(name, **params)]

        async def work(tx: AsyncManagedTransaction) -> list[list[Any]]:
            return [await self.rows(tx, name, **params) for name, params in steps]

        return await self.read(work)

    async def _story_ids(self, scope: str, as_of: datetime, story_id: str) -> list[str]:
        (rows,) = await self._read(
            [("story/story_entity_ids", {"scope": scope, "as_of": as_of, "story_id": story_id})]
        )
        return list(rows[0]["ids"]) if rows else []

    async def _among(self, scope: str, as_of: datetime, where: StoryWindow) -> list[str] | None:
        """The entity ids a page is read among: a window's (its events' changes, of one story
        when `story_id` is set) or a story's; None for the whole scope."""
        if where.from_ is None and where.to is None:
            if where.story_id is None:
                return None
            return await self._story_ids(scope, as_of, where.story_id)
        params = {
            "scope": scope,
            "as_of": as_of,
            "from_time": where.from_ or EARLIEST,
            "to_time": where.to or FOREVER,
            "story_id": where.story_id,
        }
        (rows,) = await self._read([("story/window_entity_ids", params)])
        return list(rows[0]["ids"]) if rows else []

    async def pending_suggestions(
        self, scope: str, as_of: datetime, ids: list[str]
    ) -> dict[str, list[Suggestion]]:
        """The pending suggestions believed at `as_of` about the objects `ids`, by target."""
        (rows,) = await self._read(
            [("story/pending_suggestions_for", {"scope": scope, "as_of": as_of, "ids": ids})]
        )
        found: dict[str, list[Suggestion]] = {}
        for r in rows:
            s = decode(Suggestion, r["v"], believed=True)
            found.setdefault(s.target_id, []).append(s)
        return found

    async def entity_names(self, scope: str, as_of: datetime, ids: list[str]) -> dict[str, str]:
        """The names of the entities `ids` believed at `as_of` (absent when none is)."""
        (rows,) = await self._read(
            [("story/entity_names", {"scope": scope, "as_of": as_of, "ids": ids})]
        )
        return {r["id"]: r["name"] for r in rows}

    async def _page(
        self,
        cls: type[V],
        name: str,
        params: dict[str, Any],
        limit: int,
        count: str | None,
        count_params: dict[str, Any],
    ) -> Page[V]:
        steps = [(name, {**params, "limit": limit + 1})]
        if count is not None:
            steps.append((count, count_params))
        found = await self._read(steps)
        items = [decode(cls, v, believed=True) for v in found[0][0]["page"]]
        total = found[1][0]["n"] if count is not None else None
        return Page.of(items, limit, total, as_of=params["as_of"])

    async def entities(
        self,
        scope: str,
        as_of: datetime,
        where: EntityFilter,
        *,
        after: tuple[str, str] | None,
        limit: int,
        with_total: bool,
    ) -> Page[Entity]:
        """Entities believed at `as_of` in (name, id) order after the keyset `after`; with a
        window (from/to event time) or a story, among the entities it touches."""
        filters = {
            "scope": scope,
            "as_of": as_of,
            "kind": where.kind,
            "status": where.status,
            "name_contains": where.name_contains.lower() if where.name_contains else None,
        }
        name, id_ = after or ("", "")
        page, count = "story/page_entities", "story/count_entities"
        among = await self._among(scope, as_of, where)
        if among is not None:
            filters["ids"] = among
            page, count = "story/page_entities_among", "story/count_entities_among"
        return await self._page(
            Entity,
            page,
            {**filters, "after_name": name, "after_id": id_},
            limit,
            count if with_total else None,
            filters,
        )

    async def relations(
        self,
        scope: str,
        as_of: datetime,
        where: RelationFilter,
        *,
        after: tuple[str, str] | None,
        limit: int,
        with_total: bool,
    ) -> Page[Relation]:
        """Relations believed at `as_of` in (type, id) order after the keyset `after`; with a
        window or a story, the relations among the entities it touches."""
        filters: dict[str, Any] = {
            "scope": scope,
            "as_of": as_of,
            "confirmation": where.confirmation,
            "include_removed": where.include_removed,
        }
        type_, id_ = after or ("", "")
        page, count = "story/page_relations", "story/count_relations"
        among = await self._among(scope, as_of, where)
        if among is not None:
            filters["ids"] = among
            page, count = "story/page_relations_among", "story/count_relations_among"
        return await self._page(
            Relation,
            page,
            {**filters, "after_type": type_, "after_id": id_},
            limit,
            count if with_total else None,
            filters,
        )

    async def events(
        self,
        scope: str,
        as_of: datetime,
        where: EventFilter,
        *,
        after: tuple[datetime, str] | None,
        limit: int,
        with_total: bool,
    ) -> Page[Event]:
        """Events believed at `as_of` with from <= at <= to, in (at, id) order after `after`."""
        lower = where.from_ or EARLIEST
        filters = {
            "scope": scope,
            "as_of": as_of,
            "lower": lower,
            "upper": where.to or FOREVER,
            "story_id": where.story_id,
        }
        after_id = ""
        if after is not None and after[0] >= lower:
            lower, after_id = after
        return await self._page(
            Event,
            "story/page_events",
            {**filters, "lower": lower, "after_id": after_id},
            limit,
            "story/count_events" if with_total else None,
            filters,
        )

    async def histories(
        self, cls: type[V], scope: str, ids: list[str], as_of: datetime
    ) -> dict[str, list[V]]:
        """Every version of `ids` recorded by `as_of`, by id in seq order, in one statement; a
        retraction after `as_of` is not shown (it was not known then)."""
        key = {Entity: "story/entity_histories", Relation: "story/relation_histories"}[cls]
        (rows,) = await self._read([(key, {"scope": scope, "ids": ids, "as_of": as_of})])
        found: dict[str, list[V]] = {i: [] for i in ids}
        for r in rows:
            v = decode(cls, r["v"], believed=False)
            if v.retracted_at is not None and v.retracted_at > as_of:
                v = v.model_copy(update={"retracted_at": None})
            found[v.id].append(v)
        return found

    async def check_bounded(self, scope: str, as_of: datetime, cap: int) -> None:
        """A whole-scope read of more than `cap` events, entities or relations is refused
        (INVALID_INPUT saying how to narrow it), counted up to `cap + 1` each, so the check
        costs at most that however large the scope is."""
        (rows,) = await self._read(
            [("story/scope_size", {"scope": scope, "as_of": as_of, "cap": cap + 1})]
        )
        sizes = {k: int(rows[0][k]) for k in ("events", "entities", "relations")}
        over = {k: n for k, n in sizes.items() if n > cap}
        if over:
            kinds = ", ".join(sorted(over))
            raise InvalidInput(
                f"this scope has more than {cap} {kinds}: a read without a window is refused; "
                "pass from/to or storyId, or page with entities/relations/events",
                scope=scope,
                limit=cap,
                argument="from",
            )
