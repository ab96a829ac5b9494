"""The story graph repository: load state, call the engine's decisions, write the versions.

Every write is one `execute_write` transaction whose function reads what the decision needs
and writes what it returns; an exception raised inside (a stale edit, a rejected result)
rolls the whole transaction back, so nothing is written. Functions are idempotent under the
driver's retries: ids are deterministic and every read happens inside the transaction.
Every read and write names its scope; no read falls back to another scope (seed 004 结果定位
…历史选择不能回退到其他项目的最新图谱).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncManagedTransaction, Record
from neo4j.exceptions import ConstraintError

from engine.errors import Conflict, InvalidInput, NotFound
from engine.story.clock import FOREVER, Clock, instant, recorded_within, utc, utcnow
from engine.story.corrections import (
    RelationAction,
    act_on_relation,
    edit_entity,
    resolve_suggestion,
)
from engine.story.inputs import EntityEdit, PublishResultInput, SourceInput, check_scope
from engine.story.models import (
    Actor,
    Amendment,
    Change,
    Entity,
    Event,
    Mention,
    ObjectKind,
    Reference,
    Relation,
    Result,
    Source,
    SourceVersion,
    Story,
    Suggestion,
    SuggestionStatus,
    Summary,
    Version,
    make_id,
)
from engine.story.publish import PublishContext, PublishPlan, decide_publish
from engine.story.sources import decide_source_upsert, decide_withdrawal, excerpt
from engine.story.views import (
    EntityMentionView,
    EntityView,
    Excerpt,
    GraphView,
    ResultView,
    StoryGraph,
    build_graph_view,
    select_graph,
)
from graph.base import Store
from graph.queries import Queries
from graph.search.passages import remove_passages, write_passages
from graph.story.codec import from_props, to_props, version_row, write_row
from graph.story.window import WHOLE_SCOPE_READS, graph_from_lists, window_params

W = TypeVar("W")
log = logging.getLogger("storygraph.graph.story")

# The allow-list: a versioned kind's model and its query-name stem. Labels live in the
# cypher files; Python only ever picks one of these keys.
VERSIONED: dict[ObjectKind, tuple[type[Version], str]] = {
    ObjectKind.STORY: (Story, "story"),
    ObjectKind.EVENT: (Event, "event"),
    ObjectKind.ENTITY: (Entity, "entity"),
    ObjectKind.RELATION: (Relation, "relation"),
    ObjectKind.SUGGESTION: (Suggestion, "suggestion"),
}


@dataclass(frozen=True)
class PublishOutcome:
    result: Result
    repeat: bool  # True when the key had been published before: nothing was written now
    plan: PublishPlan


class StoryRepository(Store):
    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        clock: Clock = utcnow,
        named: Queries | None = None,
        locale: str = "zh",
    ) -> None:
        super().__init__(driver, database, named=named)
        self._clock = clock
        self._locale = locale  # of the warnings an unavailable excerpt carries

    # --- plumbing ---------------------------------------------------------------------

    async def _versions(
        self, tx: AsyncManagedTransaction, kind: ObjectKind, scope: str, ids: Iterable[str]
    ) -> list[Version]:
        cls, stem = VERSIONED[kind]
        rows = await self._rows_for(tx, f"story/{stem}_versions", list(ids), scope=scope)
        return [from_props(cls, r["v"]) for r in rows]

    async def _rows_for(
        self, tx: AsyncManagedTransaction, key: str, ids: list[str], /, **params: Any
    ) -> list[Record]:
        """The rows of a read keyed by `ids`; no round trip when there are none (a publish
        of new objects names none)."""
        return await self.rows(tx, key, ids=ids, **params) if ids else []

    async def _current(
        self, tx: AsyncManagedTransaction, kind: ObjectKind, scope: str, object_id: str
    ) -> Version:
        for v in await self._versions(tx, kind, scope, [object_id]):
            if v.retracted_at is None:
                return v
        raise NotFound(f"no {kind.value} {object_id} in scope {scope}", id=object_id, scope=scope)

    async def _write_versions(
        self, tx: AsyncManagedTransaction, kind: ObjectKind, versions: list[Any]
    ) -> None:
        if not versions:
            return
        _, stem = VERSIONED[kind]
        rows = await self.rows(
            tx,
            f"story/write_{stem}_versions",
            rows=[version_row(v) for v in versions],
            forever=FOREVER,
        )
        if rows and rows[0]["orphaned"]:
            raise Conflict(f"a {kind.value} changed concurrently; nothing was written")

    async def _write(self, work: Callable[[AsyncManagedTransaction], Awaitable[W]]) -> W:
        """One write transaction; a uniqueness clash with a concurrent writer (the same
        version seq recorded twice) is a CONFLICT: this writer's transaction wrote nothing."""
        try:
            return await self.write(work)
        except Conflict as exc:
            if not isinstance(exc.__cause__, ConstraintError):
                raise
            # Neo4j's message names labels, properties and internal node ids: logged
            # here, never returned to the client
            log.info(
                "write lost a uniqueness race", extra={"fields": {"error": exc.__cause__.message}}
            )
            raise Conflict("changed concurrently; nothing was written") from None

    def _now(self, recorded_at: datetime | None) -> datetime:
        return utc(recorded_at) if recorded_at is not None else utc(self._clock())

    # --- sources ----------------------------------------------------------------------

    async def upsert_source(
        self, inp: SourceInput, *, recorded_at: datetime | None = None
    ) -> Source:
        """upsertSource: record the app's version(s) of a source (seed 004 L6)."""
        now = self._now(recorded_at)

        async def work(tx: AsyncManagedTransaction) -> Source:
            rows = await self.rows(tx, "story/source_get", scope=inp.scope, id=inp.id)
            existing = from_props(Source, rows[0]["s"]) if rows else None
            versions = {
                v.version: v
                for v in (
                    from_props(SourceVersion, p) for p in (rows[0]["versions"] if rows else [])
                )
            }
            source, new = decide_source_upsert(inp, existing, versions, now)
            await self.rows(
                tx,
                "story/write_source",
                source=to_props(source),
                versions=[to_props(v) for v in new],
            )
            await write_passages(tx, new)  # issue 30: the versions' lines, searchable
            return source

        return await self._write(work)

    async def withdraw_source(
        self,
        scope: str,
        source_id: str,
        version: str,
        *,
        reason: str,
        by: Actor,
        recorded_at: datetime | None = None,
    ) -> SourceVersion:
        """withdrawSource: the app deleted or redacted a version; its text leaves Neo4j.

        References to it then read as unavailable (never another version's text); the
        objects citing it stay. An unknown version is NOT_FOUND; a repeat writes nothing."""
        check_scope(scope)
        now = self._now(recorded_at)

        async def work(tx: AsyncManagedTransaction) -> SourceVersion:
            rows = await self.rows(
                tx, "story/source_version_get", scope=scope, source_id=source_id, version=version
            )
            stored = from_props(SourceVersion, rows[0]["v"]) if rows else None
            withdrawn = decide_withdrawal(
                stored, source_id=source_id, version=version, reason=reason, now=now, by=by
            )
            if withdrawn is None:
                assert stored is not None
                return stored
            props = to_props(withdrawn)
            written = await self.rows(
                tx,
                "story/write_source_withdrawal",
                scope=scope,
                source_id=source_id,
                version=version,
                withdrawn_at=props["withdrawn_at"],
                withdrawn_by=props["withdrawn_by"],
                withdrawal_reason=props["withdrawal_reason"],
            )
            await remove_passages(tx, scope, source_id, version)  # their text leaves too
            return from_props(SourceVersion, written[0]["v"])

        return await self._write(work)

    async def source_excerpt(
        self, scope: str, source_id: str, version: str, locator: str = "chars:0-2000"
    ) -> Excerpt:
        """The text of exactly that version, or a warning that it cannot be recovered."""
        check_scope(scope)

        async def work(tx: AsyncManagedTransaction) -> Excerpt:
            rows = await self.rows(
                tx, "story/source_version_get", scope=scope, source_id=source_id, version=version
            )
            stored = from_props(SourceVersion, rows[0]["v"]) if rows else None
            return excerpt(source_id, version, locator, stored, self._locale)

        return await self.read(work)

    async def reference_excerpt(self, scope: str, reference_id: str) -> Excerpt:
        """`Reference.excerpt`: reads the cited version, never today's text in its place."""
        check_scope(scope)

        async def work(tx: AsyncManagedTransaction) -> Excerpt:
            rows = await self.rows(tx, "story/reference_get", scope=scope, id=reference_id)
            if not rows:
                raise NotFound("no such reference in this scope", id=reference_id, scope=scope)
            ref = from_props(Reference, rows[0]["r"])
            stored = from_props(SourceVersion, rows[0]["v"]) if rows[0]["v"] else None
            return excerpt(ref.source_id, ref.source_version, ref.locator, stored, self._locale)

        return await self.read(work)

    async def reference_excerpts(self, scope: str, reference_ids: list[str]) -> dict[str, Excerpt]:
        """Excerpts of many references of one scope in one read (missing ids are absent)."""
        check_scope(scope)

        async def work(tx: AsyncManagedTransaction) -> dict[str, Excerpt]:
            out: dict[str, Excerpt] = {}
            for row in await self.rows(
                tx, "story/reference_excerpts", scope=scope, ids=reference_ids
            ):
                ref = from_props(Reference, row["r"])
                stored = from_props(SourceVersion, row["v"]) if row["v"] else None
                out[ref.id] = excerpt(
                    ref.source_id, ref.source_version, ref.locator, stored, self._locale
                )
            return out

        return await self.read(work)

    # --- publishResult ------------------------------------------------------------------

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
        named_events = sorted({e.well_formed_id for e in inp.events if e.well_formed_id})
        events = {
            v.id: v
            for v in await self._versions(tx, ObjectKind.EVENT, scope, named_events)
            if v.retracted_at is None and isinstance(v, Event)
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
            event_changes=event_changes,
            relations=relations,
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
        recorded_at: datetime | None = None,
        within: Callable[[AsyncManagedTransaction, PublishPlan], Awaitable[None]] | None = None,
    ) -> PublishOutcome:
        """publishResult: one whole organising result in one write transaction (seed 004 L3).

        `recorded_at` is for loaders and tests that replay history; the API leaves it unset.
        `within` runs inside the same transaction after the result is written (also for a
        repeat): the supervision publish stage writes its run and checkpoint there, so the
        run becomes completed only if the result commits; if it raises, nothing is written.
        """
        now = self._now(recorded_at)

        async def work(tx: AsyncManagedTransaction) -> PublishPlan:
            ctx = await self._publish_context(tx, inp)
            plan = decide_publish(inp, ctx, now, by)
            if not plan.repeat:
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

    # --- reads ------------------------------------------------------------------------

    async def story_graph(
        self,
        scope: str,
        *,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        from_: datetime | None = None,
        to: datetime | None = None,
        story_id: str | None = None,
        include_removed: bool = False,
    ) -> StoryGraph:
        """storyGraph: what was recorded and not retracted at `as_of` (default now).

        A window (`from_`/`to` or `story_id`) is read by `story/window_graph` in one round
        trip that touches only the window's neighbourhood; a whole-scope read filters by
        `valid_at` in Cypher. Either way `select_graph` is the one definition of the answer.
        """
        check_scope(scope)
        at = instant(as_of, "asOf") or utc(self._clock())
        valid = instant(valid_at, "validAt")
        from_, to = instant(from_, "from"), instant(to, "to")
        windowed = from_ is not None or to is not None or story_id is not None

        async def work(tx: AsyncManagedTransaction) -> StoryGraph:
            p = {"scope": scope, "as_of": at, "valid_at": valid}
            lists = {
                name: [r[key] for r in await self.rows(tx, f"story/asof_{stem}", **p)]
                for name, stem, key in WHOLE_SCOPE_READS
            }
            return graph_from_lists(scope, at, lists)

        if windowed:
            params = window_params(scope, at, valid, from_, to, story_id)
            rows = await self.read_one("story/window_graph", **params)
            full = graph_from_lists(scope, at, rows[0])
        else:
            full = await self.read(work)
        return select_graph(
            full,
            valid_at=valid,
            from_=from_,
            to=to,
            story_id=story_id,
            include_removed=include_removed,
        ).canonical()

    async def graph_view(
        self,
        scope: str,
        *,
        as_of: datetime | None = None,
        from_: datetime | None = None,
        to: datetime | None = None,
    ) -> GraphView:
        """graphView: nodes, edges and timeline of the same objects storyGraph returns (L10)."""
        graph = await self.story_graph(scope, as_of=as_of, from_=from_, to=to)
        return build_graph_view(graph)

    async def entity(
        self, scope: str, entity_id: str, *, as_of: datetime | None = None
    ) -> EntityView:
        """entity(id, asOf) with its history; an id of another scope is NOT_FOUND."""
        check_scope(scope)
        at = instant(as_of, "asOf") or utc(self._clock())

        async def work(tx: AsyncManagedTransaction) -> tuple[list[Version], list[Any]]:
            return (
                await self._versions(tx, ObjectKind.ENTITY, scope, [entity_id]),
                await self.rows(tx, "story/suggestions_about", scope=scope, target_id=entity_id),
            )

        versions, sugg_rows = await self.read(work)
        known = [v for v in versions if isinstance(v, Entity) and v.recorded_at <= at]
        believed = [v for v in known if recorded_within(v.recorded_at, v.retracted_at, at)]
        if not believed:
            raise NotFound(
                f"no entity {entity_id} in scope {scope} as of {at.isoformat()}",
                id=entity_id,
                scope=scope,
            )
        history = [
            v.model_copy(
                update={
                    "retracted_at": v.retracted_at
                    if v.retracted_at and v.retracted_at <= at
                    else None
                }
            )
            for v in sorted(known, key=lambda v: v.seq)
        ]
        pending = [
            s
            for s in (from_props(Suggestion, r["v"]) for r in sugg_rows)
            if recorded_within(s.recorded_at, s.retracted_at, at)
            and s.status is SuggestionStatus.PENDING
        ]
        return EntityView(entity=believed[0], history=history, pending_suggestions=pending)

    async def result(self, scope: str, result_id: str) -> ResultView:
        """result(id): recap, feedback and graph delta, all citing this one result (L3)."""
        check_scope(scope)

        async def work(tx: AsyncManagedTransaction) -> ResultView:
            rows = await self.rows(tx, "story/result_by_id", scope=scope, id=result_id)
            if not rows:
                raise NotFound("no such result in this scope", id=result_id, scope=scope)
            p = {"scope": scope, "result_id": result_id}

            async def delta(kind: ObjectKind) -> list[Any]:
                cls, stem = VERSIONED[kind]
                return [
                    from_props(cls, r["v"])
                    for r in await self.rows(tx, f"story/result_{stem}_versions", **p)
                ]

            amendments = [
                from_props(Amendment, r["a"])
                for r in await self.rows(tx, "story/result_amendments", result_id=result_id)
            ]
            mentions = []
            for r in await self.rows(tx, "story/result_mentions", result_id=result_id):
                mention = Mention(
                    result_id=result_id,
                    entity_id=r["entity_id"],
                    name=r["name"],
                    description=r["description"] or "",
                )
                amended = {a.field: a.value for a in amendments if a.entity_id == mention.entity_id}
                mentions.append(EntityMentionView(mention=mention, amended=amended))
            return ResultView(
                result=from_props(Result, rows[0]["r"]),
                events=await delta(ObjectKind.EVENT),
                entities=await delta(ObjectKind.ENTITY),
                relations=await delta(ObjectKind.RELATION),
                suggestions=await delta(ObjectKind.SUGGESTION),
                changes=[
                    from_props(Change, r["n"])
                    for r in await self.rows(tx, "story/result_changes", **p)
                ],
                summaries=[
                    from_props(Summary, r["n"])
                    for r in await self.rows(tx, "story/result_summarys", **p)
                ],
                references=[
                    from_props(Reference, r["n"])
                    for r in await self.rows(tx, "story/result_references", **p)
                ],
                mentions=mentions,
            )

        return await self.read(work)

    # --- corrections --------------------------------------------------------------------

    async def update_entity(
        self,
        scope: str,
        entity_id: str,
        edit: EntityEdit,
        *,
        seen_version: int,
        by: Actor,
        why: str = "",
        recorded_at: datetime | None = None,
    ) -> Entity:
        """updateEntity: a person's edit against the version they saw (stale -> CONFLICT)."""
        check_scope(scope)
        now = self._now(recorded_at)

        async def work(tx: AsyncManagedTransaction) -> Entity:
            current = await self._current(tx, ObjectKind.ENTITY, scope, entity_id)
            assert isinstance(current, Entity)
            updated = edit_entity(current, edit, seen_version, now, by, why)
            chosen = sorted(set(edit.results))
            if chosen:
                rows = await self.rows(
                    tx, "story/results_mentioning", entity_id=entity_id, result_ids=chosen
                )
                mentioned = {r["id"] for r in rows}
                if mentioned != set(chosen):
                    raise InvalidInput(
                        "a chosen result does not mention this entity",
                        results=sorted(set(chosen) - mentioned),
                    )
            await self._write_versions(tx, ObjectKind.ENTITY, [updated])
            amendments = [
                Amendment(
                    id=make_id("amd", scope, rid, entity_id, str(updated.seq), field),
                    scope=scope,
                    result_id=rid,
                    entity_id=entity_id,
                    field=field,
                    value=value,
                    by=by,
                    why=why,
                    recorded_at=now,
                )
                for rid in chosen
                for field, value in edit.changed().items()
            ]
            if amendments:
                await self.rows(
                    tx, "story/write_amendments", rows=[to_props(a) for a in amendments]
                )
            return updated

        return await self._write(work)

    async def _relation_action(
        self,
        scope: str,
        relation_id: str,
        action: RelationAction,
        by: Actor,
        why: str,
        seen_version: int | None,
        recorded_at: datetime | None,
    ) -> Relation:
        check_scope(scope)
        now = self._now(recorded_at)

        async def work(tx: AsyncManagedTransaction) -> Relation:
            current = await self._current(tx, ObjectKind.RELATION, scope, relation_id)
            assert isinstance(current, Relation)
            updated = act_on_relation(current, action, now, by, why, seen_version)
            if updated is None:
                return current
            await self._write_versions(tx, ObjectKind.RELATION, [updated])
            return updated

        return await self._write(work)

    async def confirm_relation(
        self,
        scope: str,
        relation_id: str,
        *,
        by: Actor,
        why: str = "",
        seen_version: int | None = None,
        recorded_at: datetime | None = None,
    ) -> Relation:
        return await self._relation_action(
            scope, relation_id, RelationAction.CONFIRM, by, why, seen_version, recorded_at
        )

    async def reject_relation(
        self,
        scope: str,
        relation_id: str,
        *,
        by: Actor,
        why: str = "",
        seen_version: int | None = None,
        recorded_at: datetime | None = None,
    ) -> Relation:
        return await self._relation_action(
            scope, relation_id, RelationAction.REJECT, by, why, seen_version, recorded_at
        )

    async def remove_relation(
        self,
        scope: str,
        relation_id: str,
        *,
        by: Actor,
        why: str = "",
        seen_version: int | None = None,
        recorded_at: datetime | None = None,
    ) -> Relation:
        """Removal is a new version flagged removed; references and sources stay (L5)."""
        return await self._relation_action(
            scope, relation_id, RelationAction.REMOVE, by, why, seen_version, recorded_at
        )

    async def restore_relation(
        self,
        scope: str,
        relation_id: str,
        *,
        by: Actor,
        why: str = "",
        seen_version: int | None = None,
        recorded_at: datetime | None = None,
    ) -> Relation:
        return await self._relation_action(
            scope, relation_id, RelationAction.RESTORE, by, why, seen_version, recorded_at
        )

    async def _resolve(
        self,
        scope: str,
        suggestion_id: str,
        accept: bool,
        by: Actor,
        why: str,
        recorded_at: datetime | None,
    ) -> Suggestion:
        check_scope(scope)
        now = self._now(recorded_at)

        async def work(tx: AsyncManagedTransaction) -> Suggestion:
            sugg = await self._current(tx, ObjectKind.SUGGESTION, scope, suggestion_id)
            assert isinstance(sugg, Suggestion)
            target = await self._current(tx, sugg.target_kind, scope, sugg.target_id)
            assert isinstance(target, Entity | Relation)
            resolved, updated = resolve_suggestion(sugg, target, accept, now, by, why)
            await self._write_versions(tx, ObjectKind.SUGGESTION, [resolved])
            if updated is not None:
                await self._write_versions(tx, sugg.target_kind, [updated])
            return resolved

        return await self._write(work)

    async def accept_suggestion(
        self,
        scope: str,
        suggestion_id: str,
        *,
        by: Actor,
        why: str = "",
        recorded_at: datetime | None = None,
    ) -> Suggestion:
        """The proposal becomes a person's edit of its target (and so is theirs from now on)."""
        return await self._resolve(scope, suggestion_id, True, by, why, recorded_at)

    async def dismiss_suggestion(
        self,
        scope: str,
        suggestion_id: str,
        *,
        by: Actor,
        why: str = "",
        recorded_at: datetime | None = None,
    ) -> Suggestion:
        return await self._resolve(scope, suggestion_id, False, by, why, recorded_at)
