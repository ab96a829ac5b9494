"""Story graph queries and mutations (seed 004; DESIGN "GraphQL surface").

Reads are time-sliced (`asOf`: what we knew then; `validAt`: what held then) and scoped:
no read falls back to another scope. Writes go through `StoryRepository`, the same path
the supervision publish stage uses.

Times (DESIGN "Time"): an argument may use any offset (`10:10+08:00` and `02:10Z` are the
same moment) but must carry one: a time without a zone is INVALID_INPUT. Every time in an
answer is the stored UTC instant (`+00:00`); a client shows it in its user's zone (the
graph view uses the browser's).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.graph_view import GraphView, graph_view_type
from api.definitions.pagination import (
    Connection,
    decode_keyset,
    keyset_connection,
    page_size,
    wants_total,
)
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
    build,
    entity_view_type,
    result_type,
    result_view_type,
    source_version_type,
    story_graph_type,
    versioned,
)
from engine.story import inputs as engine_inputs
from engine.story.clock import instant, utcnow
from engine.story.models import Actor
from graph.queries import queries
from graph.story.pages import StoryPages
from graph.story.repository import StoryRepository
from graph.temporal import from_epoch_us, to_epoch_us
from jobs.notify import GraphChangeHub, graph_changed, listen

FromArg = Annotated[datetime | None, strawberry.argument(name="from")]


def repo(info: Info[Context, None]) -> StoryRepository:
    return StoryRepository(
        info.context.driver, info.context.database, locale=info.context.settings.locale
    )


def pages(info: Info[Context, None]) -> StoryPages:
    return StoryPages(info.context.driver, info.context.database)


def as_of_now(as_of: datetime | None) -> datetime:
    """The asOf argument in UTC (a time without a zone is INVALID_INPUT), or now."""
    return instant(as_of, "asOf") or utcnow()


async def check_bounded(
    info: Info[Context, None],
    scope: str,
    as_of: datetime | None,
    from_: datetime | None,
    to: datetime | None,
    story_id: str | None,
) -> None:
    """A read without from/to or storyId loads the whole scope: refused above
    Settings.story_max_unbounded_objects (INVALID_INPUT saying how to narrow it)."""
    if from_ is None and to is None and story_id is None:
        cap = info.context.settings.story_max_unbounded_objects
        await pages(info).check_bounded(scope, as_of_now(as_of), cap)


def reader(info: Info[Context, None], scope: str) -> None:
    engine_inputs.check_scope(scope)
    info.context.require("reader", scope)


def editor(info: Info[Context, None], scope: str, user_id: str | None) -> Actor:
    """A correction is made by a person: the token's name; an explicit user id only from an
    admin token, recorded with that token's name (Principal.actor_id)."""
    engine_inputs.check_scope(scope)
    principal = info.context.require("editor", scope)
    return Actor.user(principal.actor_id(user_id))


async def announce(
    info: Info[Context, None], scope: str, kind: str, ids: list[str], by: Actor
) -> None:
    """Tell graphChanged subscribers; the write already committed, so a lost hint loses nothing."""
    await graph_changed(info.context.pool, scope, kind=kind, ids=ids, by=by.label())


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
        reader(info, scope)
        await check_bounded(info, scope, as_of, from_, to, story_id)
        graph = await repo(info).story_graph(
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
        reader(info, scope)
        await check_bounded(info, scope, as_of, from_, to, None)
        view = await repo(info).graph_view(scope, as_of=as_of, from_=from_, to=to)
        records, _, _ = await info.context.driver.execute_query(
            queries()["view/recorded_range"],
            scope=scope,
            database_=info.context.database,
            routing_="r",
        )
        first, last = (records[0]["first"], records[0]["last"]) if records else (None, None)
        return graph_view_type(
            view, first.to_native() if first else None, last.to_native() if last else None
        )

    @strawberry.field(description="An entity as believed at asOf, with every version (history).")
    async def entity(
        self,
        info: Info[Context, None],
        scope: str,
        id: strawberry.ID,
        as_of: datetime | None = None,
    ) -> EntityView:
        reader(info, scope)
        return entity_view_type(await repo(info).entity(scope, str(id), as_of=as_of))

    @strawberry.field(description="One organising result: recap, feedback and graph delta.")
    async def result(self, info: Info[Context, None], scope: str, id: strawberry.ID) -> ResultView:
        reader(info, scope)
        return result_view_type(await repo(info).result(scope, str(id)))

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
        reader(info, scope)
        at = as_of_now(as_of)
        key = decode_keyset("entity", after, (str, str))
        page = await pages(info).entities(
            scope,
            at,
            after=(key[0], key[1]) if key else None,
            limit=page_size(first, info.context.settings.page_max_first),
            with_total=wants_total(info),
            story_id=story_id,
            kind=kind,
            status=status.value if status is not None else None,
            name_contains=name_contains or None,
        )
        return keyset_connection(
            "entity",
            [versioned(Entity, e, as_of_=at) for e in page.items],
            lambda e: (e.name, str(e.id)),
            has_next=page.has_next,
            after=after,
            total=page.total,
        )

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
        reader(info, scope)
        at = as_of_now(as_of)
        key = decode_keyset("relation", after, (str, str))
        page = await pages(info).relations(
            scope,
            at,
            after=(key[0], key[1]) if key else None,
            limit=page_size(first, info.context.settings.page_max_first),
            with_total=wants_total(info),
            story_id=story_id,
            confirmation=confirmation.value if confirmation is not None else None,
            include_removed=include_removed,
        )
        return keyset_connection(
            "relation",
            [versioned(Relation, r, as_of_=at) for r in page.items],
            lambda r: (r.type, str(r.id)),
            has_next=page.has_next,
            after=after,
            total=page.total,
        )

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
        reader(info, scope)
        at = as_of_now(as_of)
        key = decode_keyset("event", after, (int, str))
        page = await pages(info).events(
            scope,
            at,
            after=(from_epoch_us(key[0]), key[1]) if key else None,
            limit=page_size(first, info.context.settings.page_max_first),
            with_total=wants_total(info),
            story_id=story_id,
            from_=instant(from_, "from"),
            to=instant(to, "to"),
        )
        return keyset_connection(
            "event",
            [versioned(Event, e) for e in page.items],
            lambda e: (to_epoch_us(e.at), str(e.id)),
            has_next=page.has_next,
            after=after,
            total=page.total,
        )


RELATION_ACTIONS = ("confirm", "reject", "remove", "restore")
SUGGESTION_ACTIONS = ("accept", "dismiss")


def relation_mutation(action: str, description: str) -> Relation:
    """One resolver shape for the four relation corrections (seed 004 L5)."""
    assert action in RELATION_ACTIONS

    async def resolve(
        info: Info[Context, None],
        scope: str,
        id: strawberry.ID,
        why: str = "",
        seen_version: int | None = None,
        user_id: str | None = None,
    ) -> Relation:
        by = editor(info, scope, user_id)
        act = getattr(repo(info), f"{action}_relation")
        rel = await act(scope, str(id), by=by, why=why, seen_version=seen_version)
        await announce(info, scope, "relation", [rel.id], by)
        return versioned(Relation, rel)

    return strawberry.mutation(resolver=resolve, description=description)  # type: ignore[return-value]


def suggestion_mutation(action: str, description: str) -> Suggestion:
    assert action in SUGGESTION_ACTIONS

    async def resolve(
        info: Info[Context, None],
        scope: str,
        id: strawberry.ID,
        why: str = "",
        user_id: str | None = None,
    ) -> Suggestion:
        by = editor(info, scope, user_id)
        act = getattr(repo(info), f"{action}_suggestion")
        suggestion = await act(scope, str(id), by=by, why=why)
        await announce(info, scope, "suggestion", [suggestion.id, suggestion.target_id], by)
        return versioned(Suggestion, suggestion)

    return strawberry.mutation(resolver=resolve, description=description)  # type: ignore[return-value]


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description="Record an app's version of a source; old versions stay readable if supplied."
    )
    async def upsert_source(self, info: Info[Context, None], input: UpsertSourceInput) -> Source:
        by = editor(info, input.scope, None)
        parsed = engine_inputs.parse_input(engine_inputs.SourceInput, to_data(input))
        stored = await repo(info).upsert_source(parsed)
        await announce(info, input.scope, "source", [stored.id], by)
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
        by = editor(info, scope, None)
        stored = await repo(info).withdraw_source(scope, source_id, version, reason=reason, by=by)
        await announce(info, scope, "source", [source_id], by)
        return source_version_type(stored)

    @strawberry.mutation(
        description="Write one whole organising result in one transaction (idempotent by key)."
    )
    async def publish_result(
        self, info: Info[Context, None], input: PublishResultInput, run_id: str | None = None
    ) -> PublishOutcome:
        engine_inputs.check_scope(input.scope)
        principal = info.context.require("editor", input.scope)
        parsed = engine_inputs.parse_input(engine_inputs.PublishResultInput, to_data(input))
        by = Actor.run(run_id or f"api:{principal.name}")
        outcome = await repo(info).publish_result(parsed, by=by)
        if not outcome.repeat:
            await announce(info, input.scope, "result", [outcome.result.id], by)
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
        by = editor(info, scope, user_id)
        parsed = engine_inputs.parse_input(engine_inputs.EntityEdit, to_data(edit))
        updated = await repo(info).update_entity(
            scope, str(id), parsed, seen_version=seen_version, by=by, why=why
        )
        await announce(info, scope, "entity", [updated.id], by)
        return versioned(Entity, updated)

    confirm_relation: Relation = relation_mutation(
        "confirm", "Confirm a relation (a person's word)."
    )
    reject_relation: Relation = relation_mutation(
        "reject", "Reject a relation; it stays on record."
    )
    remove_relation: Relation = relation_mutation(
        "remove", "Hide a relation (undoable; sources and references stay)."
    )
    restore_relation: Relation = relation_mutation("restore", "Undo a removal.")
    accept_suggestion: Suggestion = suggestion_mutation(
        "accept", "Apply a suggestion: it becomes the person's edit."
    )
    dismiss_suggestion: Suggestion = suggestion_mutation("dismiss", "Dismiss a suggestion.")


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="Hints that a scope's graph changed (results, corrections, sources)."
    )
    async def graph_changed(
        self, info: Info[Context, None], scope: str
    ) -> AsyncGenerator[GraphChange, None]:
        reader(info, scope)
        # the process's one Redis subscriber (api/app.py lifespan), else a connection of its own
        hub: GraphChangeHub | None = getattr(info.context.request.app.state, "changes", None)
        messages = hub.listen(scope) if hub is not None else listen(info.context.pool, scope)
        async for message in messages:
            yield GraphChange(
                scope=message["scope"],
                kind=message["kind"],
                ids=message["ids"],
                by=message["by"],
                at=datetime.fromisoformat(message["at"]),
            )
