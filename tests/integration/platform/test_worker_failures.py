"""How the worker treats failed jobs, on the real Redis with arq's real worker loop:

- a failed job's result does not block the same job id for an hour (a failed concern turn
  must be enqueueable again by the next scheduler tick or the reconciler);
- a succeeded job's id still deduplicates (stable job ids stay idempotent);
- a job that meets an unreachable Neo4j is retried with backoff instead of failing.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio
from arq.connections import ArqRedis, create_pool
from arq.worker import func
from neo4j.exceptions import ServiceUnavailable

from engine.settings import Settings
from jobs.queue import redis_settings
from jobs.resilient_worker import ResilientWorker
from jobs.serialization import SERIALIZERS

ATTEMPTS: dict[str, int] = {}


async def boom(ctx: dict[str, Any], *, key: str) -> None:
    ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
    raise ValueError("this job always fails")


async def fine(ctx: dict[str, Any], *, key: str) -> str:
    ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
    return "done"


async def neo4j_blip(ctx: dict[str, Any], *, key: str) -> int:
    ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
    if ATTEMPTS[key] == 1:
        raise ServiceUnavailable("Couldn't connect to 127.0.0.1:7688")
    return int(ctx["job_try"])


@pytest_asyncio.fixture
async def queue(services: Settings) -> AsyncIterator[tuple[str, ArqRedis]]:
    name = f"storygraph:failures:{uuid.uuid4().hex[:8]}"
    pool = await create_pool(redis_settings(services), default_queue_name=name, **SERIALIZERS)
    yield name, pool
    await pool.delete(name)
    await pool.aclose()


async def _burst(services: Settings, queue_name: str) -> None:
    worker = ResilientWorker(
        functions=[
            func(boom, name="boom", max_tries=1),
            func(fine, name="fine", max_tries=1),
            func(neo4j_blip, name="neo4j_blip", max_tries=3),
        ],
        redis_settings=redis_settings(services),
        queue_name=queue_name,
        burst=True,
        handle_signals=False,
        poll_delay=0.1,
        keep_result=3600,
        **SERIALIZERS,
    )
    try:
        await worker.async_run()
    finally:
        await worker.close()


async def test_a_failed_job_id_can_be_enqueued_again_a_succeeded_one_cannot(
    services: Settings, queue: tuple[str, ArqRedis]
) -> None:
    name, pool = queue
    failed, succeeded = f"boom:{uuid.uuid4().hex}", f"fine:{uuid.uuid4().hex}"
    assert await pool.enqueue_job("boom", key=failed, _job_id=failed) is not None
    assert await pool.enqueue_job("fine", key=succeeded, _job_id=succeeded) is not None
    await _burst(services, name)
    assert ATTEMPTS[failed] == 1 and ATTEMPTS[succeeded] == 1
    assert await pool.exists(f"storygraph:failed:{failed}"), "the failure is kept for an hour"

    again = await pool.enqueue_job("boom", key=failed, _job_id=failed)
    assert again is not None, "a failed job's result blocked its id (keep_result=3600)"
    assert await pool.enqueue_job("fine", key=succeeded, _job_id=succeeded) is None
    await _burst(services, name)
    assert ATTEMPTS[failed] == 2 and ATTEMPTS[succeeded] == 1


async def test_a_job_that_meets_an_unreachable_neo4j_is_retried_with_backoff(
    services: Settings, queue: tuple[str, ArqRedis]
) -> None:
    name, pool = queue
    key = f"blip:{uuid.uuid4().hex}"
    job = await pool.enqueue_job("neo4j_blip", key=key, _job_id=key)
    assert job is not None
    await _burst(services, name)
    info = await job.result_info()
    assert info is not None and info.success, info
    assert info.result == 2 and ATTEMPTS[key] == 2
