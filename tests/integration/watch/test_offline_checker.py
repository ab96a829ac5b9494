"""The offline checker (no MODEL_BASE_URL) through the real check loop and Neo4j (docs/rules/watches.md;
engine/offline/watch_checker.py): same tools, budgets, evidence batches and hand-off gate."""

from __future__ import annotations

from typing import Any

from engine.story.models import SourceKind as StoryKind
from engine.watch.model import OutcomeStatus, StepKind, StepStatus
from tests.support.watch_world import World


async def test_offline_check_records_literal_evidence_and_hands_off(
    offline_ctx: dict[str, Any], world: World
) -> None:
    await world.put_source(
        "n1", "每周一检查发布页。\n官网当前版本号：v2.3", version="r2", title="每周检查笔记"
    )
    state = await world.watch()
    report = await world.check(offline_ctx, state, run_id="offline-1")
    assert report["status"] == "completed" and report["outcome"] == "success"
    assert report["handoff"] == "delivered"
    stored = await world.repo.get(world.scope, state.watch.watch_id)
    s1, s2 = stored.steps
    assert (s1.kind, s1.status, s1.verify_in_check) == (StepKind.CHECK, StepStatus.DONE, True)
    assert s1.completion_criteria == "v2.3"
    assert s1.evidence is not None and s1.evidence.text == "note:n1 L2: 官网当前版本号：v2.3"
    assert (s2.kind, s2.status) == (StepKind.EXECUTE, StepStatus.PENDING)
    [obs] = await world.observations(state)
    assert obs.props["checker_model"] == "offline-watch-checker"
    assert obs.props.get("error") is None and obs.props["model_calls"] == 4
    # reads, step registration, one evidence batch, the answer
    assert (obs.props["preparation_rounds"], obs.props["verification_rounds"]) == (2, 1)
    assert [t.split("]")[0] for t in obs.props["tool_summaries"]] == [
        "[heartbeat_read_note_source note:n1",
        f"[heartbeat_read_knowledge_source {world.doc_key}",
        "[heartbeat_check_workflow",
        "[heartbeat_check_workflow",
    ]
    [handoff] = await world.records.handoffs(world.scope, state.watch.watch_id)
    assert [st.step_id for st in handoff.steps] == ["s1", "s2"]


async def test_offline_check_without_the_criterion_in_the_text_ends_blocked(
    offline_ctx: dict[str, Any], world: World
) -> None:
    state = await world.watch()  # the note says nothing about the version
    report = await world.check(offline_ctx, state)
    assert report["outcome"] == "blocked" and report["handoff"] == "none"
    stored = await world.repo.get(world.scope, state.watch.watch_id)
    s1 = stored.steps[0]
    assert s1.status is StepStatus.BLOCKED and s1.evidence is not None
    assert "未在绑定依据中找到完成标准「v2.3」" in s1.evidence.text
    [obs] = await world.observations(state)
    outcome = obs.observation.outcome
    assert outcome is not None and outcome.status is OutcomeStatus.BLOCKED
    assert outcome.corrections_used == 2 and not outcome.dispatch_execution
    assert obs.props["correction_rounds"] == 2
    assert await world.records.handoffs(world.scope, state.watch.watch_id) == []


async def test_offline_checker_obeys_the_round_budget_and_closes_without_tools(
    offline_ctx: dict[str, Any], world: World
) -> None:
    long_text = "1. 核对版本必须为 v9。\n" + "正文" * 50_000  # 25 pages of 4000 characters
    await world.put_source(
        "d1", long_text, version="r2", kind=StoryKind.KNOWLEDGE, title="发布流程 v2（内部）"
    )
    state = await world.watch(world.document())
    report = await world.check(offline_ctx, state)
    assert report["outcome"] == "blocked"
    [obs] = await world.observations(state)
    assert obs.props["model_calls"] == 21, "20 tool rounds and the one closing round"
    assert (obs.props["preparation_rounds"], obs.props["verification_rounds"]) == (8, 12)
    assert obs.props["closing_rounds"] == 1
    assert obs.observation.outcome is not None
    assert any("has not been read to the end" in r for r in obs.observation.outcome.reasons)
    assert "未读完" in obs.observation.summary
