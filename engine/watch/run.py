"""One check run as a single state value (→ 识别 → 核验 → 交接; docs/rules/watches.md).

This composes the rule modules for the jobs layer: load the watch and the `CheckRun`,
call one function per event, persist the returned run and perform the returned effects.

    start_run -> read_page* / register_workflow / record_evidence / finish_round ... -> conclude

A restarted check starts a new run: the previous steps become reference material only
(`outcome.as_reference`) and every source is read again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engine.errors import Conflict, InvalidInput
from engine.watch.access import ReadTarget, authorize_read
from engine.watch.budget import BudgetPhase, Round, RoundBudget, spend
from engine.watch.evidence import EvidenceOrigin, apply_evidence
from engine.watch.model import Frozen, Outcome, OutcomeStatus, Watch, WorkflowStep
from engine.watch.outcome import MAX_CORRECTIONS, ReferenceEvidence, as_reference, judge_check
from engine.watch.paging import PageOutcome, PageRead, ReadingState, record_page
from engine.watch.steps import check_workflow


class CheckRun(Frozen):
    watch_id: str
    run_id: str
    started_at: datetime
    reading: ReadingState
    steps: tuple[WorkflowStep, ...] = ()
    budget: RoundBudget = RoundBudget()
    corrections_used: int = 0
    references: tuple[ReferenceEvidence, ...] = ()
    outcome: Outcome | None = None


def start_run(
    watch: Watch, run_id: str, now: datetime, previous_steps: Sequence[WorkflowStep] = ()
) -> CheckRun:
    if not watch.is_active:
        raise Conflict(f"watch {watch.watch_id} is {watch.status}", reason="watch_not_active")
    return CheckRun(
        watch_id=watch.watch_id,
        run_id=run_id,
        started_at=now,
        reading=ReadingState(watch_id=watch.watch_id, run_id=run_id),
        references=as_reference(previous_steps),
    )


def _open(run: CheckRun, watch: Watch) -> None:
    if run.watch_id != watch.watch_id:
        raise Conflict("the run belongs to another watch", reason="wrong_watch")
    if run.outcome is not None and run.outcome.status is not OutcomeStatus.NEEDS_CORRECTION:
        raise Conflict(f"run {run.run_id} is concluded", reason="concluded")


def read_page(
    run: CheckRun,
    watch: Watch,
    target: ReadTarget,
    page: PageRead,
    mounted_libraries: frozenset[str],
    now: datetime,
) -> tuple[CheckRun, PageOutcome]:
    """Authorise and record one page; a revision change revokes the run's step list."""
    _open(run, watch)
    if target.key != page.key:
        raise InvalidInput("the page is not from the authorised source", field="sourceKey")
    authorize_read(watch, target, mounted_libraries)
    outcome = record_page(run.reading, run.steps, page, now)
    return run.model_copy(update={"reading": outcome.reading, "steps": outcome.steps}), outcome


def register_workflow(
    run: CheckRun, watch: Watch, raw_steps: Sequence[Mapping[str, Any]]
) -> CheckRun:
    _open(run, watch)
    steps = check_workflow(watch, run.reading, run.steps, raw_steps)
    return run.model_copy(update={"steps": steps})


def record_evidence(
    run: CheckRun,
    watch: Watch,
    raw_updates: Sequence[Mapping[str, Any]],
    now: datetime,
    origin: EvidenceOrigin = EvidenceOrigin.UPDATES,
) -> CheckRun:
    _open(run, watch)
    applied = apply_evidence(run.steps, raw_updates, run_id=run.run_id, now=now, origin=origin)
    return run.model_copy(update={"steps": applied.steps})


def finish_round(run: CheckRun, round_: Round) -> CheckRun:
    """Account a model turn; `run.budget.phase` tells whether tools may still be offered."""
    return run.model_copy(update={"budget": spend(run.budget, round_)})


def conclude(
    run: CheckRun,
    watch: Watch,
    now: datetime,
    workflow_checks: Sequence[Mapping[str, Any]] | None = None,
    max_corrections: int = MAX_CORRECTIONS,
) -> CheckRun:
    """Judge the run when the model gives its observation (possibly in the closing round).

    `workflowChecks` are applied all-or-nothing first; a rejected batch adds its reason to
    the outcome. A check that still needs correction when no round is left is blocked.
    """
    _open(run, watch)
    extra: tuple[str, ...] = ()
    if workflow_checks:
        try:
            run = record_evidence(run, watch, workflow_checks, now, EvidenceOrigin.WORKFLOW_CHECKS)
        except InvalidInput as rejected:
            extra = (rejected.message,)
    outcome = judge_check(
        watch,
        run.steps,
        run_id=run.run_id,
        reading=run.reading,
        corrections_used=run.corrections_used,
        max_corrections=max_corrections,
    )
    if extra and outcome.status is OutcomeStatus.SUCCESS:
        outcome = outcome.model_copy(update={"reasons": extra})
    elif extra:
        outcome = outcome.model_copy(update={"reasons": (*extra, *outcome.reasons)})
    if (
        outcome.status is OutcomeStatus.NEEDS_CORRECTION
        and run.budget.phase is not BudgetPhase.OPEN
    ):
        outcome = outcome.model_copy(
            update={
                "status": OutcomeStatus.BLOCKED,
                "corrections_used": run.corrections_used,
                "reasons": (*outcome.reasons, "no round left for a correction"),
            }
        )
    return run.model_copy(update={"outcome": outcome, "corrections_used": outcome.corrections_used})
