"""Reads of a scope's story graph (docs/rules/reviews.md): the graph as known at asOf, the graph
view and its replay tables, one entity or result, the paged lists and a knowledge entry.

Each checks the `reader` role and the scope first (FORBIDDEN, naming no scope); an object
of another scope is then simply not found in this scope's reads (NOT_FOUND).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.errors import InvalidInput
from engine.page import Page
from engine.principal import Principal
from engine.scope import require_scope
from engine.story.filters import EntityFilter, EventFilter, RelationFilter
from engine.story.models import (
    Entity,
    Event,
    Reference,
    Relation,
    Source,
    SourceVersion,
    Suggestion,
)
from engine.story.views import EntityView, Excerpt, GraphView, ResultView, StoryGraph
from graph.view import ReplayStore
from jobs.deps import Deps, as_of_now
from jobs.notify import GraphChangeHub, listen
from jobs.story.common import knowledge_repo, pages, story_repo
from jobs.story.ordering import CitedReference, citing, relations_of


@dataclass(frozen=True)
class ViewWithRange:
    view: GraphView
    first: datetime | None  # first and last record time of the scope's results
    last: datetime | None


@dataclass(frozen=True)
class EntityDetail:
    """One entity with what cites and touches it (the MCP `get_entity` answer)."""

    view: EntityView
    graph: StoryGraph
    relations: list[Relation]
    cited: list[Reference]
    excerpts: list[CitedReference]


async def _check_bounded(
    deps: Deps,
    scope: str,
    at: datetime,
    from_: datetime | None,
    to: datetime | None,
    story_id: str | None,
) -> None:
    """A read without from/to or storyId loads the whole scope: refused above
    Settings.story_max_unbounded_objects (INVALID_INPUT saying how to narrow it)."""
    if from_ is None and to is None and story_id is None:
        cap = deps.settings.story_max_unbounded_objects
        await pages(deps).check_bounded(scope, at, cap)


async def story_graph(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    as_of: datetime | None = None,
    valid_at: datetime | None = None,
    from_: datetime | None = None,
    to: datetime | None = None,
    story_id: str | None = None,
    include_removed: bool = False,
    bounded: bool = True,
) -> StoryGraph:
    """storyGraph; `bounded` refuses an unwindowed read of a scope above the cap."""
    scope = require_scope(principal, "reader", scope)
    at = as_of_now(deps, as_of)
    if bounded:
        await _check_bounded(deps, scope, at, from_, to, story_id)
    return await story_repo(deps).story_graph(
        scope,
        as_of=at,
        valid_at=valid_at,
        from_=from_,
        to=to,
        story_id=story_id,
        include_removed=include_removed,
    )


MAX_OBJECT_IDS = 100


async def story_objects(
    deps: Deps,
    principal: Principal,
    scope: str,
    ids: list[str],
    *,
    as_of: datetime | None = None,
    include_removed: bool = False,
) -> StoryGraph:
    """storyObjects: the objects `ids` as known at asOf with what their details show (a
    graph view's click reads this, never the whole scope). An id not believed then (or of
    another scope) is simply absent."""
    scope = require_scope(principal, "reader", scope)
    if not 0 < len(ids) <= MAX_OBJECT_IDS:
        raise InvalidInput(
            f"argument ids: {len(ids)} ids are not 1 to {MAX_OBJECT_IDS}; ids takes 1 to "
            f"{MAX_OBJECT_IDS} object ids, "
            "such as the ids an earlier answer gave",
            field="ids",
        )
    return await story_repo(deps).objects_graph(
        scope,
        list(dict.fromkeys(ids)),
        as_of=as_of_now(deps, as_of),
        include_removed=include_removed,
    )


async def graph_view(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    as_of: datetime | None = None,
    from_: datetime | None = None,
    to: datetime | None = None,
) -> ViewWithRange:
    scope = require_scope(principal, "reader", scope)
    at = as_of_now(deps, as_of)
    await _check_bounded(deps, scope, at, from_, to, None)
    view = await story_repo(deps).graph_view(scope, as_of=at, from_=from_, to=to)
    first, last = await ReplayStore(deps.driver, deps.database).recorded_range(scope)
    return ViewWithRange(view=view, first=first, last=last)


def _zoned(value: datetime | None, name: str) -> datetime | None:
    if value is not None and value.utcoffset() is None:
        raise InvalidInput(f"{name} needs a time zone", field=name)
    return value


async def graph_replay(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    from_: datetime | None = None,
    to: datetime | None = None,
) -> dict[str, list[Any]]:
    """Every version of the scope's graph objects, as the graph view page replays them;
    without from/to bounded like storyGraph (refused above the cap)."""
    scope = require_scope(principal, "reader", scope)
    await _check_bounded(deps, scope, deps.clock(), from_, to, None)
    return await ReplayStore(deps.driver, deps.database).replay(
        scope, from_=_zoned(from_, "from"), to=_zoned(to, "to")
    )


async def entity(
    deps: Deps, principal: Principal, scope: str, entity_id: str, *, as_of: datetime | None = None
) -> EntityView:
    scope = require_scope(principal, "reader", scope)
    return await story_repo(deps).entity(scope, entity_id, as_of=as_of_now(deps, as_of))


async def result(deps: Deps, principal: Principal, scope: str, result_id: str) -> ResultView:
    scope = require_scope(principal, "reader", scope)
    return await story_repo(deps).result(scope, result_id)


async def reference_excerpts(
    deps: Deps, principal: Principal, scope: str, reference_ids: list[str]
) -> dict[str, Excerpt]:
    """Excerpts of many references of one scope in one read (missing ids are absent)."""
    scope = require_scope(principal, "reader", scope)
    return await story_repo(deps).reference_excerpts(scope, reference_ids)


async def entity_detail(
    deps: Deps, principal: Principal, scope: str, entity_id: str, *, cited_limit: int
) -> EntityDetail:
    """An entity as known now, its relations, and the first `cited_limit` references that
    cite it with the text of exactly their source version."""
    scope = require_scope(principal, "reader", scope)
    repo = story_repo(deps)
    now = as_of_now(deps, None)
    view = await repo.entity(scope, entity_id, as_of=now)
    graph = await repo.story_graph(scope, as_of=now)
    touching = [r for r in relations_of(graph) if entity_id in (r.from_id, r.to_id)]
    cited = citing(graph, entity_id)
    shown = cited[:cited_limit]
    found = await repo.reference_excerpts(scope, [r.id for r in shown])
    excerpts = [CitedReference(r, found[r.id]) for r in shown if r.id in found]
    return EntityDetail(view, graph, touching, cited, excerpts)


# --- pages (keyset cursors, paged in Cypher) ----------------------------------------------


@dataclass(frozen=True)
class PageAsk:
    """What a page asks for besides its filters: the size, the position, the count."""

    first: int
    with_total: bool


async def entities_page(
    deps: Deps,
    principal: Principal,
    scope: str,
    ask: PageAsk,
    where: EntityFilter,
    *,
    as_of: datetime | None = None,
    after: tuple[str, str] | None = None,
) -> Page[Entity]:
    """Entities believed at asOf (the page's `as_of`) in (name, id) order; with from/to
    (event time) or a story, among the entities its events touch."""
    scope = require_scope(principal, "reader", scope)
    at = as_of_now(deps, as_of)
    return await pages(deps).entities(
        scope, at, where.in_utc(), after=after, limit=ask.first, with_total=ask.with_total
    )


async def relations_page(
    deps: Deps,
    principal: Principal,
    scope: str,
    ask: PageAsk,
    where: RelationFilter,
    *,
    as_of: datetime | None = None,
    after: tuple[str, str] | None = None,
) -> Page[Relation]:
    """Relations believed at asOf (the page's `as_of`) in (type, id) order; with from/to or
    a story, the relations among the entities its events touch."""
    scope = require_scope(principal, "reader", scope)
    at = as_of_now(deps, as_of)
    return await pages(deps).relations(
        scope, at, where.in_utc(), after=after, limit=ask.first, with_total=ask.with_total
    )


async def pending_suggestions(
    deps: Deps, principal: Principal, scope: str, ids: list[str], *, as_of: datetime
) -> dict[str, list[Suggestion]]:
    """The pending suggestions believed at `as_of` about the objects `ids` (one page's)."""
    scope = require_scope(principal, "reader", scope)
    return await pages(deps).pending_suggestions(scope, as_of, ids)


async def entity_names(
    deps: Deps, principal: Principal, scope: str, ids: list[str], *, as_of: datetime
) -> dict[str, str]:
    """The names of the entities `ids` believed at `as_of` (a relation page's endpoints)."""
    scope = require_scope(principal, "reader", scope)
    return await pages(deps).entity_names(scope, as_of, ids)


async def events_page(
    deps: Deps,
    principal: Principal,
    scope: str,
    ask: PageAsk,
    where: EventFilter,
    *,
    as_of: datetime | None = None,
    after: tuple[datetime, str] | None = None,
) -> Page[Event]:
    """Events in time order, optionally of one story and an interval."""
    scope = require_scope(principal, "reader", scope)
    at = as_of_now(deps, as_of)
    return await pages(deps).events(
        scope, at, where.in_utc(), after=after, limit=ask.first, with_total=ask.with_total
    )


async def histories(
    deps: Deps,
    principal: Principal,
    cls: type[Entity] | type[Relation],
    scope: str,
    ids: list[str],
    *,
    as_of: datetime | None = None,
) -> dict[str, list[Any]]:
    """Every version of `ids` recorded by asOf (default now), by id, in one statement."""
    scope = require_scope(principal, "reader", scope)
    found: dict[str, list[Any]] = await pages(deps).histories(
        cls, scope, ids, as_of or deps.clock()
    )
    return found


# --- knowledge entries --------------------------------------------------------------------


async def knowledge_entry(
    deps: Deps, principal: Principal, scope: str, source_id: str, version: str | None = None
) -> tuple[Source, SourceVersion | None]:
    """A local entry: a source of the scope and one version (default its current one)."""
    scope = require_scope(principal, "reader", scope)
    return await knowledge_repo(deps).entry(scope, source_id, version)


# --- change hints -------------------------------------------------------------------------


def graph_changes(
    deps: Deps, principal: Principal, scope: str, hub: GraphChangeHub | None
) -> AsyncIterator[dict[str, Any]]:
    """The scope's graphChanged hints, checked before the first one is awaited: through the
    process's one Redis subscriber (`hub`), else a connection of its own."""
    scope = require_scope(principal, "reader", scope)
    if hub is not None:
        return hub.listen(scope)
    if deps.pool is None:
        raise RuntimeError("graph change hints need Redis")
    return listen(deps.pool, scope)
