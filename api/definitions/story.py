"""Story graph queries and mutations (docs/reference/schema.md; docs/rules/reviews.md).

Reads are time-sliced (`asOf`: what we knew then; `validAt`: what held then) and scoped:
no read falls back to another scope. Each resolver calls one use case of
`jobs.story` (role and scope checked there) and shapes its answer.

Times (docs/rules/story-graph.md#time): an argument may use any offset (`10:10+08:00` and `02:10Z`
are the same moment) but must carry one: a time without a zone is INVALID_INPUT. Every time in an
answer is the stored UTC instant (`+00:00`); a client shows it in its user's zone (the graph view
uses the browser's).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import build, versioned
from api.definitions.graph_view import GraphView, graph_view_type
from api.definitions.pagination import Connection, connection, page_size, wants_total
from api.definitions.story_inputs import (
    EntityEditInput,
    PublishResultInput,
    UpsertSourceInput,
    to_data,
)
from api.definitions.story_types import (
    Confirmation,
    Entity,
    EntityStatus,
    EntityView,
    Event,
    Relation,
    Result,
    ResultView,
    Source,
    SourceVersion,
    StoryGraph,
    Suggestion,
    entity_view_type,
    result_type,
    result_view_type,
    source_version_type,
    story_graph_type,
)
from api.paging import ENTITIES, EVENTS, RELATIONS, read_after
from engine.story.corrections import RelationAction
from engine.story.filters import EntityFilter, EventFilter, RelationFilter
from jobs.notify import GraphChangeHub
from jobs.story import reads, writes

FromArg = Annotated[datetime | None, strawberry.argument(name="from")]


@strawberry.type(description="A hint that the scope's graph changed: re-read what you show.")
class GraphChange:
    scope: str
    kind: str
    ids: list[str]
    by: str
    at: datetime


@strawberry.type
class PublishOutcome:
    result: Result
    repeat: bool = strawberry.field(
        description="true when this key was published before: nothing written now"
    )


def ask(info: Info[Context, None], first: int | None) -> reads.PageAsk:
    """A list's page size (capped) and whether the client selected totalCount."""
    return reads.PageAsk(
        first=page_size(first, info.context.settings.page_max_first), with_total=wants_total(info)
    )


@strawberry.type
class Query:
    @strawberry.field(description="The story graph of one scope as known at asOf (default now).")
    async def story_graph(
        self,
        info: Info[Context, None],
        scope: str,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        from_: FromArg = None,
        to: datetime | None = None,
        story_id: str | None = None,
        include_removed: bool = False,
    ) -> StoryGraph:
        graph = await reads.story_graph(
            info.context.deps,
            info.context.caller(),
            scope,
            as_of=as_of,
            valid_at=valid_at,
            from_=from_,
            to=to,
            story_id=story_id,
            include_removed=include_removed,
        )
        return story_graph_type(graph)

    @strawberry.field(
        description=(
            "The objects ids (1 to 100) as known at asOf (default now) with what their details "
            "show, as storyGraph shows them: an entity with the relations touching it, the "
            "entities at their other ends and the changes and events that touch it; a relation "
            "with its two entities; an event with its changes and their entities; a summary "
            "with its events and entities; a change with its event and entity; and the "
            "references and suggestions of the objects named. It reads only their "
            "neighbourhood, never the whole scope. An id not believed at asOf is absent."
        )
    )
    async def story_objects(
        self,
        info: Info[Context, None],
        scope: str,
        ids: list[strawberry.ID],
        as_of: datetime | None = None,
        include_removed: bool = False,
    ) -> StoryGraph:
        graph = await reads.story_objects(
            info.context.deps,
            info.context.caller(),
            scope,
            [str(i) for i in ids],
            as_of=as_of,
            include_removed=include_removed,
        )
        return story_graph_type(graph)

    @strawberry.field(
        description="Nodes, edges and timeline of the same objects storyGraph returns."
    )
    async def graph_view(
        self,
        info: Info[Context, None],
        scope: str,
        as_of: datetime | None = None,
        from_: FromArg = None,
        to: datetime | None = None,
    ) -> GraphView:
        found = await reads.graph_view(
            info.context.deps, info.context.caller(), scope, as_of=as_of, from_=from_, to=to
        )
        return graph_view_type(found.view, found.first, found.last)

    @strawberry.field(description="An entity as believed at asOf, with every version (history).")
    async def entity(
        self,
        info: Info[Context, None],
        scope: str,
        id: strawberry.ID,
        as_of: datetime | None = None,
    ) -> EntityView:
        view = await reads.entity(
            info.context.deps, info.context.caller(), scope, str(id), as_of=as_of
        )
        return entity_view_type(view)

    @strawberry.field(description="One organising result: recap, feedback and graph delta.")
    async def result(self, info: Info[Context, None], scope: str, id: strawberry.ID) -> ResultView:
        view = await reads.result(info.context.deps, info.context.caller(), scope, str(id))
        return result_view_type(view)

    @strawberry.field(
        description=(
            "Entities believed at asOf in (name, id) order, filtered and paged in the "
            "database (keyset cursors); totalCount is counted only when selected."
        )
    )
    async def entities(
        self,
        info: Info[Context, None],
        scope: str,
        as_of: datetime | None = None,
        story_id: str | None = None,
        kind: str | None = None,
        status: EntityStatus | None = None,
        name_contains: str | None = None,
        first: int | None = 50,
        after: str | None = None,
    ) -> Connection[Entity]:
        page = await read_after(
            ENTITIES,
            after,
            lambda key: reads.entities_page(
                info.context.deps,
                info.context.caller(),
                scope,
                ask(info, first),
                EntityFilter(
                    story_id=story_id,
                    kind=kind,
                    status=status.value if status is not None else None,
                    name_contains=name_contains or None,
                ),
                as_of=as_of,
                after=key,
            ),
        )
        return connection(page, lambda e: versioned(Entity, e, as_of_=page.page.as_of))

    @strawberry.field(
        description=(
            "Relations believed at asOf in (type, id) order, by confirmation status, paged "
            "in the database (keyset cursors); totalCount is counted only when selected."
        )
    )
    async def relations(
        self,
        info: Info[Context, None],
        scope: str,
        as_of: datetime | None = None,
        story_id: str | None = None,
        confirmation: Confirmation | None = None,
        include_removed: bool = False,
        first: int | None = 50,
        after: str | None = None,
    ) -> Connection[Relation]:
        page = await read_after(
            RELATIONS,
            after,
            lambda key: reads.relations_page(
                info.context.deps,
                info.context.caller(),
                scope,
                ask(info, first),
                RelationFilter(
                    story_id=story_id,
                    confirmation=confirmation.value if confirmation is not None else None,
                    include_removed=include_removed,
                ),
                as_of=as_of,
                after=key,
            ),
        )
        return connection(page, lambda r: versioned(Relation, r, as_of_=page.page.as_of))

    @strawberry.field(
        description=(
            "Events in time order, optionally of one story and an interval, paged in the "
            "database (keyset cursors); totalCount is counted only when selected."
        )
    )
    async def events(
        self,
        info: Info[Context, None],
        scope: str,
        as_of: datetime | None = None,
        story_id: str | None = None,
        from_: FromArg = None,
        to: datetime | None = None,
        first: int | None = 50,
        after: str | None = None,
    ) -> Connection[Event]:
        page = await read_after(
            EVENTS,
            after,
            lambda key: reads.events_page(
                info.context.deps,
                info.context.caller(),
                scope,
                ask(info, first),
                EventFilter(story_id=story_id, from_=from_, to=to),
                as_of=as_of,
                after=key,
            ),
        )
        return connection(page, lambda e: versioned(Event, e))


def relation_mutation(action: RelationAction, description: str) -> Relation:
    """One resolver shape for the four relation corrections (docs/rules/story-graph.md)."""

    async def resolve(
        info: Info[Context, None],
        scope: str,
        id: strawberry.ID,
        why: str = "",
        seen_version: int | None = None,
        user_id: str | None = None,
    ) -> Relation:
        rel = await writes.correct_relation(
            info.context.deps,
            info.context.caller(),
            action,
            scope,
            str(id),
            why=why,
            seen_version=seen_version,
            user_id=user_id,
        )
        return versioned(Relation, rel)

    return strawberry.mutation(resolver=resolve, description=description)  # type: ignore[return-value]


def suggestion_mutation(action: writes.SuggestionAction, description: str) -> Suggestion:
    async def resolve(
        info: Info[Context, None],
        scope: str,
        id: strawberry.ID,
        why: str = "",
        user_id: str | None = None,
        seen_version: int | None = None,
        value: str | None = None,
    ) -> Suggestion:
        suggestion = await writes.resolve_suggestion(
            info.context.deps,
            info.context.caller(),
            action,
            scope,
            str(id),
            why=why,
            user_id=user_id,
            seen_version=seen_version,
            value=value,
        )
        return versioned(Suggestion, suggestion)

    return strawberry.mutation(resolver=resolve, description=description)  # type: ignore[return-value]


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description="Record an app's version of a source; old versions stay readable if supplied."
    )
    async def upsert_source(self, info: Info[Context, None], input: UpsertSourceInput) -> Source:
        stored = await writes.upsert_source(
            info.context.deps, info.context.caller(), to_data(input)
        )
        return build(Source, stored, id=strawberry.ID(stored.id))

    @strawberry.mutation(
        description=(
            "The app deleted or redacted a source version: its text leaves the store; references "
            "to it answer unavailable (never another version's text); citing objects stay. "
            "Unknown version: NOT_FOUND; a repeat changes nothing."
        )
    )
    async def withdraw_source(
        self,
        info: Info[Context, None],
        scope: str,
        source_id: str,
        version: str,
        reason: str = "",
    ) -> SourceVersion:
        stored = await writes.withdraw_source(
            info.context.deps, info.context.caller(), scope, source_id, version, reason
        )
        return source_version_type(stored)

    @strawberry.mutation(
        description="Write one whole organising result in one transaction (idempotent by key)."
    )
    async def publish_result(
        self, info: Info[Context, None], input: PublishResultInput, run_id: str | None = None
    ) -> PublishOutcome:
        outcome = await writes.publish_result(
            info.context.deps, info.context.caller(), to_data(input), run_id
        )
        return PublishOutcome(result=result_type(outcome.result), repeat=outcome.repeat)

    @strawberry.mutation(
        description="A person's edit against the version they saw (stale: CONFLICT)."
    )
    async def update_entity(
        self,
        info: Info[Context, None],
        scope: str,
        id: strawberry.ID,
        seen_version: int,
        edit: EntityEditInput,
        why: str = "",
        user_id: str | None = None,
    ) -> Entity:
        updated = await writes.update_entity(
            info.context.deps,
            info.context.caller(),
            scope,
            str(id),
            to_data(edit),
            seen_version=seen_version,
            why=why,
            user_id=user_id,
        )
        return versioned(Entity, updated)

    confirm_relation: Relation = relation_mutation(
        RelationAction.CONFIRM, "Confirm a relation (a person's word)."
    )
    reject_relation: Relation = relation_mutation(
        RelationAction.REJECT, "Reject a relation; it stays on record."
    )
    remove_relation: Relation = relation_mutation(
        RelationAction.REMOVE, "Hide a relation (undoable; sources and references stay)."
    )
    restore_relation: Relation = relation_mutation(RelationAction.RESTORE, "Undo a removal.")
    accept_suggestion: Suggestion = suggestion_mutation(
        "accept",
        "Apply a suggestion: it becomes the person's edit; value: the person's edit of the "
        "proposal, accepted in its place; seenVersion: the target's version seen (stale: "
        "CONFLICT).",
    )
    dismiss_suggestion: Suggestion = suggestion_mutation(
        "dismiss",
        "Dismiss a suggestion (an accepted one: CONFLICT); remembered by fingerprint.",
    )


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="Hints that a scope's graph changed (results, corrections, sources)."
    )
    async def graph_changed(
        self, info: Info[Context, None], scope: str
    ) -> AsyncGenerator[GraphChange, None]:
        # the process's one Redis subscriber (api/app.py lifespan), else a connection of its own
        hub: GraphChangeHub | None = getattr(info.context.request.app.state, "changes", None)
        messages = reads.graph_changes(info.context.deps, info.context.caller(), scope, hub)
        with info.context.subscription_slot():
            async for message in messages:
                yield GraphChange(
                    scope=message["scope"],
                    kind=message["kind"],
                    ids=message["ids"],
                    by=message["by"],
                    at=datetime.fromisoformat(message["at"]),
                )
