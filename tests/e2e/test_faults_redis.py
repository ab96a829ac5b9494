"""A Redis restart must not end the worker: it reconnects and keeps processing.

The test runs its OWN redis-server on a free port (never the shared one) and a real
`storygraph worker` against it and the shared test Neo4j; it stops Redis, waits, starts it
again, enqueues a probe, and expects the same worker process to run it.
"""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections.abc import Iterator

import pytest
import redis
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.probes import ProbeStore
from jobs.queue import enqueue_probe, open_pool
from local.redis_server import LocalRedis
from tests.support.polling import reached_async, until_async
from tests.support.processes import log_of, own_redis, process_env, start_worker, stop


@pytest.fixture(name="own_redis")
def own_redis_fixture(services: Settings) -> Iterator[tuple[Settings, LocalRedis]]:
    with own_redis(services, "fault") as pair:
        yield pair


async def _probe_written(
    driver: AsyncDriver, settings: Settings, probe_id: str, within_s: float
) -> bool:
    store = ProbeStore(driver, settings.neo4j_database)
    return await reached_async(
        lambda: store.get(probe_id), lambda got: got is not None, within=within_s
    )


async def _logged(worker: subprocess.Popen[bytes], line: str, within_s: float = 30) -> None:
    """Wait (polling its log, with a deadline) until the worker has logged `line`."""

    async def read() -> str:
        assert worker.poll() is None, f"the worker exited: {log_of(worker)[-2000:]}"
        return log_of(worker)

    await until_async(read, lambda log: line in log, f"the worker logging {line!r}", within_s)


async def _enqueue(settings: Settings, probe_id: str) -> None:
    pool = await open_pool(settings)
    try:
        assert await enqueue_probe(pool, settings, probe_id=probe_id, note="after restart")
    finally:
        await pool.aclose()


async def test_worker_survives_a_redis_restart_and_runs_the_next_job(
    own_redis: tuple[Settings, LocalRedis], neo4j_driver: AsyncDriver
) -> None:
    settings, server = own_redis
    env = process_env(settings)
    worker = start_worker(settings, env)
    try:
        before = f"fault-{uuid.uuid4().hex[:8]}"
        await _enqueue(settings, before)
        assert await _probe_written(neo4j_driver, settings, before, 20)

        server.stop()
        await _logged(worker, "Redis is unreachable; the worker keeps retrying")  # noticed
        server.start()
        # the worker reconnects instead of exiting (it used to die on its health-key cleanup)
        await _logged(worker, "Redis is back; the worker resumed")
        assert worker.poll() is None, "the worker exited when Redis restarted"

        after = f"fault-{uuid.uuid4().hex[:8]}"
        await _enqueue(settings, after)
        assert await _probe_written(neo4j_driver, settings, after, 30), (
            "a job enqueued after the Redis restart was never processed"
        )
        assert worker.poll() is None

        # background tasks survive too: the worker's liveness key comes back
        client = redis.Redis.from_url(settings.effective_redis_url)
        try:
            alive = f"storygraph:alive:{settings.queue_name}:*"
            await until_async(
                lambda: asyncio.to_thread(lambda: list(client.scan_iter(match=alive))),
                what="the worker's liveness key refreshed after the restart",
                within=10,
            )
        finally:
            client.close()
    finally:
        stop(worker)
