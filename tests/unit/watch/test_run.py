"""A whole check run through its events, no services (→ 识别 → 核验 → 交接; docs/rules/watches.md)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import Conflict, Forbidden, InvalidInput
from engine.watch.access import ReadTarget
from engine.watch.budget import ClosingRound, CorrectionRound, ToolCall, ToolRound
from engine.watch.handoff import HandOffLedger, InjectIntoPartnerSession, complete_observation
from engine.watch.model import Observation, OutcomeStatus, StepStatus, Watch
from engine.watch.paging import PageRead
from engine.watch.run import (
    CheckRun,
    conclude,
    finish_round,
    read_page,
    record_evidence,
    register_workflow,
    start_run,
)
from tests.support.watch import LATER, NOW, OLD_RUN, RUN, doc_key, make_watch, note_key, step

DOC = "1. 核对官网版本号必须为 v2.3（检查时核验）。2. 生成发布草稿。"
NOTE = "每周一检查。"
MOUNTED = frozenset({"lib1"})


def read(
    run: CheckRun, watch: Watch, key: Any, text: str, revision: str = "r1", offset: int = 0
) -> CheckRun:
    page = PageRead(
        key=key, revision=revision, offset=offset, text=text[offset:], total_length=len(text)
    )
    target = ReadTarget(key=key, project="p1", title="发布流程 v2（内部）")
    run, _ = read_page(run, watch, target, page, MOUNTED, NOW)
    return run


WORKFLOW: list[dict[str, Any]] = [
    {
        "stepId": "s1",
        "kind": "check",
        "source": "doc:lib1/d1",
        "method": "打开官网查看版本号",
        "completionCriteria": "版本号为 v2.3",
        "verifyInCheck": True,
    },
    {
        "stepId": "s2",
        "kind": "execute",
        "source": "doc:lib1/d1",
        "preconditions": ["s1 done"],
        "completionCriteria": "草稿已生成",
    },
]
PREP = ToolRound(calls=(ToolCall(name="heartbeat_read_knowledge_source", succeeded=True),))
INVESTIGATE = ToolRound(calls=(ToolCall(name="bash", succeeded=True),))


def test_successful_run_hands_off_once() -> None:
    watch = make_watch(execution_enabled=True)
    run = start_run(
        watch,
        RUN,
        NOW,
        previous_steps=(step("s1", status=StepStatus.DONE, evidence="上次", run_id=OLD_RUN),),
    )
    assert run.steps == () and run.references[0].reference_only
    run = read(run, watch, doc_key(), DOC)
    run = read(run, watch, note_key(), NOTE)
    run = finish_round(run, PREP)
    run = register_workflow(run, watch, WORKFLOW)
    run = finish_round(run, ToolRound(calls=(ToolCall(name="check_workflow", succeeded=True),)))
    run = finish_round(run, INVESTIGATE)
    run = finish_round(run, ClosingRound())
    run = conclude(
        run, watch, LATER, [{"stepId": "s1", "status": "done", "evidence": "官网显示 v2.3"}]
    )
    assert run.outcome is not None and run.outcome.status is OutcomeStatus.SUCCESS
    assert run.outcome.dispatch_execution and not run.outcome.deliverable_done
    assert (run.budget.preparation_used, run.budget.verification_used) == (2, 1)
    obs = Observation(observation_id="o1", watch_id="w1", run_id=RUN, observed_at=LATER)
    _, ledger, effects = complete_observation(
        watch,
        obs,
        steps=run.steps,
        outcome=run.outcome,
        revisions=run.reading.revisions(),
        ledger=HandOffLedger(watch_id="w1"),
        now=LATER,
    )
    assert [type(e) for e in effects] == [InjectIntoPartnerSession]
    _, _, again = complete_observation(
        watch,
        obs,
        steps=run.steps,
        outcome=run.outcome,
        revisions=run.reading.revisions(),
        ledger=ledger,
        now=LATER,
    )
    assert [e.reason for e in again if not isinstance(e, InjectIntoPartnerSession)] == [
        "duplicate_execution_key"
    ]
    with pytest.raises(Conflict):
        record_evidence(run, watch, [{"stepId": "s1", "status": "done", "evidence": "x"}], LATER)


def test_revision_change_mid_paging_voids_registered_steps() -> None:
    watch = make_watch()
    run = start_run(watch, RUN, NOW)
    run = read(run, watch, doc_key(), DOC[:10] + "…", revision="r1")
    run = register_workflow(run, watch, WORKFLOW)
    assert len(run.steps) == 2
    run = read(run, watch, doc_key(), DOC, revision="r2", offset=10)
    assert run.steps == ()
    with pytest.raises(InvalidInput):
        record_evidence(run, watch, [{"stepId": "s1", "status": "done", "evidence": "v2.3"}], NOW)


def test_check_never_completed_is_blocked_when_no_round_is_left() -> None:
    watch = make_watch(execution_enabled=True)
    run = start_run(watch, RUN, NOW)
    run = read(run, watch, doc_key(), DOC)
    run = read(run, watch, note_key(), NOTE)
    run = register_workflow(run, watch, WORKFLOW)
    for _ in range(12):
        run = finish_round(run, CorrectionRound())
    run = finish_round(run, ClosingRound())
    run = conclude(
        run, watch, LATER, [{"stepId": "s1", "status": "deferred", "evidence": "发布时再看"}]
    )
    assert run.outcome is not None and run.outcome.status is OutcomeStatus.BLOCKED
    assert not run.outcome.dispatch_execution
    assert "cannot be moved to execution" in run.outcome.reasons[0]


def test_correction_then_success_within_the_budget() -> None:
    watch = make_watch()
    run = start_run(watch, RUN, NOW)
    run = read(run, watch, doc_key(), DOC)
    run = read(run, watch, note_key(), NOTE)
    run = register_workflow(run, watch, WORKFLOW)
    run = conclude(run, watch, NOW)
    assert run.outcome is not None and run.outcome.status is OutcomeStatus.NEEDS_CORRECTION
    run = finish_round(run, CorrectionRound())
    run = record_evidence(run, watch, [{"stepId": "s1", "status": "done", "evidence": "v2.3"}], NOW)
    run = conclude(run, watch, NOW)
    assert run.outcome is not None and run.outcome.status is OutcomeStatus.SUCCESS
    assert run.corrections_used == 1


def test_reads_are_authorised_and_runs_need_an_active_watch() -> None:
    watch = make_watch(tag_limits=frozenset({"发布"}))
    run = start_run(watch, RUN, NOW)
    with pytest.raises(Forbidden):
        read(run, watch, doc_key(), DOC)
    with pytest.raises(Conflict):
        start_run(watch.model_copy(update={"status": "stopped"}), RUN, NOW)
