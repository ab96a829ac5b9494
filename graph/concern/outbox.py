"""The concern outbox in Neo4j: recorded before sent, sent once.

Rows are written with the decision (`ConcernRepository.save_decision`, MERGE on the effect key).
Delivery claims a row (`pending` -> `sending`, one attempt counted), sends it, then marks it
`sent`; a failed send puts it back to `pending` with the error, so the next attempt — a
job retry or the delivery cron — sends it, and a row already `sent` is never claimed again.
A claim that a crashed worker left behind lapses after `CLAIM_LEASE`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.concern.context import PendingMessage
from engine.page import Page
from graph.base import Store
from graph.concern.codec import utc
from graph.temporal import from_neo4j, to_neo4j

CLAIM_LEASE = timedelta(minutes=5)
# A claim whose worker is not among the live ones is taken over once it is this old: longer
# than a worker's liveness key lives (6 s), so a claimant that just started, or whose key is
# being refreshed, is never mistaken for a dead one.
DEAD_CLAIM_AGE = timedelta(seconds=15)


@dataclass(frozen=True)
class OutboxRow:
    key: str
    concern_id: str | None  # None for an agenda report of a signal that raised no concern
    scope: str
    kind: str
    recipient_person_id: str | None
    recipient_name: str
    channel: str
    channel_user_id: str
    text: str
    deliver_at: datetime
    recorded_at: datetime
    status: str
    attempts: int
    seq: int
    report_kinds: list[str] = field(default_factory=list)
    tone: str = ""
    sent_at: datetime | None = None
    last_error: str | None = None
    signal_id: str | None = None  # an agenda report: the signal it reports

    @classmethod
    def from_props(cls, p: dict[str, Any]) -> OutboxRow:
        return cls(
            key=p["key"],
            concern_id=p.get("concern_id"),
            scope=p["scope"],
            kind=p["kind"],
            recipient_person_id=p.get("recipient_person_id"),
            recipient_name=p.get("recipient_name") or "",
            channel=p.get("channel") or "",
            channel_user_id=p.get("channel_user_id") or "",
            text=p.get("text") or "",
            deliver_at=from_neo4j(p["deliver_at"]),
            recorded_at=from_neo4j(p["recorded_at"]),
            status=p["status"],
            attempts=int(p.get("attempts") or 0),
            seq=int(p["seq"]),
            report_kinds=list(p.get("report_kinds") or []),
            tone=p.get("tone") or "",
            sent_at=from_neo4j(p.get("sent_at")),
            last_error=p.get("last_error"),
            signal_id=p.get("signal_id"),
        )


class Outbox(Store):
    async def due(
        self,
        now: datetime,
        *,
        scope: str | None = None,
        concern_id: str | None = None,
        key: str | None = None,
        held_at: datetime,
        live: Collection[str] | None = None,
        limit: int = 200,
    ) -> list[OutboxRow]:
        """Pending rows due at `now`, and, when the live workers are known, rows left
        `sending` (before wall-clock `held_at` - DEAD_CLAIM_AGE) by a worker that is no longer
        alive: it was killed between its claim and its bookkeeping."""
        dead_before = held_at - DEAD_CLAIM_AGE
        records = await self.query(
            "concern/outbox_due",
            now=utc(now),
            scope=scope,
            concern_id=concern_id,
            key=key,
            live=sorted(live) if live is not None else None,
            dead_before=utc(dead_before),
            limit=limit,
        )
        return [OutboxRow.from_props(r["row"]) for r in records]

    async def claim(
        self, key: str, *, worker_id: str, held_at: datetime, live: Collection[str] | None = None
    ) -> OutboxRow | None:
        """Claim one row for sending at wall-clock `held_at` (a lease is wall time, whatever
        the concern's own clock says): pending, or left `sending` by a worker that is gone
        (not in `live`, claim older than `DEAD_CLAIM_AGE`) or whose claim is older than
        `CLAIM_LEASE`."""
        records = await self.query(
            "concern/outbox_claim",
            write=True,
            key=key,
            worker_id=worker_id,
            now=utc(held_at),
            stale_before=utc(held_at - CLAIM_LEASE),
            dead_before=utc(held_at - DEAD_CLAIM_AGE),
            live=sorted(live) if live is not None else None,
        )
        return OutboxRow.from_props(records[0]["row"]) if records else None

    async def mark_sent(self, key: str, *, worker_id: str, now: datetime) -> None:
        await self.query(
            "concern/outbox_sent", write=True, key=key, worker_id=worker_id, now=utc(now)
        )

    async def mark_failed(self, key: str, *, worker_id: str, error: str) -> None:
        await self.query(
            "concern/outbox_failed", write=True, key=key, worker_id=worker_id, error=error[:2000]
        )

    async def record(self, rows: list[dict[str, Any]]) -> None:
        """Rows written outside a concern's decision (the agenda's report of a signal to the
        owner), MERGEd on their keys like every row: a repeat records each once."""
        await self.query("concern/outbox_write", write=True, rows=rows)

    async def pending_of(self, concern_id: str) -> list[PendingMessage]:
        """The concern's rows not sent yet, as the engine reads them."""
        records = await self.query("concern/outbox_pending_of_concern", concern_id=concern_id)
        return [
            PendingMessage(
                key=r["key"],
                kind=r["kind"],
                report_kinds=tuple(r["report_kinds"] or ()),
                recipient_person_id=r["recipient_person_id"],
                recipient_name=r["recipient_name"] or "",
                recorded_at=from_neo4j(r["recorded_at"]),
                deliver_at=from_neo4j(r["deliver_at"]),
            )
            for r in records
        ]

    async def of_concern(self, concern_id: str) -> list[OutboxRow]:
        records = await self.query("concern/outbox_of_concern", concern_id=concern_id)
        return [OutboxRow.from_props(r["row"]) for r in records]

    async def for_recipient(
        self,
        *,
        scope: str,
        person_id: str,
        statuses: list[str] | None = None,
        after: tuple[datetime, int, str] | None = None,
        first: int,
        with_total: bool = False,
    ) -> Page[OutboxRow]:
        """A person's messages in delivery order after the keyset (deliver_at, seq, key)."""
        filters = {"scope": scope, "person_id": person_id, "statuses": statuses}

        async def work(tx: AsyncManagedTransaction) -> Page[OutboxRow]:
            found = await self.rows(
                tx,
                "concern/outbox_page_recipient",
                **filters,
                after_deliver_at=to_neo4j(after[0]) if after else None,
                after_seq=after[1] if after else None,
                after_key=after[2] if after else None,
                limit=first + 1,
            )
            total = None
            if with_total:
                counted = await self.rows(tx, "concern/outbox_count_recipient", **filters)
                total = int(counted[0]["total"])
            return Page.of([OutboxRow.from_props(r["row"]) for r in found], first, total)

        return await self.read(work)
