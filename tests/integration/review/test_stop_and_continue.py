"""Cancel mid-batch, pause and continue (seed 004 活动记录: 取消立即持久化 cancelled … 暂停 …
保留此前成功批次，可继续同一 run)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from neo4j import AsyncDriver

from engine.errors import Conflict
from engine.review import lifecycle as lc
from engine.review.lifecycle import DisplayStatus
from engine.review.types import Scope, Trigger
from graph.review.codec import RunOptions
from jobs.review.lifecycle import cancel_review, continue_review, pause_review, start_review
from jobs.review.services import ReviewServices
from jobs.story.common import story_repo
from tests.support.grounded_review import sent_texts
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
from tests.support.scripted_model import ScriptedModelServer, ScriptedReply


async def _wait_calls(server: ScriptedModelServer, n: int) -> None:
    for _ in range(200):
        if server.calls >= n:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the model got {server.calls} requests, expected {n}")


def _slow(reply: ScriptedReply, seconds: float) -> ScriptedReply:
    reply.delay = seconds
    return reply


async def test_cancel_mid_batch_publishes_nothing_and_moves_no_checkpoint(
    svc: ReviewServices, model_server: ScriptedModelServer, scope: str, neo4j_driver: AsyncDriver
) -> None:
    body = conversation(30)
    await push_conversation(svc, scope, "chat-1", body)
    model_server.script(_slow(leaf_reply("a"), 1.0), leaf_reply("b"), leaf_reply("c"), nav_reply())
    got = await start_review(
        svc,
        Scope.projects(scope),
        trigger=Trigger.AUTOMATIC,
        options=RunOptions(window=timedelta(days=7)),
        per_batch=len(body) // 3 + 1,
    )
    assert isinstance(got, tuple)
    run_id = got[0].run_id
    worker = asyncio.create_task(run_worker(svc.settings))
    await _wait_calls(model_server, 1)  # batch 0 is with the model
    cancelled = await cancel_review(svc, run_id)
    assert cancelled.status is lc.RunStatus.CANCELLED
    assert cancelled.display_status is DisplayStatus.CANCELLING  # still executing
    assert (await svc.runs.get(run_id)).run.blocks_new_review
    await worker

    run = (await svc.runs.get(run_id)).run
    assert run.display_status is DisplayStatus.CANCELLED and run.stopped
    assert all(b.state.value == "pending" for b in run.ledger.batches)  # in-flight batch dropped
    assert run.result_id is None
    assert model_server.calls == 1  # no batch after the cancel
    first = "".join(body[g.start : g.end] for g in run.ledger.batches[0].segments)
    assert sent_texts(model_server) == [first]  # the one request carried batch 0's messages
    assert (
        await count(
            neo4j_driver, svc.settings, "MATCH (r:Result {scope: $s}) RETURN count(r)", s=scope
        )
        == 0
    )
    assert (
        await count(
            neo4j_driver,
            svc.settings,
            "MATCH (c:ReviewCheckpoint {scope: $s}) RETURN count(c)",
            s=scope,
        )
        == 0
    )
    assert await svc.lease.current() is None
    with pytest.raises(Conflict):
        await continue_review(svc, run_id)


async def test_pause_keeps_committed_batches_and_continue_finishes_the_same_run(
    svc: ReviewServices, model_server: ScriptedModelServer, scope: str
) -> None:
    body = conversation(30)
    await push_conversation(svc, scope, "chat-1", body)
    model_server.script(_slow(leaf_reply("a"), 1.0), leaf_reply("b"), leaf_reply("c"), nav_reply())
    got = await start_review(
        svc,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1)),
        per_batch=per_batch_for(body, 3),
    )
    assert isinstance(got, tuple)
    run_id = got[0].run_id
    worker = asyncio.create_task(run_worker(svc.settings))
    await _wait_calls(model_server, 1)
    paused = await pause_review(svc, run_id)
    assert paused.status is lc.RunStatus.PAUSED
    await worker
    run = (await svc.runs.get(run_id)).run
    assert run.status is lc.RunStatus.PAUSED and run.stopped
    committed = [b.index for b in run.ledger.batches if b.state.value == "committed"]
    assert committed == [0]  # the batch in flight landed; nothing after the pause
    assert await svc.lease.current() is None

    resumed = await continue_review(svc, run_id)
    assert isinstance(resumed, tuple) and resumed[0].run_id == run_id
    await run_worker(svc.settings)
    done = (await svc.runs.get(run_id)).run
    assert done.status is lc.RunStatus.COMPLETED, done.error
    assert model_server.calls == 4  # 3 leaves + navigation: batch 0 was not asked again
    # each scripted leaf answer stood for the batch its request carried, and the navigation
    # request merged the three leaves' summaries
    assert sent_texts(model_server) == [
        "".join(body[g.start : g.end] for g in b.segments) for b in done.ledger.batches
    ]
    navigation = model_server.requests[-1].user_json()
    assert [b["summary"] for b in navigation["batches"]] == ["a", "b", "c"]
    assert [b.attempts for b in done.ledger.batches] == [1, 1, 1]
    result = await story_repo(svc.deps).result(scope, done.result_id or "")
    assert len(result.events) == 3
