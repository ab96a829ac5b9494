"""The reconciler as a use case: work recorded in Neo4j whose arq job was lost is queued
again, or failed visibly, once (the arq cron in jobs/tasks/reconcile.py calls it as WORKER).

It runs every minute on every worker at once; each repair is keyed so two reconcilers
never repeat one: a job goes back under the same stable job id the original enqueuer used
(arq refuses a second copy of an id that is queued, running or kept), and a row is changed
under its own write lock after its state is read again. Every repair is logged
(`reconciled: ...`) and returned.

Cases:
- **heartbeats**: a heartbeat run still `claimed` after `GRACE` whose report job (the claim
  key) and automatic-supervision job are both unknown to Redis (a Redis restart without
  AOF, a flush, an enqueue that failed after the claim): `heartbeat_report` is queued again
  under the claim key.
- **outbox**: a message left `sending` by a sender that died (past `CLAIM_LEASE`) is
  `pending` again and its concern's delivery is queued; the receiver sees the same
  Idempotency-Key (at least once).
- **reviews**: a supervision run recorded `queued` past `GRACE` whose job is unknown is
  queued again under its job id while it holds the review lease, else failed `worker_lost`
  (continuable); a run a live worker holds whose job Redis no longer knows (it ended on an
  error the run did not record) is failed `worker_lost` too; runs of workers that died are
  failed as at a worker's start (jobs/review/recovery.py `reconcile_runs`).
- **watch checks**: a check recorded `queued`, `running` or `deferred` (WatchRun of this
  deployment) untouched past `GRACE` whose job is unknown to Redis is queued again under
  its job id, once; lost again, it is failed with a `worker_lost` observation
  (jobs/watch/check.py `fail_lost_check`), visible on the watch, and the next round or
  runWatchNow checks again.
- **signals**: a signal decided `raised` past `GRACE` (within `SIGNAL_HORIZON`) whose
  concern does not exist and whose effect job is unknown to Redis (the enqueue after its
  publish was lost) has its effect queued again under the same job id
  (jobs/concern/agenda.py: raising it is idempotent).
- due concerns need no case of their own: the concern scheduler scans them every minute
  under stable job ids, and a failed turn does not block its id (jobs/resilient_worker.py).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import timedelta

from arq.connections import ArqRedis
from arq.jobs import Job, JobStatus

from engine.principal import Principal
from graph.concern.outbox import CLAIM_LEASE
from graph.reconcile import ReconcileStore
from jobs.concern.effects import enqueue_delivery
from jobs.deps import Deps
from jobs.liveness import live_workers
from jobs.review.common import HEARTBEAT_REPORT, SUPERVISE_AUTOMATIC
from jobs.review.recovery import reconcile_runs
from jobs.signal.effects import effect_job_id, enqueue_effect
from jobs.signal.record import signal_store
from jobs.watch.check import fail_lost_check
from jobs.watch.effects import check_job_id, enqueue_check

log = logging.getLogger("storygraph.reconcile")

GRACE = timedelta(minutes=2)
SIGNAL_HORIZON = timedelta(days=2)  # raised signals older than this are not swept again
CHECK_REQUEUES = 1  # a lost watch check is queued again this often, then failed


@dataclass(frozen=True)
class Reconciled:
    heartbeats: list[str] = field(default_factory=list)
    outbox: list[str] = field(default_factory=list)
    reviews_requeued: list[str] = field(default_factory=list)
    reviews_failed: list[str] = field(default_factory=list)
    watch_requeued: list[str] = field(default_factory=list)
    watch_failed: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)


async def job_known(redis: ArqRedis, queue: str, job_id: str) -> bool:
    """Queued, deferred, running or finished with a kept result."""
    return await Job(job_id, redis, _queue_name=queue).status() is not JobStatus.not_found


async def reconcile(deps: Deps, principal: Principal) -> Reconciled:
    """One pass over every case, at `deps.clock()`; all-scope work, so `admin` (WORKER)."""
    principal.require("admin")
    if deps.pool is None:
        raise RuntimeError("the reconciler needs the worker's Redis connection")
    redis, queue, db, now = deps.pool, deps.settings.queue_name, deps.database, deps.clock()

    def known(job_id: str) -> Awaitable[bool]:
        return job_known(redis, queue, job_id)

    store = ReconcileStore(deps.driver, db)
    result = Reconciled()
    for hb in await store.claimed_heartbeats(queue, before=now - GRACE):
        if await known(hb.claim_key) or await known(f"{SUPERVISE_AUTOMATIC}:{hb.run_id}"):
            continue
        job = await redis.enqueue_job(
            HEARTBEAT_REPORT, run_id=hb.run_id, _job_id=hb.claim_key, _queue_name=queue
        )
        if job is not None:
            result.heartbeats.append(hb.run_id)
            log.warning(
                "reconciled: a claimed heartbeat had no job; its report is queued again",
                extra={"fields": {"run_id": hb.run_id, "job_id": hb.claim_key}},
            )

    for row in await store.release_stale_outbox(stale_before=now - CLAIM_LEASE, now=now):
        result.outbox.append(row.key)
        await enqueue_delivery(redis, queue, concern_id=row.concern_id, key=row.key)
        log.warning(
            "reconciled: an outbox message left sending by a dead sender is pending again",
            extra={"fields": {"key": row.key, "claimed_by": row.claimed_by}},
        )

    reviews = await reconcile_runs(
        deps,
        principal,
        await live_workers(redis, queue),
        grace=GRACE,
        job_known=known,
    )
    result.reviews_requeued.extend(reviews.requeued)
    result.reviews_failed.extend(reviews.failed)
    for run_id in reviews.requeued:
        log.warning(
            "reconciled: a queued review run had no job; it is queued again",
            extra={"fields": {"run_id": run_id}},
        )
    for run_id in reviews.failed:
        log.warning(
            "reconciled: a review run nothing will execute is failed (worker_lost); "
            "continueReview resumes it",
            extra={"fields": {"run_id": run_id}},
        )

    for check in await store.unfinished_checks(queue, before=now - GRACE):
        ids = {"scope": check.scope, "watch_id": check.watch_id, "run_id": check.run_id}
        if await known(check_job_id(check.scope, check.watch_id, check.run_id)):
            continue
        if not await store.mark_check_requeued(
            check.scope, check.run_id, seen=check.requeues, now=now
        ):
            continue  # another reconciler took this one
        if check.requeues < CHECK_REQUEUES:
            await enqueue_check(
                redis,
                deps.settings,
                scope=check.scope,
                watch_id=check.watch_id,
                request_id=check.run_id,
            )
            result.watch_requeued.append(check.run_id)
            log.warning(
                "reconciled: a watch check had no job; it is queued again",
                extra={"fields": {**ids, "status": check.status}},
            )
            continue
        await fail_lost_check(
            deps, principal, scope=check.scope, watch_id=check.watch_id, run_id=check.run_id
        )
        result.watch_failed.append(check.run_id)
        log.warning(
            "reconciled: a watch check lost its job again; it is failed (worker_lost)",
            extra={"fields": ids},
        )

    lost = await signal_store(deps).raised_without_concern(
        since=now - SIGNAL_HORIZON, before=now - GRACE, now=now
    )
    for scope, signal_id in lost:
        if await known(effect_job_id(signal_id)):
            continue
        await enqueue_effect(redis, queue, scope=scope, signal_id=signal_id)
        result.signals.append(signal_id)
        log.warning(
            "reconciled: a raised signal had no concern and no job; its effect is queued again",
            extra={"fields": {"signal_id": signal_id}},
        )
    return result
