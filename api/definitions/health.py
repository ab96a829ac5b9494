"""`health`: is each real component reachable from this API process right now, and how
many workers are alive to run what it enqueues (jobs/health.py)."""

from __future__ import annotations

from importlib.metadata import version

import strawberry
from strawberry.types import Info

from api.context import Context
from jobs.health import check_health


@strawberry.type(description="Reachability of the components this API needs.")
class Health:
    neo4j: bool
    redis: bool
    workers: int = strawberry.field(
        description="Workers alive on this deployment's queue (from their liveness keys); "
        "0 means enqueued work will not run."
    )
    healthy: bool = strawberry.field(
        description="Neo4j and Redis reachable and at least one live worker."
    )
    version: str


async def resolve_health(info: Info[Context, None]) -> Health:
    ctx = info.context
    report = await check_health(ctx.driver, ctx.pool, ctx.settings)
    return Health(
        neo4j=report.neo4j,
        redis=report.redis,
        workers=report.workers,
        healthy=report.healthy,
        version=version("storygraph"),
    )
