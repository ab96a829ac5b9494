"""What a GraphQL client reads about checks and evidence (docs/rules/watches.md).

The schema runs in process against the real Neo4j with a named Principal, the way a request
with that person's token reaches it; checks run through the real check loop (the offline
checker or the scripted model on loopback).
"""

from __future__ import annotations

from typing import Any

from api.context import Context
from api.schema import build_schema
from engine.principal import Principal
from engine.settings import Settings
from tests.support.grounded_watch import Grounding, plain_check
from tests.support.scripted_model import ScriptedModelServer
from tests.support.watch_world import World

ALICE = Principal("alice", frozenset({"*"}), frozenset({"reader", "editor"}))

WATCH = """query($s: String!, $id: ID!) { watch(scope: $s, id: $id) {
  deliveryState
  steps { stepId status evidence evidenceRunId evidenceBy { kind id } }
  observations { runId outcome { status factsRecorded deliverableDone deliveryState } }
  handOffs { executionKey steps { stepId kind source method preconditions
                                  completionCriteria status evidence } }
} }"""
RECORD = """mutation($s: String!, $id: ID!, $u: [StepEvidenceInput!]!) {
  recordStepEvidence(scope: $s, watchId: $id, updates: $u) {
    steps { stepId status evidence evidenceRunId evidenceBy { kind id } } } }"""


async def gql(
    world: World,
    settings: Settings,
    query: str,
    variables: dict[str, Any],
    principal: Principal = ALICE,
) -> dict[str, Any]:
    context = Context(
        request=None,
        settings=settings,
        driver=world.driver,  # type: ignore[arg-type]
        pool=None,
        principal=principal,
    )  # type: ignore[arg-type]
    result = await build_schema().execute(query, variable_values=variables, context_value=context)
    assert result.errors is None, result.errors
    assert result.data is not None
    return result.data


async def test_evidence_a_person_records_names_the_person_not_the_checkers_run(
    ctx: dict[str, Any], model_server: ScriptedModelServer, world: World, settings: Settings
) -> None:
    state = await world.watch()
    wid = state.watch.watch_id
    turns = Grounding()
    model_server.script(*plain_check(turns, world))
    await world.check(ctx, state, run_id="check-1")
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    before = (await gql(world, settings, WATCH, {"s": world.scope, "id": wid}))["watch"]
    s1 = before["steps"][0]
    assert (s1["evidenceRunId"], s1["evidenceBy"]) == ("check-1", {"kind": "RUN", "id": "check-1"})

    after = (
        await gql(
            world,
            settings,
            RECORD,
            {
                "s": world.scope,
                "id": wid,
                "u": [
                    {"stepId": "s1", "status": "done", "evidence": "我亲自打开官网，版本号 v2.3"}
                ],
            },
        )
    )["recordStepEvidence"]["steps"]
    s1, s2 = after
    assert s1["evidence"] == "我亲自打开官网，版本号 v2.3"
    assert s1["evidenceBy"] == {"kind": "USER", "id": "alice"}
    assert s1["evidenceRunId"] is None, "a person's evidence is not stamped with a run"
    assert s2["evidenceBy"] is None


async def test_a_checks_facts_recorded_and_the_watchs_delivery_state_say_the_same(
    offline_ctx: dict[str, Any], world: World, settings: Settings
) -> None:
    blocked = await world.watch()  # the note does not contain the criterion v2.3
    report = await world.check(offline_ctx, blocked, run_id="offline-blocked")
    assert report["outcome"] == "blocked"
    w = (await gql(world, settings, WATCH, {"s": world.scope, "id": blocked.watch.watch_id}))[
        "watch"
    ]
    [obs] = w["observations"]
    assert w["steps"][0]["status"] == "blocked" and w["steps"][0]["evidence"]
    assert obs["outcome"]["deliveryState"] == w["deliveryState"] == "nothing_recorded"
    assert obs["outcome"]["factsRecorded"] is False, "a blocked step's reason is not a fact"

    await world.put_source(
        "n1", "每周一检查发布页。\n官网当前版本号：v2.3", version="r2", title="每周检查笔记"
    )
    verified_watch = await world.watch()
    report = await world.check(offline_ctx, verified_watch, run_id="offline-ok")
    assert report["outcome"] == "success"
    w = (
        await gql(world, settings, WATCH, {"s": world.scope, "id": verified_watch.watch.watch_id})
    )["watch"]
    [obs] = w["observations"]
    assert obs["outcome"]["deliveryState"] == w["deliveryState"] == "facts_recorded"
    assert obs["outcome"]["factsRecorded"] and not obs["outcome"]["deliverableDone"]


async def test_hand_off_steps_are_typed_with_camel_case_fields(
    offline_ctx: dict[str, Any], world: World, settings: Settings
) -> None:
    await world.put_source(
        "n1", "每周一检查发布页。\n官网当前版本号：v2.3", version="r2", title="每周检查笔记"
    )
    state = await world.watch()
    await world.check(offline_ctx, state, run_id="offline-handoff")
    w = (await gql(world, settings, WATCH, {"s": world.scope, "id": state.watch.watch_id}))["watch"]
    [handoff] = w["handOffs"]
    check, execute = handoff["steps"]
    assert check["stepId"] == "s1" and check["kind"] == "check" and check["status"] == "done"
    assert check["source"] == world.doc_key and check["completionCriteria"] == "v2.3"
    assert check["evidence"] == "note:n1 L2: 官网当前版本号：v2.3"
    assert (execute["stepId"], execute["kind"], execute["status"]) == ("s2", "execute", "pending")
    assert execute["evidence"] is None and isinstance(execute["preconditions"], list)
