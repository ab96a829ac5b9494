"""The cost ledger of a supervision run (issue 29 item 4): every model request a run makes
is a `ModelCall` with its stage, model, the tokens the response's `usage` reported (an
estimate marked `estimated` when the server omits it), retries and latency, attributed to
the run, its batch or navigation node, and its scope — written in the transaction that
commits the batch or node, so the ledger and the stand-in's request log agree one to one.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from neo4j import AsyncDriver

from engine.llm.ledger import estimate_tokens
from engine.review.types import Scope
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, open_run
from tests.support.grounded_review import review_answer, review_answer_without_usage
from tests.support.review_jobs import BASE, push_conversation, run_worker
from tests.support.scripted_model import ScriptedModelServer

LINES = [
    (0, "张三", "支付模块卡在第三方回调接口"),
    (2, "李四", "前端部分周四能提测"),
    (4, "王五", "我来协调沙箱"),
]
CALLS = (
    "MATCH (r:SupervisionRun {id: $run_id})-[:MADE_CALL]->(c:ModelCall) "
    "RETURN c {.*} AS c ORDER BY c.stage, c.batch"
)


def chat() -> str:
    return "".join(
        f"[{(BASE + timedelta(minutes=m)).isoformat()}] {who}: {said}\n" for m, who, said in LINES
    )


async def review(deps: Deps, scope: str, per_batch: int | None = None) -> str:
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(hours=1)),
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    run = (await runs_of(deps).get(got.run.run_id)).run
    assert run.result_id, run
    return run.run_id


async def ledger_of(driver: AsyncDriver, deps: Deps, run_id: str) -> list[dict[str, Any]]:
    records, _, _ = await driver.execute_query(
        CALLS, run_id=run_id, database_=deps.settings.neo4j_database
    )
    return [dict(r["c"]) for r in records]


async def test_each_model_request_of_a_run_is_one_ledger_entry_with_the_reported_usage(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", chat())
    run_id = await review(deps, scope)

    calls = await ledger_of(neo4j_driver, deps, run_id)
    assert len(calls) == model_server.calls == len(model_server.requests) >= 2
    assert {c["stage"] for c in calls} == {"leaf", "navigation"}
    assert {c["model"] for c in calls} == {deps.settings.model_name}
    assert {c["scope"] for c in calls} == {scope}
    assert all(c["outcome"] == "ok" and c["retries"] == 0 for c in calls)
    assert not any(c["estimated"] for c in calls)
    assert all(c["latency_ms"] > 0 and c["at"] is not None for c in calls)
    # the grounded stand-in reports prompt tokens = characters of the user message and
    # completion tokens = characters of its answer: the ledger carries exactly those
    sent = sorted(len(r.user_text) for r in model_server.requests)
    assert sorted(c["prompt_tokens"] for c in calls) == sent
    assert all(c["completion_tokens"] > 0 for c in calls)
    leaf_batches = [c["batch"] for c in calls if c["stage"] == "leaf"]
    assert leaf_batches == sorted(set(leaf_batches)) and leaf_batches[0] == "0"
    assert [c["batch"] for c in calls if c["stage"] == "navigation"][-1] is not None


async def test_a_server_omitting_usage_gets_an_estimate_marked_estimated(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    model_server.answer_with(review_answer_without_usage)
    await push_conversation(deps, scope, "chat-1", chat())
    run_id = await review(deps, scope)

    calls = await ledger_of(neo4j_driver, deps, run_id)
    assert len(calls) == model_server.calls >= 2
    assert all(c["estimated"] for c in calls)
    # the documented estimate: ceil(characters / 4) of the messages sent
    expected = sorted(
        estimate_tokens(len(json.dumps(r.messages, ensure_ascii=False)))
        for r in model_server.requests
    )
    assert sorted(c["prompt_tokens"] for c in calls) == expected
    assert all(c["completion_tokens"] > 0 for c in calls)
