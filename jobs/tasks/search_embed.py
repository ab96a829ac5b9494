"""Hybrid search's arq task and sweep (the use case: jobs/search/embed.py).

`embed_scope(scope)` runs after writes (enqueued by `embed_soon`, one per scope at a time) and
embeds what the scope is missing. A model outage becomes a deferred retry (a 429 after its
Retry-After, an unavailable endpoint after a minute per try), so vectors catch up once the
endpoint is back; the sweep (every ten minutes) enqueues a job for every scope still missing
vectors, which also covers a job that ran out of tries. Without EMBEDDING_BASE_URL both do
nothing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from arq import Retry
from arq.cron import CronJob, cron

from engine.llm.errors import ModelError, ModelRateLimited
from engine.principal import WORKER
from jobs.deps import Deps, JobNow
from jobs.search.embed import EmbedReport, embed_soon, scopes_to_embed
from jobs.search.embed import embed_scope as embed_once

RETRY_TRIES = 20


async def embed_scope(ctx: dict[str, Any], *, scope: str, now: JobNow = None) -> dict[str, Any]:
    deps = Deps.from_ctx(ctx, now=now)
    embedder = ctx.get("embedder")
    if embedder is None:
        return dataclasses.asdict(EmbedReport(scope, None, 0, 0, "nothing"))
    try:
        report = await embed_once(deps, WORKER, embedder, scope)
    except ModelRateLimited as exc:
        raise Retry(defer=exc.retry_after if exc.retry_after is not None else 30) from exc
    except ModelError as exc:
        raise Retry(defer=min(600, 60 * int(ctx.get("job_try", 1)))) from exc
    return dataclasses.asdict(report)


async def embed_sweep(ctx: dict[str, Any], *, now: JobNow = None) -> list[str]:
    deps = Deps.from_ctx(ctx, now=now)
    if ctx.get("embedder") is None:
        return []
    scopes = await scopes_to_embed(deps, WORKER)
    for scope in scopes:
        await embed_soon(deps, scope)
    return scopes


def embed_sweep_cron() -> CronJob:
    return cron(
        embed_sweep, name="embed_sweep", minute=set(range(5, 60, 10)), second=45, unique=True
    )
