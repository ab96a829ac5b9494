"""Check outcome, corrections, deliverables and resume (docs/rules/watches.md)."""

from __future__ import annotations

import pytest

from engine.errors import Conflict, InvalidInput, NotFound
from engine.watch.model import (
    DeliveryState,
    Evidence,
    OutcomeStatus,
    StepKind,
    StepStatus,
    WorkflowStep,
)
from engine.watch.outcome import (
    MAX_CORRECTIONS,
    as_reference,
    check_problems,
    correction_prompt,
    deliverable_done,
    delivery_state,
    judge_check,
    record_execution_result,
    reference_note,
)
from tests.support.watch import LATER, OLD_RUN, RUN, make_watch, read_fully, step

DONE_CHECK = step("c1", status=StepStatus.DONE, evidence="页面显示 v2.3")
PENDING_EXEC = step("e1", StepKind.EXECUTE, "doc:lib1/d1")


def test_success_needs_done_check_steps_and_fully_read_sources() -> None:
    watch = make_watch(execution_enabled=True)
    outcome = judge_check(
        watch, (DONE_CHECK, PENDING_EXEC), run_id=RUN, reading=read_fully(watch), corrections_used=0
    )
    assert outcome.status is OutcomeStatus.SUCCESS
    assert outcome.facts_recorded and not outcome.deliverable_done
    assert outcome.dispatch_execution


def test_pending_execute_steps_are_not_check_failures() -> None:
    watch = make_watch()
    assert (
        check_problems((DONE_CHECK, PENDING_EXEC), RUN, watch.bound_keys(), read_fully(watch)) == ()
    )


def test_success_dispatches_nothing_when_execution_is_not_enabled() -> None:
    watch = make_watch(execution_enabled=False)
    outcome = judge_check(
        watch, (DONE_CHECK, PENDING_EXEC), run_id=RUN, reading=read_fully(watch), corrections_used=0
    )
    assert outcome.status is OutcomeStatus.SUCCESS and not outcome.dispatch_execution


def test_incomplete_reading_is_not_complete_evidence() -> None:
    watch = make_watch()
    partial = read_fully(watch, keys=watch.bound_keys()[:1])
    problems = check_problems((DONE_CHECK,), RUN, watch.bound_keys(), partial)
    assert problems == ("source doc:lib1/d1 has not been read to the end of its current revision",)


@pytest.mark.parametrize(
    ("steps", "fragment"),
    [
        ((), "no workflow steps"),
        ((step("c1"),), "c1 is not done"),
        ((step("c1", status=StepStatus.BLOCKED, evidence="登录失败"),), "c1 is blocked: 登录失败"),
        ((step("c1", status=StepStatus.DONE, evidence="旧的", run_id=OLD_RUN),), "earlier run"),
    ],
)
def test_failing_check_gets_bounded_corrections_then_blocks(
    steps: tuple[WorkflowStep, ...], fragment: str
) -> None:
    watch = make_watch(execution_enabled=True)
    reading = read_fully(watch)
    used = 0
    for attempt in range(1, MAX_CORRECTIONS + 1):
        outcome = judge_check(watch, steps, run_id=RUN, reading=reading, corrections_used=used)
        assert outcome.status is OutcomeStatus.NEEDS_CORRECTION
        assert outcome.corrections_used == attempt
        assert any(fragment in r for r in outcome.reasons)
        assert f"{attempt}/{MAX_CORRECTIONS}" in correction_prompt(outcome)
        used = outcome.corrections_used
    blocked = judge_check(watch, steps, run_id=RUN, reading=reading, corrections_used=used)
    assert blocked.status is OutcomeStatus.BLOCKED
    assert not blocked.dispatch_execution
    with pytest.raises(Conflict):
        correction_prompt(blocked)


def test_old_evidence_after_restart_is_reference_only() -> None:
    watch = make_watch(execution_enabled=True)
    old = (step("c1", status=StepStatus.DONE, evidence="上次成功", run_id=OLD_RUN),)
    outcome = judge_check(watch, old, run_id=RUN, reading=read_fully(watch), corrections_used=0)
    assert outcome.status is OutcomeStatus.NEEDS_CORRECTION
    assert not outcome.facts_recorded
    refs = as_reference(old)
    assert refs[0].reference_only and refs[0].run_id == OLD_RUN
    note = reference_note(refs)
    assert "reference only" in note and "上次成功" in note
    assert reference_note(()) == ""


def test_fact_recorded_is_not_deliverable_done() -> None:
    steps = (DONE_CHECK, PENDING_EXEC)
    assert not deliverable_done(steps)
    assert not deliverable_done((DONE_CHECK,))  # nothing to deliver is not "delivered"
    after = record_execution_result(
        steps, "e1", evidence="草稿编号已生成", execution_key="exec-1", now=LATER
    )
    assert deliverable_done(after)
    assert after[1].evidence is not None and after[1].evidence.run_id == "exec-1"


def test_execution_results_are_validated() -> None:
    steps = (DONE_CHECK, PENDING_EXEC)
    with pytest.raises(NotFound):
        record_execution_result(steps, "zz", evidence="x", execution_key="k", now=LATER)
    with pytest.raises(InvalidInput):
        record_execution_result(steps, "c1", evidence="x", execution_key="k", now=LATER)
    with pytest.raises(InvalidInput):
        record_execution_result(steps, "e1", evidence=" ", execution_key="k", now=LATER)


# --- one meaning, one name: 事实已记录 on the outcome and on the watch --------------------


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        (
            (step("c1", status=StepStatus.BLOCKED, evidence="来源中找不到 v2.3"), PENDING_EXEC),
            DeliveryState.NOTHING_RECORDED,
        ),
        ((PENDING_EXEC,), DeliveryState.NOTHING_RECORDED),
        ((DONE_CHECK, PENDING_EXEC), DeliveryState.FACTS_RECORDED),
    ],
    ids=["blocked-check-with-its-reason", "execute-steps-only", "done-check"],
)
def test_a_checks_facts_recorded_agrees_with_the_watchs_delivery_state(
    steps: tuple[WorkflowStep, ...], expected: DeliveryState
) -> None:
    watch = make_watch(execution_enabled=True)
    for used in (0, MAX_CORRECTIONS):
        outcome = judge_check(
            watch, steps, run_id=RUN, reading=read_fully(watch), corrections_used=used
        )
        assert outcome.delivery_state is delivery_state(steps) is expected
        assert outcome.facts_recorded is (expected is DeliveryState.FACTS_RECORDED)


def test_evidence_a_person_recorded_is_not_verified_by_the_run() -> None:
    watch = make_watch()
    by_person = DONE_CHECK.model_copy(
        update={
            "evidence": Evidence(text="我看过官网是 v2.3", recorded_by="alice", recorded_at=LATER)
        }
    )
    outcome = judge_check(
        watch, (by_person,), run_id=RUN, reading=read_fully(watch), corrections_used=MAX_CORRECTIONS
    )
    assert outcome.status is OutcomeStatus.BLOCKED and not outcome.facts_recorded
    assert any("a person recorded (alice)" in r for r in outcome.reasons)
    note = reference_note(as_reference((by_person,)))
    assert "person alice" in note and RUN not in note
