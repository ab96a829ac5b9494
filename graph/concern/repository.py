"""Loading concerns and saving decisions (Agenda; docs/rules/concerns.md).

`save_decision` writes a decision's new concern, its outbox rows (MERGE on effect keys) and
its agenda updates in ONE transaction, guarded by the concern's `revision`: when another
writer saved first, nothing is written and `Conflict` is raised (the caller reloads and
decides again). A `noop` decision writes nothing. Superseded mid-course reports and
re-timed messages (a closing decision, a priority change) are applied in the same
transaction. `create` is the same for a new concern (a
second create of the same id is a Conflict).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.concern.effects import (
    AgendaOp,
    AgendaUpdate,
    Decision,
    RescheduleMessages,
    SupersedeReports,
)
from engine.concern.model import Concern
from engine.errors import Conflict, NotFound
from engine.llm.ledger import LedgerEntry
from graph.base import Store
from graph.concern.codec import concern_from_doc, concern_props, outbox_rows, people_rows, utc
from graph.llm.ledger import call_row


@dataclass(frozen=True)
class StoredConcern:
    concern: Concern
    scope: str


def _agenda_params(decision: Decision) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    upserts: list[dict[str, Any]] = []
    removals: list[dict[str, Any]] = []
    for e in decision.effects:
        if not isinstance(e, AgendaUpdate):
            continue
        ref = e.ref.model_dump(mode="json")
        if e.op == AgendaOp.UPSERT:
            upserts.append(ref)
        else:
            decided = e.decision.model_dump() if e.decision is not None else {}
            if decided:
                decided["priority"] = str(decided["priority"])
                decided["ts"] = utc(decided["ts"])
            removals.append({"concern_id": e.concern_id, "key": e.key, "decision": decided})
    return upserts, removals


class ConcernRepository(Store):
    async def _write_effects(
        self, tx: AsyncManagedTransaction, decision: Decision, scope: str, now: datetime
    ) -> None:
        rows = outbox_rows(decision, scope=scope, now=now)
        if rows:
            await self.rows(tx, "concern/outbox_write", rows=rows)
        for e in decision.effects:
            if isinstance(e, SupersedeReports) and e.keys:
                await self.rows(tx, "concern/outbox_supersede", keys=list(e.keys), now=utc(now))
            elif isinstance(e, RescheduleMessages) and e.moves:
                moves = [{"key": k, "deliver_at": utc(at)} for k, at in e.moves]
                await self.rows(tx, "concern/outbox_reschedule", moves=moves, now=utc(now))
        upserts, removals = _agenda_params(decision)
        if upserts:
            await self.rows(tx, "concern/agenda_upsert", scope=scope, refs=upserts)
        if removals:
            await self.rows(tx, "concern/agenda_remove", scope=scope, removals=removals)

    async def create(self, decision: Decision, *, scope: str, now: datetime) -> Concern:
        concern = decision.new_concern

        async def work(tx: AsyncManagedTransaction) -> None:
            await self.rows(
                tx, "concern/create", c=concern_props(concern, scope), people=people_rows(concern)
            )
            await self._write_effects(tx, decision, scope, now)

        try:
            await self.write(work)
        except Conflict as exc:
            raise Conflict(
                f"concern {concern.concern_id} already exists", concern_id=concern.concern_id
            ) from exc
        return concern

    async def save_decision(
        self,
        decision: Decision,
        *,
        scope: str,
        expected_revision: int,
        now: datetime,
        calls: Sequence[LedgerEntry] = (),
    ) -> bool:
        """Persist `decision` if the stored revision is still `expected_revision`, with the
        model calls (cost ledger) that decided it.

        Returns False for a noop decision (nothing written); raises `Conflict` when the
        revision moved (nothing written).
        """
        if decision.noop:
            return False
        concern = decision.new_concern

        async def work(tx: AsyncManagedTransaction) -> bool:
            saved = await self.rows(
                tx,
                "concern/save",
                concern_id=concern.concern_id,
                expected_revision=expected_revision,
                c=concern_props(concern, scope),
                people=people_rows(concern),
                calls=[call_row(c) for c in calls],
            )
            if not saved:
                return False
            await self._write_effects(tx, decision, scope, now)
            return True

        if not await self.write(work):
            raise Conflict(
                f"concern {concern.concern_id} changed since revision {expected_revision}",
                concern_id=concern.concern_id,
                expected_revision=expected_revision,
            )
        return True

    async def save(
        self, concern: Concern, *, scope: str, expected_revision: int, now: datetime
    ) -> None:
        """Save a concern change that has no effects (e.g. a recorded reply)."""
        decision = Decision(new_concern=concern, job_id=f"save:{concern.concern_id}")
        await self.save_decision(
            decision, scope=scope, expected_revision=expected_revision, now=now
        )

    async def load(self, concern_id: str) -> StoredConcern:
        found = await self.find(concern_id)
        if found is None:
            raise NotFound(f"no concern {concern_id}", concern_id=concern_id)
        return found

    async def find(self, concern_id: str) -> StoredConcern | None:
        records = await self.query("concern/get", concern_id=concern_id)
        if not records:
            return None
        return StoredConcern(concern_from_doc(records[0]["doc"]), records[0]["scope"])
