"""Receipts of hand-offs: the partner session's reports, stored against the hand-off
(docs/rules/watches.md…仅核对结果模式不重放外部操作").

`report_execution` is one write transaction: load the watch's step list, the hand-off and
its earlier receipts, let `engine.watch.report.settle_report` decide, then write the receipt
(accepted or rejected, with its reason) and — only for an accepted, completing report — the
new step list. An engine error rolls everything back. The identical report sent again finds
its receipt by id and changes nothing. Nothing here enqueues a job or re-injects a hand-off:
recognising a receipt never replays an external operation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.errors import NotFound
from engine.watch.model import DeliveryState
from engine.watch.outcome import delivery_state
from engine.watch.receipts import ReceiptStatus
from engine.watch.report import ExecutionReport, ReceiptRecord, settle_report
from graph.base import Store, rows
from graph.watch import codec
from graph.watch.repository import load_state, write_steps


def receipt_props(scope: str, r: ReceiptRecord) -> dict[str, Any]:
    return {
        "id": r.receipt_id,
        "scope": scope,
        "watch_id": r.watch_id,
        "execution_key": r.execution_key,
        "status": r.status.value,
        "accepted": r.accepted,
        "reason": r.reason,
        "answer": r.answer,
        "answered_at": r.answered_at,
        "completed_steps": list(r.completed_steps),
        "verify_only": r.verify_only,
        "reported_at": r.reported_at,
        "replayed": r.replayed,
    }


def receipt_from(props: Mapping[str, Any]) -> ReceiptRecord:
    p = codec.plain(props)
    return ReceiptRecord(
        receipt_id=p["id"],
        watch_id=p["watch_id"],
        execution_key=p["execution_key"],
        status=ReceiptStatus(p["status"]),
        reason=p.get("reason") or "",
        answer=p.get("answer") or "",
        answered_at=p.get("answered_at"),
        completed_steps=tuple(p.get("completed_steps") or ()),
        verify_only=bool(p.get("verify_only")),
        reported_at=p["reported_at"],
        replayed=bool(p.get("replayed")),
    )


@dataclass(frozen=True)
class ReportWrite:
    receipt: ReceiptRecord
    duplicate: bool  # the identical report was already stored; nothing changed now
    delivery: DeliveryState


class WatchReceipts(Store):
    async def report_execution(
        self, scope: str, report: ExecutionReport, now: datetime
    ) -> ReportWrite:
        async def work(tx: AsyncManagedTransaction) -> ReportWrite:
            state = await load_state(tx, scope, report.watch_id)
            found = await rows(
                tx,
                "watch/lock_handoff",
                scope=scope,
                watch_id=report.watch_id,
                execution_key=report.execution_key,
            )
            if not found:
                raise NotFound(
                    f"no hand-off {report.execution_key} for watch {report.watch_id}",
                    field="executionKey",
                )
            handoff = codec.handoff_from(found[0]["h"])
            existing = await rows(tx, "watch/get_receipt", scope=scope, id=report.fingerprint())
            if existing:
                return ReportWrite(
                    receipt_from(existing[0]["r"]), True, delivery_state(state.steps)
                )
            prior = [
                receipt_from(r["r"])
                for r in await rows(
                    tx, "watch/receipts_of_key", scope=scope, execution_key=report.execution_key
                )
            ]
            decision = settle_report(handoff, state.steps, report, prior=prior, now=now)
            await rows(
                tx,
                "watch/write_receipt",
                receipt={**receipt_props(scope, decision.receipt), "entries": entries_json(report)},
            )
            steps = state.steps
            if decision.steps is not None:
                steps = decision.steps
                await write_steps(tx, scope, report.watch_id, steps, state.steps_run_id)
            return ReportWrite(decision.receipt, False, delivery_state(steps))

        result: ReportWrite = await self.write(work)
        return result

    async def receipts_of(
        self, scope: str, watch_ids: Sequence[str], limit: int = 20
    ) -> dict[str, list[ReceiptRecord]]:
        """Receipts of several watches in one query, newest first per watch."""

        async def work(tx: AsyncManagedTransaction) -> dict[str, list[ReceiptRecord]]:
            found = await rows(
                tx, "watch/receipts_of_watches", scope=scope, watch_ids=list(watch_ids), limit=limit
            )
            return {r["watch_id"]: [receipt_from(i) for i in r["items"]] for r in found}

        result: dict[str, list[ReceiptRecord]] = await self.read(work)
        return result


def entries_json(report: ExecutionReport) -> str:
    """The reported transcript as text (kept for diagnosis, never re-run)."""
    return json.dumps([e.model_dump(mode="json") for e in report.entries], ensure_ascii=False)
