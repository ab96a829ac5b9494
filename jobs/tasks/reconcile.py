"""The reconciler: work recorded in Neo4j whose arq job was lost is queued again, once.

Runs as an arq cron every minute (at :30, between the schedulers' ticks) on every worker;
it is safe on all of them at once because each repair is keyed: a job goes back on the
queue under the same stable job id the original enqueuer used (arq refuses a second
enqueue of an id that is queued, running or done), and an outbox row is released under
its own write lock. Each repair is logged (`reconciled`) and counted in the job's result.

Cases:
- a heartbeat run still `claimed` after `GRACE` whose report job (the claim key) and
  automatic-supervision job are both unknown to Redis (a Redis restart without AOF, a
  flush, an enqueue that failed after the claim): `heartbeat_report` is queued again under
  the claim key;
- an outbox row left `sending` by a sender that died (past `CLAIM_LEASE`): released to
  `pending` and its concern's delivery is queued; the receiver sees the same
  Idempotency-Key (at least once);
- due concerns need no case of their own: the concern scheduler scans them every minute
  under stable job ids, and a failed turn no longer blocks its id (jobs/resilient_worker.py).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from arq.connections import ArqRedis
from arq.cron import CronJob, cron
from arq.jobs import Job, JobStatus

from graph.concern.outbox import CLAIM_LEASE
from graph.reconcile import claimed_heartbeats, release_stale_outbox
from jobs.concern.effects import enqueue_delivery
from jobs.tasks.heartbeat import HEARTBEAT_REPORT, SUPERVISE_AUTOMATIC

log = logging.getLogger("storygraph.reconcile")

GRACE = timedelta(minutes=2)


async def job_known(redis: ArqRedis, queue: str, job_id: str) -> bool:
    """Queued, deferred, running or finished with a kept result."""
    status = await Job(job_id, redis, _queue_name=queue).status()
    return status is not JobStatus.not_found


async def reconcile(ctx: dict[str, Any], *, now: str | None = None) -> dict[str, list[str]]:
    settings = ctx["settings"]
    driver, db, redis = ctx["driver"], settings.neo4j_database, ctx["redis"]
    queue = settings.queue_name
    moment = datetime.fromisoformat(now) if now else datetime.now(UTC)

    heartbeats: list[str] = []
    for hb in await claimed_heartbeats(driver, db, queue, before=moment - GRACE):
        if await job_known(redis, queue, hb.claim_key) or await job_known(
            redis, queue, f"{SUPERVISE_AUTOMATIC}:{hb.run_id}"
        ):
            continue
        job = await redis.enqueue_job(
            HEARTBEAT_REPORT, run_id=hb.run_id, _job_id=hb.claim_key, _queue_name=queue
        )
        if job is not None:
            heartbeats.append(hb.run_id)
            log.warning(
                "reconciled: a claimed heartbeat had no job; its report is queued again",
                extra={"fields": {"run_id": hb.run_id, "job_id": hb.claim_key}},
            )

    released: list[str] = []
    for row in await release_stale_outbox(
        driver, db, stale_before=moment - CLAIM_LEASE, now=moment
    ):
        released.append(row.key)
        await enqueue_delivery(redis, queue, concern_id=row.concern_id, key=row.key)
        log.warning(
            "reconciled: an outbox message left sending by a dead sender is pending again",
            extra={"fields": {"key": row.key, "claimed_by": row.claimed_by}},
        )
    return {"heartbeats": heartbeats, "outbox": released}


def reconcile_cron() -> CronJob:
    return cron(reconcile, name="reconcile", second=30, unique=True, run_at_startup=False)
