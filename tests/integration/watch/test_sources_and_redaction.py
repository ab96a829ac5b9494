"""Reading, versions and redaction in real checks (docs/rules/watches.md)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from engine.story.models import SourceKind as StoryKind
from engine.watch.model import Checkpoint
from tests.support import scripted_model as s
from tests.support.grounded_watch import Grounding, plain_check
from tests.support.polling import until_async
from tests.support.scripted_model import ScriptedModelServer
from tests.support.watch_world import (
    NOW,
    World,
    answer,
    calls,
    read_all,
    tool_messages,
    verified,
    workflow,
)

DOC_V2 = "1. 核对官网版本号必须为 v2.4（检查时核验）。\n2. 生成发布草稿。\n3. 通知群。"


async def _wait_for_calls(server: ScriptedModelServer, n: int) -> None:
    async def calls() -> int:
        return server.calls

    await until_async(calls, lambda got: got >= n, f"{n} model requests", 30)


async def test_revision_change_mid_paging_revokes_the_step_list_and_restarts_reading(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    state = await world.watch()
    wid = state.watch.watch_id
    # the model's answers are held while the test changes the source and looks at the
    # checklist: the third until the new revision is stored, the fourth until the old
    # checklist is seen revoked (mid-stage by an explicit hold, not by a delay)
    stored, seen = threading.Event(), threading.Event()
    delayed = calls(("read_knowledge_source", {"sourceKey": world.doc_key, "offset": 10}))
    delayed.hold = stored
    after_restart = calls(
        ("read_knowledge_source", {"sourceKey": world.doc_key}),
        ("read_note_source", {"noteId": "n1"}),
    )
    after_restart.hold = seen
    turns = Grounding()
    model_server.script(
        turns(
            calls(
                ("read_knowledge_source", {"sourceKey": world.doc_key, "offset": 0, "limit": 10})
            ),
            world.doc_key,
        ),
        turns(calls(("check_workflow", {"steps": workflow(world)})), "1. 核对官网版本号"),
        turns(delayed, '"registered": ["s1", "s2"]', '"nextOffset": 10'),
        turns(after_restart, '"restart": true', "revoked"),
        turns(calls(("check_workflow", {"steps": workflow(world)})), "v2.4", "3. 通知群。"),
        turns(
            answer("新版本已核对", [verified(evidence="官网显示 v2.4")], changed=True),
            '"registered": ["s1", "s2"]',
        ),
    )
    job = asyncio.create_task(world.check(ctx, state, run_id="run-rev"))
    try:
        await _wait_for_calls(model_server, 3)
        steps = (await world.repo.get(world.scope, wid)).steps
        assert [st.step_id for st in steps] == ["s1", "s2"]
        await world.put_source(
            "d1", DOC_V2, kind=StoryKind.KNOWLEDGE, version="r2", title="发布流程 v2（内部）"
        )
        stored.set()
        await _wait_for_calls(model_server, 4)
        assert (await world.repo.get(world.scope, wid)).steps == (), "old checklist revoked"
    finally:
        stored.set()
        seen.set()
    report = await job
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    [restart] = [json.loads(m["content"]) for m in tool_messages(model_server.requests[3].body)][
        -1:
    ]
    assert restart["restart"] is True and restart["nextOffset"] == 0
    assert restart["revision"] == "r2" and "revoked" in restart["message"]
    assert report["outcome"] == "success"
    [handoff] = await world.records.handoffs(world.scope, wid)
    assert f"{world.doc_key}@r2" in handoff.dependencies


async def test_bad_step_source_names_the_step_and_only_this_watch_sources_nothing_saved(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    other = await world.watch(world.note("n-secret", "b-other"), execution_enabled=False)
    state = await world.watch()
    steps = workflow(world)
    steps[1] = {**steps[1], "source": other.watch.bindings[0].key.value}  # type: ignore[union-attr]
    bad = [steps[0], steps[1], {**steps[0], "stepId": "s3", "source": "官网"}]
    turns = Grounding()
    model_server.script(
        turns(read_all(world), "note:n1", world.doc_key),
        turns(
            calls(("check_workflow", {"steps": bad})), "核对官网版本号必须为 v2.3", "生成发布草稿"
        ),
        turns(answer("放弃"), "nothing saved"),
        answer("放弃"),
        answer("放弃"),
    )
    await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    [error] = [json.loads(m["content"]) for m in tool_messages(model_server.requests[2].body)][-1:]
    assert error["code"] == "INVALID_INPUT" and "nothing saved" in error["error"]
    assert "step s2" in error["error"] and "step s3" in error["error"]
    assert error["valid_sources"] == sorted([world.note_key, world.doc_key])
    parts = error["error"].split("valid values for this watch:")[1:]
    listings = [part.split(";")[0] for part in parts]
    assert listings and all("n-secret" not in listing for listing in listings)
    assert (await world.repo.get(world.scope, state.watch.watch_id)).steps == ()


async def test_credential_field_never_swallows_evidence_and_urls_stop_before_chinese_stop(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    await world.put_source(
        "n1",
        "token=abc123secret 核验：官网版本 v2.3\n发布页 https://example.com/r?token=xyz789。"
        "版本号为 v2.3",
        version="r2",
        title="每周检查笔记",
    )
    state = await world.watch(record_location="note:n1")
    await world.records.save_checkpoint(
        world.scope,
        Checkpoint(
            checkpoint_id=f"cp-old-{state.watch.watch_id}",
            watch_id=state.watch.watch_id,
            run_id="run-0",
            location="note:n1",
            instructions="上次记录",
            data={"apiToken": "sk-live-123", "evidence": "上次官网 v2.2"},
            recorded_at=NOW,
        ),
    )
    turns = Grounding()
    model_server.script(
        turns(calls(("read_record_baseline", {})), "note:n1", world.doc_key),
        turns(read_all(world), "上次官网 v2.2"),
        turns(answer("只读"), "token=[REDACTED] 核验：官网版本 v2.3"),
        answer("只读"),
        answer("只读"),
    )
    await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    sent = tool_messages(model_server.requests[2].body)
    baseline = json.loads(sent[0]["content"])["checkpoints"][0]["data"]
    assert baseline == {"apiToken": "[REDACTED]", "evidence": "上次官网 v2.2"}
    note_text = json.loads(sent[1]["content"])["text"]
    assert "abc123secret" not in note_text and "xyz789" not in note_text
    assert "token=[REDACTED] 核验：官网版本 v2.3" in note_text
    assert "https://example.com/r?token=[REDACTED]。版本号为 v2.3" in note_text
    [obs] = await world.observations(state)
    stored = "\n".join(obs.props["tool_summaries"])
    assert "sk-live-123" not in stored and "xyz789" not in stored
    assert "上次官网 v2.2" in stored and "。版本号为 v2.3" in stored
    resumed = await world.repo.get(world.scope, state.watch.watch_id)
    assert "sk-live-123" not in resumed.resume_summary and resumed.resume_summary


async def test_restarted_check_rereads_and_treats_old_evidence_as_reference_only(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    state = await world.watch()
    turns = Grounding()
    model_server.script(*plain_check(turns, world))
    await world.check(ctx, state, run_id="run-a")
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    model_server.reset()
    # The restarted check claims success without reading or verifying anything again.
    model_server.script(answer("和上次一样", [verified()]), answer("同上"), answer("同上"))
    report = await world.check(ctx, state, run_id="run-b")
    opening = model_server.requests[0].body["messages"][1]["content"]
    assert "reference only" in opening and "run-a" in opening
    assert report["outcome"] == "blocked"
    [latest, _] = await world.observations(state)
    assert latest.observation.outcome is not None
    reasons = " ".join(latest.observation.outcome.reasons)
    assert "has not been read" in reasons or "not registered" in reasons


async def test_long_resume_summary_is_cut_and_marks_what_to_reread(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    await world.put_source("n1", "长" * 3900, version="r2", title="每周检查笔记")
    state = await world.watch(execution_enabled=False)
    turns = Grounding()
    model_server.script(
        turns(
            calls(
                ("read_note_source", {"noteId": "n1", "limit": 4000}),
                ("read_knowledge_source", {"sourceKey": world.doc_key}),
            ),
            "note:n1",
            world.doc_key,
        ),
        turns(answer("读完"), "长" * 3900),
        answer("读完"),
        answer("读完"),
    )
    await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    resumed = await world.repo.get(world.scope, state.watch.watch_id)
    assert resumed.resume_truncated and "截断/truncated" in resumed.resume_summary
    assert len(resumed.resume_summary) <= 4000
    assert world.note_key in resumed.resume_reread
    model_server.reset()
    model_server.script(answer("x"), answer("x"), answer("x"))
    await world.check(ctx, state)
    assert "re-read: " in model_server.requests[0].body["messages"][1]["content"]


async def test_transient_failure_mid_loop_does_not_replay_executed_tools(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    state = await world.watch()
    turns = Grounding()
    model_server.script(
        calls(("check_workflow", {"steps": workflow(world)})),  # before any read: refused
        turns(read_all(world), "note:n1", world.doc_key),
        turns(
            calls(("check_workflow", {"steps": workflow(world)})),
            "核对官网版本号必须为 v2.3",
            "生成发布草稿",
        ),
        s.reset_mid_stream("partial", after_chunks=1),
        turns(answer("已核对", [verified()]), '"registered": ["s1", "s2"]'),  # the retried request
    )
    report = await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    assert report["outcome"] == "success" and report["retries"] == 1
    [obs] = await world.observations(state)
    assert len(obs.props["tool_summaries"]) == 4, "each tool ran once"
