"""The partner session's report on a hand-off (docs/rules/watches.md).

"回执识别忽略宿主标注的自动压缩检查点，仍拒绝中断、无最终答复及被真实新用户请求隔开的结果。
仅核对结果模式不重放外部操作。" and "区分'事实已记录'与'交付物已完成'".

After a hand-off is injected under its execution key, the partner session reports back
what happened: its transcript entries after the injection and the execute steps it says it
completed. `settle_report` decides, purely:

- the input must name the hand-off's own key and only execute steps the hand-off carried
  (anything else is invalid input and nothing is stored);
- the receipt is recognised by `receipts.recognize_receipt`: compaction checkpoints are
  ignored; an interruption, a missing final answer or a real new user request in between
  rejects it — it is stored as rejected with the reason, and no step changes;
- an accepted report completes the named execute steps (`outcome.record_execution_result`,
  evidence from the report or the final answer), all or nothing;
- a check-only report (`verify_only`) recognises and stores the receipt and changes nothing:
  it never replays an external operation, never completes a step, never dispatches work;
- once a report for a key was accepted, a further completing report for it is a conflict
  (a deliverable is never delivered twice); the identical report again is a duplicate that
  returns the stored receipt (see graph/watch/receipts.py).

`outcome.delivery_state` keeps the two states apart on what the watch shows:
`facts_recorded` (a check step is done with evidence) is not `deliverable_done` (every
execute step done).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime

from pydantic import Field

from engine.errors import Conflict, InvalidInput
from engine.watch.model import Frozen, HandOff, StepKind, WorkflowStep
from engine.watch.outcome import record_execution_result
from engine.watch.receipts import ReceiptStatus, SessionEntry, recognize_receipt


class CompletedStep(Frozen):
    step_id: str = Field(min_length=1)
    evidence: str = ""


class ExecutionReport(Frozen):
    """What the partner session sent back for one execution key."""

    watch_id: str
    execution_key: str = Field(min_length=1)
    entries: tuple[SessionEntry, ...]
    completed: tuple[CompletedStep, ...] = ()
    verify_only: bool = False

    def fingerprint(self) -> str:
        """Stable id of this exact report: the same report sent twice is one receipt."""
        material = json.dumps(self.model_dump(mode="json"), ensure_ascii=False, sort_keys=True)
        return "rcpt-" + hashlib.sha256(material.encode()).hexdigest()[:32]


REASONS: dict[ReceiptStatus, str] = {
    ReceiptStatus.RECEIVED: "",
    ReceiptStatus.NO_HANDOFF: "the transcript does not contain the hand-off of this key",
    ReceiptStatus.INTERRUPTED: "the partner run was interrupted before its final answer",
    ReceiptStatus.NO_FINAL_ANSWER: "the partner run gave no final answer",
    ReceiptStatus.SEPARATED_BY_USER_REQUEST: "a new user request came between the hand-off and the answer",  # noqa: E501
}


class ReceiptRecord(Frozen):
    receipt_id: str
    watch_id: str
    execution_key: str
    status: ReceiptStatus
    reason: str = ""
    answer: str = ""
    answered_at: datetime | None = None
    completed_steps: tuple[str, ...] = ()
    verify_only: bool = False
    reported_at: datetime
    replayed: bool = False  # recognition never replays an external operation

    @property
    def accepted(self) -> bool:
        return self.status is ReceiptStatus.RECEIVED


class ReportDecision(Frozen):
    receipt: ReceiptRecord
    steps: tuple[WorkflowStep, ...] | None  # None: the step list stays as it is


def _validate(handoff: HandOff, report: ExecutionReport) -> None:
    if handoff.watch_id != report.watch_id or handoff.execution_key != report.execution_key:
        raise InvalidInput("the report does not belong to this hand-off", field="executionKey")
    kinds = {s.step_id: s.kind for s in handoff.steps}
    seen: set[str] = set()
    for item in report.completed:
        if item.step_id in seen:
            raise InvalidInput(f"step {item.step_id} is reported twice", field="completedSteps")
        seen.add(item.step_id)
        if kinds.get(item.step_id) is not StepKind.EXECUTE:
            raise InvalidInput(
                f"step {item.step_id} is not an execute step of hand-off {handoff.execution_key}",
                field="completedSteps",
                step_id=item.step_id,
            )
    if report.verify_only and report.completed:
        raise InvalidInput("a check-only report completes no step", field="completedSteps")


def settle_report(
    handoff: HandOff,
    steps: tuple[WorkflowStep, ...],
    report: ExecutionReport,
    *,
    prior: Sequence[ReceiptRecord],
    now: datetime,
) -> ReportDecision:
    """Recognise the receipt and decide what it changes (see the module rules)."""
    _validate(handoff, report)
    receipt = recognize_receipt(report.entries, report.execution_key)
    record = ReceiptRecord(
        receipt_id=report.fingerprint(),
        watch_id=report.watch_id,
        execution_key=report.execution_key,
        status=receipt.status,
        reason=REASONS[receipt.status],
        answer=receipt.answer,
        answered_at=receipt.answered_at,
        verify_only=report.verify_only,
        reported_at=now,
    )
    if not record.accepted or report.verify_only:
        return ReportDecision(receipt=record, steps=None)
    if any(p.accepted and not p.verify_only and p.completed_steps for p in prior):
        raise Conflict(
            f"hand-off {report.execution_key} was already received; nothing is replayed",
            reason="already_received",
        )
    for item in report.completed:
        steps = record_execution_result(
            steps,
            item.step_id,
            evidence=item.evidence.strip() or receipt.answer,
            execution_key=report.execution_key,
            now=now,
        )
    completed = tuple(i.step_id for i in report.completed)
    return ReportDecision(
        receipt=record.model_copy(update={"completed_steps": completed}),
        steps=steps if completed else None,
    )
