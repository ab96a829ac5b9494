"""Reads and releases for the reconciler (jobs/tasks/reconcile.py): work recorded in Neo4j
whose job may have been lost."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncDriver

from graph.concern.codec import utc
from graph.queries import queries
from graph.review.codec import iso


@dataclass(frozen=True)
class ClaimedHeartbeat:
    run_id: str
    claim_key: str


@dataclass(frozen=True)
class ReleasedMessage:
    key: str
    concern_id: str
    claimed_by: str | None


async def claimed_heartbeats(
    driver: AsyncDriver, database: str, deployment: str, *, before: datetime, limit: int = 200
) -> list[ClaimedHeartbeat]:
    records, _, _ = await driver.execute_query(
        queries()["reconcile/heartbeats_claimed"],
        deployment=deployment,
        claimed_before=iso(before),
        limit=limit,
        database_=database,
        routing_="r",
    )
    return [ClaimedHeartbeat(r["id"], r["claim_key"]) for r in records]


async def release_stale_outbox(
    driver: AsyncDriver, database: str, *, stale_before: datetime, now: datetime, limit: int = 200
) -> list[ReleasedMessage]:
    records, _, _ = await driver.execute_query(
        queries()["reconcile/outbox_release_stale"],
        stale_before=utc(stale_before),  # stored like outbox claims
        now=utc(now),
        limit=limit,
        database_=database,
    )
    return [ReleasedMessage(r["key"], r["concern_id"], r["claimed_by"]) for r in records]
