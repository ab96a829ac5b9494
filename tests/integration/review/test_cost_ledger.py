"""The cost ledger of a supervision run: every model request a run makes
is a `ModelCall` with its stage, model, the tokens the response's `usage` reported (an
estimate marked `estimated` when the server omits it), retries and latency, attributed to
the run, its batch or navigation node, and its scope — written in the transaction that
commits the batch or node, so the ledger and the stand-in's request log agree one to one.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from neo4j import AsyncDriver
from prometheus_client import CollectorRegistry, generate_latest

from api.context import Context
from api.schema import build_schema
from engine.errors import Forbidden, InvalidInput
from engine.llm.accounting import CallStats
from engine.llm.ledger import Attribution, Stage, by_owner, by_stage, estimate_tokens, sum_lines
from engine.principal import OPEN_PRINCIPAL, Principal
from engine.review.types import Scope
from graph.llm.ledger import CostLedger
from jobs.cost import cost_ledger, cost_lines, ledger_totals, run_cost
from jobs.deps import Deps
from jobs.llm.ledger import STAGE_TOKENS, Meter
from jobs.llm.metrics import LedgerTotalsCollector, StageTokenCollector
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
CALLS = "MATCH (c:ModelCall {run_id: $run_id}) RETURN c {.*} AS c ORDER BY c.stage, c.batch"


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
    assert all(c["latency_ms"] is not None and c["at"] is not None for c in calls)  # measured
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


def db(deps: Deps) -> str:
    return deps.settings.neo4j_database


registry = CollectorRegistry()
registry.register(StageTokenCollector())
READER = Principal("reader", frozenset({"*"}), frozenset({"reader"}))


async def test_cost_ledger_sums_a_scopes_calls_per_run_stage_and_batch(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", chat())
    counted = STAGE_TOKENS.snapshot()
    stored_before = {(t[0], t[1]): t[2:] for t in await ledger_totals(neo4j_driver, db(deps))}
    run_id = await review(deps, scope)
    prompt = sum(len(r.user_text) for r in model_server.requests)

    since = BASE - timedelta(days=3650)
    got = await cost_ledger(deps, READER, scope, since=since, until=None)
    total = got.sums.total
    assert total.calls == model_server.calls and total.prompt_tokens == prompt
    assert got.sums.by_run == [(run_id, total)]
    stages = {(stage, model): s for stage, model, s in got.sums.by_stage}
    assert {stage for stage, _ in stages} == {"leaf", "navigation"}
    assert sum(s.calls for s in stages.values()) == model_server.calls
    # the lines, a page at a time after a keyset, add up to the sums of the whole window
    lines, after = [], None
    while True:
        page = await cost_lines(
            deps, READER, scope, since=since, until=None, first=1, after=after, with_total=True
        )
        assert len(page.items) == 1 and page.total is not None and page.total >= 2
        lines += [keyed.line for keyed in page.items]
        if not page.has_next:
            break
        after = page.items[-1].key
    assert len(lines) == page.total and len({str(x) for x in lines}) == len(lines)
    assert sum_lines(lines) == total and by_stage(lines) == stages
    assert by_owner(lines, "run_id") == {run_id: total}
    # the Prometheus counters of tokens by stage and model grew by the same amounts
    scraped = generate_latest(registry).decode()
    for (stage, model), cost in stages.items():
        was = counted.get((stage, model), (0, 0, 0))
        line = (
            f'storygraph_model_stage_tokens_total{{kind="prompt",model="{model}",stage="{stage}"}}'
        )
        assert f"{line} {float(was[0] + cost.prompt_tokens)}" in scraped, scraped
    # and the deployment-wide totals /metrics reads (ModelCallTotal) grew by the same
    stored = {(t[0], t[1]): t[2:] for t in await ledger_totals(neo4j_driver, db(deps))}
    for key, cost in stages.items():
        calls, prompt_was, completion_was = stored_before.get(key, (0, 0, 0))
        assert stored[key] == (
            calls + cost.calls,
            prompt_was + cost.prompt_tokens,
            completion_was + cost.completion_tokens,
        )
    # a window that ends before the run holds nothing
    before = await cost_ledger(
        deps, READER, scope, since=BASE - timedelta(days=3650), until=BASE - timedelta(days=3649)
    )
    assert before.sums.total.calls == 0 and before.sums.by_stage == []
    # the run's own cost (per batch) sums to the same
    assert sum_lines(await run_cost(deps, READER, scope, run_id)) == total
    # a time without a zone, and from after to, are INVALID_INPUT
    with pytest.raises(InvalidInput):
        await cost_ledger(deps, READER, scope, since=datetime(2026, 1, 1), until=None)
    with pytest.raises(InvalidInput):
        await cost_ledger(deps, READER, scope, since=BASE, until=BASE - timedelta(seconds=1))
    # another scope's caller is refused without learning anything
    with pytest.raises(Forbidden):
        await cost_ledger(
            deps,
            Principal("other", frozenset({"elsewhere"}), frozenset({"reader"})),
            scope,
            since=BASE,
            until=None,
        )


async def test_the_offline_model_s_calls_are_recorded_as_offline_with_estimated_tokens(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    offline = deps.settings.model_copy(update={"model_base_url": None})
    await push_conversation(deps, scope, "chat-1", chat())
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(hours=1)),
    )
    assert isinstance(got, Opened)
    await run_worker(offline)
    run = (await runs_of(deps).get(got.run.run_id)).run
    assert run.result_id, run

    calls = await ledger_of(neo4j_driver, deps, run.run_id)
    assert model_server.calls == 0  # no HTTP request at all
    assert [(c["stage"], c["model"]) for c in calls] == [
        ("leaf", "offline"),
        ("navigation", "offline"),
    ]
    assert all(
        c["estimated"] and c["prompt_tokens"] > 0 and c["completion_tokens"] > 0 for c in calls
    )


async def test_a_call_written_again_counts_once_in_the_ledger_and_the_totals(
    deps: Deps, neo4j_driver: AsyncDriver, scope: str
) -> None:
    """A commit whose acknowledgement was lost is run again by the driver: the calls it
    carries are stored and totalled once (the owner's statements include the same clause,
    cypher/fragments/model_calls.cypher)."""
    meter = Meter(Attribution(stage=Stage.REPORT, scope=scope, run_id=f"hb-{scope}"))
    meter.record(CallStats(model=f"m-{scope}", prompt_tokens=70, completion_tokens=7))
    meter.record(CallStats(model=f"m-{scope}", prompt_tokens=30, completion_tokens=3))
    calls = meter.entries()
    ledger = CostLedger(neo4j_driver, db(deps))
    await ledger.record(calls)
    await ledger.record(calls)  # the same calls again
    await ledger.record(calls[:1])

    (line,) = await ledger.in_scope(scope, calls[0].at, calls[-1].at + timedelta(seconds=1))
    assert (line.cost.calls, line.cost.prompt_tokens, line.cost.completion_tokens) == (2, 100, 10)
    totals = {(t[0], t[1]): t[2:] for t in await ledger_totals(neo4j_driver, db(deps))}
    assert totals[("heartbeat_report", f"m-{scope}")] == (2, 100, 10)


async def test_a_total_missing_its_token_counts_reads_as_zero_on_metrics(
    deps: Deps, neo4j_driver: AsyncDriver, scope: str
) -> None:
    """A `ModelCallTotal` from a store written before every call carried its tokens (one
    such node answered /metrics with a 500 on a long-lived stack): its missing counts read
    as 0, the scrape answers, and the next call adds to it."""
    model = f"m-{scope}"
    await neo4j_driver.execute_query(
        "CREATE (:ModelCallTotal {stage: 'concern_loop', model: $m, calls: 3})",
        m=model,
        database_=db(deps),
    )
    try:
        meter = Meter(Attribution(stage=Stage.CONCERN_LOOP, scope=scope, concern_id="c"))
        meter.record(CallStats(model=model, prompt_tokens=5, completion_tokens=2))
        before = {(t[0], t[1]): t[2:] for t in await ledger_totals(neo4j_driver, db(deps))}
        assert before[("concern_loop", model)] == (3, 0, 0)
        await CostLedger(neo4j_driver, db(deps)).record(meter.entries())
        after = await ledger_totals(neo4j_driver, db(deps))
        assert ("concern_loop", model, 4, 5, 2) in after
        totals = CollectorRegistry()
        totals.register(LedgerTotalsCollector(after))
        scraped = generate_latest(totals).decode()
        line = f'storygraph_ledger_calls_total{{model="{model}",stage="concern_loop"}} 4.0'
        assert line in scraped
    finally:
        await neo4j_driver.execute_query(
            "MATCH (t:ModelCallTotal {model: $m}) DELETE t", m=model, database_=db(deps)
        )


LEDGER_PAGE = """query($s: String!, $after: String) {
  costLedger(scope: $s, from: "2000-01-01T00:00:00Z") {
    total { calls promptTokens } byConcern { id cost { calls } } byStage { stage model }
    lines(first: 2, after: $after) {
      totalCount pageInfo { hasNextPage endCursor }
      edges { node { concernId stage cost { calls promptTokens } } } } } }"""


async def test_cost_ledger_lines_are_paged_while_its_sums_cover_the_window(
    deps: Deps, neo4j_driver: AsyncDriver, scope: str
) -> None:
    """Five concerns' calls: `lines` answers two at a time after a cursor (and counts all
    five), while the total and the sums per concern and stage cover every call."""
    for n in range(5):
        meter = Meter(Attribution(stage=Stage.CONCERN_LOOP, scope=scope, concern_id=f"c{n}"))
        meter.record(CallStats(model="m", prompt_tokens=10 + n, completion_tokens=1))
        await CostLedger(neo4j_driver, db(deps)).record(meter.entries())
    schema = build_schema(deps.settings)
    ctx = Context(request=None, settings=deps.settings, driver=neo4j_driver, pool=None,  # type: ignore[arg-type]
                  principal=OPEN_PRINCIPAL)  # fmt: skip

    async def page(after: str | None) -> dict[str, Any]:
        got = await schema.execute(
            LEDGER_PAGE, variable_values={"s": scope, "after": after}, context_value=ctx
        )
        assert got.errors is None, got.errors
        return got.data["costLedger"]  # type: ignore[index,no-any-return]

    seen: list[str] = []
    after = None
    for expected in (2, 2, 1):
        ledger = await page(after)
        assert ledger["total"] == {"calls": 5, "promptTokens": 60}
        assert [o["id"] for o in ledger["byConcern"]] == [f"c{n}" for n in range(5)]
        assert ledger["byStage"] == [{"stage": "concern_loop", "model": "m"}]
        lines = ledger["lines"]
        assert lines["totalCount"] == 5 and len(lines["edges"]) == expected
        seen += [e["node"]["concernId"] for e in lines["edges"]]
        assert lines["pageInfo"]["hasNextPage"] is (expected == 2)
        after = lines["pageInfo"]["endCursor"]
    assert seen == [f"c{n}" for n in range(5)]
    wrong = await schema.execute(
        LEDGER_PAGE, variable_values={"s": scope, "after": "bm90LWEtY3Vyc29y"}, context_value=ctx
    )
    assert wrong.errors and wrong.errors[0].extensions["code"] == "INVALID_INPUT"  # type: ignore[index]
