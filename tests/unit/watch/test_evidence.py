"""Evidence batches and workflowChecks (docs/rules/watches.md)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.watch.evidence import EvidenceOrigin, RejectionReason, apply_evidence
from engine.watch.model import StepKind, StepStatus, WorkflowStep
from tests.support.watch import NOW, RUN, step

STEPS: tuple[WorkflowStep, ...] = (
    step("c1"),
    step("c2", verify_in_check=True),
    step("e1", StepKind.EXECUTE, "doc:lib1/d1"),
)


def upd(step_id: str, status: str = "done", evidence: str = "页面显示 v2.3") -> dict[str, Any]:
    return {"stepId": step_id, "status": status, "evidence": evidence}


def apply(
    updates: list[dict[str, Any]], origin: EvidenceOrigin = EvidenceOrigin.UPDATES
) -> tuple[WorkflowStep, ...]:
    return apply_evidence(STEPS, updates, run_id=RUN, now=NOW, origin=origin).steps


def rejected(updates: list[Any]) -> InvalidInput:
    """The batch raises, so the caller has no new step list to persist: state unchanged."""
    with pytest.raises(InvalidInput) as err:
        apply(updates)
    return err.value


def test_valid_batch_updates_every_step_with_this_runs_evidence() -> None:
    out = apply(
        [upd("c1"), upd("c2", "blocked", "登录失败，无法核对"), upd("e1", "pending", "待发布")]
    )
    by_id = {s.step_id: s for s in out}
    assert by_id["c1"].status is StepStatus.DONE
    assert by_id["c1"].evidence is not None and by_id["c1"].evidence.run_id == RUN
    assert by_id["c2"].status is StepStatus.BLOCKED
    assert by_id["e1"].status is StepStatus.PENDING


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (upd("e1", "done"), RejectionReason.EXECUTE_STEP_COMPLETED),
        (upd("c1", "done", "  "), RejectionReason.EMPTY_EVIDENCE),
        (upd("c1", "done", ""), RejectionReason.EMPTY_EVIDENCE),
    ],
)
def test_batch_with_one_bad_entry_is_rejected_whole(
    bad: dict[str, Any], reason: RejectionReason
) -> None:
    err = rejected([upd("c2"), bad])
    assert err.details["reasons"] == [reason.value]
    assert err.details["field"] == "updates"
    assert "no step changed" in err.message
    # The good entry alone would have been applied: the bad one sank the whole batch.
    assert apply([upd("c2")])[1].status is StepStatus.DONE


def test_repeated_step_rejects_the_batch_and_names_it() -> None:
    err = rejected([upd("c1"), upd("c2"), upd("c1", "blocked", "又看了一次")])
    assert err.details["reasons"] == [RejectionReason.DUPLICATE_STEP.value]
    assert "c1 appears more than once" in err.message


def test_execute_step_completion_reason_is_clear() -> None:
    err = rejected([upd("e1", "done")])
    assert "execute step" in err.message and "e1" in err.message


def test_unknown_step_status_and_malformed_entries_reject_the_batch() -> None:
    assert rejected([upd("zz")]).details["reasons"] == ["unknown_step"]
    assert rejected([upd("c1", "ok")]).details["reasons"] == ["unknown_status"]
    assert rejected([{"stepId": "c1"}, upd("c2")]).details["reasons"] == ["malformed"]
    assert rejected([{"status": "done", "evidence": "x"}]).details["reasons"] == ["malformed"]
    assert rejected([]).details["reasons"] == ["empty_batch"]


def test_must_verify_condition_cannot_be_moved_to_execution() -> None:
    err = rejected([upd("c2", "deferred", "发布时再核对")])
    assert err.details["reasons"] == ["moved_to_execution"]
    assert (
        "must be verified during the check" in err.message
        or "requires this condition" in err.message
    )


def test_plain_check_step_cannot_be_deferred_either() -> None:
    err = rejected([upd("c1", "deferred", "留给执行")])
    assert "re-register it as an execute step" in err.message


def test_deferred_execute_step_stays_pending() -> None:
    out = apply([upd("e1", "deferred", "等待执行阶段生成草稿")])
    assert out[2].status is StepStatus.PENDING and out[2].evidence is not None


def test_workflow_checks_in_the_closing_round_follow_the_same_rules() -> None:
    checks = [upd("c1"), upd("c2")]
    result = apply_evidence(
        STEPS, checks, run_id=RUN, now=NOW, origin=EvidenceOrigin.WORKFLOW_CHECKS
    )
    assert [(c.step_id, c.status) for c in result.checks] == [
        ("c1", StepStatus.DONE),
        ("c2", StepStatus.DONE),
    ]
    with pytest.raises(InvalidInput) as err:
        apply_evidence(
            STEPS, [upd("e1")], run_id=RUN, now=NOW, origin=EvidenceOrigin.WORKFLOW_CHECKS
        )
    assert err.value.details["field"] == "workflowChecks"


def test_snake_case_entries_are_accepted() -> None:
    out = apply([{"step_id": "c1", "status": "done", "evidence": "ok"}])
    assert out[0].status is StepStatus.DONE


entry = st.fixed_dictionaries(
    {
        "stepId": st.sampled_from(["c1", "c2", "e1", "zz"]),
        "status": st.sampled_from(["done", "blocked", "pending", "deferred", "bad"]),
        "evidence": st.sampled_from(["", " ", "证据"]),
    }
)


@settings(deadline=None)
@given(st.lists(entry, max_size=5))
def test_a_batch_either_applies_whole_or_changes_nothing(batch: list[dict[str, Any]]) -> None:
    try:
        out = apply(batch)
    except InvalidInput:
        return
    touched = {e["stepId"] for e in batch}
    assert len(touched) == len(batch)
    for before, after in zip(STEPS, out, strict=True):
        if before.step_id in touched:
            assert after.evidence is not None and after.evidence.text == "证据"
        else:
            assert after == before
    assert all(not (s.kind is StepKind.EXECUTE and s.status is StepStatus.DONE) for s in out)


def test_a_persons_batch_names_the_person_and_no_run() -> None:
    steps = apply_evidence(STEPS, [upd("c1")], recorded_by="alice", now=NOW).steps
    evidence = {s.step_id: s for s in steps}["c1"].evidence
    assert evidence is not None
    assert (evidence.recorded_by, evidence.run_id) == ("alice", None)
    with pytest.raises(ValueError, match="either by a run or by a person"):
        apply_evidence(STEPS, [upd("c1")], run_id=RUN, recorded_by="alice", now=NOW)
