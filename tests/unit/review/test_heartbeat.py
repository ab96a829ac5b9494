"""docs/rules/reviews.md and 应用启停: heartbeat runs and the hand-over to supervision."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.errors import Conflict, Disabled
from engine.review.checkpoints import Checkpoint, CheckpointKey, Selection, Track
from engine.review.effects import CallModel, ReleaseSlot, StartSupervision
from engine.review.heartbeat import (
    HeartbeatRun,
    HeartbeatState,
    claim_scheduled,
    complete_report,
    fail_report,
    link_supervision,
    run_plan_now,
    skip_report,
    start_report,
)
from engine.review.plans import DuePlan, HeartbeatPlan, Schedule, set_plan_enabled
from engine.review.settings import AppSettings
from engine.review.types import InputBudget, Scope, Trigger
from tests.support.review import T0, seg

ON = AppSettings(heartbeat_enabled=True)
OFF = AppSettings(heartbeat_enabled=False)
SCOPE = Scope.projects("p1")
PLAN = HeartbeatPlan(
    config_id="c1",
    name="daily",
    scope=SCOPE,
    schedule=Schedule(every=timedelta(hours=1), anchor=T0),
    enabled=True,
    window=timedelta(days=7),
    budget=InputBudget(per_batch=100),
    created_at=T0,
    updated_at=T0,
)
DUE = DuePlan(plan=PLAN, slot=T0)
SOME = Selection(included=(seg("a", 0, 10),))
NOTHING = Selection()


def claimed(settings: AppSettings = ON) -> HeartbeatRun:
    run = claim_scheduled(
        DUE, settings, run_id="h1", worker_id="w1", now=T0, timeout=timedelta(minutes=2)
    )
    assert run is not None
    return run


def report_checkpoint() -> Checkpoint:
    return Checkpoint(key=CheckpointKey.of(Track.REPORT, SCOPE))


def test_scheduled_claim_carries_plan_scope_slot_and_frozen_timeout() -> None:
    run = claimed()
    assert run.state is HeartbeatState.CLAIMED and run.trigger is Trigger.AUTOMATIC
    assert (run.config_id, run.scope, run.slot, run.timeout) == (
        "c1",
        SCOPE,
        T0,
        timedelta(minutes=2),
    )


def test_disabled_app_claims_no_scheduled_run() -> None:
    assert (
        claim_scheduled(DUE, OFF, run_id="h", worker_id="w", now=T0, timeout=timedelta(1)) is None
    )


def test_disabled_plan_is_not_claimed() -> None:
    due = DuePlan(plan=set_plan_enabled(PLAN, False, now=T0), slot=T0)
    assert claim_scheduled(due, ON, run_id="h", worker_id="w", now=T0, timeout=timedelta(1)) is None


def test_run_plan_now_is_manual_and_refused_when_disabled() -> None:
    run = run_plan_now(PLAN, ON, run_id="h", worker_id="w", now=T0, timeout=timedelta(1))
    assert run.trigger is Trigger.MANUAL and run.slot is None
    with pytest.raises(Disabled):
        run_plan_now(PLAN, OFF, run_id="h", worker_id="w", now=T0, timeout=timedelta(1))


def test_no_pending_input_is_no_change_without_a_model_call() -> None:
    decision = start_report(claimed(), NOTHING, ON, now=T0)
    assert decision.state.state is HeartbeatState.NO_CHANGE
    assert not any(isinstance(e, CallModel) for e in decision.effects)
    # slot first, then the downstream check (which may retry an earlier failed supervision)
    assert decision.effects == (
        ReleaseSlot(run_id="h1"),
        StartSupervision(heartbeat_run_id="h1", scope=SCOPE),
    )


def test_pending_input_calls_the_model() -> None:
    decision = start_report(claimed(), SOME, ON, now=T0)
    assert decision.state.state is HeartbeatState.CLAIMED
    assert decision.effects == (CallModel(run_id="h1", purpose="report"),)


def test_completed_report_advances_only_the_report_track_and_queues_supervision() -> None:
    decision = complete_report(
        claimed(),
        report_id="rep1",
        taken=SOME,
        checkpoint=report_checkpoint(),
        settings=ON,
        now=T0,
    )
    assert decision.state.run.state is HeartbeatState.COMPLETED
    assert decision.state.checkpoint.positions["a"].offset == 10
    assert StartSupervision(heartbeat_run_id="h1", scope=SCOPE) in decision.effects
    supervision_cp = Checkpoint(key=CheckpointKey.of(Track.SUPERVISION, SCOPE))
    with pytest.raises(Conflict):
        complete_report(
            claimed(), report_id="r", taken=SOME, checkpoint=supervision_cp, settings=ON, now=T0
        )


def test_run_claimed_before_disable_finishes_and_saves_but_no_supervision_follows() -> None:
    run = claimed(ON)
    decision = complete_report(
        run, report_id="rep1", taken=SOME, checkpoint=report_checkpoint(), settings=OFF, now=T0
    )
    assert decision.state.run.state is HeartbeatState.COMPLETED
    assert decision.effects == (ReleaseSlot(run_id="h1"),)
    assert start_report(claimed(ON), NOTHING, OFF, now=T0).effects == (ReleaseSlot(run_id="h1"),)


def test_failed_and_skipped_reports_release_the_slot_and_start_nothing() -> None:
    failed = fail_report(claimed(), "model down", now=T0)
    assert failed.state.state is HeartbeatState.FAILED and failed.state.error == "model down"
    assert failed.effects == (ReleaseSlot(run_id="h1"),)
    skipped = skip_report(claimed(), "plan disabled", now=T0)
    assert skipped.state.state is HeartbeatState.SKIPPED
    with pytest.raises(Conflict):
        fail_report(failed.state, "again", now=T0)


def test_supervision_is_linked_by_its_real_run_id_once() -> None:
    done = start_report(claimed(), NOTHING, ON, now=T0).state
    linked = link_supervision(done, "s1")
    assert linked.supervision_run_id == "s1"
    assert link_supervision(linked, "s1") == linked
    with pytest.raises(Conflict):
        link_supervision(linked, "s2")
    with pytest.raises(Conflict):
        link_supervision(claimed(), "s1")
