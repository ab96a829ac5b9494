"""The project's own Redis keeps its queue across a restart (AOF), so `make run` does not
lose queued work when Redis is stopped and started again. Runs on a Redis of its own."""

from __future__ import annotations

import shutil
import uuid

from arq.connections import create_pool

from engine.settings import Settings
from jobs.queue import redis_settings
from jobs.serialization import SERIALIZERS
from local.redis_server import LocalRedis, with_redis_password
from tests.support.processes import free_port


async def test_queued_jobs_survive_a_restart_of_the_local_redis(services: Settings) -> None:
    mine = services.model_copy(
        update={"redis_port": free_port(), "redis_password": None, "redis_url": None}
    )
    server = LocalRedis(mine)
    server.start()
    try:
        settings = with_redis_password(mine)
        queue = f"storygraph:aof:{uuid.uuid4().hex[:8]}"
        pool = await create_pool(redis_settings(settings), default_queue_name=queue, **SERIALIZERS)
        assert await pool.enqueue_job("probe", probe_id="p", note="n", _job_id="probe:p")
        await pool.aclose()

        server.stop()
        server.start()

        pool = await create_pool(redis_settings(settings), default_queue_name=queue, **SERIALIZERS)
        try:
            assert await pool.zcard(queue) == 1, "the queued job was lost with the restart"
            assert (
                await pool.enqueue_job("probe", probe_id="p", note="n", _job_id="probe:p") is None
            )
        finally:
            await pool.aclose()
    finally:
        server.stop()
        shutil.rmtree(server.dir, ignore_errors=True)
