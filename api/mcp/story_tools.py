"""Story graph tools (Story Graph MCP; docs/rules/reviews.md): reads of the graph as known now.

No tool takes an `as_of` (MCP 不接受 as_of; docs/rules/reviews.md); a window is `from_time`
/`to_time` (event time) or a story. Lists are pages of at most 50 (default 20) with a `next`
cursor. The reads are the GraphQL resolvers' own use cases
(`jobs.story.reads`), under the same `reader` role; a scope the token may not use is NOT_FOUND.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult

from api.mcp import shape
from api.mcp.access import CallerSource, answer
from api.mcp.params import READ_ONLY, After, First, FromTime, Scope, StoryId, ToTime, reader
from api.paging import ENTITIES, EVENTS, RELATIONS, Keyset, read_after
from engine.story import models as m
from engine.story.filters import EntityFilter, EventFilter, RelationFilter
from engine.story.views import StoryGraph
from jobs.deps import as_of_now
from jobs.story import ordering, reads

T = TypeVar("T")


def pending_by_target(graph: StoryGraph) -> dict[str, list[m.Suggestion]]:
    out: dict[str, list[m.Suggestion]] = defaultdict(list)
    for s in graph.suggestions:
        if s.status is m.SuggestionStatus.PENDING:
            out[s.target_id].append(s)
    return out


def entity_rows(graph: StoryGraph, entities: list[m.Entity]) -> list[dict[str, Any]]:
    pending = pending_by_target(graph)
    return [shape.entity(e, pending.get(e.id, ())) for e in entities]


def relation_rows(graph: StoryGraph, relations: list[m.Relation]) -> list[dict[str, Any]]:
    names = {e.id: e.name for e in graph.entities}
    return [shape.relation(r, names) for r in relations]


def first_page(items: list[T], keyset: Keyset[T, Any]) -> tuple[list[T], str | None]:
    """The first page of a list already read, and the keyset cursor after it (None at the
    end): the list tools read the following pages in the database."""
    size = shape.page_size(None)
    page = items[:size]
    return page, keyset.encode(page[-1]) if len(items) > size else None


def window_of(
    known_at: datetime, from_: datetime | None, to: datetime | None, story_id: str | None
) -> dict[str, Any]:
    """What a read covered: the moment it was known at and its window or story."""
    return {"known_at": known_at, "from": from_, "to": to, "story_id": story_id}


def window(graph: StoryGraph) -> dict[str, Any]:
    return window_of(graph.as_of, graph.from_, graph.to, graph.story_id)


def _register_story_graph(server: MCPServer, caller_of: CallerSource) -> None:
    """The story graph of a scope, or a window of it, with the first page of each list."""

    @server.tool(
        name="story_graph",
        description="The story graph of a scope as known now, or a window of it (events whose "
        "time is in [from_time, to_time], the entities they touch and the relations among "
        "them; or one story). Returns the stories, stage summaries, counts and the first "
        "page of entities, relations, events and pending suggestions, and the open signals "
        "with their standing (the agenda's decision and the concern it raised), each list "
        "with a `next` cursor for list_entities / list_relations / list_events / "
        "list_signals. A whole scope too "
        "large to read at once is refused (INVALID_INPUT with the limit): pass from_time/"
        "to_time or story_id, or page with the list tools. " + shape.STANDING_NOTE,
        annotations=READ_ONLY,
    )
    async def story_graph(
        ctx: Context,
        scope: Scope,
        from_time: FromTime = None,
        to_time: ToTime = None,
        story_id: StoryId = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            from api.mcp.signal_tools import open_signals  # it builds on this module's types

            caller = caller_of(ctx)
            deps, principal = reader(caller, scope)
            graph = await reads.story_graph(
                deps,
                principal,
                scope,
                from_=from_time,
                to=to_time,
                story_id=story_id,
            )
            signals = await open_signals(deps, principal, scope, graph.as_of)
            entities, next_entities = first_page(ordering.entities_of(graph), ENTITIES)
            relations, next_relations = first_page(ordering.relations_of(graph), RELATIONS)
            events, next_events = first_page(ordering.events_of(graph), EVENTS)
            pending = [s for s in graph.suggestions if s.status is m.SuggestionStatus.PENDING]
            suggestions, _ = shape.page(pending, None, None)
            summaries, _ = shape.page(
                sorted(graph.summaries, key=lambda s: s.interval_start), None, None
            )
            return {
                "scope": scope,
                **window(graph),
                "counts": {
                    "stories": len(graph.stories),
                    "events": len(graph.events),
                    "entities": len(graph.entities),
                    "relations": len(graph.relations),
                    "summaries": len(graph.summaries),
                    "pending_suggestions": len(pending),
                },
                "open_signals": signals["items"],
                "stories": [
                    {"id": s.id, "name": s.name, "description": s.description}
                    for s in graph.stories[: shape.MAX_PAGE]
                ],
                "summaries": [shape.summary(s) for s in summaries],
                "entities": entity_rows(graph, entities),
                "relations": relation_rows(graph, relations),
                "events": [shape.event(e) for e in events],
                "pending_suggestions": [shape.suggestion(s) for s in suggestions],
                "next": {
                    "entities": next_entities,
                    "relations": next_relations,
                    "events": next_events,
                    "open_signals": signals["next"],
                },
            }

        return await answer(work())


def _register_entity_list(server: MCPServer, caller_of: CallerSource) -> None:
    """One page of entities: the list the story graph hands a cursor to."""

    @server.tool(
        name="list_entities",
        description="One page of a scope's entities (by name), optionally of a window or story, "
        "of one kind or status, or whose name contains a text. Pass `next` back as `after` "
        "for the following page. " + shape.STANDING_NOTE,
        annotations=READ_ONLY,
    )
    async def list_entities(
        ctx: Context,
        scope: Scope,
        from_time: FromTime = None,
        to_time: ToTime = None,
        story_id: StoryId = None,
        kind: str | None = None,
        status: Literal["candidate", "main"] | None = None,
        name_contains: str | None = None,
        first: First = shape.DEFAULT_PAGE,
        after: After = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            deps, principal = reader(caller, scope)
            known_at = as_of_now(deps, None)
            got = await read_after(
                ENTITIES,
                after,
                lambda key: reads.entities_page(
                    deps,
                    principal,
                    scope,
                    reads.PageAsk(first=shape.page_size(first), with_total=True),
                    EntityFilter(
                        story_id=story_id,
                        from_=from_time,
                        to=to_time,
                        kind=kind,
                        status=status,
                        name_contains=name_contains or None,
                    ),
                    as_of=known_at,
                    after=key,
                ),
            )
            page = got.page
            pending = await reads.pending_suggestions(
                deps, principal, scope, [e.id for e in page.items], as_of=known_at
            )
            return {
                "scope": scope,
                **window_of(known_at, from_time, to_time, story_id),
                "total": page.total,
                "items": [shape.entity(e, pending.get(e.id, ())) for e in page.items],
                "next": got.next,
            }

        return await answer(work())


def _register_relation_list(server: MCPServer, caller_of: CallerSource) -> None:
    """One page of relations."""

    @server.tool(
        name="list_relations",
        description="One page of a scope's relations (by type), optionally of a window or story "
        "or of one standing. Removed relations are left out unless include_removed. "
        + shape.STANDING_NOTE,
        annotations=READ_ONLY,
    )
    async def list_relations(
        ctx: Context,
        scope: Scope,
        from_time: FromTime = None,
        to_time: ToTime = None,
        story_id: StoryId = None,
        confirmation: Literal["suggested", "confirmed", "rejected"] | None = None,
        include_removed: bool = False,
        first: First = shape.DEFAULT_PAGE,
        after: After = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            deps, principal = reader(caller, scope)
            known_at = as_of_now(deps, None)
            got = await read_after(
                RELATIONS,
                after,
                lambda key: reads.relations_page(
                    deps,
                    principal,
                    scope,
                    reads.PageAsk(first=shape.page_size(first), with_total=True),
                    RelationFilter(
                        story_id=story_id,
                        from_=from_time,
                        to=to_time,
                        confirmation=confirmation,
                        include_removed=include_removed,
                    ),
                    as_of=known_at,
                    after=key,
                ),
            )
            page = got.page
            ends = sorted({i for r in page.items for i in (r.from_id, r.to_id)})
            names = await reads.entity_names(deps, principal, scope, ends, as_of=known_at)
            return {
                "scope": scope,
                **window_of(known_at, from_time, to_time, story_id),
                "total": page.total,
                "items": [shape.relation(r, names) for r in page.items],
                "next": got.next,
            }

        return await answer(work())


def _register_event_list(server: MCPServer, caller_of: CallerSource) -> None:
    """One page of events in time order."""

    @server.tool(
        name="list_events",
        description="One page of a scope's events in time order, optionally of a window or story.",
        annotations=READ_ONLY,
    )
    async def list_events(
        ctx: Context,
        scope: Scope,
        from_time: FromTime = None,
        to_time: ToTime = None,
        story_id: StoryId = None,
        first: First = shape.DEFAULT_PAGE,
        after: After = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            deps, principal = reader(caller, scope)
            known_at = as_of_now(deps, None)
            got = await read_after(
                EVENTS,
                after,
                lambda key: reads.events_page(
                    deps,
                    principal,
                    scope,
                    reads.PageAsk(first=shape.page_size(first), with_total=True),
                    EventFilter(story_id=story_id, from_=from_time, to=to_time),
                    as_of=known_at,
                    after=key,
                ),
            )
            page = got.page
            return {
                "scope": scope,
                **window_of(known_at, from_time, to_time, story_id),
                "total": page.total,
                "items": [shape.event(e) for e in page.items],
                "next": got.next,
            }

        return await answer(work())


def _register_reads(server: MCPServer, caller_of: CallerSource) -> None:
    """One entity with its history and citations; one publish result."""

    @server.tool(
        name="get_entity",
        description="One entity as known now, with every recorded version (history), its "
        "pending suggestions, its relations and the references that cite it with the cited "
        "excerpt of exactly that source version; a version the app no longer has says "
        "`unavailable` (never today's text). " + shape.STANDING_NOTE,
        annotations=READ_ONLY,
    )
    async def get_entity(ctx: Context, scope: Scope, entity_id: str) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            deps, principal = reader(caller, scope)
            found = await reads.entity_detail(
                deps, principal, scope, entity_id, cited_limit=shape.MAX_PAGE
            )
            view, graph, touching, cited = found.view, found.graph, found.relations, found.cited
            refs = found.excerpts
            related, _ = shape.page(touching, shape.MAX_PAGE, None)
            return {
                "scope": scope,
                "entity": shape.entity(view.entity, view.pending_suggestions),
                "history": [
                    {**shape.entity(v), "retracted_at": v.retracted_at, "why": v.why}
                    for v in view.history
                ],
                "relations": relation_rows(graph, related),
                "references_total": len(cited),
                "references": [shape.reference(c.reference, c.excerpt) for c in refs],
            }

        return await answer(work())

    @server.tool(
        name="get_result",
        description="One organising result by id: its decisions, open items, feedback and "
        "warnings, and the graph objects it wrote (recap, feedback and graph all cite this id).",
        annotations=READ_ONLY,
    )
    async def get_result(ctx: Context, scope: Scope, result_id: str) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            deps, principal = reader(caller, scope)
            view = await reads.result(deps, principal, scope, result_id)
            r = view.result
            cap = shape.MAX_PAGE
            return {
                "scope": scope,
                "result": {
                    "id": r.id,
                    "key": r.key,
                    "recorded_at": r.recorded_at,
                    "recorded_by": r.by.label(),
                    "decisions": r.decisions,
                    "open_items": r.open_items,
                    "feedback": r.feedback,
                    "warnings": r.warnings,
                },
                "counts": {
                    "events": len(view.events),
                    "entities": len(view.entities),
                    "relations": len(view.relations),
                    "summaries": len(view.summaries),
                    "suggestions": len(view.suggestions),
                },
                "events": [shape.event(e) for e in view.events[:cap]],
                "entities": [shape.entity(e) for e in view.entities[:cap]],
                "relations": [shape.relation(x) for x in view.relations[:cap]],
                "summaries": [shape.summary(s) for s in view.summaries[:cap]],
                "suggestions": [shape.suggestion(s) for s in view.suggestions[:cap]],
            }

        return await answer(work())


def register(server: MCPServer, caller_of: CallerSource) -> None:
    """Add the story graph tools to `server`; `caller_of` says who asks and with what."""
    _register_story_graph(server, caller_of)
    _register_entity_list(server, caller_of)
    _register_relation_list(server, caller_of)
    _register_event_list(server, caller_of)
    _register_reads(server, caller_of)
