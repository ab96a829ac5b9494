"""How a check ends (docs/rules/watches.md).

- Success needs complete evidence: every bound source read to the end of its current
  revision, at least one step, every check step `done` with evidence from *this* run.
- Otherwise the checker gets a bounded number of correction attempts
  (`MAX_CORRECTIONS`); after that the check is `blocked` and no execution is dispatched.
- Pending execute steps are never failures; they are what execution will do.
- "Recorded as a fact" (`facts_recorded`) is not "deliverable done" (`deliverable_done`):
  the check records facts; only the execution side, reporting back on an execute step,
  completes a deliverable ("区分'事实已记录'与'交付物已完成'"). One predicate each, used by
  the check's outcome and by the watch's `delivery_state` alike: a fact is a check step
  `done` with evidence; a blocked step's evidence (why it is blocked) is not a fact.
- After a restart the old step list and evidence are reference only
  (`as_reference`); the outcome never counts evidence from another run
  ("不能把上次成功当作当前时效数据").
- Process validation is not proof of external facts: a success means the steps are backed
  by evidence the model recorded from real sources, nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engine.errors import Conflict, InvalidInput, NotFound
from engine.watch.model import (
    DeliveryState,
    Evidence,
    Frozen,
    Outcome,
    OutcomeStatus,
    SourceKey,
    StepKind,
    StepStatus,
    Watch,
    WorkflowStep,
)
from engine.watch.paging import ReadingState

MAX_CORRECTIONS = 2


def _current(step: WorkflowStep, run_id: str) -> bool:
    return step.evidence is not None and step.evidence.run_id == run_id


def facts_recorded(steps: Sequence[WorkflowStep], run_id: str | None = None) -> bool:
    """事实已记录: some check step is `done` with evidence (from `run_id` when given)."""
    return any(
        s.kind is StepKind.CHECK
        and s.status is StepStatus.DONE
        and s.evidence is not None
        and (run_id is None or s.evidence.run_id == run_id)
        for s in steps
    )


def delivery_state(steps: Sequence[WorkflowStep]) -> DeliveryState:
    """What the step list shows; a check's `Outcome.delivery_state` uses the same predicates."""
    if deliverable_done(steps):
        return DeliveryState.DELIVERABLE_DONE
    if facts_recorded(steps):
        return DeliveryState.FACTS_RECORDED
    return DeliveryState.NOTHING_RECORDED


def check_problems(
    steps: Sequence[WorkflowStep],
    run_id: str,
    required_sources: Sequence[SourceKey],
    reading: ReadingState,
) -> tuple[str, ...]:
    """Why this run's check is not (yet) a success; empty when it is."""
    problems: list[str] = [
        f"source {key.value} has not been read to the end of its current revision"
        for key in reading.incomplete(required_sources)
    ]
    if not steps:
        problems.append("no workflow steps are registered; identify them with check_workflow")
    for step in steps:
        if step.kind is StepKind.EXECUTE:
            continue
        if step.evidence is not None and step.evidence.recorded_by is not None:
            problems.append(
                f"check step {step.step_id} only has evidence a person recorded "
                f"({step.evidence.recorded_by}); verify it from the sources in this run"
            )
        elif step.evidence is not None and not _current(step, run_id):
            problems.append(
                f"check step {step.step_id} only has evidence from an earlier run "
                f"({step.evidence.run_id}); verify it again now"
            )
        elif step.status is StepStatus.BLOCKED:
            problems.append(f"check step {step.step_id} is blocked: {_text(step)}")
        elif step.status is not StepStatus.DONE or not _current(step, run_id):
            problems.append(f"check step {step.step_id} is not done")
    return tuple(problems)


def _text(step: WorkflowStep) -> str:
    return step.evidence.text if step.evidence is not None else "no evidence"


def judge_check(
    watch: Watch,
    steps: Sequence[WorkflowStep],
    *,
    run_id: str,
    reading: ReadingState,
    corrections_used: int,
    max_corrections: int = MAX_CORRECTIONS,
) -> Outcome:
    """Decide the outcome of a check at the end of a round in which the model answered.

    `corrections_used` counts the correction attempts already granted. A failing check
    earns another one while fewer than `max_corrections` were used; then it is blocked.
    """
    problems = check_problems(steps, run_id, watch.bound_keys(), reading)
    facts = facts_recorded(steps, run_id)
    delivered = deliverable_done(steps)
    if not problems:
        pending_execution = any(
            s.kind is StepKind.EXECUTE and s.status is not StepStatus.DONE for s in steps
        )
        return Outcome(
            status=OutcomeStatus.SUCCESS,
            corrections_used=corrections_used,
            facts_recorded=facts,
            deliverable_done=delivered,
            dispatch_execution=watch.execution_enabled and watch.is_active and pending_execution,
        )
    if corrections_used < max_corrections:
        return Outcome(
            status=OutcomeStatus.NEEDS_CORRECTION,
            reasons=problems,
            corrections_used=corrections_used + 1,
            facts_recorded=facts,
            deliverable_done=delivered,
        )
    return Outcome(
        status=OutcomeStatus.BLOCKED,
        reasons=problems,
        corrections_used=corrections_used,
        facts_recorded=facts,
        deliverable_done=delivered,
        dispatch_execution=False,
    )


def correction_prompt(outcome: Outcome, max_corrections: int = MAX_CORRECTIONS) -> str:
    """The message for the next correction round."""
    if outcome.status is not OutcomeStatus.NEEDS_CORRECTION:
        raise Conflict("only a check that needs correction gets a correction prompt")
    attempt = f"{outcome.corrections_used}/{max_corrections}"
    lines = [f"The check is not complete (correction {attempt}):"]
    lines += [f"- {reason}" for reason in outcome.reasons]
    lines.append("Record the missing evidence from the sources, or mark the step blocked.")
    return "\n".join(lines)


# --- deliverables (execution side) --------------------------------------------------------


def deliverable_done(steps: Sequence[WorkflowStep]) -> bool:
    """A deliverable is done only when there are execute steps and all of them are done."""
    execute = [s for s in steps if s.kind is StepKind.EXECUTE]
    return bool(execute) and all(s.status is StepStatus.DONE for s in execute)


def record_execution_result(
    steps: tuple[WorkflowStep, ...],
    step_id: str,
    *,
    evidence: str,
    execution_key: str,
    now: datetime,
) -> tuple[WorkflowStep, ...]:
    """The partner session reports an execute step done, under the hand-off's key."""
    step = next((s for s in steps if s.step_id == step_id), None)
    if step is None:
        raise NotFound(f"step {step_id} is not registered", field="stepId")
    if step.kind is not StepKind.EXECUTE:
        raise InvalidInput(
            f"step {step_id} is a check step; execution cannot complete it", field="stepId"
        )
    if not evidence.strip():
        raise InvalidInput(f"step {step_id}: evidence is empty", field="evidence")
    done = step.model_copy(
        update={
            "status": StepStatus.DONE,
            "evidence": Evidence(text=evidence.strip(), run_id=execution_key, recorded_at=now),
        }
    )
    return tuple(done if s.step_id == step_id else s for s in steps)


# --- resume -------------------------------------------------------------------------------


class ReferenceEvidence(Frozen):
    """Evidence from an earlier run, shown to the checker as reference, never as a fact."""

    step_id: str
    kind: StepKind
    status: StepStatus
    text: str
    run_id: str | None
    recorded_by: str | None = None
    recorded_at: datetime
    reference_only: bool = True

    @property
    def actor(self) -> str:
        return f"run {self.run_id}" if self.run_id is not None else f"person {self.recorded_by}"


def as_reference(steps: Sequence[WorkflowStep]) -> tuple[ReferenceEvidence, ...]:
    """Turn a persisted step list into reference material for a restarted check.

    The restarted run re-reads its sources and registers its own steps; none of these
    count towards its outcome. Execute steps already done are listed so a retest first
    checks what was delivered instead of repeating it.
    """
    return tuple(
        ReferenceEvidence(
            step_id=s.step_id,
            kind=s.kind,
            status=s.status,
            text=s.evidence.text,
            run_id=s.evidence.run_id,
            recorded_by=s.evidence.recorded_by,
            recorded_at=s.evidence.recorded_at,
        )
        for s in steps
        if s.evidence is not None
    )


def reference_note(references: Sequence[ReferenceEvidence]) -> str:
    """Text for the restarted checker's context; each line says it is not today's fact."""
    if not references:
        return ""
    lines = ["Earlier evidence (reference only; re-read the sources before relying on it):"]
    lines += [
        f"- [{r.actor} {r.recorded_at.isoformat()}] {r.step_id} ({r.kind}, {r.status}): {r.text}"
        for r in references
    ]
    return "\n".join(lines)
