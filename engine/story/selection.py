"""The objects a person selected, as known at one moment, with what they cite.

Saving to knowledge and continuing a discussion both start from a selection in the graph view
(docs/rules/story-graph.md#views-knowledge-and-discussion): entities, relations, events and
stage summaries, possibly all objects of one result (结果定位以结果 ID 为准). The
selection is read in the selection's own scope only; an id that is not there at that moment
is NOT_FOUND, never another scope's object.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from engine.errors import NotFound
from engine.story.models import (
    Entity,
    Event,
    ObjectKind,
    Reference,
    Relation,
    Source,
    SourceVersion,
    Summary,
)
from engine.story.previews import ObjectRef


class Selection(BaseModel):
    """Selected objects (the versions believed at `as_of`) and the sources around them."""

    scope: str
    as_of: datetime
    refs: list[ObjectRef]
    entities: dict[str, Entity] = Field(default_factory=dict)
    relations: dict[str, Relation] = Field(default_factory=dict)
    events: dict[str, Event] = Field(default_factory=dict)
    summaries: dict[str, Summary] = Field(default_factory=dict)
    names: dict[str, str] = Field(default_factory=dict)  # entity id -> name (relation ends)
    references: list[Reference] = Field(default_factory=list)  # of the selected objects
    sources: dict[str, Source] = Field(default_factory=dict)  # cited or named as entries
    versions: dict[str, SourceVersion] = Field(default_factory=dict)  # "<source>@<version>"

    def check_found(self) -> Selection:
        found: dict[ObjectKind, dict[str, Any]] = {
            ObjectKind.ENTITY: self.entities,
            ObjectKind.RELATION: self.relations,
            ObjectKind.EVENT: self.events,
            ObjectKind.SUMMARY: self.summaries,
        }
        missing = [r for r in self.refs if r.id not in found[r.kind]]
        if missing:
            raise NotFound(
                f"no {missing[0].kind.value} {missing[0].id} in scope {self.scope} "
                f"as of {self.as_of.isoformat()}",
                ids=[r.id for r in missing],
                scope=self.scope,
            )
        return self

    def references_of(self, object_id: str) -> list[Reference]:
        return sorted(
            (r for r in self.references if r.owner_id == object_id),
            key=lambda r: (r.source_id, r.source_version, r.locator, r.id),
        )

    def stored(self, source_id: str, version: str) -> SourceVersion | None:
        return self.versions.get(version_key(source_id, version))


def version_key(source_id: str, version: str) -> str:
    return f"{source_id}@{version}"


def dedupe(refs: list[ObjectRef]) -> list[ObjectRef]:
    """Each object once, in the order chosen (the first `entry` named for it wins)."""
    seen: set[tuple[ObjectKind, str]] = set()
    out = []
    for r in refs:
        if (r.kind, r.id) not in seen:
            seen.add((r.kind, r.id))
            out.append(r)
    return out
