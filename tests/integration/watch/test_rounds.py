"""Heartbeat rounds over candidate watches in Neo4j + Redis (docs/rules/watches.md
事项，除非明确要求全量核验，不让无关候选阻断已核实事项")."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest_asyncio
from arq.connections import ArqRedis
from arq.jobs import Job, JobStatus

from engine.clock import utcnow
from engine.settings import Settings
from engine.watch.model import Observation, Outcome, OutcomeStatus
from graph.watch.repository import WatchState
from jobs.queue import open_pool
from jobs.serialization import deserialize
from jobs.tasks.watch_round import run_watch_round
from jobs.watch.effects import check_job_id, round_run_id
from tests.support.watch_world import NOW, World


@pytest_asyncio.fixture
async def pool(settings: Settings) -> AsyncIterator[ArqRedis]:
    redis = await open_pool(settings)
    yield redis
    await redis.aclose()


async def observed(world: World, state: WatchState, status: OutcomeStatus, hours: int) -> str:
    obs_id = f"obs-{uuid.uuid4().hex[:8]}"
    at = NOW + timedelta(hours=hours)
    await world.records.save_observation(
        world.scope,
        Observation(
            observation_id=obs_id,
            watch_id=state.watch.watch_id,
            run_id=obs_id,
            observed_at=at,
            outcome=Outcome(status=status),
        ),
        {},
        steps=None,
        watch_fields={"last_checked_at": at},
    )
    return obs_id


async def status_of(
    pool: ArqRedis, settings: Settings, world: World, watch_id: str, run_id: str
) -> JobStatus:
    job = Job(
        check_job_id(world.scope, watch_id, run_id),
        pool,
        _queue_name=settings.queue_name,
        _deserializer=deserialize,
    )
    return await job.status()


async def test_round_closes_the_verified_item_and_checks_one_other_despite_a_blocked_one(
    ctx: dict[str, Any], world: World, pool: ArqRedis, settings: Settings
) -> None:
    verified, stuck, fresh = (await world.watch(), await world.watch(), await world.watch())
    verified_obs = await observed(world, verified, OutcomeStatus.SUCCESS, 2)
    await observed(world, stuck, OutcomeStatus.BLOCKED, 1)
    job_ctx = {**ctx, "redis": pool}
    rid = f"r-{uuid.uuid4().hex[:6]}"
    report = await run_watch_round(job_ctx, scope=world.scope, round_id=rid, now=NOW)
    fid = fresh.watch.watch_id
    assert report["closed"] == [verified.watch.watch_id]
    assert report["checked"] == [fid], "one item per round, never-checked first"
    assert report["enqueued"] == [round_run_id(rid, fid)]
    assert await status_of(pool, settings, world, fid, round_run_id(rid, fid)) is JobStatus.queued
    assert (
        await status_of(
            pool, settings, world, stuck.watch.watch_id, round_run_id(rid, stuck.watch.watch_id)
        )
        is JobStatus.not_found
    )
    closed, _, _ = await world.driver.execute_query(
        "MATCH (w:Watch {id: $id}) RETURN w.closed_observation_id AS o",
        id=verified.watch.watch_id,
        database_=world.database,
    )
    assert closed[0]["o"] == verified_obs

    again = await run_watch_round(job_ctx, scope=world.scope, round_id=rid, now=NOW)
    assert again["duplicate"] and again["enqueued"] == [] and again["checked"] == [fid]

    nxt = await run_watch_round(job_ctx, scope=world.scope, round_id=rid + "-2", now=NOW)
    assert nxt["closed"] == [], "a closed success is not closed again"
    assert nxt["checked"] == [fid], "its check has not reported yet, so it is still oldest"


async def test_full_verification_enqueues_every_candidate(
    ctx: dict[str, Any], world: World, pool: ArqRedis, settings: Settings
) -> None:
    states = [await world.watch() for _ in range(3)]
    await observed(world, states[0], OutcomeStatus.SUCCESS, 1)
    stopped = await world.watch()
    await world.repo.stop(world.scope, stopped.watch.watch_id, now=utcnow())
    rid = f"full-{uuid.uuid4().hex[:6]}"
    report = await run_watch_round(
        {**ctx, "redis": pool}, scope=world.scope, full=True, round_id=rid, now=NOW
    )
    ids = {s.watch.watch_id for s in states}
    assert set(report["checked"]) == ids and report["closed"] == [states[0].watch.watch_id]
    assert stopped.watch.watch_id not in report["checked"], "a stopped watch is no candidate"
    for wid in ids:
        assert await status_of(pool, settings, world, wid, round_run_id(rid, wid)) is (
            JobStatus.queued
        )
