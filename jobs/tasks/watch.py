"""The heartbeat-watch jobs the worker registers (docs/rules/watches.md); each builds `Deps`
from arq's ctx and calls one use case as WORKER.

- `run_watch_check`: one check of one watch under a stable run id (jobs/watch/check.py);
  arq's own retries are for deferral after a 429 only — the model request retries live in
  the gateway, so the two are never stacked for the same failure.
- `run_watch_round`: one heartbeat round over a scope's candidate watches: closes verified
  items and enqueues this round's check(s) (jobs/watch/rounds.py).
- `sync_watch_checkpoint`: the independent record sync of one checkpoint, with its own
  12-round cap (jobs/watch/sync.py).
- `deliver_watch_handoff`: one delivery attempt of a hand-off to the partner session
  (jobs/watch/delivery.py); a failed attempt with attempts left becomes arq's Retry after
  the rule's wait, the last one dead-letters the hand-off.
"""

from __future__ import annotations

from typing import Any

import httpx
from arq.worker import Function, Retry, func

from engine.llm.errors import ModelRateLimited
from engine.principal import WORKER
from engine.watch.budget import RECORD_SYNC_ROUNDS
from engine.watch.delivery import MAX_ATTEMPTS
from jobs.deps import Deps, JobNow
from jobs.tasks.watch_round import run_watch_round
from jobs.watch.check import check_gateway, run_check
from jobs.watch.delivery import DELIVER_JOB, DeliveryRetry, deliver_handoff
from jobs.watch.sync import RETRY_DEFER_SECONDS, SyncRetry, sync_checkpoint

RATE_LIMIT_DEFER_SECONDS = 30


async def run_watch_check(
    ctx: dict[str, Any],
    *,
    scope: str,
    watch_id: str,
    run_id: str,
    now: JobNow = None,
) -> dict[str, Any]:
    deps = Deps.from_ctx(ctx, now=now)
    async with httpx.AsyncClient() as http:
        gateway = check_gateway(deps.settings, ctx.get("gateway"), http)
        try:
            return await run_check(
                deps, WORKER, scope=scope, watch_id=watch_id, run_id=run_id, gateway=gateway
            )
        except ModelRateLimited as exc:
            raise Retry(defer=exc.details.get("retry_after") or RATE_LIMIT_DEFER_SECONDS) from exc


async def sync_watch_checkpoint(
    ctx: dict[str, Any],
    *,
    scope: str,
    checkpoint_id: str,
    now: JobNow = None,
) -> dict[str, Any]:
    try:
        return await sync_checkpoint(
            Deps.from_ctx(ctx, now=now), WORKER, scope=scope, checkpoint_id=checkpoint_id
        )
    except SyncRetry as exc:
        raise Retry(defer=RETRY_DEFER_SECONDS) from exc


async def deliver_watch_handoff(
    ctx: dict[str, Any],
    *,
    scope: str,
    execution_key: str,
    now: JobNow = None,
) -> dict[str, Any]:
    deps = Deps.from_ctx(ctx, now=now)
    try:
        shared = ctx.get("http")  # the worker process's one client
        if isinstance(shared, httpx.AsyncClient):
            return await deliver_handoff(
                deps, WORKER, scope=scope, execution_key=execution_key, http=shared
            )
        async with httpx.AsyncClient() as http:
            return await deliver_handoff(
                deps, WORKER, scope=scope, execution_key=execution_key, http=http
            )
    except DeliveryRetry as exc:
        raise Retry(defer=exc.seconds) from exc


WATCH_FUNCTIONS: list[Function] = [
    func(run_watch_check, name="run_watch_check", max_tries=3),
    func(run_watch_round, name="run_watch_round", max_tries=3),
    func(sync_watch_checkpoint, name="sync_watch_checkpoint", max_tries=RECORD_SYNC_ROUNDS),
    # one more try than attempts: a worker lost mid-attempt is taken again, never dropped
    func(deliver_watch_handoff, name=DELIVER_JOB, max_tries=MAX_ATTEMPTS + 1),
]
