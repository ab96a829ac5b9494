"""Reads and claims for the reconciler (jobs/reconcile.py): work recorded in Neo4j whose
job may have been lost."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncManagedTransaction

from graph.base import Store
from graph.concern.codec import utc


@dataclass(frozen=True)
class ClaimedHeartbeat:
    run_id: str
    claim_key: str


@dataclass(frozen=True)
class ReleasedMessage:
    key: str
    concern_id: str
    claimed_by: str | None


@dataclass(frozen=True)
class UnfinishedCheck:
    run_id: str
    scope: str
    watch_id: str
    status: str
    requeues: int  # how often the reconciler queued it again already


class ReconcileStore(Store):
    async def claimed_heartbeats(
        self, deployment: str, *, before: datetime, limit: int = 200
    ) -> list[ClaimedHeartbeat]:
        found = await self.query(
            "reconcile/heartbeats_claimed",
            deployment=deployment,
            claimed_before=utc(before),
            limit=limit,
        )
        return [ClaimedHeartbeat(r["id"], r["claim_key"]) for r in found]

    async def release_stale_outbox(
        self, *, stale_before: datetime, now: datetime, limit: int = 200
    ) -> list[ReleasedMessage]:
        found = await self.query(
            "reconcile/outbox_release_stale",
            write=True,
            stale_before=utc(stale_before),  # stored like outbox claims
            now=utc(now),
            limit=limit,
        )
        return [ReleasedMessage(r["key"], r["concern_id"], r["claimed_by"]) for r in found]

    async def unfinished_checks(
        self, deployment: str, *, before: datetime, limit: int = 200
    ) -> list[UnfinishedCheck]:
        found = await self.query(
            "reconcile/watch_runs_unfinished", deployment=deployment, before=before, limit=limit
        )
        return [
            UnfinishedCheck(r["id"], r["scope"], r["watch_id"], r["status"], r["requeues"])
            for r in found
        ]

    async def mark_check_requeued(
        self, scope: str, run_id: str, *, seen: int, now: datetime
    ) -> bool:
        """Count one re-queue; False when another reconciler counted it first."""

        async def work(tx: AsyncManagedTransaction) -> bool:
            return bool(
                await self.rows(
                    tx, "reconcile/watch_run_requeue", scope=scope, id=run_id, seen=seen, now=now
                )
            )

        return await self.write(work)
