"""The reconciler on real Neo4j and Redis: recorded work whose job was lost is queued again
once — by two reconcilers running at the same moment too — and nothing else is touched."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest_asyncio
from arq.connections import ArqRedis, create_pool
from arq.jobs import Job, JobStatus
from neo4j import AsyncDriver

from engine.principal import Principal
from engine.settings import Settings
from jobs.deps import Deps
from jobs.queue import redis_settings
from jobs.serialization import SERIALIZERS, deserialize
from jobs.tasks.reconcile import reconcile
from jobs.tasks.watch import run_watch_check
from jobs.watch.commands import run_watch_now
from jobs.worker import worker_context
from tests.support.processes import forget_queue_async
from tests.support.watch_world import seed_world

NOW = datetime.now(UTC)


@pytest_asyncio.fixture
async def ctx(services: Settings, neo4j_driver: AsyncDriver) -> AsyncIterator[dict[str, Any]]:
    mine = services.model_copy(update={"queue_name": f"storygraph:rec:{uuid.uuid4().hex[:8]}"})
    pool: ArqRedis = await create_pool(
        redis_settings(mine), default_queue_name=mine.queue_name, **SERIALIZERS
    )
    async with httpx.AsyncClient() as http:
        yield worker_context(mine, driver=neo4j_driver, http=http, worker_id="test", redis=pool)
    await pool.delete(mine.queue_name)
    await neo4j_driver.execute_query(
        "MATCH (h:HeartbeatRun|WatchRun {deployment: $d}) DETACH DELETE h",
        d=mine.queue_name,
        database_=mine.neo4j_database,
    )
    await pool.aclose()


async def _heartbeat(ctx: dict[str, Any], scope: str, claimed_ago: timedelta) -> tuple[str, str]:
    run_id, key = f"hb-{uuid.uuid4().hex[:8]}", f"heartbeat:{uuid.uuid4().hex[:8]}"
    await ctx["driver"].execute_query(
        "CREATE (:HeartbeatRun {id: $id, deployment: $d, claim_key: $key, state: 'claimed', "
        "claimed_at: $at, scope: $scope})",
        id=run_id,
        d=ctx["settings"].queue_name,
        key=key,
        at=NOW - claimed_ago,
        scope=scope,
        database_=ctx["settings"].neo4j_database,
    )
    return run_id, key


async def _sending(ctx: dict[str, Any], scope: str, claimed_ago: timedelta) -> str:
    key = f"msg-{uuid.uuid4().hex[:8]}"
    await ctx["driver"].execute_query(
        "CREATE (:OutboxMessage {key: $key, scope: $scope, concern_id: $cid, status: 'sending', "
        "claimed_by: 'killed-worker', claimed_at: $at, deliver_at: $at, attempts: 1})",
        key=key,
        scope=scope,
        cid=f"c-{key}",
        at=NOW - claimed_ago,
        database_=ctx["settings"].neo4j_database,
    )
    return key


async def _status(ctx: dict[str, Any], key: str) -> dict[str, Any]:
    records, _, _ = await ctx["driver"].execute_query(
        "MATCH (o:OutboxMessage {key: $key}) RETURN o.status AS status, o.releases AS releases",
        key=key,
        database_=ctx["settings"].neo4j_database,
    )
    return dict(records[0])


async def test_a_claimed_heartbeat_without_a_job_is_queued_again_once(
    ctx: dict[str, Any], scope: str
) -> None:
    lost_run, lost_key = await _heartbeat(ctx, scope, timedelta(minutes=10))
    fresh_run, fresh_key = await _heartbeat(ctx, scope, timedelta(seconds=5))

    first, second = await asyncio.gather(
        reconcile(ctx, now=NOW.isoformat()), reconcile(ctx, now=NOW.isoformat())
    )
    assert sorted(first["heartbeats"] + second["heartbeats"]) == [lost_run], (first, second)

    queue = ctx["settings"].queue_name
    job = Job(lost_key, ctx["redis"], _queue_name=queue, _deserializer=deserialize)
    assert await job.status() is JobStatus.queued
    info = await job.info()
    assert info is not None and info.function == "heartbeat_report"
    assert info.kwargs == {"run_id": lost_run}
    assert await Job(fresh_key, ctx["redis"], _queue_name=queue).status() is JobStatus.not_found

    again = await reconcile(ctx, now=NOW.isoformat())
    assert again["heartbeats"] == [], "a queued report must not be queued twice"


async def test_an_outbox_row_left_sending_by_a_dead_sender_is_pending_again_once(
    ctx: dict[str, Any], scope: str
) -> None:
    stale = await _sending(ctx, scope, timedelta(minutes=30))
    in_flight = await _sending(ctx, scope, timedelta(seconds=10))

    first, second = await asyncio.gather(
        reconcile(ctx, now=NOW.isoformat()), reconcile(ctx, now=NOW.isoformat())
    )
    assert stale in first["outbox"] + second["outbox"]
    assert (first["outbox"] + second["outbox"]).count(stale) == 1
    assert await _status(ctx, stale) == {"status": "pending", "releases": 1}
    assert await _status(ctx, in_flight) == {"status": "sending", "releases": None}
    delivery = await Job(
        f"concern-deliver:{stale}",
        ctx["redis"],
        _queue_name=ctx["settings"].queue_name,
        _deserializer=deserialize,
    ).info()
    assert delivery is not None and delivery.function == "deliver_concern_outbox"

    again = await reconcile(ctx, now=NOW.isoformat())
    assert stale not in again["outbox"]
    assert (await _status(ctx, stale))["releases"] == 1


OPERATOR = Principal("ops-t", frozenset({"*"}), frozenset({"operator"}))


async def test_a_requested_check_lost_before_any_worker_took_it_is_queued_again_and_runs(
    ctx: dict[str, Any], scope: str
) -> None:
    world = await seed_world(ctx["driver"], ctx["settings"].neo4j_database, scope)
    state = await world.watch()
    watch_id = state.watch.watch_id
    deps = Deps.from_ctx(ctx)
    ticket = await run_watch_now(deps, OPERATOR, scope, watch_id, None)
    assert ticket.enqueued
    queue = ctx["settings"].queue_name
    (queued,) = await world.records.runs(scope, watch_id)
    assert queued["id"] == ticket.run_id and queued["status"] == "queued"
    await forget_queue_async(ctx["redis"], queue)  # Redis lost the job before a worker ran it

    within = await reconcile(ctx, now=(datetime.now(UTC) + timedelta(seconds=30)).isoformat())
    assert within["watch_requeued"] == [], "nothing is touched within the grace"
    later = (datetime.now(UTC) + timedelta(minutes=3)).isoformat()
    first, second = await asyncio.gather(reconcile(ctx, now=later), reconcile(ctx, now=later))
    assert first["watch_requeued"] + second["watch_requeued"] == [ticket.run_id]
    job = Job(
        f"watch-check:{scope}:{watch_id}:{ticket.run_id}",
        ctx["redis"],
        _queue_name=queue,
        _deserializer=deserialize,
    )
    assert await job.status() is JobStatus.queued
    info = await job.info()
    assert info is not None and info.function == "run_watch_check"
    assert (await reconcile(ctx, now=later))["watch_requeued"] == []

    # the worker takes the queued run and completes it; nothing is left to reconcile
    report = await run_watch_check(ctx, scope=scope, watch_id=watch_id, run_id=ticket.run_id)
    assert report["status"] == "completed"
    (run,) = await world.records.runs(scope, watch_id)
    assert run["status"] == "completed" and run["claimed_by"] == ctx["worker_id"]
    much_later = (datetime.now(UTC) + timedelta(minutes=30)).isoformat()
    after = await reconcile(ctx, now=much_later)
    assert after["watch_requeued"] == after["watch_failed"] == []


async def test_a_check_lost_again_after_its_requeue_is_failed_visibly_once(
    ctx: dict[str, Any], scope: str
) -> None:
    world = await seed_world(ctx["driver"], ctx["settings"].neo4j_database, scope)
    state = await world.watch()
    watch_id, run_id = state.watch.watch_id, f"run-{uuid.uuid4().hex[:8]}"
    queue = ctx["settings"].queue_name
    started = datetime.now(UTC)
    # a worker claimed the check and died; Redis lost its job as well
    claim = await world.records.claim_run(
        scope, watch_id, run_id, worker_id="killed-worker", now=started, deployment=queue
    )
    assert claim.claimed

    at = (started + timedelta(minutes=3)).isoformat()
    assert (await reconcile(ctx, now=at))["watch_requeued"] == [run_id]
    await forget_queue_async(ctx["redis"], queue)  # lost again
    assert (await reconcile(ctx, now=at))["watch_failed"] == [], "the requeue has its grace"

    at = (started + timedelta(minutes=6)).isoformat()
    first, second = await asyncio.gather(reconcile(ctx, now=at), reconcile(ctx, now=at))
    assert first["watch_failed"] + second["watch_failed"] == [run_id]
    assert first["watch_requeued"] + second["watch_requeued"] == []
    (run,) = await world.records.runs(scope, watch_id)
    assert run["status"] == "failed"
    (observation,) = await world.observations(state)
    assert observation.props["failure_kind"] == "worker_lost"
    assert observation.props["run_id"] == run_id and "lost" in observation.props["error"]
    later = (started + timedelta(minutes=30)).isoformat()
    again = await reconcile(ctx, now=later)
    assert again["watch_requeued"] == again["watch_failed"] == []
