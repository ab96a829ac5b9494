"""Heartbeat plans on the worker, the app switch, and races between workers (docs/rules/reviews.md
应用启停与执行, 自动增量, 同一时刻只允许一个监督回顾执行)."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.errors import Busy, Disabled
from engine.principal import WORKER
from engine.review import heartbeat as hb
from engine.review import lifecycle as lc
from engine.review import lock
from engine.review import plans as pl
from engine.review.activity import ActivityStatus, activity_rows
from engine.review.lifecycle import RunOutcome, RunStatus
from engine.review.pool import DEFAULT_SLOTS
from engine.review.runner import StepKind, next_step
from engine.review.settings import set_heartbeat_enabled
from engine.review.types import InputBudget, Scope, Trigger
from engine.story.inputs import EntityEdit
from engine.story.models import Actor
from graph.llm.ledger import CostLedger
from graph.review.activity import ActivityFilters
from graph.review.codec import RunOptions
from jobs.deps import Deps
from jobs.review.common import (
    HEARTBEAT_REPORT,
    activity_of,
    app_of,
    heartbeats_of,
    lease_of,
    plans_of,
    review_pool,
    runs_of,
    stage_timeout,
)
from jobs.review.execution import Execution
from jobs.review.heartbeat import automatic, claim_due, report
from jobs.review.model import Gateway
from jobs.review.runs import (
    Opened,
    automatic_supervision,
    continue_review,
    open_run,
    start_review,
)
from jobs.story.common import story_repo
from tests.support.grounded_review import leaf_requests, review_answer
from tests.support.polling import until_async
from tests.support.review import new_run
from tests.support.review_jobs import (
    BASE,
    conversation,
    count,
    leaf_reply,
    nav_reply,
    push_conversation,
    run_worker,
)
from tests.support.scripted_model import ScriptedModelServer, text


async def _save_plan(deps: Deps, scope: str) -> pl.HeartbeatPlan:
    draft = pl.PlanDraft(
        name="每日回顾",
        scope=Scope.projects(scope),
        schedule=pl.Schedule(every=timedelta(hours=1), anchor=BASE - timedelta(days=1)),
        window=timedelta(days=7),
        budget=InputBudget(per_batch=100_000),
    )
    saved = pl.save_plan(draft, None, new_config_id=f"cfg-{scope}", now=deps.clock())
    assert saved.plan.enabled  # an explicit save creates and enables
    return await plans_of(deps).put(saved.plan)


async def _manual_heartbeat(deps: Deps, plan: pl.HeartbeatPlan) -> str:
    run = hb.run_plan_now(
        plan,
        await app_of(deps).get(),
        run_id=f"hb-{deps.clock().timestamp()}",
        worker_id="test",
        now=deps.clock(),
        timeout=stage_timeout(deps),
    )
    assert await heartbeats_of(deps).claim(run, f"manual:{run.run_id}")
    assert deps.pool is not None
    await deps.pool.enqueue_job(
        HEARTBEAT_REPORT, run_id=run.run_id, _queue_name=deps.settings.queue_name
    )
    return run.run_id


async def test_two_workers_racing_for_a_due_plan_claim_one_run(
    deps: Deps, scope: str, neo4j_driver: AsyncDriver
) -> None:
    await _save_plan(deps, scope)
    a, b = replace(deps, worker_id="worker-a"), replace(deps, worker_id="worker-b")
    claimed = await asyncio.gather(claim_due(a, WORKER), claim_due(b, WORKER), claim_due(a, WORKER))
    assert sum(len(c) for c in claimed) == 1  # one report queued for the slot
    assert await claim_due(b, WORKER) == []  # still queued: not queued again
    await run_worker(deps.settings)  # the report claims the slot once it holds a pool slot
    assert (
        await count(
            neo4j_driver,
            deps.settings,
            "MATCH (h:HeartbeatRun {scope: $s}) RETURN count(h)",
            s=scope,
        )
        == 1
    )
    assert await claim_due(b, WORKER) == []  # the slot stays claimed


@pytest.mark.timeout(480)  # a worker, a report and its review on two busy cores
async def test_a_due_beat_claims_its_batch_only_once_it_holds_a_pool_slot(
    deps: Deps, model_server: ScriptedModelServer, scope: str, neo4j_driver: AsyncDriver
) -> None:
    """报告在排队前冻结超时，获槽后领取: while the pool is full the due beat waits in line as no
    run at all; it claims its slot and its batch once granted, with the timeout it was
    queued with."""
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", conversation(5))
    await _save_plan(deps, scope)
    beats = "MATCH (h:HeartbeatRun {scope: $s}) RETURN count(h)"
    pool = review_pool(deps)
    others = contextlib.AsyncExitStack()
    for i in range(DEFAULT_SLOTS):  # held (and kept renewed by the pool) until released
        await others.enter_async_context(pool.hold(f"other:{i}"))
    [due] = await claim_due(deps, WORKER)
    worker = asyncio.create_task(run_worker(deps.settings))
    async with others:
        waiting = await until_async(pool.state, lambda s: bool(s.waiting), "the report in line", 60)
        assert [t.holder for t in waiting.waiting] == [f"report:{due.run_id}"]
        assert await count(neo4j_driver, deps.settings, beats, s=scope) == 0, (
            "a beat in line for a pool slot has claimed nothing"
        )
        assert await claim_due(deps, WORKER) == []  # in line: not queued a second time
        # what arrives while it waits is still in the batch it claims at the grant
        await push_conversation(
            deps, scope, "chat-2", conversation(2, start=BASE + timedelta(hours=1))
        )
    await worker  # the report, then the review after it (bounded by the test's timeout)
    assert await count(neo4j_driver, deps.settings, beats, s=scope) == 1
    beat = await heartbeats_of(deps).get(due.run_id)
    assert beat.state is hb.HeartbeatState.COMPLETED and beat.timeout == due.timeout
    assert beat.claimed_at > due.claimed_at  # claimed at the grant, not when it was queued
    assert model_server.calls >= 1 and (await review_pool(deps).state()).held == ()


async def test_two_workers_racing_for_the_lease_one_wins(deps: Deps) -> None:
    async def take(owner: str, trigger: Trigger) -> object:
        try:
            return await lease_of(deps).acquire(
                owner=owner,
                run_id=owner,
                worker_id=owner,
                trigger=trigger,
                now=deps.clock(),
                ttl=timedelta(seconds=30),
            )
        except Busy as exc:
            return exc

    results = await asyncio.gather(*(take(f"w{i}", Trigger.MANUAL) for i in range(6)))
    won = [r for r in results if isinstance(r, lock.Acquired)]
    assert len(won) == 1 and sum(isinstance(r, Busy) for r in results) == 5
    waiting = await take("auto", Trigger.AUTOMATIC)
    assert isinstance(waiting, lock.Wait) and waiting.holder_run_id == won[0].lease.run_id
    assert await lease_of(deps).release(owner=won[0].lease.owner, token=won[0].lease.token)
    assert await lease_of(deps).current() is None


async def test_disabled_app_refuses_manual_work_and_claims_nothing(
    deps: Deps, scope: str, neo4j_driver: AsyncDriver
) -> None:
    plan = await _save_plan(deps, scope)
    paused = lc.pause(new_run(f"{scope}-paused", scope=Scope.projects(scope)), now=BASE).state
    await runs_of(deps).create(paused, RunOptions())
    await app_of(deps).put(set_heartbeat_enabled(await app_of(deps).get(), False), now=deps.clock())
    assert await claim_due(deps, WORKER) == []
    with pytest.raises(Disabled):
        await start_review(deps, WORKER, Scope.projects(scope), BASE, BASE + timedelta(days=1))
    with pytest.raises(Disabled):
        hb.run_plan_now(
            plan,
            await app_of(deps).get(),
            run_id="x",
            worker_id="t",
            now=deps.clock(),
            timeout=stage_timeout(deps),
        )
    with pytest.raises(Disabled):
        await continue_review(deps, WORKER, paused.run_id)
    assert (await runs_of(deps).get(paused.run_id)).run == paused  # left as it was
    assert (
        await count(
            neo4j_driver,
            deps.settings,
            "MATCH (n {scope: $s}) WHERE n:HeartbeatRun OR n:SupervisionRun RETURN count(n)",
            s=scope,
        )
        == 1  # the paused run; nothing new
    )
    assert await lease_of(deps).current() is None
    # toggling back on creates, seeds or enables nothing; the saved plan is still there
    await app_of(deps).put(set_heartbeat_enabled(await app_of(deps).get(), True), now=deps.clock())
    assert [p.config_id for p in await plans_of(deps).saved()] == [plan.config_id]


async def test_no_change_makes_zero_model_requests(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    await push_conversation(deps, scope, "chat-1", conversation(5))
    plan = await _save_plan(deps, scope)
    model_server.script(
        text("报告：5 条新消息", grounded_in=("第1条", "第5条")), leaf_reply("a"), nav_reply()
    )
    first = await claim_due(deps, WORKER)
    assert len(first) == 1
    await run_worker(deps.settings)  # report, then the automatic supervision
    assert model_server.calls == 3
    hb1 = await heartbeats_of(deps).get(first[0].run_id)
    assert hb1.state is hb.HeartbeatState.COMPLETED and hb1.supervision_run_id
    sup1 = (await runs_of(deps).get(hb1.supervision_run_id)).run
    assert sup1.status is RunStatus.COMPLETED and sup1.outcome is RunOutcome.NEW_RESULT

    second = await _manual_heartbeat(deps, plan)
    await run_worker(deps.settings)
    assert model_server.calls == 3  # nothing pending: no model request at all
    hb2 = await heartbeats_of(deps).get(second)
    assert hb2.state is hb.HeartbeatState.NO_CHANGE and hb2.supervision_run_id
    sup2 = (await runs_of(deps).get(hb2.supervision_run_id)).run
    assert sup2.outcome is RunOutcome.NO_CHANGE and sup2.result_id is None
    page = await activity_of(deps).page(ActivityFilters(), after=None, limit=50)
    rows = activity_rows(page.records, page.joined)  # what activity(...) answers
    by_hb = {r.heartbeat_run_id: r for r in rows}
    assert by_hb[second].status is ActivityStatus.NO_CHANGE
    assert by_hb[first[0].run_id].status is ActivityStatus.COMPLETED
    assert by_hb[first[0].run_id].result_id == sup1.result_id


async def test_user_correction_survives_a_later_automatic_run_as_suggestion(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    model_server.answer_with(review_answer)  # grounded: an id only if the request offered it
    await push_conversation(deps, scope, "chat-1", conversation(4))
    got = await open_run(
        deps, Scope.projects(scope), interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1))
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    first = (await runs_of(deps).get(got.run.run_id)).run
    result = await story_repo(deps).result(scope, first.result_id or "")
    [entity] = [e for e in result.entities if e.name == "张三"]
    await story_repo(deps).update_entity(
        scope,
        entity.id,
        EntityEdit(description="发布经理（用户修正）"),
        seen_version=entity.seq,
        by=Actor.user("u1"),
        now=utcnow(),
    )

    model_server.reset()
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", conversation(8), version="v2")
    plan = await _save_plan(deps, scope)
    await _manual_heartbeat(deps, plan)
    await run_worker(deps.settings)
    offered = [k["id"] for sent in leaf_requests(model_server) for k in sent["known_entities"]]
    assert entity.id in offered  # the automatic run was told about the stored 张三
    view = await story_repo(deps).entity(scope, entity.id, as_of=utcnow())
    assert view.entity.description == "发布经理（用户修正）"  # the user's edit wins
    [proposal] = [s for s in view.pending_suggestions if s.field == "description"]
    assert "张三：第7条" in proposal.proposed_value  # what the new messages say about 张三
    assert (
        await count(
            deps.driver,
            deps.settings,
            "MATCH (v:EntityVersion) WHERE v.scope = $scope AND v.name = '张三' "
            "AND v.retracted_at > datetime() RETURN count(DISTINCT v.id)",
            scope=scope,
        )
        == 1
    )


async def test_rate_limited_automatic_supervision_resumes_the_same_run(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    from tests.support.scripted_model import status

    await push_conversation(deps, scope, "chat-1", conversation(5))
    await _save_plan(deps, scope)
    model_server.script(
        text("报告：5 条新消息", grounded_in=("第1条", "第5条")),
        status(429, "slow down", retry_after="1"),
        leaf_reply("a"),
        nav_reply(),
    )
    [claimed] = await claim_due(deps, WORKER)
    await run_worker(deps.settings)  # report, automatic supervision (429), then the deferred job
    assert model_server.calls == 4
    beat = await heartbeats_of(deps).get(claimed.run_id)
    assert beat.supervision_run_id
    runs = [s.run for s in await runs_of(deps).recent() if s.run.trigger.value != "manual"]
    assert [r.run_id for r in runs] == [beat.supervision_run_id], "no second automatic run"
    done = (await runs_of(deps).get(beat.supervision_run_id)).run
    assert done.status is RunStatus.COMPLETED and done.outcome is RunOutcome.NEW_RESULT
    # the cost ledger has the report's call beside the supervision's
    lines = await CostLedger(deps.driver, deps.database).in_scope(
        scope, datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)
    )
    reports = [x for x in lines if x.stage == "heartbeat_report"]
    assert [(x.run_id, x.cost.calls) for x in reports] == [(claimed.run_id, 1)]
    assert sum(x.cost.calls for x in lines) == model_server.calls


async def _check_started_by_a_worker_that_died(
    deps: Deps, gateway: Gateway, scope: str
) -> tuple[str, str]:
    """A heartbeat whose report is done and whose automatic check (still queued in Redis, as
    arq keeps a killed worker's job) had started and linked its run, and collected its
    sources, on a worker that is gone: the run is `running` under the dead worker's id and
    holds the lease. (heartbeat, run)"""
    await push_conversation(deps, scope, "chat-1", conversation(5))
    await _save_plan(deps, scope)
    [claimed] = await claim_due(deps, WORKER)
    assert claimed.config_id and claimed.slot
    done = await report(
        deps,
        WORKER,
        claimed.run_id,
        gateway=gateway,
        queued=claimed.model_dump(mode="json"),
        claim_key=pl.claim_key(claimed.config_id, claimed.slot),
    )
    assert done == hb.HeartbeatState.COMPLETED.value
    dead = replace(deps, worker_id="worker-killed")
    got = await automatic_supervision(
        dead, WORKER, Scope.projects(scope), heartbeat_run_id=claimed.run_id, options=RunOptions()
    )
    assert isinstance(got, Opened)
    run_id, owner, token = got.run.run_id, got.owner, got.token
    stored = await runs_of(deps).get(run_id)
    await heartbeats_of(deps).mutate(claimed.run_id, lambda r: hb.link_supervision(r, run_id))
    # killed before its first model request
    execution = Execution(dead, run_id, owner, token, gateway=gateway)
    while next_step(stored.run).kind is not StepKind.LEAF:
        assert await execution.step(stored)
        stored = await runs_of(deps).get(run_id)
    assert stored.run.worker_id == "worker-killed"
    return claimed.run_id, run_id


async def _automatic_runs(deps: Deps) -> list[str]:
    return [
        s.run.run_id for s in await runs_of(deps).recent() if s.run.trigger is Trigger.AUTOMATIC
    ]


async def test_a_check_delivered_again_after_its_worker_died_continues_its_own_run(
    deps: Deps, gateway: Gateway, model_server: ScriptedModelServer, scope: str
) -> None:
    model_server.answer_with(review_answer)
    beat, run_id = await _check_started_by_a_worker_that_died(deps, gateway, scope)
    # arq runs the dead worker's job again on a live worker (no worker start in between)
    answer = await automatic(
        deps,
        WORKER,
        heartbeat_run_id=beat,
        scope=Scope.projects(scope).model_dump(mode="json"),
        gateway=gateway,
    )
    assert answer == RunStatus.COMPLETED.value
    assert await _automatic_runs(deps) == [run_id], "one heartbeat, one supervision run"
    done = (await runs_of(deps).get(run_id)).run
    assert done.status is RunStatus.COMPLETED and done.outcome is RunOutcome.NEW_RESULT
    assert (await heartbeats_of(deps).get(beat)).supervision_run_id == run_id
    assert await lease_of(deps).current() is None


async def test_a_check_delivered_again_after_its_sources_changed_leaves_its_run_failed(
    deps: Deps, gateway: Gateway, model_server: ScriptedModelServer, scope: str
) -> None:
    model_server.answer_with(review_answer)
    beat, run_id = await _check_started_by_a_worker_that_died(deps, gateway, scope)
    await push_conversation(deps, scope, "chat-1", conversation(7), version="v2")
    calls = model_server.calls
    await run_worker(deps.settings)  # the check's job runs again on a fresh worker
    assert await _automatic_runs(deps) == [run_id], "no second run the heartbeat cannot link"
    failed = (await runs_of(deps).get(run_id)).run
    assert failed.status is RunStatus.FAILED and failed.stopped
    assert failed.error is not None and failed.error.kind.value == "worker_lost"
    assert model_server.calls == calls
    assert await lease_of(deps).current() is None  # the next review can start
    started = await open_run(
        deps, Scope.projects(scope), interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1))
    )
    assert isinstance(started, Opened)
