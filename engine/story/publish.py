"""publishResult as a decision: input + the state it touches -> everything to write.

One organising result is written whole or not at all (docs/rules/reviews.md、监督反馈和图谱
引用同一次整理的结论与来源). It is rejected whole when a reference points at a source version
that this scope does not hold (a missing version or another scope's source). A repeated key
with the same payload is a no-op that answers the first result; with another payload it is
a CONFLICT (idempotent under the client-supplied result key).

An event may name a stored event of the scope by id (engine/story/identity.py): a review
that re-reads messages already organised reuses their events instead of adding a second one.
A reused event gets a new version only when the result says something else about it; either
way it gains this result's references (the new source version), and a change the event
already records is not recorded twice (its new evidence joins the stored change).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from engine.errors import Conflict, InvalidInput
from engine.story.corrections import entity_update_from_result, holder_change, relation_evidence
from engine.story.identity import resolve_entity, resolve_event
from engine.story.inputs import EventIn, PublishResultInput, ReferenceIn, Stance
from engine.story.models import (
    SINGLE_HOLDER_TYPES,
    Actor,
    Change,
    Confirmation,
    Entity,
    EntityStatus,
    Event,
    Mention,
    ObjectKind,
    Reference,
    Relation,
    Result,
    Story,
    Suggestion,
    Summary,
    make_id,
)


@dataclass
class PublishContext:
    """The stored state a publish depends on, all read from the input's scope only."""

    existing: Result | None = None
    entities: Mapping[str, Entity] = field(default_factory=dict)  # named stored ids, current
    events: Mapping[str, Event] = field(default_factory=dict)  # named stored event ids, current
    # ids of the input's passage events that exist in any state (`resolve_event`)
    events_taken: frozenset[str] = frozenset()
    # the stored changes of those events: (event id, entity id, kind) -> change id
    event_changes: Mapping[tuple[str, str, str], str] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)  # current, among those entities
    # current single-holder relations (responsible_for) of those entities as the thing, with
    # each holder's current name
    holders: list[tuple[Relation, str]] = field(default_factory=list)
    stories: Mapping[str, Story] = field(default_factory=dict)
    source_versions: Mapping[str, frozenset[str]] = field(default_factory=dict)


class PublishPlan(BaseModel):
    """Rows to write. Versions with seq > 1 retract their predecessor at `result.recorded_at`."""

    result: Result
    repeat: bool = False
    stories: list[Story] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    changes: list[Change] = Field(default_factory=list)
    summaries: list[Summary] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    suggestions: list[Suggestion] = Field(default_factory=list)
    mentions: list[Mention] = Field(default_factory=list)


def result_id_for(scope: str, key: str) -> str:
    return make_id("res", scope, key)


def missing_sources(
    inp: PublishResultInput, source_versions: Mapping[str, frozenset[str]]
) -> list[str]:
    missing = {
        f"{r.source_id}@{r.source_version}"
        for r in inp.all_references()
        if r.source_version not in source_versions.get(r.source_id, frozenset())
    }
    for sm in inp.summaries:
        missing |= {s for s in sm.source_ids if s not in source_versions}
    return sorted(missing)


def decide_publish(
    inp: PublishResultInput, ctx: PublishContext, now: datetime, by: Actor
) -> PublishPlan:
    scope, key = inp.scope, inp.key
    digest = inp.payload_hash()
    if ctx.existing is not None:
        if ctx.existing.payload_hash != digest:
            raise Conflict(
                "this result key was already published with other contents",
                key=key,
                result_id=ctx.existing.id,
            )
        return PublishPlan(result=ctx.existing, repeat=True)
    missing = missing_sources(inp, ctx.source_versions)
    if missing:
        raise InvalidInput(
            "the result cites source versions this scope does not hold; nothing was written",
            missing=missing,
        )
    result_id = result_id_for(scope, key)
    plan = PublishPlan(
        result=Result(
            id=result_id,
            scope=scope,
            key=key,
            by=by,
            recorded_at=now,
            payload_hash=digest,
            decisions=list(inp.decisions),
            open_items=list(inp.open_items),
            feedback=inp.feedback,
            notify=inp.notify,
            complete=inp.coverage is None or not inp.coverage.missed,
            coverage=inp.coverage.model_dump_json() if inp.coverage is not None else None,
        )
    )
    planner = _Planner(inp, ctx, now, by, plan)
    planner.stories()
    planner.entities()
    planner.events()
    planner.changes()
    planner.relations()
    planner.summaries()
    plan.suggestions = list(planner.suggestions.values())
    plan.result = plan.result.model_copy(update={"warnings": planner.warnings})
    return plan


@dataclass
class _Planner:
    """One publish's plan, filled part by part (stories, entities, events, changes,
    relations, summaries): each part reads the ids the earlier parts gave the input's refs."""

    inp: PublishResultInput
    ctx: PublishContext
    now: datetime
    by: Actor
    plan: PublishPlan
    warnings: list[str] = field(default_factory=list)
    suggestions: dict[str, Suggestion] = field(default_factory=dict)
    story_ids: dict[str, str] = field(default_factory=dict)
    entity_ids: dict[str, str] = field(default_factory=dict)
    event_ids: dict[str, str] = field(default_factory=dict)

    @property
    def scope(self) -> str:
        return self.inp.scope

    @property
    def key(self) -> str:
        return self.inp.key

    @property
    def result_id(self) -> str:
        return self.plan.result.id

    def version_base(self, object_id: str) -> dict[str, Any]:
        return {
            "id": object_id,
            "scope": self.scope,
            "seq": 1,
            "recorded_at": self.now,
            "by": self.by,
            "why": f"result {self.result_id}",
            "via_result": self.result_id,
        }

    def add_refs(self, owner: ObjectKind, owner_id: str, tag: str, refs: list[ReferenceIn]) -> None:
        for j, r in enumerate(refs):
            self.plan.references.append(
                Reference(
                    id=make_id("ref", self.scope, self.key, owner.value, tag, str(j)),
                    scope=self.scope,
                    result_id=self.result_id,
                    owner_kind=owner,
                    owner_id=owner_id,
                    source_id=r.source_id,
                    source_version=r.source_version,
                    locator=r.locator,
                    recorded_at=self.now,
                )
            )

    def stories(self) -> None:
        for st in self.inp.stories:
            if st.id is not None:
                if st.id not in self.ctx.stories:
                    raise InvalidInput(
                        "story is not a story of this scope", story_id=st.id, scope=self.scope
                    )
                self.story_ids[st.ref] = st.id
                continue
            self.story_ids[st.ref] = make_id("sty", self.scope, self.key, st.ref)
            self.plan.stories.append(
                Story(
                    **self.version_base(self.story_ids[st.ref]),
                    name=st.name,
                    description=st.description,
                )
            )

    def entities(self) -> None:
        plan, result_id, now, by = self.plan, self.result_id, self.now, self.by
        for item in self.inp.entities:
            decision = resolve_entity(self.scope, self.key, item, self.ctx.entities)
            self.entity_ids[item.ref] = decision.object_id
            if decision.note:
                self.warnings.append(decision.note)
            if decision.reused:
                updated, proposed = entity_update_from_result(
                    self.ctx.entities[decision.object_id], item, result_id, now, by
                )
                if updated is not None:
                    plan.entities.append(updated)
                self.suggestions.update((s.id, s) for s in proposed)
            else:
                plan.entities.append(
                    Entity(
                        **self.version_base(decision.object_id),
                        name=item.name,
                        kind=item.kind or "",
                        description=item.description or "",
                        status=item.status or EntityStatus.CANDIDATE,
                        valid_from=item.valid_from,
                        valid_to=item.valid_to,
                    )
                )
            plan.mentions.append(
                Mention(
                    result_id=result_id,
                    entity_id=decision.object_id,
                    name=item.name,
                    description=item.description or "",
                )
            )
        for item in self.inp.entities:
            self.add_refs(ObjectKind.ENTITY, self.entity_ids[item.ref], item.ref, item.references)

    def events(self) -> None:
        for ev in self.inp.events:
            decision = resolve_event(
                self.scope, self.key, ev, self.ctx.events, self.ctx.events_taken
            )
            self.event_ids[ev.ref] = decision.object_id
            if decision.note:
                self.warnings.append(decision.note)
            story_id = self.story_ids.get(ev.story) if ev.story else None
            if decision.reused:
                updated_event = _event_update(
                    self.ctx.events[decision.object_id],
                    ev,
                    story_id,
                    self.result_id,
                    self.now,
                    self.by,
                    keep_time=decision.by_passage,
                )
                if updated_event is not None:
                    self.plan.events.append(updated_event)
                continue
            self.plan.events.append(
                Event(
                    **self.version_base(self.event_ids[ev.ref]),
                    result_id=self.result_id,
                    story_id=story_id,
                    title=ev.title,
                    description=ev.description,
                    at=ev.at,
                )
            )
        for ev in self.inp.events:
            self.add_refs(ObjectKind.EVENT, self.event_ids[ev.ref], ev.ref, ev.references)

    def changes(self) -> None:
        entity_ids, event_ids = self.entity_ids, self.event_ids
        for i, ch in enumerate(self.inp.changes):
            link = (event_ids[ch.event], entity_ids[ch.entity], ch.kind.value)
            stored_change = self.ctx.event_changes.get(link)
            if stored_change is not None:
                # a reused event already records this change: its evidence joins that change
                self.add_refs(ObjectKind.CHANGE, stored_change, str(i), ch.references)
                continue
            change_id = make_id("chg", self.scope, self.key, str(i))
            self.plan.changes.append(
                Change(
                    id=change_id,
                    scope=self.scope,
                    result_id=self.result_id,
                    event_id=event_ids[ch.event],
                    entity_id=entity_ids[ch.entity],
                    kind=ch.kind,
                    note=ch.note,
                    recorded_at=self.now,
                )
            )
            self.add_refs(ObjectKind.CHANGE, change_id, str(i), ch.references)

    def relations(self) -> None:
        ctx, inp, plan, entity_ids = self.ctx, self.inp, self.plan, self.entity_ids
        result_id, now, by, add_refs = self.result_id, self.now, self.by, self.add_refs
        current = {(r.from_id, r.to_id, r.type): r for r in ctx.relations if r.retracted_at is None}
        holders = {
            (r.to_id, r.type): (r, name)
            for r, name in ctx.holders
            if r.retracted_at is None
            and not r.removed
            and r.confirmation is not Confirmation.REJECTED
        }
        names = {item.ref: item.name for item in inp.entities}
        # a result that states several holders of one thing (a review reading "张三负责…" and,
        # later in the conversation, "…改由李四负责") says the last one holds it
        last_holder = {
            (entity_ids[rel.to], rel.type): rel.ref
            for rel in inp.relations
            if rel.type in SINGLE_HOLDER_TYPES and rel.stance is Stance.SUPPORTS
        }
        touched: set[str] = set()  # relations this result already wrote; later items add evidence
        for rel in inp.relations:
            from_id, to_id = entity_ids[rel.from_], entity_ids[rel.to]
            superseded = last_holder.get((to_id, rel.type), rel.ref) != rel.ref
            if superseded and rel.stance is Stance.SUPPORTS:
                continue
            existing = current.get((from_id, to_id, rel.type))
            held = holders.get((to_id, rel.type)) if rel.type in SINGLE_HOLDER_TYPES else None
            if existing is None and held is not None and rel.stance is Stance.SUPPORTS:
                holder, holder_name = held
                touched.add(holder.id)
                moved, suggestion = holder_change(
                    holder,
                    from_id,
                    (holder_name, names[rel.from_]),
                    result_id,
                    now,
                    by,
                    thing=names.get(rel.to, ""),
                )
                if moved is not None:
                    plan.relations.append(moved)
                    current[(from_id, to_id, rel.type)] = moved
                    add_refs(ObjectKind.RELATION, holder.id, rel.ref, rel.references)
                if suggestion is not None:
                    self.suggestions[suggestion.id] = suggestion
                    add_refs(ObjectKind.SUGGESTION, suggestion.id, rel.ref, rel.references)
                continue
            if existing is not None and existing.id in touched:
                add_refs(ObjectKind.RELATION, existing.id, rel.ref, rel.references)
                continue
            if existing is not None:
                touched.add(existing.id)
                updated_rel, suggestion = relation_evidence(existing, rel, result_id, now, by)
                if updated_rel is not None:
                    plan.relations.append(updated_rel)
                if suggestion is not None:
                    self.suggestions[suggestion.id] = suggestion
                    add_refs(ObjectKind.SUGGESTION, suggestion.id, rel.ref, rel.references)
                else:
                    add_refs(ObjectKind.RELATION, existing.id, rel.ref, rel.references)
                continue
            if rel.stance is Stance.CONTRADICTS:
                self.warnings.append(
                    f"relation {rel.ref!r}: contradicts a relation that does not exist"
                )
                continue
            new_rel = Relation(
                **self.version_base(make_id("rel", self.scope, self.key, rel.ref)),
                from_id=from_id,
                to_id=to_id,
                type=rel.type,
                reason=rel.reason,
                valid_from=rel.valid_from,
                valid_to=rel.valid_to,
            )
            plan.relations.append(new_rel)
            current[(from_id, to_id, rel.type)] = new_rel
            if rel.type in SINGLE_HOLDER_TYPES:
                holders.setdefault((to_id, rel.type), (new_rel, names[rel.from_]))
            touched.add(new_rel.id)
            add_refs(ObjectKind.RELATION, new_rel.id, rel.ref, rel.references)

    def summaries(self) -> None:
        for sm in self.inp.summaries:
            summary_id = make_id("sum", self.scope, self.key, sm.ref)
            self.plan.summaries.append(
                Summary(
                    id=summary_id,
                    scope=self.scope,
                    result_id=self.result_id,
                    story_id=self.story_ids.get(sm.story) if sm.story else None,
                    text=sm.text,
                    interval_start=sm.interval_start,
                    interval_end=sm.interval_end,
                    source_ids=list(sm.source_ids),
                    event_ids=[self.event_ids[e] for e in sm.events],
                    entity_ids=[self.entity_ids[e] for e in sm.entities],
                    recorded_at=self.now,
                )
            )
            self.add_refs(ObjectKind.SUMMARY, summary_id, sm.ref, sm.references)


def adds_nothing(plan: PublishPlan) -> bool:
    """A result that holds nothing the graph did not: no new or revised story, event,
    entity, change, relation or suggestion (only its references to the words read again)."""
    return not (
        plan.stories
        or plan.events
        or plan.entities
        or plan.changes
        or plan.relations
        or plan.suggestions
    )


def _event_update(
    current: Event,
    item: EventIn,
    story_id: str | None,
    result_id: str,
    now: datetime,
    by: Actor,
    *,
    keep_time: bool = False,
) -> Event | None:
    """A stored event a later result names again: a new version only if the result says
    something else about it (title, description, time, or a story it names); else None and
    the event keeps its version, gaining only this result's references. With `keep_time`
    (the event of a passage read again) its time stays: a line a new version repeats was
    said when it was first read, not when the new version was recorded."""
    wanted = {
        "title": item.title,
        "description": item.description,
        "at": current.at if keep_time else item.at,
        "story_id": story_id if story_id is not None else current.story_id,
    }
    if all(getattr(current, name) == value for name, value in wanted.items()):
        return None
    return current.model_copy(
        update={
            **wanted,
            "seq": current.seq + 1,
            "recorded_at": now,
            "retracted_at": None,
            "by": by,
            "why": f"result {result_id}",
            "via_result": result_id,
            "result_id": result_id,
        }
    )
