"""publishResult (docs/rules/reviews.md): one whole organising result, with every object it names,
in one write transaction; a repeated key is a repeat, never a second result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ConstraintError

from engine.clock import FOREVER, utc
from engine.errors import Conflict, InvalidInput
from engine.story.identity import passage_event_id
from engine.story.inputs import PublishResultInput
from engine.story.models import (
    SINGLE_HOLDER_TYPES,
    Actor,
    Entity,
    Event,
    ObjectKind,
    Relation,
    Result,
    Story,
)
from engine.story.publish import PublishContext, PublishPlan, decide_publish
from graph.story import dismissals
from graph.story.codec import from_props, to_props, write_row
from graph.story.store import StoryStore


@dataclass(frozen=True)
class PublishOutcome:
    result: Result
    repeat: bool  # True when the key had been published before: nothing was written now
    plan: PublishPlan


class StoryPublisher(StoryStore):
    async def _publish_context(
        self, tx: AsyncManagedTransaction, inp: PublishResultInput
    ) -> PublishContext:
        scope = inp.scope
        rows = await self.rows(tx, "story/result_by_key", scope=scope, key=inp.key)
        existing = from_props(Result, rows[0]["r"]) if rows else None
        if existing is not None:
            return PublishContext(existing=existing)
        named = sorted({e.well_formed_id for e in inp.entities if e.well_formed_id})
        entities = {
            v.id: v
            for v in await self._versions(tx, ObjectKind.ENTITY, scope, named)
            if v.retracted_at is None and isinstance(v, Entity)
        }
        named_events = sorted(
            {e.well_formed_id for e in inp.events if e.well_formed_id}
            | {passage_event_id(scope, e.passage) for e in inp.events if e.passage and not e.id}
        )
        event_versions = await self._versions(tx, ObjectKind.EVENT, scope, named_events)
        events = {
            v.id: v for v in event_versions if v.retracted_at is None and isinstance(v, Event)
        }
        event_changes = {
            (r["event_id"], r["entity_id"], r["kind"]): r["id"]
            for r in await self._rows_for(tx, "story/event_changes", sorted(events), scope=scope)
        }
        relations = [
            from_props(Relation, r["v"])
            for r in await self._rows_for(
                tx,
                "story/current_relations_among",
                sorted(entities),
                scope=scope,
                forever=FOREVER,
            )
        ]
        holders = [
            (from_props(Relation, r["v"]), str(r["holder"]))
            for r in await self._rows_for(
                tx,
                "story/current_holders_of",
                sorted(entities),
                scope=scope,
                types=sorted(SINGLE_HOLDER_TYPES),
                forever=FOREVER,
            )
        ]
        story_ids = sorted({s.id for s in inp.stories if s.id})
        stories = {
            v.id: v
            for v in await self._versions(tx, ObjectKind.STORY, scope, story_ids)
            if v.retracted_at is None and isinstance(v, Story)
        }
        source_ids = sorted(
            {r.source_id for r in inp.all_references()}
            | {s for sm in inp.summaries for s in sm.source_ids}
        )
        found: dict[str, set[str]] = {}
        for r in await self.rows(tx, "story/source_versions_of", scope=scope, ids=source_ids):
            found.setdefault(r["source_id"], set()).add(r["version"])
        return PublishContext(
            entities=entities,
            events=events,
            events_taken=frozenset(v.id for v in event_versions),
            event_changes=event_changes,
            relations=relations,
            holders=holders,
            stories=stories,
            source_versions={k: frozenset(v) for k, v in found.items()},
        )

    async def _write_plan(self, tx: AsyncManagedTransaction, plan: PublishPlan) -> None:
        await self.rows(tx, "story/write_result", row=to_props(plan.result))
        await self._write_versions(tx, ObjectKind.STORY, plan.stories)
        await self._write_versions(tx, ObjectKind.ENTITY, plan.entities)
        await self._write_versions(tx, ObjectKind.EVENT, plan.events)
        await self._write_versions(tx, ObjectKind.RELATION, plan.relations)
        await self._write_versions(tx, ObjectKind.SUGGESTION, plan.suggestions)
        if plan.changes:
            await self.rows(tx, "story/write_changes", rows=[write_row(c) for c in plan.changes])
        if plan.summaries:
            await self.rows(
                tx, "story/write_summaries", rows=[write_row(s) for s in plan.summaries]
            )
        if plan.references:
            rows = await self.rows(
                tx, "story/write_references", rows=[write_row(r) for r in plan.references]
            )
            if rows[0]["written"] != len(plan.references):
                raise InvalidInput("a reference lost its source version; nothing was written")
        if plan.mentions:
            await self.rows(tx, "story/write_mentions", rows=[to_props(m) for m in plan.mentions])

    async def publish_result(
        self,
        inp: PublishResultInput,
        *,
        by: Actor,
        now: datetime,
        within: Callable[[AsyncManagedTransaction, PublishPlan], Awaitable[None]] | None = None,
    ) -> PublishOutcome:
        """publishResult: one whole organising result in one write transaction
        (docs/rules/reviews.md).

        `now` is the record time (the use case's clock; a loader replaying history passes
        the past moment). `within` runs inside the same transaction after the result is
        written (also for a repeat): the supervision publish stage writes its run and
        checkpoint there, so the run becomes completed only if the result commits; if it
        raises, nothing is written.
        """
        now = utc(now)

        async def work(tx: AsyncManagedTransaction) -> PublishPlan:
            ctx = await self._publish_context(tx, inp)
            plan = decide_publish(inp, ctx, now, by)
            if not plan.repeat:
                await dismissals.recall(self, tx, plan)  # repeats of dismissed proposals
                await self._write_plan(tx, plan)
            if within is not None:
                await within(tx, plan)
            return plan

        try:
            plan = await self.write(work)
        except Conflict as exc:
            if not isinstance(exc.__cause__, ConstraintError):
                raise
            # A concurrent publish of the same key won the race: answer as a repeat.
            plan = await self.write(work)
        return PublishOutcome(result=plan.result, repeat=plan.repeat, plan=plan)
