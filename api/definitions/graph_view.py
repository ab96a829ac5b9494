"""graphView: visualisation-ready nodes, edges and timeline (docs/rules/story-graph.md)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import build
from engine.story import views as v
from jobs import scopes


@strawberry.type
class ViewNode:
    id: str
    label: str
    kind: str
    status: str


@strawberry.type
class ViewEdge:
    id: str
    source: str
    target: str
    kind: str = strawberry.field(
        description='"relation" (entity→entity) or "change" (event→entity)'
    )
    label: str
    status: str


@strawberry.type
class TimelineEvent:
    id: str
    title: str
    at: datetime
    story_id: str | None


@strawberry.type(description="A same-day cluster on the time ring: display only, never an entity.")
class TimelineDay:
    day: str
    event_ids: list[str]


@strawberry.type
class StageMarker:
    summary_id: str
    start: datetime
    end: datetime
    text: str


@strawberry.type(description="First and last record time in the scope, for a replay slider.")
class RecordedRange:
    first: datetime | None
    last: datetime | None


@strawberry.type
class GraphView:
    scope: str
    as_of: datetime
    nodes: list[ViewNode]
    edges: list[ViewEdge]
    timeline: list[TimelineEvent]
    days: list[TimelineDay]
    stages: list[StageMarker]
    recorded_range: RecordedRange

    @strawberry.field(
        description="False when nothing is recorded in the scope (no story data, source, "
        "concern or watch): the empty answer then means an unknown scope, perhaps a mistyped "
        "one, not an empty slice of a known one. No read falls back to another scope."
    )
    async def scope_known(self, info: Info[Context, None]) -> bool:
        return await scopes.scope_known(info.context.deps, info.context.caller(), self.scope)


def graph_view_type(view: v.GraphView, first: datetime | None, last: datetime | None) -> GraphView:
    return GraphView(
        scope=view.scope,
        as_of=view.as_of,
        nodes=[build(ViewNode, n) for n in view.nodes],
        edges=[build(ViewEdge, e) for e in view.edges],
        timeline=[build(TimelineEvent, e) for e in view.timeline],
        days=[build(TimelineDay, d) for d in view.days],
        stages=[build(StageMarker, s) for s in view.stages],
        recorded_range=RecordedRange(first=first, last=last),
    )
