"""Hand-off of a completed observation to the partner session (opening; docs/rules/watches.md).

- Only a successful check on an active watch with execution enabled hands off; a document
  can never grant execution by itself ("未开启执行时，文档不能自行授予执行权限"): nothing in
  the steps or the observation is consulted for that decision, only `Watch.execution_enabled`.
- The hand-off carries the verified result, the document's steps and the bound dependencies,
  and is injected directly into the partner (original) session. No board, timer or
  notification grant is ever an effect of this module.
- The execution key is stable: it is derived from the watch, the source revisions the check
  read and the execute steps' definitions, so a retried job, a redeploy or a repeated check
  over unchanged sources yields the same key, and a second hand-off with a key already
  delivered is dropped ("沿用稳定执行键去重"; "部署不会自动重放旧发布任务").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import datetime

from engine.errors import Conflict, Forbidden
from engine.watch.model import (
    Frozen,
    HandOff,
    HandOffStep,
    Observation,
    Outcome,
    OutcomeStatus,
    StepKind,
    Watch,
    WorkflowCheck,
    WorkflowStep,
)


class InjectIntoPartnerSession(Frozen):
    """Effect: deliver the hand-off into the partner session, keyed for idempotence."""

    session_id: str
    execution_key: str
    handoff: HandOff


class HandOffDropped(Frozen):
    """Effect (log only): a hand-off with an already delivered key was not sent again."""

    execution_key: str
    reason: str = "duplicate_execution_key"


HandOffEffect = InjectIntoPartnerSession | HandOffDropped


class HandOffLedger(Frozen):
    """Execution keys already delivered for one watch."""

    watch_id: str
    delivered: frozenset[str] = frozenset()


def execution_key(
    watch_id: str, revisions: Mapping[str, str], steps: Sequence[WorkflowStep]
) -> str:
    """Stable key of the work a hand-off asks for."""
    execute = sorted(
        (s.step_id, s.source, s.method, list(s.preconditions), s.completion_criteria)
        for s in steps
        if s.kind is StepKind.EXECUTE
    )
    material = json.dumps(
        {"watch": watch_id, "revisions": sorted(revisions.items()), "execute": execute},
        ensure_ascii=False,
        sort_keys=True,
    )
    return "exec-" + hashlib.sha256(material.encode()).hexdigest()[:32]


def build_handoff(
    watch: Watch,
    *,
    observation_id: str,
    run_id: str,
    steps: Sequence[WorkflowStep],
    outcome: Outcome,
    revisions: Mapping[str, str],
    now: datetime,
) -> HandOff:
    """The hand-off for a successful check; raises when execution may not be dispatched."""
    if not watch.is_active:
        raise Forbidden(f"watch {watch.watch_id} is {watch.status}", reason="watch_not_active")
    if not watch.execution_enabled:
        raise Forbidden(
            "follow-up execution is not enabled on this watch; a document cannot enable it",
            reason="execution_not_enabled",
        )
    if outcome.status is not OutcomeStatus.SUCCESS:
        raise Conflict(
            f"a {outcome.status} check dispatches no execution", reason="check_not_successful"
        )
    return HandOff(
        execution_key=execution_key(watch.watch_id, revisions, steps),
        watch_id=watch.watch_id,
        session_id=watch.session_id,
        run_id=run_id,
        observation_id=observation_id,
        steps=tuple(
            HandOffStep(
                step_id=s.step_id,
                kind=s.kind,
                source=s.source,
                method=s.method,
                preconditions=s.preconditions,
                completion_criteria=s.completion_criteria,
                status=s.status,
                evidence=s.evidence.text if s.evidence is not None else None,
            )
            for s in steps
        ),
        dependencies=tuple(
            f"{key.value}@{revisions[key.value]}" if key.value in revisions else key.value
            for key in watch.bound_keys()
        ),
        created_at=now,
    )


def deliver(
    ledger: HandOffLedger, handoff: HandOff
) -> tuple[HandOffLedger, tuple[HandOffEffect, ...]]:
    """Send a hand-off once per execution key; a repeat is dropped."""
    if handoff.watch_id != ledger.watch_id:
        raise Conflict("hand-off belongs to another watch", reason="wrong_watch")
    if handoff.execution_key in ledger.delivered:
        return ledger, (HandOffDropped(execution_key=handoff.execution_key),)
    new_ledger = ledger.model_copy(update={"delivered": ledger.delivered | {handoff.execution_key}})
    effect = InjectIntoPartnerSession(
        session_id=handoff.session_id, execution_key=handoff.execution_key, handoff=handoff
    )
    return new_ledger, (effect,)


def complete_observation(
    watch: Watch,
    observation: Observation,
    *,
    steps: Sequence[WorkflowStep],
    outcome: Outcome,
    revisions: Mapping[str, str],
    ledger: HandOffLedger,
    now: datetime,
) -> tuple[Observation, HandOffLedger, tuple[HandOffEffect, ...]]:
    """Close an observation: record its checks and outcome, and hand off when allowed.

    The only effects are an injection into the partner session or a dropped duplicate.
    """
    checks = tuple(
        WorkflowCheck(
            step_id=s.step_id,
            status=s.status,
            evidence=s.evidence.text if s.evidence is not None else "",
        )
        for s in steps
    )
    closed = observation.model_copy(update={"workflow_checks": checks, "outcome": outcome})
    if not outcome.dispatch_execution or not watch.execution_enabled:
        return closed, ledger, ()
    handoff = build_handoff(
        watch,
        observation_id=observation.observation_id,
        run_id=observation.run_id,
        steps=steps,
        outcome=outcome,
        revisions=revisions,
        now=now,
    )
    ledger, effects = deliver(ledger, handoff)
    return closed.model_copy(update={"handoff": handoff}), ledger, effects
