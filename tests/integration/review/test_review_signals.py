"""A review turns the facts people state into signals in the story graph (docs/rules/loop.md
#from-what-a-review-learns-to-a-concern): 李四's "前端部分周四能提测" on a Monday becomes one commitment signal due that
Thursday, citing the exact line and the run; reviewing the same message again adds none;
as of before the run there is none. Default offline model, real worker, real Neo4j."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from engine.clock import utcnow
from engine.errors import InvalidInput
from engine.principal import OPEN_PRINCIPAL
from engine.review.types import Scope
from engine.signal.derive import from_fact
from engine.signal.model import Passage, SignalKind
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, open_run
from jobs.signal.policy import PolicyEdit, save_agenda_policy
from jobs.signal.record import signal_store
from tests.support.in_process import graphql
from tests.support.review_jobs import push_conversation, run_worker

SHANGHAI = ZoneInfo("Asia/Shanghai")
SAID = datetime(2026, 3, 16, 10, 0, tzinfo=SHANGHAI)  # a Monday
LINE = f"[{SAID.isoformat()}] 李四: 前端部分周四能提测\n"
SIGNALS = """query($s: String!, $at: DateTime, $k: SignalKind) {
  signals(scope: $s, asOf: $at, kind: $k, first: 1) {
    edges { cursor node { id kind who what due locator sourceVersion runId
      decision { kind reason policyVersion label } } }
    pageInfo { hasNextPage } }
  storyGraph(scope: $s, asOf: $at) { signals { id due } } }"""


async def review(deps: Deps, scope: str) -> str:
    got = await open_run(
        deps, Scope.projects(scope), interval=(SAID - timedelta(hours=1), SAID + timedelta(hours=1))
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    run = (await runs_of(deps).get(got.run.run_id)).run
    assert run.result_id, run
    return run.run_id


async def test_a_promise_in_a_reviewed_conversation_is_one_commitment_signal_due_thursday(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    store = signal_store(deps)
    await push_conversation(deps, scope, "chat-1", LINE)
    before = utcnow()
    run_id = await review(deps, scope)

    page = await store.page(scope, as_of=utcnow(), first=10)
    [signal] = page.items
    assert signal.kind is SignalKind.COMMITMENT
    assert signal.who == "李四" and signal.what == "前端部分提测"
    assert signal.due == datetime(2026, 3, 19, 18, 0, tzinfo=SHANGHAI)
    assert (signal.source_id, signal.source_version) == ("chat-1", "v1")
    start = LINE.index("前端部分周四能提测")  # the exact words of that line, as the fact cites
    assert signal.locator == f"chars:{start}-{start + len('前端部分周四能提测')}"
    assert signal.said_at == SAID
    assert signal.run_id == run_id and signal.via_result
    assert (await store.page(scope, as_of=before, first=10)).items == []

    await review(deps, scope)  # the same message reviewed again: no second signal
    assert [s.id for s in (await store.page(scope, as_of=utcnow(), first=10)).items] == [signal.id]
    assert (await store.page(scope, as_of=utcnow(), kind="blocker", first=10)).items == []

    # over GraphQL: time-sliced like every read, and in storyGraph
    now = (await gql(deps, scope))["signals"]
    [edge] = now["edges"]
    assert edge["node"]["due"] == "2026-03-19T10:00:00+00:00" and edge["node"]["who"] == "李四"
    assert edge["node"]["runId"] == run_id and not now["pageInfo"]["hasNextPage"]
    # the default agenda decided, and said why: nobody is bound to reach 李四 yet
    assert edge["node"]["decision"] == {
        "kind": "IGNORED",
        "reason": "no reachable person",
        "policyVersion": 1,
        "label": "ignored: no reachable person",
    }
    assert (await gql(deps, scope))["storyGraph"]["signals"][0]["id"] == signal.id
    before_run = await gql(deps, scope, at=before.isoformat())
    assert before_run["signals"]["edges"] == [] and before_run["storyGraph"]["signals"] == []
    assert (await gql(deps, scope, kind="BLOCKER"))["signals"]["edges"] == []


async def gql(deps: Deps, scope: str, at: str | None = None, kind: str | None = None) -> dict:
    variables = {"s": scope, "at": at, "k": kind}
    return await graphql(deps.settings, deps.driver, SIGNALS, variables, pool=deps.pool)


async def test_a_signal_whose_passage_is_not_in_the_scope_is_rejected(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    draft = from_fact(
        "commitment",
        "李四：前端部分周四能提测",
        Passage(source_id="nowhere", source_version="v1", locator="chars:0-10"),
        SAID,
        "Asia/Shanghai",
    )
    assert draft is not None
    store = signal_store(deps)

    async def work(tx):  # type: ignore[no-untyped-def]
        return await store.record_in(
            tx, [draft], scope=scope, run_id="run-x", result_id="res-x", now=utcnow()
        )

    with pytest.raises(InvalidInput):
        await store.write(work)
    assert (await store.page(scope, as_of=utcnow(), first=10)).items == []


async def test_a_scope_with_the_loop_off_records_signals_and_decides_nothing(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    off = PolicyEdit(False, None, "", "", frozenset({SignalKind.COMMITMENT}))
    await save_agenda_policy(deps, OPEN_PRINCIPAL, scope, off, seen_version=1)
    await push_conversation(deps, scope, "chat-1", LINE)
    await review(deps, scope)
    [edge] = (await gql(deps, scope))["signals"]["edges"]
    assert edge["node"]["kind"] == "COMMITMENT" and edge["node"]["decision"] is None


async def test_a_policy_that_does_not_follow_commitments_ignores_them_with_its_version(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    quiet = PolicyEdit(True, "p_wangwu", "王五", "feishu", frozenset({SignalKind.DIFFERENCE}))
    await save_agenda_policy(deps, OPEN_PRINCIPAL, scope, quiet, seen_version=1)
    await push_conversation(deps, scope, "chat-1", LINE)
    await review(deps, scope)
    [edge] = (await gql(deps, scope))["signals"]["edges"]
    assert edge["node"]["decision"] == {
        "kind": "IGNORED",
        "reason": "commitment signals are not followed up by this policy",
        "policyVersion": 2,
        "label": "ignored: commitment signals are not followed up by this policy",
    }
