"""Review resources of a worker process, opened in arq's on_startup, closed in on_shutdown.

- one `httpx.AsyncClient` and the model gateway (HTTP when MODEL_BASE_URL is set, else the
  offline rule model);
- a liveness key in Redis (`storygraph:alive:<queue>:<worker id>`, short expiry, refreshed
  in the background): how other workers tell a live review holder from a dead one;
- recovery (seed 004 活动记录: 重开应用将没有完成的监督运行标为失败，旧成功结果保持可读):
  unfinished runs of workers with no liveness key become failed (worker_lost) or, when they
  were pausing or cancelling, stopped; the lease a dead worker held is freed. Queued runs
  (no worker yet) are left for the worker that picks them up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import httpx
from arq.connections import ArqRedis

from engine.model.gateway import build_gateway
from engine.review.runner import recover_on_worker_start
from graph.review.codec import StoredRun
from graph.review.runs import RunChange
from jobs.liveness import ALIVE_TTL_MS, alive_key, keep_alive, live_workers
from jobs.tasks.review_services import QUEUED, ReviewServices

log = logging.getLogger("storygraph.review.worker")

async def recover(svc: ReviewServices, live: set[str]) -> list[str]:
    """Mark unfinished runs of dead workers; free a dead holder's lease. Returns run ids."""
    keep = live | {QUEUED}
    recovered: list[str] = []
    for stored in await svc.runs.unfinished():
        if not recover_on_worker_start([stored.run], keep, now=svc.now()):
            continue

        def decide(s: StoredRun) -> RunChange:
            changed = recover_on_worker_start([s.run], keep, now=svc.now())
            return RunChange(changed[0] if changed else s.run)

        await svc.runs.mutate(stored.run.run_id, decide)
        await svc.lease.release_run(stored.run.run_id)
        recovered.append(stored.run.run_id)
    await svc.lease.release_dead(keep)
    return recovered


async def review_startup(ctx: dict[str, Any]) -> None:
    settings = ctx["settings"]
    if "gateway" not in ctx:
        ctx["review_http"] = httpx.AsyncClient()
        ctx["gateway"] = build_gateway(settings, http=ctx["review_http"])
    redis: ArqRedis = ctx["redis"]
    key = alive_key(settings.queue_name, ctx["worker_id"])
    await redis.set(key, "1", px=ALIVE_TTL_MS)
    ctx["review_alive"] = asyncio.create_task(keep_alive(redis, key), name="review-alive")
    svc = ReviewServices.from_ctx(ctx)
    recovered = await recover(svc, await live_workers(redis, settings.queue_name))
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
