"""`health`: is each real component reachable from this API process right now."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from api.context import Context
from graph.driver import ping


@strawberry.type(description="Reachability of the components this API needs.")
class Health:
    neo4j: bool
    redis: bool
    version: str


async def redis_ok(ctx: Context) -> bool:
    try:
        return bool(await ctx.pool.ping())
    except Exception:  # noqa: BLE001 - reachability is a yes/no answer
        return False


async def resolve_health(info: Info[Context, None]) -> Health:
    ctx = info.context
    from importlib.metadata import version

    return Health(
        neo4j=await ping(ctx.driver, ctx.database),
        redis=await redis_ok(ctx),
        version=version("storygraph"),
    )
