"""The reference model of the time semantics: replay operations in memory.

It keeps only the *current* state (no versions, no record times) and applies the same
decisions the repository applies. Replaying exactly the operations recorded at or before
T must give what `storyGraph(asOf=T)` reads from Neo4j's versions (docs/rules/story-graph.md#time: asOf T
shows what was recorded and not yet retracted at T, user corrections included only if
made before it). The property test in tests/integration/story compares the two.

Its filter (`window`: validAt, from/to, storyId) is written here from the rules, apart from
the product's `engine.story.views.select_graph`, which the reads use: an oracle that shared
it would agree with any mistake in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from engine.errors import NotFound
from engine.story.corrections import (
    RelationAction,
    act_on_relation,
    edit_entity,
    resolve_suggestion,
)
from engine.story.identity import passage_event_id
from engine.story.inputs import EntityEdit, PublishResultInput, SourceInput
from engine.story.models import (
    Actor,
    Change,
    Entity,
    Event,
    Reference,
    Relation,
    Result,
    Source,
    SourceVersion,
    Story,
    Suggestion,
    Summary,
)
from engine.story.publish import PublishContext, PublishPlan, decide_publish
from engine.story.sources import decide_source_upsert, decide_withdrawal
from engine.story.views import StoryGraph

Obj = TypeVar("Obj", bound=BaseModel)


def _put(store: dict[str, Obj], objs: list[Obj]) -> None:
    for obj in objs:
        store[getattr(obj, "id")] = obj  # noqa: B009 - every stored object has an id


@dataclass
class StoryReplay:
    stories: dict[str, Story] = field(default_factory=dict)
    events: dict[str, Event] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)
    relations: dict[str, Relation] = field(default_factory=dict)
    suggestions: dict[str, Suggestion] = field(default_factory=dict)
    changes: dict[str, Change] = field(default_factory=dict)
    summaries: dict[str, Summary] = field(default_factory=dict)
    references: dict[str, Reference] = field(default_factory=dict)
    results: dict[tuple[str, str], Result] = field(default_factory=dict)
    sources: dict[tuple[str, str], Source] = field(default_factory=dict)
    versions: dict[tuple[str, str], dict[str, SourceVersion]] = field(default_factory=dict)

    def upsert_source(self, inp: SourceInput, now: datetime) -> Source:
        key = (inp.scope, inp.id)
        known = self.versions.setdefault(key, {})
        source, new = decide_source_upsert(inp, self.sources.get(key), known, now)
        self.sources[key] = source
        known.update((v.version, v) for v in new)
        return source

    def withdraw_source(
        self, scope: str, source_id: str, version: str, reason: str, by: Actor, now: datetime
    ) -> SourceVersion:
        known = self.versions.get((scope, source_id), {})
        stored = known.get(version)
        withdrawn = decide_withdrawal(
            stored, source_id=source_id, version=version, reason=reason, now=now, by=by
        )
        if withdrawn is None:
            assert stored is not None
            return stored
        known[version] = withdrawn
        return withdrawn

    def context(self, inp: PublishResultInput) -> PublishContext:
        scope = inp.scope
        named = {e.well_formed_id for e in inp.entities if e.well_formed_id}
        entities = {i: e for i, e in self.entities.items() if i in named and e.scope == scope}
        named_events = {e.well_formed_id for e in inp.events if e.well_formed_id} | {
            passage_event_id(scope, e.passage) for e in inp.events if e.passage and not e.id
        }
        events = {i: e for i, e in self.events.items() if i in named_events and e.scope == scope}
        return PublishContext(
            existing=self.results.get((scope, inp.key)),
            entities=entities,
            events=events,
            events_taken=frozenset(events),
            event_changes={
                (c.event_id, c.entity_id, c.kind.value): c.id
                for c in self.changes.values()
                if c.scope == scope and c.event_id in events
            },
            relations=[
                r
                for r in self.relations.values()
                if r.scope == scope and r.from_id in entities and r.to_id in entities
            ],
            stories={i: s for i, s in self.stories.items() if s.scope == scope},
            source_versions={
                sid: frozenset(vs) for (sc, sid), vs in self.versions.items() if sc == scope
            },
        )

    def publish(self, inp: PublishResultInput, by: Actor, now: datetime) -> PublishPlan:
        plan = decide_publish(inp, self.context(inp), now, by)
        if plan.repeat:
            return plan
        self.results[(inp.scope, inp.key)] = plan.result
        _put(self.stories, plan.stories)
        _put(self.events, plan.events)
        _put(self.entities, plan.entities)
        _put(self.relations, plan.relations)
        _put(self.suggestions, plan.suggestions)
        _put(self.changes, plan.changes)
        _put(self.summaries, plan.summaries)
        _put(self.references, plan.references)
        return plan

    def _get(self, store: dict[str, Obj], scope: str, object_id: str) -> Obj:
        obj = store.get(object_id)
        if obj is None or getattr(obj, "scope", None) != scope:
            raise NotFound("no such object in this scope", id=object_id, scope=scope)
        return obj

    def update_entity(
        self,
        scope: str,
        entity_id: str,
        edit: EntityEdit,
        seen_seq: int,
        by: Actor,
        now: datetime,
        why: str = "",
    ) -> Entity:
        current = self._get(self.entities, scope, entity_id)
        updated = edit_entity(current, edit, seen_seq, now, by, why)
        self.entities[entity_id] = updated
        return updated

    def act_on_relation(
        self,
        scope: str,
        relation_id: str,
        action: RelationAction,
        by: Actor,
        now: datetime,
        why: str = "",
    ) -> Relation:
        current = self._get(self.relations, scope, relation_id)
        updated = act_on_relation(current, action, now, by, why)
        if updated is None:
            return current
        self.relations[relation_id] = updated
        return updated

    def resolve_suggestion(
        self,
        scope: str,
        suggestion_id: str,
        accept: bool,
        by: Actor,
        now: datetime,
        why: str = "",
    ) -> Suggestion:
        sugg = self._get(self.suggestions, scope, suggestion_id)
        target: Entity | Relation = (
            self._get(self.entities, scope, sugg.target_id)
            if sugg.target_kind.value == "entity"
            else self._get(self.relations, scope, sugg.target_id)
        )
        resolved, updated = resolve_suggestion(sugg, target, accept, now, by, why)
        self.suggestions[suggestion_id] = resolved
        if isinstance(updated, Entity):
            self.entities[updated.id] = updated
        elif isinstance(updated, Relation):
            self.relations[updated.id] = updated
        return resolved

    def graph(
        self,
        scope: str,
        as_of: datetime,
        *,
        valid_at: datetime | None = None,
        from_: datetime | None = None,
        to: datetime | None = None,
        story_id: str | None = None,
        include_removed: bool = False,
    ) -> StoryGraph:
        def mine(store: dict[str, Obj]) -> list[Obj]:
            return [o for o in store.values() if getattr(o, "scope", None) == scope]

        full = StoryGraph(
            scope=scope,
            as_of=as_of,
            stories=mine(self.stories),
            events=mine(self.events),
            entities=mine(self.entities),
            relations=mine(self.relations),
            changes=mine(self.changes),
            summaries=mine(self.summaries),
            references=mine(self.references),
            suggestions=mine(self.suggestions),
        )
        return window(
            full,
            valid_at=valid_at,
            from_=from_,
            to=to,
            story_id=story_id,
            include_removed=include_removed,
        ).canonical()


def _held(start: datetime | None, end: datetime | None, t: datetime) -> bool:
    """In the world at `t`: from its start (if any) up to, not including, its end."""
    return not (start is not None and t < start) and not (end is not None and t >= end)


def window(
    full: StoryGraph,
    *,
    valid_at: datetime | None,
    from_: datetime | None,
    to: datetime | None,
    story_id: str | None,
    include_removed: bool,
) -> StoryGraph:
    """The rules of a slice, one object kind at a time: an event counts when it happened by
    `valid_at`, inside [from, to] and in the story; a window or a story keeps the entities
    its events touch (through their changes), otherwise every entity held at `valid_at`;
    relations join two kept entities (removed ones only on request); a summary overlaps the
    window and holds `valid_at`; a reference or suggestion follows the object it is about."""

    def event_in(e: Any) -> bool:
        if valid_at is not None and e.at > valid_at:
            return False
        if from_ is not None and e.at < from_:
            return False
        if to is not None and e.at > to:
            return False
        return story_id is None or e.story_id == story_id

    events = [e for e in full.events if event_in(e)]
    kept_events = {e.id for e in events}
    narrowed = story_id is not None or from_ is not None or to is not None
    touched = {c.entity_id for c in full.changes if c.event_id in kept_events}
    entities = [
        e
        for e in full.entities
        if (valid_at is None or _held(e.valid_from, e.valid_to, valid_at))
        and (not narrowed or e.id in touched)
    ]
    kept_entities = {e.id for e in entities}
    relations = [
        r
        for r in full.relations
        if {r.from_id, r.to_id} <= kept_entities
        and (include_removed or not r.removed)
        and (valid_at is None or _held(r.valid_from, r.valid_to, valid_at))
    ]
    changes = [
        c for c in full.changes if c.event_id in kept_events and c.entity_id in kept_entities
    ]

    def summary_in(s: Any) -> bool:
        if valid_at is not None and not (s.interval_start <= valid_at <= s.interval_end):
            return False
        if from_ is not None and s.interval_end < from_:
            return False
        if to is not None and s.interval_start > to:
            return False
        return story_id is None or s.story_id == story_id

    summaries = [s for s in full.summaries if summary_in(s)]
    kept: dict[str, set[str]] = {
        "event": kept_events,
        "entity": kept_entities,
        "relation": {r.id for r in relations},
        "change": {c.id for c in changes},
        "summary": {s.id for s in summaries},
    }
    suggestions = [
        s for s in full.suggestions if s.target_id in kept.get(str(s.target_kind.value), set())
    ]
    kept["suggestion"] = {s.id for s in suggestions}
    references = [
        r for r in full.references if r.owner_id in kept.get(str(r.owner_kind.value), set())
    ]
    return full.model_copy(
        update={
            "valid_at": valid_at,
            "from_": from_,
            "to": to,
            "story_id": story_id,
            "stories": [s for s in full.stories if story_id is None or s.id == story_id],
            "events": events,
            "entities": entities,
            "relations": relations,
            "changes": changes,
            "summaries": summaries,
            "suggestions": suggestions,
            "references": references,
        }
    )
