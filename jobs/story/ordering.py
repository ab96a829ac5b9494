"""The orderings and filters a list applies to a story graph before paging (the MCP tools
page a graph in memory; the GraphQL lists page in Cypher), and the references that cite
one entity."""

from __future__ import annotations

from dataclasses import dataclass

from engine.story.models import Confirmation, Entity, EntityStatus, Event, ObjectKind, Reference
from engine.story.models import Relation as RelationModel
from engine.story.views import Excerpt, StoryGraph


def entities_of(
    graph: StoryGraph,
    *,
    kind: str | None = None,
    status: EntityStatus | None = None,
    name_contains: str | None = None,
) -> list[Entity]:
    """Entities by name (then id), filtered before paging."""
    needle = (name_contains or "").casefold()
    return [
        e
        for e in sorted(graph.entities, key=lambda e: (e.name, e.id))
        if (kind is None or e.kind == kind)
        and (status is None or e.status.value == status.value)
        and needle in e.name.casefold()
    ]


def relations_of(
    graph: StoryGraph, *, confirmation: Confirmation | None = None
) -> list[RelationModel]:
    """Relations by type (then id), optionally of one confirmation status."""
    return [
        r
        for r in sorted(graph.relations, key=lambda r: (r.type, r.id))
        if confirmation is None or r.confirmation.value == confirmation.value
    ]


def events_of(graph: StoryGraph) -> list[Event]:
    """Events in time order (then id)."""
    return sorted(graph.events, key=lambda e: (e.at, e.id))


@dataclass(frozen=True)
class CitedReference:
    reference: Reference
    excerpt: Excerpt


def citing(graph: StoryGraph, entity_id: str) -> list[Reference]:
    """References that cite an entity: owned by it, or by a change that touched it."""
    changes = {c.id for c in graph.changes if c.entity_id == entity_id}
    return sorted(
        (
            r
            for r in graph.references
            if (r.owner_kind is ObjectKind.ENTITY and r.owner_id == entity_id)
            or (r.owner_kind is ObjectKind.CHANGE and r.owner_id in changes)
        ),
        key=lambda r: (r.recorded_at, r.id),
    )
