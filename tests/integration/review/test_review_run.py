"""A supervision run end to end on a real arq worker, with the scripted model (docs/rules/reviews.md)."""

from __future__ import annotations

import json
from datetime import timedelta

from neo4j import AsyncDriver

from engine.errors import Busy
from engine.principal import WORKER
from engine.review import lifecycle as lc
from engine.review.types import Scope, Trigger
from jobs.deps import Deps
from jobs.notify import channel
from jobs.review.common import lease_of, runs_of
from jobs.review.execution import Execution
from jobs.review.model import Gateway
from jobs.review.runs import Opened, open_run, start_review
from jobs.story.common import story_repo
from tests.support.grounded_review import leaf_requests, review_answer, sent_texts
from tests.support.review_jobs import (
    BASE,
    conversation,
    count,
    leaf_reply,
    nav_reply,
    per_batch_for,
    push_conversation,
    run_worker,
)
from tests.support.scripted_model import ScriptedModelServer


async def test_27_message_conversation_is_reviewed_end_to_end(
    deps: Deps, model_server: ScriptedModelServer, scope: str, neo4j_driver: AsyncDriver
) -> None:
    body = conversation(27)
    await push_conversation(deps, scope, "chat-1", body)
    # the leaf answer stands on the first and the last message; the navigation on the leaf's
    model_server.script(
        leaf_reply("第一批", grounded_in=("第1条：", "第27条：")),
        nav_reply(grounded_in=("第一批",)),
    )
    got = await open_run(
        deps,
        Scope.projects(scope),
        trigger=Trigger.MANUAL,
        interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1)),
        per_batch=len(body) + 10,
    )
    assert isinstance(got, Opened)
    run = got.run
    assert run.status is lc.RunStatus.RUNNING  # stored running before collecting
    assert (await runs_of(deps).get(run.run_id)).run.stages.records[0].state.value == "running"
    assert deps.pool is not None
    hints = deps.pool.pubsub()
    await hints.subscribe(channel(scope))
    assert (await hints.get_message(timeout=5))["type"] == "subscribe"  # listening from here
    await run_worker(deps.settings)

    done = (await runs_of(deps).get(run.run_id)).run
    assert done.status is lc.RunStatus.COMPLETED, done.error
    assert done.result_id is not None
    assert [r.state.value for r in done.stages.records] == ["saved"] * 4
    assert len(done.ledger.batches) == 1
    assert model_server.calls == 2  # one leaf, one navigation
    leaf_prompt = model_server.requests[0].messages[-1]["content"]
    assert "第27条" in leaf_prompt and "第1条" in leaf_prompt
    result = await story_repo(deps).result(scope, done.result_id)
    assert len(result.events) == 1 and result.summaries[0].text == "本阶段：v2.0 提测推进"
    # graphChanged subscribers (the graph view following now) hear of the published result
    heard = await hints.get_message(ignore_subscribe_messages=True, timeout=5)
    await hints.aclose()
    assert heard is not None
    assert json.loads(heard["data"]) | {"at": None} == {
        "scope": scope,
        "kind": "result",
        "ids": [done.result_id],
        "by": f"run:{run.run_id}",
        "at": None,
    }
    assert await lease_of(deps).current() is None  # the lease is free after completion
    # manual interval reviews never move automatic progress
    assert (
        await count(
            neo4j_driver,
            deps.settings,
            "MATCH (c:ReviewCheckpoint {scope: $s}) RETURN count(c)",
            s=scope,
        )
        == 0
    )


async def test_larger_conversation_is_split_into_six_leaf_batches(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    """Six batches, six leaf requests and one navigation root: the prompt-grounded model
    answers one fact per message it was sent, so every message becomes exactly one event
    only when each batch's request carried its messages' text."""
    body = conversation(60)
    await push_conversation(deps, scope, "chat-big", body)
    model_server.answer_with(review_answer)
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1)),
        per_batch=per_batch_for(body, 6),
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    done = (await runs_of(deps).get(got.run.run_id)).run
    assert done.status is lc.RunStatus.COMPLETED, done.error
    assert [b.state.value for b in done.ledger.batches] == ["committed"] * 6
    # every character of the manifest is covered exactly once by the batches
    covered = sorted((s.start, s.end) for b in done.ledger.batches for s in b.segments)
    assert covered[0][0] == 0 and covered[-1][1] == len(body)
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:], strict=False))
    sent = leaf_requests(model_server)
    assert [sum(len(seg["text"]) for seg in p["segments"]) for p in sent] == [
        sum(s.end - s.start for s in b.segments) for b in done.ledger.batches
    ]
    assert model_server.calls == 7  # six leaves and the root
    result = await story_repo(deps).result(scope, done.result_id or "")
    said = [line.split(": ", 1) for line in body.splitlines()]
    # a title is the sentence; its speaker is a person linked to the event
    assert sorted(e.title for e in result.events) == sorted(what for _, what in said)


async def test_manual_start_while_busy_is_refused_at_once(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    await push_conversation(deps, scope, "chat-1", conversation(3))
    first = await open_run(deps, Scope.projects(scope), interval=(BASE, BASE + timedelta(days=1)))
    assert isinstance(first, Opened)
    try:
        await start_review(deps, WORKER, Scope.projects(scope), BASE, BASE + timedelta(days=1))
    except Busy as exc:
        assert exc.details["holder_run_id"] == first.run.run_id
    else:
        raise AssertionError("a second manual review was not refused")
    await lease_of(deps).release(owner=first.owner, token=first.token)


async def test_navigation_is_a_tree_of_bounded_nodes_under_one_root(
    deps: Deps, gateway: Gateway, model_server: ScriptedModelServer, scope: str
) -> None:
    body = conversation(40)
    await push_conversation(deps, scope, "chat-tree", body)
    # each leaf answer stands on its batch's first and last message, each group node on its
    # children's summaries, the root on the groups'
    model_server.script(
        *[
            leaf_reply(f"批{i}", grounded_in=(f"第{10 * i + 1}条：", f"第{10 * i + 10}条："))
            for i in range(4)
        ],
        nav_reply("前半", grounded_in=("批0", "批1")),
        nav_reply("后半", grounded_in=("批2", "批3")),
        nav_reply("全程：v2.0 提测推进", grounded_in=("前半", "后半")),
    )
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1)),
        per_batch=per_batch_for(body, 4),
        enqueue=False,
    )
    assert isinstance(got, Opened)
    run, owner, token = got.run, got.owner, got.token
    tree = Execution(deps, run.run_id, owner, token, gateway=gateway, fanout=2)
    assert await tree.run() == "completed"
    done = (await runs_of(deps).get(run.run_id)).run
    assert len(done.ledger.batches) == 4
    nodes = {n.node_id: n for n in done.ledger.nodes}
    assert sorted(nodes) == ["n1.0", "n1.1", "root"]
    assert nodes["n1.0"].leaves == {0, 1} and nodes["n1.1"].leaves == {2, 3}
    assert nodes["root"].is_root and nodes["root"].leaves == {0, 1, 2, 3}
    assert model_server.calls == 7  # 4 leaves, 2 group nodes, 1 root
    # the four leaf answers stood for four batches: each message went to exactly one leaf
    sent = sent_texts(model_server)
    assert len(sent) == 4 and all(sent)
    assert [sum(f"第{i + 1}条：" in t for t in sent) for i in range(40)] == [1] * 40
    root_prompt = model_server.requests[-1].messages[-1]["content"]
    assert "前半" in root_prompt and "后半" in root_prompt  # the root merges its children
    result = await story_repo(deps).result(scope, done.result_id or "")
    assert result.summaries[0].text == "全程：v2.0 提测推进"
    assert len(result.events) == 4  # leaf facts are kept, not replaced by navigation
