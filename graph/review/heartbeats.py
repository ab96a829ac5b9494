"""Heartbeat runs (docs/rules/reviews.md): the atomic claim of a plan slot and the report stage.

The claim MERGEs on the claim key under a uniqueness constraint, so two workers that both
find a plan due create one run between them; only the creator goes on to run it. Report
completion writes the run and the report track's checkpoint in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.errors import NotFound
from engine.llm.ledger import LedgerEntry
from engine.review.compose import story_scope
from engine.review.heartbeat import HeartbeatRun
from graph.base import Store
from graph.llm.ledger import call_row
from graph.review.codec import dumps
from graph.temporal import from_neo4j, to_neo4j


def heartbeat_row(run: HeartbeatRun, deployment: str, claim_key: str) -> dict[str, Any]:
    return {
        "id": run.run_id,
        "deployment": deployment,
        "claim_key": claim_key,
        "config_id": run.config_id,
        "scope": story_scope(run.scope) if run.scope is not None else None,
        "scope_key": run.scope.key if run.scope is not None else None,
        "state": run.state.value,
        "slot": to_neo4j(run.slot),
        "claimed_at": to_neo4j(run.claimed_at),
        "supervision_run_id": run.supervision_run_id,
        "doc": dumps(run.model_dump(mode="json")),
    }


class HeartbeatRuns(Store):
    def __init__(self, driver: AsyncDriver, database: str, *, deployment: str) -> None:
        super().__init__(driver, database)
        self.deployment = deployment  # the arq queue name: a deployment's global records

    async def claim(self, run: HeartbeatRun, claim_key: str) -> bool:
        """Store `run` under `claim_key` unless someone already did; True when this call did."""

        async def work(tx: AsyncManagedTransaction) -> bool:
            rows = await self.rows(
                tx, "review/heartbeat_claim", row=heartbeat_row(run, self.deployment, claim_key)
            )
            return bool(rows[0]["created"])

        return await self.write(work)

    async def last_slots(self) -> dict[str, datetime]:
        async def work(tx: AsyncManagedTransaction) -> dict[str, datetime]:
            rows = await self.rows(tx, "review/heartbeat_last_slots", deployment=self.deployment)
            return {r["config_id"]: from_neo4j(r["slot"]) for r in rows}

        return await self.read(work)

    async def locked(self, tx: AsyncManagedTransaction, run_id: str) -> HeartbeatRun:
        rows = await self.rows(tx, "review/heartbeat_lock", id=run_id)
        if not rows:
            raise NotFound("no such heartbeat run", id=run_id)
        return HeartbeatRun.model_validate(json.loads(rows[0]["doc"]))

    async def put_in(
        self,
        tx: AsyncManagedTransaction,
        run: HeartbeatRun,
        *,
        report: str | None = None,
        calls: Sequence[LedgerEntry] = (),
    ) -> None:
        """Write `run` (and its report), with the model calls that made the report."""
        row = heartbeat_row(run, self.deployment, "")
        del row["claim_key"]
        if report is not None:
            row["report"] = report
        await self.rows(tx, "review/heartbeat_put", row=row, calls=[call_row(c) for c in calls])

    async def mutate(
        self, run_id: str, decide: Callable[[HeartbeatRun], HeartbeatRun]
    ) -> HeartbeatRun:
        async def work(tx: AsyncManagedTransaction) -> HeartbeatRun:
            new = decide(await self.locked(tx, run_id))
            await self.put_in(tx, new)
            return new

        return await self.write(work)

    async def get(self, run_id: str) -> HeartbeatRun:
        async def work(tx: AsyncManagedTransaction) -> HeartbeatRun:
            rows = await self.rows(tx, "review/heartbeat_lock", id=run_id)
            if not rows:
                raise NotFound("no such heartbeat run", id=run_id)
            return HeartbeatRun.model_validate(json.loads(rows[0]["doc"]))

        return await self.write(work)

    async def with_report(self, run_id: str) -> tuple[HeartbeatRun, str | None] | None:
        """A run and the report text it stored (None until the report is done)."""
        rows = await self.read_one("review/heartbeat_get", id=run_id, deployment=self.deployment)
        if not rows:
            return None
        return HeartbeatRun.model_validate(json.loads(rows[0]["doc"])), rows[0]["report"]

    async def expire(
        self, *, config_id: str | None, kept: list[str], before: datetime, limit: int
    ) -> int:
        """Remove up to `limit` finished runs (and their reports) of plan `config_id` (None:
        of no saved plan) claimed before `before`; how many went."""

        async def work(tx: AsyncManagedTransaction) -> int:
            rows = await self.rows(
                tx,
                "review/heartbeat_expire",
                deployment=self.deployment,
                config_id=config_id,
                kept=kept,
                before=to_neo4j(before),
                limit=limit,
            )
            return int(rows[0]["deleted"]) if rows else 0

        return await self.write(work)
