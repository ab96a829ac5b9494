"""Receipts and heartbeat rounds of watches over GraphQL (docs/rules/watches.md).

Mutations:
- `reportExecution`: the partner session reports what happened after a hand-off. The report
  is stored against the hand-off; a rejected receipt (interrupted, no final answer, separated
  by a real new user request) is kept with its reason and marks nothing done; compaction
  checkpoints are ignored; `verifyOnly` recognises without changing or replaying anything.
- `runWatchRound(scope, full)`: enqueue one heartbeat round over the scope's candidate
  watches under a stable round id (one item per round unless `full`).
Query: `watchRound(scope, id)`: what a round closed and which checks it enqueued.
Subscription: `watchHandOffs(scope)`: each new hand-off of the scope's watches as it is
stored (docs/rules/watches.md), with its delivery state; a repeat with an execution key
already handed off is never sent (jobs/watch/delivery.py).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime

import strawberry
from pydantic import ValidationError
from strawberry.types import Info

from api.context import Context
from api.definitions.watch_types import HandOffType, ReceiptType
from engine.errors import InvalidInput
from engine.watch.receipts import EntryKind, SessionEntry
from engine.watch.report import CompletedStep, ExecutionReport
from jobs.notify import GraphChangeHub
from jobs.watch import rounds
from jobs.watch.delivery import acknowledge_handoff, handoff_stream

MAX_ENTRIES = 500


@strawberry.input
class SessionEntryInput:
    kind: str = strawberry.field(
        description=(
            "handoff | user_message | assistant_partial | tool_result | assistant_final | "
            "compaction_checkpoint | interrupted"
        )
    )
    at: datetime
    text: str = ""
    execution_key: str | None = None
    host_generated: bool = strawberry.field(
        default=False, description="A message the host wrote (e.g. a compaction marker)."
    )


@strawberry.input
class CompletedStepInput:
    step_id: str
    evidence: str = ""


@strawberry.type
class ExecutionReportResult:
    receipt: ReceiptType
    duplicate: bool = strawberry.field(description="The identical report was stored before.")
    delivery_state: str


@strawberry.type
class WatchRoundTicket:
    round_id: str
    enqueued: bool


@strawberry.type
class WatchRoundType:
    id: str
    full_verification: bool
    closed: list[str]
    checked: list[str]
    run_ids: list[str]
    later: list[str]
    still_open: list[str]
    planned_at: datetime


def _report(
    watch_id: str,
    execution_key: str,
    entries: list[SessionEntryInput],
    completed: list[CompletedStepInput],
    verify_only: bool,
) -> ExecutionReport:
    if not entries or len(entries) > MAX_ENTRIES:
        raise InvalidInput(f"give 1 to {MAX_ENTRIES} transcript entries", field="entries")
    kinds = {k.value for k in EntryKind}
    for index, e in enumerate(entries):
        if e.kind not in kinds:
            raise InvalidInput(
                f"entries[{index}]: kind {e.kind!r} is not one of " + ", ".join(sorted(kinds)),
                field="entries.kind",
            )
    try:
        return ExecutionReport(
            watch_id=watch_id,
            execution_key=execution_key,
            verify_only=verify_only,
            entries=tuple(
                SessionEntry(
                    kind=EntryKind(e.kind),
                    at=e.at,
                    text=e.text,
                    execution_key=e.execution_key,
                    host_generated=e.host_generated,
                )
                for e in entries
            ),
            completed=tuple(
                CompletedStep(step_id=c.step_id, evidence=c.evidence) for c in completed
            ),
        )
    except ValidationError as exc:
        raise InvalidInput(f"invalid report: {exc.errors()[0]['msg']}", field="input") from exc


@strawberry.type
class Query:
    @strawberry.field(description="One heartbeat round: closed items and enqueued checks.")
    async def watch_round(
        self, info: Info[Context, None], scope: str, id: str
    ) -> WatchRoundType | None:
        ctx = info.context
        r = await rounds.find_round(ctx.deps, ctx.caller(), scope, id)
        if r is None:
            return None
        return WatchRoundType(
            id=r["round_id"],
            full_verification=bool(r["full_verification"]),
            closed=list(r["closed"]),
            checked=list(r["checked"]),
            run_ids=list(r["run_ids"]),
            later=list(r["later"]),
            still_open=list(r["still_open"]),
            planned_at=r["planned_at"],
        )


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description=(
            "The partner session's report on a hand-off. Rejected receipts are stored with their "
            "reason and complete nothing; verifyOnly changes and replays nothing."
        )
    )
    async def report_execution(
        self,
        info: Info[Context, None],
        scope: str,
        watch_id: strawberry.ID,
        execution_key: str,
        entries: list[SessionEntryInput],
        completed_steps: list[CompletedStepInput] | None = None,
        verify_only: bool = False,
    ) -> ExecutionReportResult:
        ctx = info.context
        principal = ctx.caller()
        report = _report(str(watch_id), execution_key, entries, completed_steps or [], verify_only)
        written = await rounds.report_execution(ctx.deps, principal, scope, report)
        return ExecutionReportResult(
            receipt=ReceiptType.from_model(written.receipt),
            duplicate=written.duplicate,
            delivery_state=written.delivery.value,
        )

    @strawberry.mutation(
        description=(
            "The partner session's receipt of a hand-off it read on its own channels (the "
            "watchHandOffs subscription or its MCP resource): delivered on channel session, "
            "recorded with the token's name; a repeat changes nothing."
        )
    )
    async def acknowledge_watch_hand_off(
        self, info: Info[Context, None], scope: str, execution_key: str
    ) -> HandOffType:
        ctx = info.context
        stored = await acknowledge_handoff(ctx.deps, ctx.caller(), scope, execution_key)
        return HandOffType.from_stored(stored)

    @strawberry.mutation(
        description=(
            "Enqueue a heartbeat round over the scope's watches: verified items close, one item is "
            "checked (every one with full=true); a repeated roundId runs once."
        )
    )
    async def run_watch_round(
        self, info: Info[Context, None], scope: str, full: bool = False, round_id: str | None = None
    ) -> WatchRoundTicket:
        ctx = info.context
        ticket = await rounds.request_round(
            ctx.deps, ctx.caller(), scope, full=full, round_id=round_id
        )
        return WatchRoundTicket(round_id=ticket.round_id, enqueued=ticket.enqueued)


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="Each new hand-off of the scope's watches for its partner session, as it "
        "is stored (a repeated execution key is not sent again); `delivery` tells how it went "
        "out when it was read."
    )
    async def watch_hand_offs(
        self, info: Info[Context, None], scope: str
    ) -> AsyncGenerator[HandOffType, None]:
        ctx = info.context
        hub: GraphChangeHub | None = getattr(ctx.request.app.state, "changes", None)
        with ctx.subscription_slot():
            async for stored in handoff_stream(ctx.deps, ctx.caller(), scope, hub):
                yield HandOffType.from_stored(stored)
