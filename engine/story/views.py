"""Read models: the time-sliced story graph and the visualisation view.

`select_graph` is the one definition of the read filters (docs/rules/story-graph.md#time), applied
to whatever versions were recorded and not yet retracted at `as_of`:
- `valid_at` T: events that happened by T (`at <= T`), entities and relations valid at T
  (`valid_from <= T < valid_to`, open ends), summaries whose interval contains T;
- `from`/`to`: events with `from <= at <= to`, summaries whose interval overlaps [from, to];
- `story_id`: that story's events and summaries;
- a window (`from`/`to` or `story_id`) is a neighbourhood, not a slice of the whole scope:
  the entities its events touch and the relations among those entities (docs/rules/story-graph.md
  选择…时间区间 uses 当时已有的事件与认识 — the knowledge those events speak of), so a
  window's answer stays as small as the window however long the scope's history is.
Changes, references and suggestions follow the objects they belong to; removed relations
are left out unless asked for (they stay restorable; docs/rules/story-graph.md).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from pydantic import BaseModel, Field

from engine.clock import valid_within
from engine.story.models import (
    Change,
    Entity,
    Event,
    Mention,
    ObjectKind,
    Reference,
    Relation,
    Result,
    Story,
    Suggestion,
    Summary,
)


class StoryGraph(BaseModel):
    scope: str
    as_of: datetime
    valid_at: datetime | None = None
    from_: datetime | None = None
    to: datetime | None = None
    story_id: str | None = None
    stories: list[Story] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    changes: list[Change] = Field(default_factory=list)
    summaries: list[Summary] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    suggestions: list[Suggestion] = Field(default_factory=list)

    def canonical(self) -> StoryGraph:
        """Every list sorted by id, so two graphs compare by content."""
        data = {
            name: sorted(getattr(self, name), key=lambda o: o.id)
            for name in (
                "stories",
                "events",
                "entities",
                "relations",
                "changes",
                "summaries",
                "references",
                "suggestions",
            )
        }
        return self.model_copy(update=data)


def select_graph(
    graph: StoryGraph,
    *,
    valid_at: datetime | None = None,
    from_: datetime | None = None,
    to: datetime | None = None,
    story_id: str | None = None,
    include_removed: bool = False,
) -> StoryGraph:
    events = [
        e
        for e in graph.events
        if (valid_at is None or e.at <= valid_at)
        and (from_ is None or e.at >= from_)
        and (to is None or e.at <= to)
        and (story_id is None or e.story_id == story_id)
    ]
    event_ids = {e.id for e in events}
    entities = [
        e
        for e in graph.entities
        if valid_at is None or valid_within(e.valid_from, e.valid_to, valid_at)
    ]
    if story_id is not None or from_ is not None or to is not None:
        touched = {c.entity_id for c in graph.changes if c.event_id in event_ids}
        entities = [e for e in entities if e.id in touched]
    entity_ids = {e.id for e in entities}
    relations = [
        r
        for r in graph.relations
        if r.from_id in entity_ids
        and r.to_id in entity_ids
        and (include_removed or not r.removed)
        and (valid_at is None or valid_within(r.valid_from, r.valid_to, valid_at))
    ]
    changes = [c for c in graph.changes if c.event_id in event_ids and c.entity_id in entity_ids]
    summaries = [
        s
        for s in graph.summaries
        if (valid_at is None or s.interval_start <= valid_at <= s.interval_end)
        and (from_ is None or s.interval_end >= from_)
        and (to is None or s.interval_start <= to)
        and (story_id is None or s.story_id == story_id)
    ]
    stories = [s for s in graph.stories if story_id is None or s.id == story_id]
    visible: dict[ObjectKind, set[str]] = {
        ObjectKind.EVENT: event_ids,
        ObjectKind.ENTITY: entity_ids,
        ObjectKind.RELATION: {r.id for r in relations},
        ObjectKind.CHANGE: {c.id for c in changes},
        ObjectKind.SUMMARY: {s.id for s in summaries},
    }
    suggestions = [s for s in graph.suggestions if s.target_id in visible.get(s.target_kind, set())]
    visible[ObjectKind.SUGGESTION] = {s.id for s in suggestions}
    references = [r for r in graph.references if r.owner_id in visible.get(r.owner_kind, set())]
    return graph.model_copy(
        update={
            "valid_at": valid_at,
            "from_": from_,
            "to": to,
            "story_id": story_id,
            "stories": stories,
            "events": events,
            "entities": entities,
            "relations": relations,
            "changes": changes,
            "summaries": summaries,
            "references": references,
            "suggestions": suggestions,
        }
    )


class ViewNode(BaseModel):
    id: str
    label: str
    kind: str
    status: str


class ViewEdge(BaseModel):
    id: str
    source: str
    target: str
    kind: str  # "relation" (entity -> entity) or "change" (event on the timeline -> entity)
    label: str
    status: str = ""


class TimelineDay(BaseModel):
    """A same-day cluster on the outer ring: display only, never a knowledge entity."""

    day: str
    event_ids: list[str]


class TimelineEvent(BaseModel):
    id: str
    title: str
    at: datetime
    story_id: str | None = None


class StageMarker(BaseModel):
    summary_id: str
    start: datetime
    end: datetime
    text: str


class GraphView(BaseModel):
    """docs/rules/story-graph.md: time ring of events and stage markers, entities inside,
    event->entity edges for changes, entity->entity edges for relations."""

    scope: str
    as_of: datetime
    nodes: list[ViewNode]
    edges: list[ViewEdge]
    timeline: list[TimelineEvent]
    days: list[TimelineDay]
    stages: list[StageMarker]


def build_graph_view(graph: StoryGraph) -> GraphView:
    nodes = [
        ViewNode(id=e.id, label=e.name, kind=e.kind, status=e.status.value)
        for e in sorted(graph.entities, key=lambda e: e.id)
    ]
    edges = [
        ViewEdge(
            id=r.id,
            source=r.from_id,
            target=r.to_id,
            kind="relation",
            label=r.type,
            status=r.confirmation.value,
        )
        for r in sorted(graph.relations, key=lambda r: r.id)
    ] + [
        ViewEdge(id=c.id, source=c.event_id, target=c.entity_id, kind="change", label=c.kind.value)
        for c in sorted(graph.changes, key=lambda c: c.id)
    ]
    timeline = [
        TimelineEvent(id=e.id, title=e.title, at=e.at, story_id=e.story_id)
        for e in sorted(graph.events, key=lambda e: (e.at, e.id))
    ]
    by_day: dict[str, list[str]] = defaultdict(list)
    for ev in timeline:
        by_day[ev.at.date().isoformat()].append(ev.id)
    days = [TimelineDay(day=d, event_ids=ids) for d, ids in sorted(by_day.items())]
    stages = [
        StageMarker(summary_id=s.id, start=s.interval_start, end=s.interval_end, text=s.text)
        for s in sorted(graph.summaries, key=lambda s: (s.interval_start, s.id))
    ]
    return GraphView(
        scope=graph.scope,
        as_of=graph.as_of,
        nodes=nodes,
        edges=edges,
        timeline=timeline,
        days=days,
        stages=stages,
    )


class EntityMentionView(BaseModel):
    """A result's description of an entity, with the edits a person carried into it."""

    mention: Mention
    amended: dict[str, str] = Field(default_factory=dict)


class ResultView(BaseModel):
    """`result(id)`: recap, feedback and graph delta, all citing one result id
    (docs/rules/reviews.md)."""

    result: Result
    events: list[Event] = Field(default_factory=list)
    changes: list[Change] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)  # versions this result wrote
    relations: list[Relation] = Field(default_factory=list)
    summaries: list[Summary] = Field(default_factory=list)
    suggestions: list[Suggestion] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    mentions: list[EntityMentionView] = Field(default_factory=list)


class EntityView(BaseModel):
    """`entity(id, asOf)`: the version believed at `as_of`, and every version ever recorded."""

    entity: Entity
    history: list[Entity]
    pending_suggestions: list[Suggestion] = Field(default_factory=list)


class Excerpt(BaseModel):
    """A reference's text from the exact source version, or a warning that it is gone
    (docs/rules/story-graph.md#time)."""

    source_id: str
    version: str
    locator: str
    available: bool
    text: str | None = None
    warning: str | None = None
    withdrawn_at: datetime | None = None  # set when the app withdrew this version
