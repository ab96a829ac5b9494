"""A person's corrections (docs/rules/story-graph.md): an entity edit against the version they
saw, an action on a relation, a decision on a suggestion. User edits win; each writes new
versions (nothing is updated in place) in one transaction, at the use case's `now`."""

from __future__ import annotations

from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.clock import utc
from engine.errors import InvalidInput
from engine.scope import check_scope
from engine.story import corrections as decide
from engine.story.corrections import RelationAction
from engine.story.inputs import EntityEdit
from engine.story.models import Actor, Amendment, Entity, ObjectKind, Relation, Suggestion, make_id
from graph.story import dismissals
from graph.story.codec import to_props
from graph.story.store import StoryStore


class StoryCorrections(StoryStore):
    async def update_entity(
        self,
        scope: str,
        entity_id: str,
        edit: EntityEdit,
        *,
        seen_version: int,
        by: Actor,
        why: str = "",
        now: datetime,
    ) -> Entity:
        """updateEntity: a person's edit against the version they saw (stale -> CONFLICT)."""
        check_scope(scope)
        now = utc(now)

        async def work(tx: AsyncManagedTransaction) -> Entity:
            current = await self._current(tx, ObjectKind.ENTITY, scope, entity_id)
            assert isinstance(current, Entity)
            updated = decide.edit_entity(current, edit, seen_version, now, by, why)
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

    async def correct_relation(
        self,
        scope: str,
        relation_id: str,
        action: RelationAction,
        *,
        by: Actor,
        why: str = "",
        seen_version: int | None = None,
        now: datetime,
    ) -> Relation:
        """Confirm, reject, remove or restore a relation; a removal is a new version flagged
        removed, its references and sources stay (docs/rules/story-graph.md: removing
        a relation can be undone and never deletes a source). A repeat writes nothing."""
        check_scope(scope)
        now = utc(now)

        async def work(tx: AsyncManagedTransaction) -> Relation:
            current = await self._current(tx, ObjectKind.RELATION, scope, relation_id)
            assert isinstance(current, Relation)
            updated = decide.act_on_relation(current, action, now, by, why, seen_version)
            if updated is None:
                return current
            await self._write_versions(tx, ObjectKind.RELATION, [updated])
            return updated

        return await self._write(work)

    async def resolve_suggestion(
        self,
        scope: str,
        suggestion_id: str,
        *,
        accept: bool,
        by: Actor,
        why: str = "",
        now: datetime,
        seen_version: int | None = None,
        value: str | None = None,
    ) -> Suggestion:
        """Accept (the proposal becomes the person's edit of its target, theirs from now on)
        or dismiss a suggestion."""
        check_scope(scope)
        now = utc(now)

        async def work(tx: AsyncManagedTransaction) -> Suggestion:
            sugg = await self._current(tx, ObjectKind.SUGGESTION, scope, suggestion_id)
            assert isinstance(sugg, Suggestion)
            target = await self._current(tx, sugg.target_kind, scope, sugg.target_id)
            assert isinstance(target, Entity | Relation)
            resolved, updated = decide.resolve_suggestion(
                sugg, target, accept, now, by, why, seen_version, value
            )
            await self._write_versions(tx, ObjectKind.SUGGESTION, [resolved])
            if not accept:  # remembered by fingerprint, at the act's moment
                await dismissals.remember(self, tx, sugg, resolved.recorded_at)
            if updated is not None:
                await self._write_versions(tx, sugg.target_kind, [updated])
            return resolved

        return await self._write(work)
