"""Cancel mid-batch, pause and continue (docs/rules/reviews.md: 取消立即持久化 cancelled … 暂停 …
保留此前成功批次，可继续同一 run)."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import pytest
from neo4j import AsyncDriver

from engine.errors import Conflict
from engine.principal import WORKER
from engine.review import lifecycle as lc
from engine.review.lifecycle import DisplayStatus
from engine.review.types import Scope, Trigger
from graph.review.codec import RunOptions
from jobs.deps import Deps
from jobs.review.common import lease_of, runs_of
from jobs.review.runs import Opened, cancel_review, continue_review, open_run, pause_review
from jobs.story.common import story_repo
from tests.support.grounded_review import sent_texts
from tests.support.polling import until_async
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
    async def calls() -> int:
        return server.calls

    await until_async(calls, lambda got: got >= n, f"{n} model requests", 10)


def _held(reply: ScriptedReply, gate: threading.Event) -> ScriptedReply:
    """The reply, given only once the test sets `gate` (the run is mid-batch until then)."""
    reply.hold = gate
    return reply


async def test_cancel_mid_batch_publishes_nothing_and_moves_no_checkpoint(
    deps: Deps, model_server: ScriptedModelServer, scope: str, neo4j_driver: AsyncDriver
) -> None:
    body = conversation(30)
    await push_conversation(deps, scope, "chat-1", body)
    gate = threading.Event()
    model_server.script(_held(leaf_reply("a"), gate), leaf_reply("b"), leaf_reply("c"), nav_reply())
    got = await open_run(
        deps,
        Scope.projects(scope),
        trigger=Trigger.AUTOMATIC,
        options=RunOptions(window=timedelta(days=7)),
        per_batch=len(body) // 3 + 1,
    )
    assert isinstance(got, Opened)
    run_id = got.run.run_id
    worker = asyncio.create_task(run_worker(deps.settings))
    await _wait_calls(model_server, 1)  # batch 0 is with the model
    try:
        cancelled = await cancel_review(deps, WORKER, run_id)
        assert cancelled.status is lc.RunStatus.CANCELLED
        assert cancelled.display_status is DisplayStatus.CANCELLING  # still executing
        assert (await runs_of(deps).get(run_id)).run.blocks_new_review
    finally:
        gate.set()  # batch 0's answer arrives after the cancel
    await worker

    run = (await runs_of(deps).get(run_id)).run
    assert run.display_status is DisplayStatus.CANCELLED and run.stopped
    assert all(b.state.value == "pending" for b in run.ledger.batches)  # in-flight batch dropped
    assert run.result_id is None
    assert model_server.calls == 1  # no batch after the cancel
    first = "".join(body[g.start : g.end] for g in run.ledger.batches[0].segments)
    assert sent_texts(model_server) == [first]  # the one request carried batch 0's messages
    assert (
        await count(
            neo4j_driver, deps.settings, "MATCH (r:Result {scope: $s}) RETURN count(r)", s=scope
        )
        == 0
    )
    assert (
        await count(
            neo4j_driver,
            deps.settings,
            "MATCH (c:ReviewCheckpoint {scope: $s}) RETURN count(c)",
            s=scope,
        )
        == 0
    )
    assert await lease_of(deps).current() is None
    with pytest.raises(Conflict):
        await continue_review(deps, WORKER, run_id)


async def test_pause_keeps_committed_batches_and_continue_finishes_the_same_run(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    body = conversation(30)
    await push_conversation(deps, scope, "chat-1", body)
    gate = threading.Event()
    model_server.script(_held(leaf_reply("a"), gate), leaf_reply("b"), leaf_reply("c"), nav_reply())
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1)),
        per_batch=per_batch_for(body, 3),
    )
    assert isinstance(got, Opened)
    run_id = got.run.run_id
    worker = asyncio.create_task(run_worker(deps.settings))
    await _wait_calls(model_server, 1)
    try:
        paused = await pause_review(deps, WORKER, run_id)
        assert paused.status is lc.RunStatus.PAUSED
    finally:
        gate.set()  # batch 0's answer arrives after the pause
    await worker
    run = (await runs_of(deps).get(run_id)).run
    assert run.status is lc.RunStatus.PAUSED and run.stopped
    committed = [b.index for b in run.ledger.batches if b.state.value == "committed"]
    assert committed == [0]  # the batch in flight landed; nothing after the pause
    assert await lease_of(deps).current() is None

    resumed = await continue_review(deps, WORKER, run_id)
    assert resumed.run_id == run_id and resumed.status is lc.RunStatus.RUNNING
    await run_worker(deps.settings)
    done = (await runs_of(deps).get(run_id)).run
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
    result = await story_repo(deps).result(scope, done.result_id or "")
    assert len(result.events) == 3
