"""The partner session's report on a hand-off (/交付物; docs/rules/watches.md)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.errors import Conflict, InvalidInput
from engine.watch.handoff import build_handoff
from engine.watch.model import DeliveryState, Outcome, OutcomeStatus, StepKind, StepStatus
from engine.watch.outcome import delivery_state
from engine.watch.receipts import EntryKind, ReceiptStatus, SessionEntry
from engine.watch.report import CompletedStep, ExecutionReport, settle_report
from tests.support.watch import LATER, NOW, RUN, make_watch, step

WATCH = make_watch(execution_enabled=True)
STEPS = (
    step("c1", status=StepStatus.DONE, evidence="官网显示 v2.3"),
    step("e1", StepKind.EXECUTE, "doc:lib1/d1"),
)
HANDOFF = build_handoff(
    WATCH,
    observation_id="obs-1",
    run_id=RUN,
    steps=STEPS,
    outcome=Outcome(status=OutcomeStatus.SUCCESS, facts_recorded=True, dispatch_execution=True),
    revisions={},
    now=NOW,
)
KEY = HANDOFF.execution_key


def entry(kind: EntryKind, minute: int, text: str = "", **kw: object) -> SessionEntry:
    return SessionEntry.model_validate(
        {"kind": kind, "at": NOW + timedelta(minutes=minute), "text": text, **kw}
    )


def report(
    *between: SessionEntry,
    final: bool = True,
    verify_only: bool = False,
    completed: tuple[CompletedStep, ...] = (CompletedStep(step_id="e1"),),
) -> ExecutionReport:
    entries = [entry(EntryKind.HANDOFF, 0, execution_key=KEY), *between]
    if final:
        entries.append(entry(EntryKind.ASSISTANT_FINAL, 9, "草稿已生成"))
    return ExecutionReport(
        watch_id=WATCH.watch_id,
        execution_key=KEY,
        entries=tuple(entries),
        completed=() if verify_only else completed,
        verify_only=verify_only,
    )


def test_accepted_report_completes_the_execute_step_and_the_deliverable() -> None:
    compaction = entry(EntryKind.COMPACTION_CHECKPOINT, 3, "上下文已压缩")
    decision = settle_report(HANDOFF, STEPS, report(compaction), prior=(), now=LATER)
    assert decision.receipt.accepted and decision.receipt.completed_steps == ("e1",)
    assert decision.steps is not None
    e1 = decision.steps[1]
    assert e1.status is StepStatus.DONE and e1.evidence is not None
    assert (e1.evidence.text, e1.evidence.run_id) == ("草稿已生成", KEY)
    assert delivery_state(STEPS) is DeliveryState.FACTS_RECORDED
    assert delivery_state(decision.steps) is DeliveryState.DELIVERABLE_DONE


@pytest.mark.parametrize(
    ("rep", "status"),
    [
        (report(entry(EntryKind.INTERRUPTED, 2)), ReceiptStatus.INTERRUPTED),
        (report(final=False), ReceiptStatus.NO_FINAL_ANSWER),
        (
            report(entry(EntryKind.USER_MESSAGE, 2, "顺便查下天气")),
            ReceiptStatus.SEPARATED_BY_USER_REQUEST,
        ),
    ],
)
def test_rejected_reports_are_kept_with_their_reason_and_change_no_step(
    rep: ExecutionReport, status: ReceiptStatus
) -> None:
    decision = settle_report(HANDOFF, STEPS, rep, prior=(), now=LATER)
    assert decision.receipt.status is status and not decision.receipt.accepted
    assert decision.receipt.reason and decision.steps is None
    assert decision.receipt.completed_steps == ()


def test_check_only_report_recognises_but_changes_and_replays_nothing() -> None:
    decision = settle_report(HANDOFF, STEPS, report(verify_only=True), prior=(), now=LATER)
    assert decision.receipt.accepted and decision.receipt.verify_only
    assert decision.steps is None and not decision.receipt.replayed
    with pytest.raises(InvalidInput):
        settle_report(
            HANDOFF,
            STEPS,
            report(verify_only=True).model_copy(
                update={"completed": (CompletedStep(step_id="e1"),)}
            ),
            prior=(),
            now=LATER,
        )


def test_only_execute_steps_of_the_hand_off_can_be_reported_done() -> None:
    for bad in ("c1", "nope"):
        with pytest.raises(InvalidInput):
            settle_report(
                HANDOFF, STEPS, report(completed=(CompletedStep(step_id=bad),)), prior=(), now=LATER
            )


def test_a_second_completing_report_for_a_received_key_is_a_conflict() -> None:
    first = settle_report(HANDOFF, STEPS, report(), prior=(), now=LATER)
    assert first.steps is not None
    with pytest.raises(Conflict):
        settle_report(
            HANDOFF,
            first.steps,
            report(entry(EntryKind.TOOL_RESULT, 4)),
            prior=(first.receipt,),
            now=LATER,
        )
    # a check-only look at the same key stays possible and changes nothing
    again = settle_report(
        HANDOFF, first.steps, report(verify_only=True), prior=(first.receipt,), now=LATER
    )
    assert again.receipt.accepted and again.steps is None


def test_the_same_report_has_the_same_receipt_id() -> None:
    assert report().fingerprint() == report().fingerprint()
    assert report().fingerprint() != report(verify_only=True).fingerprint()
