"""A worker started while its Redis is away (down, or a failover not yet done) waits for it
and then runs jobs, instead of exiting at its first command."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.probes import ProbeStore
from jobs.queue import enqueue_probe, open_pool
from local.redis_server import LocalRedis
from tests.support.polling import until, until_async
from tests.support.processes import log_of, own_redis, process_env, spawn, stop


@pytest.fixture(name="own_redis")
def own_redis_fixture(services: Settings) -> Iterator[tuple[Settings, LocalRedis]]:
    with own_redis(services, "late") as pair:
        yield pair


async def test_a_worker_started_before_redis_waits_and_then_works(
    own_redis: tuple[Settings, LocalRedis], neo4j_driver: AsyncDriver
) -> None:
    settings, server = own_redis
    server.stop()
    worker = spawn(["worker"], process_env(settings, REDIS_PASSWORD=_password(settings)))
    try:
        until(
            lambda: "Redis is unreachable; the worker keeps retrying" in log_of(worker),
            what="the worker noticing Redis is away",
        )
        assert worker.poll() is None, log_of(worker)[-2000:]
        server.start()
        probe = f"late-{uuid.uuid4().hex[:8]}"
        pool = await open_pool(settings)
        try:
            assert await enqueue_probe(pool, settings, probe_id=probe, note="waited")
        finally:
            await pool.aclose()
        store = ProbeStore(neo4j_driver, settings.neo4j_database)
        await until_async(lambda: store.get(probe), what="the probe run")
        assert worker.poll() is None
    finally:
        stop(worker)


def _password(settings: Settings) -> str:
    assert settings.redis_password is not None
    return settings.redis_password.get_secret_value()
