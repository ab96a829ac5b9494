"""The per-run token budget (REVIEW_RUN_TOKEN_BUDGET): a supervision run
that has spent it pauses with the reason and `continueReview` goes on; a continued run never
pays again for a batch committed before it paused or failed — the stand-in's request log and
the cost ledger both show each batch asked once (a failed call is recorded and asked again,
nothing else)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from neo4j import AsyncDriver

from engine.principal import WORKER
from engine.review import lifecycle as lc
from engine.review.types import Scope
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, continue_review, open_run
from tests.support.grounded_review import leaf_requests, review_answer
from tests.support.review_jobs import (
    BASE,
    conversation,
    per_batch_for,
    push_conversation,
    run_worker,
)
from tests.support.scripted_model import LoggedRequest, ScriptedModelServer, ScriptedReply, status

CALLS = (
    "MATCH (c:ModelCall {run_id: $run_id}) "
    "RETURN c.stage AS stage, c.batch AS batch, c.outcome AS outcome"
)


async def start(deps: Deps, scope: str, batches: int) -> str:
    body = conversation(30)
    await push_conversation(deps, scope, "chat-1", body)
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1)),
        per_batch=per_batch_for(body, batches),
    )
    assert isinstance(got, Opened)
    return got.run.run_id


async def ledger(driver: AsyncDriver, deps: Deps, run_id: str) -> list[dict[str, Any]]:
    records, _, _ = await driver.execute_query(
        CALLS, run_id=run_id, database_=deps.settings.neo4j_database
    )
    return [dict(r) for r in records]


def asked_segments(server: ScriptedModelServer) -> Counter[tuple[str, int]]:
    """How often each segment (source, start) was sent in a leaf request."""
    return Counter(
        (s["source_id"], s["start"]) for p in leaf_requests(server) for s in p["segments"]
    )


async def test_a_run_over_its_token_budget_pauses_and_continues_without_paying_twice(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    model_server.answer_with(review_answer)
    settings = deps.settings.model_copy(update={"review_run_token_budget": 1})
    run_id = await start(deps, scope, 3)

    await run_worker(settings)
    run = (await runs_of(deps).get(run_id)).run
    assert run.status is lc.RunStatus.PAUSED and run.stopped
    assert run.pause_reason and "token" in run.pause_reason and "continueReview" in run.pause_reason
    assert [b.state.value for b in run.ledger.batches] == ["committed", "pending", "pending"]
    assert model_server.calls == 1  # it stopped before the next model call

    continues = 0
    while run.status is lc.RunStatus.PAUSED:
        resumed = await continue_review(deps, WORKER, run_id)
        assert resumed.pause_reason is None
        continues += 1
        await run_worker(settings)
        run = (await runs_of(deps).get(run_id)).run
    assert run.status is lc.RunStatus.COMPLETED, run.error
    assert continues == 3  # leaf 1, leaf 2, navigation: one model call per execution

    assert model_server.calls == 4  # 3 leaves + navigation, none asked twice
    assert set(asked_segments(model_server).values()) == {1}
    calls = await ledger(neo4j_driver, deps, run_id)
    assert sorted((c["stage"], c["batch"]) for c in calls) == [
        ("leaf", "0"),
        ("leaf", "1"),
        ("leaf", "2"),
        ("navigation", "root"),
    ]


async def test_a_failed_run_continued_pays_only_for_the_batch_that_failed(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    leaves = {"n": 0}

    def fail_third_leaf_once(req: LoggedRequest) -> ScriptedReply:
        payload = req.user_json()
        if isinstance(payload, dict) and "segments" in payload:
            leaves["n"] += 1
            if leaves["n"] == 3:
                return status(400, "scripted: this batch is refused once")
        return review_answer(req)

    model_server.answer_with(fail_third_leaf_once)
    run_id = await start(deps, scope, 3)
    await run_worker(deps.settings)
    run = (await runs_of(deps).get(run_id)).run
    assert run.status is lc.RunStatus.FAILED
    assert model_server.calls == 3

    await continue_review(deps, WORKER, run_id)
    await run_worker(deps.settings)
    run = (await runs_of(deps).get(run_id)).run
    assert run.status is lc.RunStatus.COMPLETED, run.error
    assert model_server.calls == 5  # the refused batch again, then navigation
    asked = asked_segments(model_server)
    third = {k for k, n in asked.items() if n == 2}
    assert third and all(n == 1 for k, n in asked.items() if k not in third)

    calls = await ledger(neo4j_driver, deps, run_id)
    assert len(calls) == model_server.calls  # the refused call is in the ledger too
    per_batch = Counter((c["stage"], c["batch"]) for c in calls)
    assert per_batch[("leaf", "0")] == per_batch[("leaf", "1")] == 1
    assert sorted(c["outcome"] for c in calls if c["batch"] == "2") == ["bad_request", "ok"]
