"""Grants, titles, tag limits, checkpoints and old observations against Neo4j (docs/rules/watches.md,
续跑与版本, 记录同步)."""

from __future__ import annotations

import json
from typing import Any

from engine.clock import utcnow
from engine.story.models import SourceKind as StoryKind
from engine.watch.model import SourceBinding, SourceKind
from graph.watch.catalogue import LibraryEntry
from jobs.tasks.watch import sync_watch_checkpoint
from tests.support.grounded_watch import Grounding
from tests.support.scripted_model import ScriptedModelServer
from tests.support.watch_world import (
    DOC_TEXT,
    NOW,
    World,
    answer,
    calls,
    read_all,
    tool_messages,
    verified,
    workflow,
)


def results(server: ScriptedModelServer, request: int) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in tool_messages(server.requests[request].body)]


async def test_single_document_binding_reads_across_projects_and_nothing_else(
    ctx: dict[str, Any], world: World, other_scope: str, model_server: ScriptedModelServer
) -> None:
    foreign = f"lib-{other_scope}"
    for doc in ("f1", "f2"):
        await world.put_source(
            doc, f"外部文档 {doc}", kind=StoryKind.KNOWLEDGE, title=f"外部 {doc}", scope=other_scope
        )
        await world.catalogue.place(LibraryEntry(foreign, doc, other_scope))
    state = await world.watch(
        world.document("f1", library=foreign, project=other_scope, binding_id="b-f1"),
        execution_enabled=False,
        mounted=frozenset({foreign}),
    )
    turns = Grounding()
    model_server.script(
        turns(
            calls(
                ("read_knowledge_source", {"libraryId": foreign, "documentId": "f1"}),
                # f2 is not bound: the model guesses it, the product must refuse
                ("read_knowledge_source", {"libraryId": foreign, "documentId": "f2"}),
            ),
            f"doc:{foreign}/f1",
        ),
        turns(answer("x"), "外部文档 f1"),
        answer("x"),
        answer("x"),
    )
    await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    bound, other = results(model_server, 1)
    assert bound["sourceKey"] == f"doc:{foreign}/f1" and bound["text"] == "外部文档 f1"
    assert other["code"] == "FORBIDDEN" and other["reason"] == "other_project"
    [grant] = await world.repo.grant_records(world.scope, state.watch.watch_id)
    assert grant["cross_project"] is True and grant["read_only"] is True


async def test_library_binding_titles_and_tag_limits_keep_project_limits(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    lib = world.library
    whole_library = SourceBinding(
        binding_id="b-lib",
        kind=SourceKind.KNOWLEDGE_LIBRARY,
        project=world.scope,
        library_id=lib,
        title="资料库",
        bound_at=NOW,
    )
    state = await world.watch(
        world.note(), whole_library, execution_enabled=False, tag_limits=frozenset({"财务"})
    )
    turns = Grounding()
    model_server.script(
        turns(
            calls(
                ("read_knowledge_source", {"title": "发布流程 v2（内部）"}),
                ("read_knowledge_source", {"title": "发布流程 v2"}),
            ),
            # the whole library is bound (its titles are not listed): the model asks for
            # titles the product must check against the library and the tag limits
            "资料库",
            "Tag limits: 财务",
        ),
        turns(answer("x"), "tag_limit"),
        answer("x"),
        answer("x"),
    )
    await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    tagged, fuzzy = results(model_server, 1)
    assert tagged["reason"] == "tag_limit" and tagged["allowed_tags"] == ["财务"]
    assert fuzzy["code"] == "INVALID_INPUT" and "no knowledge document titled" in fuzzy["error"]
    assert await world.repo.grant_records(world.scope, state.watch.watch_id) == []

    await world.catalogue.place(LibraryEntry(lib, "d1", world.scope, frozenset({"财务"})))
    model_server.reset()
    turns = Grounding()
    model_server.script(
        turns(
            calls(("read_knowledge_source", {"title": "发布流程 v2（内部）"})),
            "资料库",
        ),
        turns(answer("x"), DOC_TEXT),
        answer("x"),
        answer("x"),
    )
    await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    [exact] = results(model_server, 1)
    assert exact["sourceKey"] == world.doc_key and exact["title"] == "发布流程 v2（内部）"


async def test_stop_delete_and_rebind_revoke_grants_and_recovery_never_restores_them(
    world: World,
) -> None:
    state = await world.watch()
    wid = state.watch.watch_id
    assert len(await world.repo.recover_grants(world.scope, wid)) == 1
    await world.repo.stop(world.scope, wid, now=utcnow())
    records = await world.repo.grant_records(world.scope, wid)
    assert [g.get("revoke_reason") for g in records] == ["watch_stopped"]
    assert await world.repo.recover_grants(world.scope, wid) == ()
    resumed = await world.repo.resume(world.scope, wid, now=utcnow())
    fresh = await world.repo.recover_grants(world.scope, wid)
    assert len(fresh) == 1 and len(await world.repo.grant_records(world.scope, wid)) == 2
    changed = world.document("d1", binding_id="b-doc2", title="发布流程 v3")
    [note] = [b for b in resumed.watch.bindings if b.kind is SourceKind.NOTE]
    await world.repo.rebind(world.scope, wid, (note, changed), now=utcnow())
    records = await world.repo.grant_records(world.scope, wid)
    assert sorted(g.get("revoke_reason") or "open" for g in records) == [
        "binding_changed",
        "open",
        "watch_stopped",
    ]
    [now_held] = await world.repo.recover_grants(world.scope, wid)
    assert now_held.binding_id == "b-doc2"
    await world.repo.delete(world.scope, wid, now=utcnow())
    assert await world.repo.recover_grants(world.scope, wid) == ()


async def test_checkpoint_tool_field_errors_then_sync_is_its_own_task(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    await world.put_source("rec", "记录", title="记录")
    state = await world.watch(execution_enabled=False)
    wid = state.watch.watch_id
    premature = {"watchId": wid, "data": "文本", "instructions": 5}
    turns = Grounding()
    model_server.script(
        turns(
            calls(
                ("record_checkpoint", premature),
                ("record_checkpoint", {"watchId": "w-other", "data": {}, "instructions": ""}),
            ),
            f"Watch {wid}",
        ),
        turns(read_all(world), "no_record_location", "unknown_watch", "note:n1", world.doc_key),
        turns(
            calls(
                ("check_workflow", {"steps": workflow(world)}),
                ("update_workflow", {"updates": [verified()]}),
            ),
            "核对官网版本号必须为 v2.3",
            "生成发布草稿",
        ),
        turns(
            calls(
                (
                    "record_checkpoint",
                    {
                        "watchId": wid,
                        "location": "note:rec",
                        "data": {"version": "v2.3"},
                        "instructions": "追加",
                    },
                ),
                (
                    "record_checkpoint",
                    {
                        "watchId": wid,
                        "location": "ftp://elsewhere",
                        "data": {"version": "v2.3"},
                        "instructions": "追加",
                    },
                ),
            ),
            '"registered": ["s1", "s2"]',
        ),
        turns(answer("已核对"), "checkpointId"),
    )
    report = await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    assert report["outcome"] == "success"
    invalid, unknown = results(model_server, 1)
    assert {p["code"] for p in invalid["problems"]} == {
        "no_record_location",
        "verification_incomplete",
        "data_type",
        "instructions_type",
    }
    assert unknown["code"] == "NOT_FOUND" and unknown["problem"] == "unknown_watch"
    assert unknown["field"] == "watchId"
    saved = results(model_server, 4)[-2:]
    [obs] = await world.observations(state)
    assert obs.props["checkpoint_ids"] == [saved[0]["checkpointId"], saved[1]["checkpointId"]]

    good = await sync_watch_checkpoint(
        ctx, scope=world.scope, checkpoint_id=saved[0]["checkpointId"]
    )
    assert good["status"] == "synced"
    note = await world.catalogue.current(world.scope, "rec")
    assert note is not None and note.text is not None and '"version": "v2.3"' in note.text
    twice = await sync_watch_checkpoint(
        ctx, scope=world.scope, checkpoint_id=saved[0]["checkpointId"]
    )
    assert twice["duplicate"] is True

    bad = await sync_watch_checkpoint(
        ctx, scope=world.scope, checkpoint_id=saved[1]["checkpointId"]
    )
    assert bad["status"] == "failed" and bad["failureKind"] == "record_sync"
    [obs] = await world.observations(state)
    assert obs.observation.outcome is not None and obs.observation.outcome.status.value == "success"
    cps = {
        cp.checkpoint_id: (cp, rounds)
        for cp, rounds in await world.records.checkpoints(world.scope, wid)
    }
    failed, rounds = cps[saved[1]["checkpointId"]]
    assert failed.sync_error and rounds == 1


async def test_old_observation_without_a_step_list_stays_readable(world: World) -> None:
    state = await world.watch(execution_enabled=False)
    await world.driver.execute_query(
        "MATCH (w:Watch {id: $wid}) CREATE (w)-[:OBSERVED]->(:WatchObservation {id: 'old-1', "
        "scope: $scope, watch_id: $wid, run_id: 'legacy', observed_at: datetime(), "
        "summary: '旧观察'})",
        wid=state.watch.watch_id,
        scope=world.scope,
        database_=world.database,
    )
    [old] = await world.observations(state)
    assert old.observation.workflow_checks is None and old.observation.summary == "旧观察"
    assert old.observation.outcome is None
