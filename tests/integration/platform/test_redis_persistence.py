"""The project's own Redis keeps its queue across a restart (AOF), so `make run` does not
lose queued work when Redis is stopped and started again. Runs on a Redis of its own."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator

import pytest
import redis
from arq.connections import create_pool

from engine.settings import Settings
from jobs.queue import redis_settings
from jobs.serialization import SERIALIZERS
from local.redis_server import LocalRedis, with_redis_password
from tests.support.processes import free_port


@pytest.fixture(name="own_redis")
def own_redis_fixture(services: Settings) -> Iterator[tuple[Settings, LocalRedis]]:
    """A Redis of the test's own on a free port, started, removed with its files after."""
    mine = services.model_copy(
        update={"redis_port": free_port(), "redis_password": None, "redis_url": None}
    )
    server = LocalRedis(mine)
    server.start()
    try:
        yield with_redis_password(mine), server
    finally:
        server.stop()
        shutil.rmtree(server.dir, ignore_errors=True)


async def test_queued_jobs_survive_a_restart_of_the_local_redis(
    own_redis: tuple[Settings, LocalRedis],
) -> None:
    settings, server = own_redis
    queue = f"storygraph:aof:{uuid.uuid4().hex[:8]}"
    pool = await create_pool(redis_settings(settings), default_queue_name=queue, **SERIALIZERS)
    assert await pool.enqueue_job("probe", probe_id="p", note="n", _job_id="probe:p")
    await pool.aclose()

    server.stop()
    server.start()

    pool = await create_pool(redis_settings(settings), default_queue_name=queue, **SERIALIZERS)
    try:
        assert await pool.zcard(queue) == 1, "the queued job was lost with the restart"
        assert await pool.enqueue_job("probe", probe_id="p", note="n", _job_id="probe:p") is None
    finally:
        await pool.aclose()


def test_a_restarted_redis_is_reported_started_only_once_it_answers(
    own_redis: tuple[Settings, LocalRedis],
) -> None:
    """Replaying a long append-only file, Redis accepts connections but refuses every command
    (LOADING); `storygraph redis start` and every process it starts wait until it answers."""
    settings, server = own_redis
    client = _client(settings)
    with client.pipeline(transaction=False) as pipe:
        for batch in range(40):
            for i in range(10_000):
                pipe.set(f"k:{batch}:{i}", "v" * 32)
            pipe.execute()
    client.close()

    server.stop()
    server.start()

    client = _client(settings)
    try:
        assert client.ping(), "Redis was reported started while it still refused commands"
        assert client.dbsize() == 400_000, "the restart lost keys"
    finally:
        client.close()


def _client(settings: Settings) -> redis.Redis:
    assert settings.redis_password is not None
    return redis.Redis(
        host="127.0.0.1",
        port=settings.redis_port,
        password=settings.redis_password.get_secret_value(),
    )
