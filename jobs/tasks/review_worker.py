"""Review resources of a worker process, opened in arq's on_startup, closed in on_shutdown.

- one `httpx.AsyncClient` and the model gateway (HTTP when MODEL_BASE_URL is set, else the
  offline rule model);
- a liveness key in Redis (`storygraph:alive:<queue>:<worker id>`, short expiry, refreshed
  in the background): how other workers tell a live review holder from a dead one;
- recovery of unfinished runs of dead workers (`jobs.review.recovery`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import httpx
from arq.connections import ArqRedis

from engine.principal import WORKER
from jobs.deps import Deps
from jobs.liveness import ALIVE_TTL_MS, alive_key, keep_alive, live_workers
from jobs.llm.gateway import build_gateway
from jobs.review.recovery import recover

log = logging.getLogger("storygraph.review.worker")


async def review_startup(ctx: dict[str, Any]) -> None:
    settings = ctx["settings"]
    if "gateway" not in ctx:
        ctx["review_http"] = httpx.AsyncClient()
        ctx["gateway"] = build_gateway(settings, http=ctx["review_http"])
    redis: ArqRedis = ctx["redis"]
    key = alive_key(settings.queue_name, ctx["worker_id"])
    await redis.set(key, "1", px=ALIVE_TTL_MS)
    ctx["review_alive"] = asyncio.create_task(keep_alive(redis, key), name="review-alive")
    live = await live_workers(redis, settings.queue_name)
    recovered = await recover(Deps.from_ctx(ctx), WORKER, live)
    if recovered:
        log.warning("recovered unfinished reviews", extra={"fields": {"runs": recovered}})


async def review_shutdown(ctx: dict[str, Any]) -> None:
    task = ctx.pop("review_alive", None)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    redis = ctx.get("redis")
    if redis is not None and "worker_id" in ctx:
        await redis.delete(alive_key(ctx["settings"].queue_name, ctx["worker_id"]))
    http = ctx.pop("review_http", None)
    if http is not None:
        await http.aclose()
