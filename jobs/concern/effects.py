"""The effects of concern use cases: jobs enqueued after the write committed, under stable
arq job ids (seed 002 §十; DESIGN "Jobs"; jobs/README.md).

The `_job_id` of an agent-loop job is `engine.concern.scheduler.job_id(concern, trigger
kind, event key)`: every enqueuer — two workers' crons, a repeated reply, a retried API
call — derives the same id for the same concern and event, and arq keeps one job per id.
The loop itself also records the job id in `handled_triggers`, so even after arq forgot the
id a rerun decides nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from arq.connections import ArqRedis

from engine.concern.scheduler import Trigger

ADVANCE_JOB = "advance_concern"
DELIVER_JOB = "deliver_concern_outbox"
SCHEDULER_JOB = "run_concern_scheduler"


def delivery_job_id(key: str) -> str:
    return f"concern-deliver:{key}"


def scheduler_job_id(now: datetime, scope: str | None) -> str:
    return f"concern-scan:{scope or '*'}:{now.isoformat()}"


async def enqueue_advance(
    pool: ArqRedis,
    queue_name: str,
    *,
    concern_id: str,
    trigger: Trigger,
    now: datetime | None = None,
    signal: dict[str, Any] | None = None,
) -> bool:
    """True when enqueued now; False when the same trigger is already queued or done."""
    job = await pool.enqueue_job(
        ADVANCE_JOB,
        concern_id=concern_id,
        trigger=trigger.model_dump(mode="json"),
        now=now.isoformat() if now is not None else None,
        signal=signal,
        _job_id=trigger.job_id(concern_id),
        _queue_name=queue_name,
    )
    return job is not None


async def enqueue_delivery(
    pool: ArqRedis, queue_name: str, *, concern_id: str, key: str, now: datetime | None = None
) -> bool:
    job = await pool.enqueue_job(
        DELIVER_JOB,
        concern_id=concern_id,
        now=now.isoformat() if now is not None else None,
        _job_id=delivery_job_id(key),
        _queue_name=queue_name,
    )
    return job is not None


async def enqueue_scheduler_run(
    pool: ArqRedis, queue_name: str, *, now: datetime, scope: str | None = None
) -> bool:
    job = await pool.enqueue_job(
        SCHEDULER_JOB,
        now=now.isoformat(),
        scope=scope,
        _job_id=scheduler_job_id(now, scope),
        _queue_name=queue_name,
    )
    return job is not None
