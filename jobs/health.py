"""What `health` (GraphQL) and `/healthz` report: Neo4j and Redis reachable from this
process, and how many workers are alive on this deployment's queue.

Workers are counted from their liveness keys (jobs/liveness.py, refreshed every 2 s with a
6 s expiry), so a stack whose worker died — or never started — reads unhealthy within
seconds. Every probe is bounded: health answers in about two seconds during any outage.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.driver import ping
from jobs.liveness import live_workers

REDIS_WITHIN_S = 2.0


@dataclass(frozen=True)
class HealthReport:
    neo4j: bool
    redis: bool
    workers: int

    @property
    def healthy(self) -> bool:
        return self.neo4j and self.redis and self.workers > 0


async def redis_ok(pool: ArqRedis) -> bool:
    try:
        async with asyncio.timeout(REDIS_WITHIN_S):
            return bool(await pool.ping())
    except Exception:  # noqa: BLE001 - reachability is a yes/no answer
        return False


async def count_workers(pool: ArqRedis, queue: str) -> int:
    try:
        async with asyncio.timeout(REDIS_WITHIN_S):
            return len(await live_workers(pool, queue))
    except Exception:  # noqa: BLE001 - no answer means no worker we can see
        return 0


async def check_health(driver: AsyncDriver, pool: ArqRedis, settings: Settings) -> HealthReport:
    neo4j, redis, workers = await asyncio.gather(
        ping(driver, settings.neo4j_database),
        redis_ok(pool),
        count_workers(pool, settings.queue_name),
    )
    return HealthReport(neo4j=neo4j, redis=redis, workers=workers)
