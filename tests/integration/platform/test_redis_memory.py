"""The project's own Redis is bounded in memory and never evicts a key to stay within it:
the queue, leases and kept persisted queries are refused writes when it is full, never lost."""

from __future__ import annotations

import redis

from engine.settings import Settings
from tests.support.processes import own_redis


def test_the_local_redis_has_a_memory_bound_and_evicts_nothing(services: Settings) -> None:
    with own_redis(services.model_copy(update={"redis_maxmemory": "64mb"}), "mem") as (
        mine,
        _,
    ):
        client = redis.Redis.from_url(mine.effective_redis_url)
        try:
            assert client.config_get("maxmemory")["maxmemory"] == str(64 * 1024 * 1024)
            assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
        finally:
            client.close()
