"""Step evidence batches (docs/rules/watches.md).

Status and evidence arrive either as `update.updates` during the loop or as the final
observation's `workflowChecks` (`{stepId, status, evidence}`), also in the closing round
with no tools. Both go through `apply_evidence`, which is all-or-nothing: one bad entry
rejects the whole batch and the step list stays exactly as it was.

A batch is rejected when it
- completes an execute step (execution happens in the partner session, not in the check),
- names a step twice,
- carries empty evidence,
- names an unknown step or an unknown status, or
- tries to move a check step to execution (`deferred`); when the document requires the
  condition to be verified during the check the reason says so explicitly.

Execute steps waiting for execution are simply `pending` (a `deferred` entry for an execute
step is stored as `pending`): they are never check failures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, ValidationError

from engine.errors import InvalidInput
from engine.watch.model import (
    Evidence,
    Frozen,
    StepKind,
    StepStatus,
    ToolInput,
    WorkflowCheck,
    WorkflowStep,
)


class EvidenceOrigin(StrEnum):
    UPDATES = "updates"
    WORKFLOW_CHECKS = "workflowChecks"


class UpdateStatus(StrEnum):
    PENDING = "pending"
    DONE = "done"
    BLOCKED = "blocked"
    DEFERRED = "deferred"  # "leave it for the execution phase"


class RejectionReason(StrEnum):
    EMPTY_BATCH = "empty_batch"
    MALFORMED = "malformed"
    UNKNOWN_STEP = "unknown_step"
    UNKNOWN_STATUS = "unknown_status"
    DUPLICATE_STEP = "duplicate_step"
    EMPTY_EVIDENCE = "empty_evidence"
    EXECUTE_STEP_COMPLETED = "execute_step_completed"
    MOVED_TO_EXECUTION = "moved_to_execution"


class StepUpdate(ToolInput):
    """One `{stepId, status, evidence}` entry as the model sends it."""

    step_id: str = Field(min_length=1)
    status: str
    evidence: str = ""


class BatchProblem(Frozen):
    index: int
    step_id: str | None
    reason: RejectionReason
    message: str


class EvidenceApplied(Frozen):
    steps: tuple[WorkflowStep, ...]
    checks: tuple[WorkflowCheck, ...]


def _problem(
    index: int, step_id: str | None, reason: RejectionReason, message: str
) -> BatchProblem:
    return BatchProblem(index=index, step_id=step_id, reason=reason, message=message)


def _check_entry(
    index: int, update: StepUpdate, step: WorkflowStep | None
) -> tuple[BatchProblem | None, StepStatus | None]:
    sid = update.step_id
    if step is None:
        message = f"step {sid} is not registered"
        return _problem(index, sid, RejectionReason.UNKNOWN_STEP, message), None
    if update.status not in {s.value for s in UpdateStatus}:
        return _problem(
            index,
            sid,
            RejectionReason.UNKNOWN_STATUS,
            f"step {sid}: status {update.status!r} must be one of done, blocked, pending, deferred",
        ), None
    status = UpdateStatus(update.status)
    if not update.evidence.strip():
        return _problem(
            index, sid, RejectionReason.EMPTY_EVIDENCE, f"step {sid}: evidence is empty"
        ), None
    if step.kind is StepKind.EXECUTE:
        if status is UpdateStatus.DONE:
            return _problem(
                index,
                sid,
                RejectionReason.EXECUTE_STEP_COMPLETED,
                f"step {sid} is an execute step; the check cannot complete it, execution does",
            ), None
        if status is UpdateStatus.DEFERRED:
            return None, StepStatus.PENDING
        return None, StepStatus(status.value)
    if status is UpdateStatus.DEFERRED:
        if step.verify_in_check:
            message = (
                f"step {sid}: the document requires this condition to be verified during the "
                "check; it cannot be moved to execution"
            )
        else:
            message = (
                f"step {sid} is a check step and cannot be deferred; verify it, mark it blocked, "
                "or re-register it as an execute step if the document puts it in execution"
            )
        return _problem(index, sid, RejectionReason.MOVED_TO_EXECUTION, message), None
    return None, StepStatus(status.value)


def validate_batch(
    steps: Sequence[WorkflowStep], raw_updates: Sequence[Mapping[str, Any]]
) -> tuple[list[tuple[StepUpdate, StepStatus]], list[BatchProblem]]:
    """Every problem in the batch, and the parsed entries when there are none."""
    if not raw_updates:
        return [], [_problem(0, None, RejectionReason.EMPTY_BATCH, "the batch has no entries")]
    by_id = {s.step_id: s for s in steps}
    seen: set[str] = set()
    entries: list[tuple[StepUpdate, StepStatus]] = []
    problems: list[BatchProblem] = []
    for index, raw in enumerate(raw_updates):
        try:
            update = StepUpdate.model_validate(raw)
        except ValidationError as exc:
            detail = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            problems.append(
                _problem(index, None, RejectionReason.MALFORMED, f"entry {index}: {detail}")
            )
            continue
        if update.step_id in seen:
            problems.append(
                _problem(
                    index,
                    update.step_id,
                    RejectionReason.DUPLICATE_STEP,
                    f"step {update.step_id} appears more than once in the batch",
                )
            )
            continue
        seen.add(update.step_id)
        problem, status = _check_entry(index, update, by_id.get(update.step_id))
        if problem is not None:
            problems.append(problem)
        elif status is not None:
            entries.append((update, status))
    return entries, problems


def apply_evidence(
    steps: tuple[WorkflowStep, ...],
    raw_updates: Sequence[Mapping[str, Any]],
    *,
    run_id: str | None = None,
    recorded_by: str | None = None,
    now: datetime,
    origin: EvidenceOrigin = EvidenceOrigin.UPDATES,
) -> EvidenceApplied:
    """Apply a whole batch or none of it; raises InvalidInput with every reason found.

    The evidence is recorded by the check run `run_id` or by the person `recorded_by`
    (`recordStepEvidence`): exactly one of them; a person's entry never names a run.
    """
    if (run_id is None) == (recorded_by is None):
        raise ValueError("evidence is recorded either by a run or by a person")
    entries, problems = validate_batch(steps, raw_updates)
    if problems:
        raise InvalidInput(
            f"{origin.value} rejected, no step changed: " + "; ".join(p.message for p in problems),
            field=origin.value,
            reasons=sorted({p.reason.value for p in problems}),
            problems=[p.model_dump(mode="json") for p in problems],
        )
    changes = {
        update.step_id: (
            status,
            Evidence(
                text=update.evidence.strip(),
                run_id=run_id,
                recorded_by=recorded_by,
                recorded_at=now,
            ),
        )
        for update, status in entries
    }
    new_steps = tuple(
        s.model_copy(update={"status": changes[s.step_id][0], "evidence": changes[s.step_id][1]})
        if s.step_id in changes
        else s
        for s in steps
    )
    checks = tuple(
        WorkflowCheck(step_id=u.step_id, status=st, evidence=u.evidence.strip())
        for u, st in entries
    )
    return EvidenceApplied(steps=new_steps, checks=checks)
