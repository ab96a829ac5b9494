"""The agenda decides with what the graph knows and its effect happens once (docs/rules/loop.md
#from-what-a-review-learns-to-a-concern): a conversation pushed with its speakers (李四 = concern person p_lisi on feishu) in
which 李四 says on a Monday "前端部分周四能提测" is reviewed; the commitment signal is decided
`raised con-<signal>`, and a real worker raises that follow-up concern: 李四 the counterpart,
goal "确认前端部分提测是否已完成", initiator the owner the policy names, first contact on the
Thursday in working hours (not at once). Reviewing again raises nothing new; the effect job
run again, twice at once on two workers, or under other job ids never makes a second concern.
Without speakers nobody is reachable. Default offline model, real Neo4j, Redis and workers."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from arq.jobs import Job
from neo4j import AsyncManagedTransaction

from engine.clock import utcnow
from engine.concern.model import ConcernType
from engine.principal import OPEN_PRINCIPAL, WORKER
from engine.review.types import Scope
from engine.signal.derive import from_fact
from engine.signal.model import DecisionKind, Passage, SignalKind
from engine.signal.policy import AgendaPolicy
from engine.signal.stored import Signal
from jobs.concern import commands
from jobs.deps import Deps
from jobs.reconcile import reconcile
from jobs.review.common import runs_of
from jobs.review.runs import Opened, open_run
from jobs.signal.bindings import bind_person
from jobs.signal.effects import EFFECT_JOB
from jobs.signal.policy import PolicyEdit, save_agenda_policy
from jobs.signal.record import signal_store
from jobs.story.writes import upsert_source
from tests.support.review_jobs import count, run_worker

SHANGHAI = ZoneInfo("Asia/Shanghai")


def next_monday() -> datetime:
    today = utcnow().astimezone(SHANGHAI).date()
    monday = today + timedelta(days=7 - today.weekday())
    return datetime(monday.year, monday.month, monday.day, 10, 0, tzinfo=SHANGHAI)


SAID = next_monday()  # a Monday still ahead: its Thursday is in the future
THURSDAY = SAID + timedelta(days=3)
LINE = f"[{SAID.isoformat()}] 李四: 前端部分周四能提测\n"
LISI = {"name": "李四", "person_id": "p_lisi", "channel": "feishu"}
OWNER = PolicyEdit(True, "p_wangwu", "王五", "feishu", frozenset({SignalKind.COMMITMENT}))


async def push(deps: Deps, scope: str, speakers: list[dict[str, str]] | None) -> None:
    data = {"scope": scope, "id": "chat-1", "kind": "conversation", "version": "v1"}
    await upsert_source(deps, OPEN_PRINCIPAL, {**data, "text": LINE, "speakers": speakers})


async def review(deps: Deps, scope: str) -> None:
    window = (SAID - timedelta(hours=1), SAID + timedelta(hours=1))
    got = await open_run(deps, Scope.projects(scope), interval=window)
    assert isinstance(got, Opened)
    await run_worker(deps.settings)  # the review, then the effect jobs it enqueued
    assert (await runs_of(deps).get(got.run.run_id)).run.result_id


async def concerns_for(deps: Deps, signal_id: str) -> int:
    return await count(
        deps.driver,
        deps.settings,
        "MATCH (c:Concern) WHERE c.signal_id = $sid RETURN count(c) AS n",
        sid=signal_id,
    )


async def record_directly(deps: Deps, scope: str, *, now: datetime) -> Signal:
    """李四's promise recorded and decided as a publish would, with no effect job enqueued."""
    draft = from_fact(
        "commitment",
        "李四：前端部分周四能提测",
        Passage(source_id="chat-1", source_version="v1", locator="chars:31-40"),
        SAID,
        "Asia/Shanghai",
    )
    assert draft is not None
    store = signal_store(deps)
    policy = AgendaPolicy(owner_person_id="p_wangwu", owner_name="王五", owner_channel="feishu")

    async def work(tx: AsyncManagedTransaction) -> list[Signal]:
        return await store.record_in(
            tx, [draft], scope=scope, run_id="run-x", result_id="res-x", now=now, policy=policy
        )

    [signal] = await store.write(work)
    assert signal.decision_kind is DecisionKind.RAISED
    return signal


async def test_a_bound_speakers_promise_raises_one_follow_up_to_them_on_the_due_day(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await save_agenda_policy(deps, OPEN_PRINCIPAL, scope, OWNER, seen_version=1)
    await push(deps, scope, [LISI])
    await review(deps, scope)

    [signal] = (await signal_store(deps).page(scope, as_of=utcnow(), first=10)).items
    assert signal.decision_kind is DecisionKind.RAISED
    assert signal.decision_concern_id == f"con-{signal.id}"
    assert signal.decision_policy_version == 2
    concern = await commands.find(deps, OPEN_PRINCIPAL, f"con-{signal.id}")
    assert concern is not None, "the effect job raised the concern"
    assert concern.type is ConcernType.FOLLOWUP and concern.source.signal_id == signal.id
    assert concern.goal == "确认前端部分提测是否已完成"
    assert [(p.person_id, p.display_name, p.last_channel) for p in concern.counterparts] == [
        ("p_lisi", "李四", "feishu")
    ]
    assert concern.initiator is not None and concern.initiator.person_id == "p_wangwu"
    # first contact at or after the promised time (Thursday 18:00), never before: the
    # working-hours window next opens on Friday 09:00
    assert concern.next_action is not None
    first = concern.next_action.when.astimezone(SHANGHAI)
    assert first == (THURSDAY + timedelta(days=1)).replace(hour=9, minute=0), first
    assert concern.conversation_log == []  # nobody was contacted at once

    await review(deps, scope)  # the same conversation reviewed again
    assert await concerns_for(deps, signal.id) == 1
    assert len((await signal_store(deps).page(scope, as_of=utcnow(), first=10)).items) == 1


async def test_without_speakers_nobody_is_reachable_and_nothing_is_raised(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await save_agenda_policy(deps, OPEN_PRINCIPAL, scope, OWNER, seen_version=1)
    await push(deps, scope, None)
    await review(deps, scope)
    [signal] = (await signal_store(deps).page(scope, as_of=utcnow(), first=10)).items
    assert (signal.decision_kind, signal.decision_reason) == (
        DecisionKind.IGNORED,
        "no reachable person",
    )
    assert await concerns_for(deps, signal.id) == 0


async def test_the_effect_run_again_and_on_two_workers_at_once_raises_one_concern(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await push(deps, scope, [LISI])
    signal = await record_directly(deps, scope, now=utcnow())
    # the same effect under six job ids (a redelivery, a retry, a sweep), run by two workers
    pool = deps.pool
    assert pool is not None
    jobs = []
    for i in range(6):
        job = await pool.enqueue_job(
            EFFECT_JOB,
            scope=scope,
            signal_id=signal.id,
            _job_id=f"effect-twice:{signal.id}:{i}",
            _queue_name=deps.settings.queue_name,
        )
        assert job is not None
        jobs.append(job)
    await asyncio.gather(run_worker(deps.settings), run_worker(deps.settings))
    outcomes = sorted([(await j.result(timeout=30))["outcome"] for j in jobs])
    assert outcomes == ["already"] * 5 + ["raised"], outcomes
    assert await concerns_for(deps, signal.id) == 1
    assert isinstance(jobs[0], Job)


async def test_a_raise_whose_job_was_lost_is_queued_again_by_the_reconciler(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await push(deps, scope, [LISI])
    # decided five minutes ago, and its effect job never enqueued
    signal = await record_directly(deps, scope, now=utcnow() - timedelta(minutes=5))
    assert await concerns_for(deps, signal.id) == 0
    swept = await reconcile(deps, WORKER)
    assert signal.id in swept.signals
    assert signal.id not in (await reconcile(deps, WORKER)).signals  # queued once
    await run_worker(deps.settings)
    assert await concerns_for(deps, signal.id) == 1
    assert signal.id not in (await reconcile(deps, WORKER)).signals  # raised: nothing to do


async def test_a_promise_reaches_the_person_entity_an_operator_bound(
    offline_deps: Deps, scope: str
) -> None:
    """No speakers given: the review links 李四's promise to the person entity 李四 of the
    scope (the fact's own entity, not a name match); once an operator binds that entity to a
    concern person, a later promise of 李四 raises a follow-up to them."""
    deps = offline_deps
    await save_agenda_policy(deps, OPEN_PRINCIPAL, scope, OWNER, seen_version=1)
    await push(deps, scope, None)
    await review(deps, scope)
    [first] = (await signal_store(deps).page(scope, as_of=utcnow(), first=10)).items
    assert first.decision_reason == "no reachable person"
    records, _, _ = await deps.driver.execute_query(
        "MATCH (v:EntityVersion {scope: $s, name: '李四'}) RETURN v.id AS id",
        s=scope,
        database_=deps.settings.neo4j_database,
    )
    [lisi] = {r["id"] for r in records}
    await bind_person(deps, OPEN_PRINCIPAL, scope, lisi, person_id="p_lisi", channel="feishu")

    later = f"[{(SAID + timedelta(minutes=5)).isoformat()}] 李四: 接口文档周五能给\n"
    data = {"scope": scope, "id": "chat-2", "kind": "conversation", "version": "v1"}
    await upsert_source(deps, OPEN_PRINCIPAL, {**data, "text": later})
    await review(deps, scope)
    page = (await signal_store(deps).page(scope, as_of=utcnow(), first=10)).items
    [second] = [s for s in page if s.source_id == "chat-2"]
    assert second.decision_kind is DecisionKind.RAISED, second.decision_reason
    concern = await commands.find(deps, OPEN_PRINCIPAL, f"con-{second.id}")
    assert concern is not None
    assert [p.person_id for p in concern.counterparts] == ["p_lisi"]
