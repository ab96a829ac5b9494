"""Person bindings stored and read: a PersonBinding identity node and immutable
PersonBindingVersion nodes (`engine/signal/binding.py`); the agenda's context for deciding
(who is reachable, which open concern covers a signal) read in one statement."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.clock import utc
from engine.concern.model import TERMINAL_STATUSES, ConcernStatus
from engine.errors import InvalidInput, NotFound
from engine.page import Page
from engine.signal.binding import (
    PersonBinding,
    SpeakerIn,
    entity_binding_id,
    speaker_binding_id,
    speaker_versions,
)
from engine.story.models import Actor
from graph.base import Store
from graph.story.codec import decode, from_props, version_row

# Relation types that say the `from` person is responsible for the `to` entity.
RESPONSIBLE_TYPES = ("负责", "负责人", "负责人是", "owns", "owner", "owner_of", "responsible_for")
OPEN_STATUSES = tuple(str(s) for s in ConcernStatus if s not in TERMINAL_STATUSES)


@dataclass(frozen=True)
class ContextRow:
    """What one signal's context is looked up by."""

    key: str
    binding_ids: Sequence[str]  # candidate bindings, the most specific first
    target_kind: str = ""
    target_id: str = ""
    subject: str = ""


@dataclass(frozen=True)
class Known:
    """What the graph knows for one signal: people reachable and an open covering concern."""

    bound: tuple[PersonBinding, ...]  # in the order of the row's binding ids
    responsible: tuple[PersonBinding, ...]
    corrector: tuple[PersonBinding, ...]  # bindings of who corrected the target
    covering: str | None


class PersonBindings(Store):
    async def current_in(
        self, tx: AsyncManagedTransaction, ids: Sequence[str], now: datetime
    ) -> dict[str, PersonBinding]:
        rows = await self.rows(tx, "signal/bindings_current", ids=list(ids), now=utc(now))
        found = (from_props(PersonBinding, r["v"]) for r in rows)
        return {b.id: b for b in found}

    async def write_in(
        self, tx: AsyncManagedTransaction, versions: Sequence[PersonBinding], now: datetime
    ) -> None:
        if not versions:
            return
        rows = [version_row(v) for v in versions]
        await self.rows(tx, "signal/write_bindings", rows=rows, now=utc(now))

    async def bind_speakers_in(
        self,
        tx: AsyncManagedTransaction,
        speakers: list[SpeakerIn],
        *,
        scope: str,
        source_id: str,
        by: Actor,
        now: datetime,
        why: str = "upsertSource speakers",
    ) -> list[PersonBinding]:
        """A source's speakers (upsertSource's, or a concern conversation's), in the
        source's own transaction."""
        if not speakers:
            return []
        ids = [speaker_binding_id(scope, source_id, s.name) for s in speakers]
        current = await self.current_in(tx, ids, now)
        versions = speaker_versions(
            current, speakers, scope=scope, source_id=source_id, by=by, now=now, why=why
        )
        await self.write_in(tx, versions, now)
        return versions

    async def bind_entity(
        self,
        scope: str,
        entity_id: str,
        decide: Any,
        *,
        now: datetime,
    ) -> PersonBinding:
        """Bind a person entity: `decide(current, entity_name)` returns the new version (None:
        already bound so). An unknown entity is NOT_FOUND, one that is not a person
        INVALID_INPUT; either writes nothing."""

        async def work(tx: AsyncManagedTransaction) -> PersonBinding:
            found = await self.rows(
                tx, "signal/binding_entity", scope=scope, entity_id=entity_id, now=utc(now)
            )
            if not found:
                raise NotFound(f"no entity {entity_id}", entity_id=entity_id)
            if str(found[0]["kind"] or "").lower() != "person":
                raise InvalidInput(
                    "only a person entity can be bound to a concern person",
                    entity_id=entity_id,
                    kind=found[0]["kind"],
                )
            bid = entity_binding_id(scope, entity_id)
            current = (await self.current_in(tx, [bid], now)).get(bid)
            new = decide(current, str(found[0]["name"] or ""))
            if new is None:
                assert current is not None
                return current
            await self.write_in(tx, [new], now)
            return new  # type: ignore[no-any-return]

        return await self.write(work)

    async def unbind_entity(
        self, scope: str, entity_id: str, *, now: datetime, by: str = ""
    ) -> PersonBinding:
        """Retract the entity's current binding, recording who (`by`); none is NOT_FOUND."""

        async def work(tx: AsyncManagedTransaction) -> PersonBinding:
            bid = entity_binding_id(scope, entity_id)
            rows = await self.rows(
                tx, "signal/retract_binding", id=bid, scope=scope, now=utc(now), by=by
            )
            if not rows:
                raise NotFound(f"entity {entity_id} is not bound", entity_id=entity_id)
            return from_props(PersonBinding, rows[0]["v"])

        return await self.write(work)

    async def page(
        self,
        scope: str,
        *,
        as_of: datetime,
        first: int,
        after_id: str | None = None,
        with_total: bool = False,
    ) -> Page[PersonBinding]:
        total = None
        if with_total:
            counted = await self.read_one("signal/count_bindings", scope=scope, as_of=utc(as_of))
            total = int(counted[0]["n"])
        rows = await self.read_one(
            "signal/page_bindings",
            scope=scope,
            as_of=utc(as_of),
            after_id=after_id or "",
            limit=first + 1,
        )
        items = [decode(PersonBinding, r["v"], believed=True) for r in rows]
        return Page.of(items, first, total, as_of)

    async def context_in(
        self, tx: AsyncManagedTransaction, scope: str, rows: Sequence[ContextRow], now: datetime
    ) -> dict[str, Known]:
        """One statement for every signal of a publish (the agenda's whole read)."""
        if not rows:
            return {}
        records = await self.rows(
            tx,
            "signal/decide_context",
            scope=scope,
            now=utc(now),
            rows=[
                {
                    "key": r.key,
                    "binding_ids": list(r.binding_ids),
                    "target_kind": r.target_kind,
                    "target_id": r.target_id,
                    "subject": r.subject,
                }
                for r in rows
            ],
            responsible_types=list(RESPONSIBLE_TYPES),
            open_statuses=list(OPEN_STATUSES),
        )
        order = {r.key: list(r.binding_ids) for r in rows}
        out = {}
        for rec in records:
            ids = order[rec["key"]]
            bound = sorted(
                (from_props(PersonBinding, b) for b in rec["bound"]),
                key=lambda b: ids.index(b.id) if b.id in ids else len(ids),
            )
            responsible = sorted(
                (from_props(PersonBinding, b) for b in rec["responsible"]), key=lambda b: b.id
            )
            corrector = sorted(
                (from_props(PersonBinding, b) for b in rec["corrector"]), key=lambda b: b.id
            )
            covering = rec["covering"][0] if rec["covering"] else None
            out[rec["key"]] = Known(tuple(bound), tuple(responsible), tuple(corrector), covering)
        return out
