"""Worker liveness in Redis: `storygraph:alive:<queue>:<worker id>`, short expiry, refreshed
in the background by every worker.

Other workers tell a live review holder from a dead one by it, the reconciler tells a job
with a live runner from an orphan, and `health` counts live workers so a stack without one
is visibly unhealthy. The refresher survives Redis outages (it logs once and keeps trying),
so a Redis restart does not leave a live worker looking dead for good.
"""

from __future__ import annotations

import asyncio
import logging

from arq.connections import ArqRedis
from redis.exceptions import RedisError

from jobs.redis_client import acknowledged

log = logging.getLogger("storygraph.worker")

ALIVE_TTL_MS = 6000
ALIVE_EVERY_S = 2.0


def alive_key(queue: str, worker_id: str) -> str:
    return f"storygraph:alive:{queue}:{worker_id}"


async def live_workers(redis: ArqRedis, queue: str) -> set[str]:
    prefix = alive_key(queue, "")
    found: set[str] = set()
    async for key in redis.scan_iter(match=prefix + "*"):
        name = key.decode() if isinstance(key, bytes) else str(key)
        found.add(name[len(prefix) :])
    return found


async def keep_alive(redis: ArqRedis, key: str, every_s: float = ALIVE_EVERY_S) -> None:
    """Refresh `key` forever; a Redis error is logged once per outage, never fatal."""
    failing = False
    while True:
        try:
            await redis.set(key, "1", px=ALIVE_TTL_MS)
            await acknowledged(redis)  # a failover right after keeps the holder alive
        except (RedisError, OSError) as exc:
            if not failing:
                log.error(
                    "cannot refresh the worker's liveness key; retrying",
                    extra={"fields": {"key": key, "error": str(exc) or type(exc).__name__}},
                )
            failing = True
        else:
            if failing:
                log.warning("liveness key refreshed again", extra={"fields": {"key": key}})
            failing = False
        await asyncio.sleep(every_s)
