"""What a review does with the model's answers: a 429 defers the arq job by Retry-After (no
sleeping, no stacked retries: the task raises `Retry(defer=...)`), and an invalid answer fails
the stage with the raw output kept (模型输出按 schema 校验; docs/rules/reviews.md)."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from arq import Retry
from neo4j import AsyncDriver

from engine.review import lifecycle as lc
from engine.review.types import Scope
from jobs.deps import Deps
from jobs.review.common import lease_of, review_pool, runs_of
from jobs.review.model import Gateway
from jobs.review.runs import Opened, open_run
from jobs.tasks.review import supervise
from jobs.tasks.review_worker import alive_key
from jobs.worker import worker_context
from tests.support.grounded_review import sent_texts
from tests.support.review_jobs import (
    BASE,
    conversation,
    leaf_reply,
    nav_reply,
    push_conversation,
    run_worker,
)
from tests.support.scripted_model import ScriptedModelServer, status, text


async def test_rate_limited_leaf_defers_the_job_by_retry_after_then_completes(
    deps: Deps,
    gateway: Gateway,
    model_server: ScriptedModelServer,
    scope: str,
    neo4j_driver: AsyncDriver,
    http: httpx.AsyncClient,
) -> None:
    body = conversation(5)
    await push_conversation(deps, scope, "chat-1", body)
    model_server.script(status(429, "slow down", retry_after="2"), leaf_reply("a"), nav_reply())
    got = await start(deps, scope)
    run, owner, token = got.run, got.owner, got.token
    ctx = worker_context(
        deps.settings,
        driver=neo4j_driver,
        http=http,
        worker_id="test-worker",
        redis=deps.pool,
        gateway=gateway,
    )
    assert deps.pool is not None
    alive = alive_key(deps.settings.queue_name, "test-worker")
    await deps.pool.set(alive, "1", px=60_000)
    try:
        with pytest.raises(Retry) as deferred:
            await supervise(ctx, run_id=run.run_id, owner=owner, token=token)
    finally:
        await deps.pool.delete(alive)
    assert deferred.value.defer_score == 2000  # Retry-After, handed to arq
    assert model_server.calls == 1  # the gateway did not retry the 429 itself
    mid = (await runs_of(deps).get(run.run_id)).run
    assert mid.status is lc.RunStatus.RUNNING and mid.error is None
    assert (await review_pool(deps).state()).held == ()  # the slot went back meanwhile

    assert mid.worker_id == "queued"  # left for the deferred job, whichever worker runs it
    # the deferring worker is gone; the queued job (same owner and token) runs on another
    # real worker, whose start-up recovery leaves the deferred run alone
    await run_worker(deps.settings)
    done = (await runs_of(deps).get(run.run_id)).run
    assert done.status is lc.RunStatus.COMPLETED, done.error
    assert model_server.calls == 3
    # the deferred job asked again for the same batch, whose messages both requests carried;
    # the navigation request merged the leaf's summary
    assert sent_texts(model_server) == [body, body]
    assert [b["summary"] for b in model_server.requests[-1].user_json()["batches"]] == ["a"]


async def test_invalid_leaf_answer_fails_the_stage_and_keeps_the_raw_output(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    body = conversation(5)
    await push_conversation(deps, scope, "chat-1", body)
    raw = '{"summary": "没有 facts 数组"}'
    model_server.script(text(raw))
    run = (await start(deps, scope)).run
    await run_worker(deps.settings)
    failed = (await runs_of(deps).get(run.run_id)).run
    assert failed.status is lc.RunStatus.FAILED
    assert failed.error is not None
    assert failed.error.kind is lc.ErrorKind.VALIDATION
    assert failed.error.stage.value == "leaves"
    assert failed.error.raw_output == raw
    assert sent_texts(model_server) == [body]  # the answer refused was to these messages
    assert failed.stages.get(failed.error.stage).state.value == "failed"
    assert all(b.state.value != "committed" for b in failed.ledger.batches)
    assert await lease_of(deps).current() is None


async def start(deps: Deps, scope: str) -> Opened:
    got = await open_run(
        deps, Scope.projects(scope), interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1))
    )
    assert isinstance(got, Opened)
    return got
