"""Tests empty their queues by arq's real keys: a job left queued by one
test must not run inside a later test's worker, nor block its job id."""

import uuid
from collections.abc import AsyncIterator

import pytest_asyncio
import redis
from arq.connections import ArqRedis

from engine.settings import Settings
from jobs.queue import open_pool
from tests.support.processes import forget_queue, forget_queue_async


@pytest_asyncio.fixture
async def pool(services: Settings) -> AsyncIterator[ArqRedis]:
    arq = await open_pool(services)
    yield arq
    await arq.aclose()


async def test_a_forgotten_queue_holds_no_job_and_its_job_ids_can_be_used_again(
    pool: ArqRedis, settings: Settings
) -> None:
    queue = f"test-forget-{uuid.uuid4().hex[:8]}"
    ids = [f"probe:{queue}:{i}" for i in range(3)]
    for job_id in ids:
        assert await pool.enqueue_job(
            "probe", probe_id=job_id, note="", _job_id=job_id, _queue_name=queue
        )
    # the same id is refused while the first job is still known: this is what a leftover blocks
    assert (
        await pool.enqueue_job("probe", probe_id=ids[0], note="", _job_id=ids[0], _queue_name=queue)
        is None
    )
    assert await pool.zcard(queue) == 3
    await forget_queue_async(pool, queue)
    assert await pool.zcard(queue) == 0
    assert not await pool.exists(*(f"arq:job:{j}" for j in ids))
    assert await pool.enqueue_job(
        "probe", probe_id=ids[0], note="", _job_id=ids[0], _queue_name=queue
    )
    client = redis.Redis.from_url(settings.effective_redis_url)
    try:
        forget_queue(client, queue)
        assert client.zcard(queue) == 0 and not client.exists(f"arq:job:{ids[0]}")
    finally:
        client.close()
