"""The watch heartbeat cron: one round per scope with enabled watches per slot, once, and
nothing while the heartbeat app is off (docs/rules/watches.md, docs/rules/reviews.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest_asyncio
from arq.connections import ArqRedis
from arq.jobs import Job, JobStatus

from engine.review.settings import AppSettings, set_heartbeat_enabled
from engine.settings import Settings
from graph.review.app import AppSettingsStore
from jobs.queue import open_pool
from jobs.serialization import deserialize
from jobs.tasks.watch_heartbeat import watch_heartbeat_tick
from jobs.watch.effects import round_job_id
from jobs.watch.rounds import slot_id
from tests.support.watch_world import World

SLOT_TIME = datetime(2035, 3, 19, 2, 17, tzinfo=UTC)


@pytest_asyncio.fixture
async def pool(settings: Settings) -> AsyncIterator[ArqRedis]:
    redis = await open_pool(settings)
    yield redis
    await redis.aclose()


async def switch(settings: Settings, driver: Any, on: bool) -> None:
    store = AppSettingsStore(driver, settings.neo4j_database, deployment=settings.queue_name)
    await store.put(set_heartbeat_enabled(AppSettings.from_stored(None), on), now=SLOT_TIME)


def test_slot_ids_are_half_hours_in_utc() -> None:
    assert slot_id(SLOT_TIME) == "hb-20350319T0200"
    assert slot_id(datetime(2035, 3, 19, 2, 30, tzinfo=UTC)) == "hb-20350319T0230"


async def test_each_slot_starts_one_round_per_scope_once_and_none_while_disabled(
    world: World, ctx: dict[str, Any], pool: ArqRedis, settings: Settings
) -> None:
    await world.watch()
    tick_ctx = {**ctx, "redis": pool, "settings": settings}
    job = Job(
        round_job_id(world.scope, slot_id(SLOT_TIME)),
        pool,
        _queue_name=settings.queue_name,
        _deserializer=deserialize,
    )
    try:
        await switch(settings, world.driver, False)
        assert await watch_heartbeat_tick(tick_ctx, now=SLOT_TIME) == 0
        assert await job.status() is JobStatus.not_found

        await switch(settings, world.driver, True)
        assert await watch_heartbeat_tick(tick_ctx, now=SLOT_TIME) >= 1
        assert await job.status() is JobStatus.queued
        assert (await job.info()).kwargs == {  # type: ignore[union-attr]
            "scope": world.scope,
            "full": False,
            "round_id": "hb-20350319T0200",
        }
        await watch_heartbeat_tick(tick_ctx, now=SLOT_TIME)
        queued = await pool.zrange(settings.queue_name, 0, -1)
        mine = [k for k in queued if world.scope in (k.decode() if isinstance(k, bytes) else k)]
        assert len(mine) == 1, "a second tick in the same slot enqueues nothing new"
    finally:
        await switch(settings, world.driver, False)
        # the tick enqueued this slot's round for every scope with enabled watches: drop them
        for key in await pool.zrange(settings.queue_name, 0, -1):
            job_id = key.decode() if isinstance(key, bytes) else key
            if job_id.endswith(":hb-20350319T0200"):
                await pool.zrem(settings.queue_name, job_id)
                await pool.delete(f"arq:job:{job_id}")
