"""The effects of concern use cases: jobs enqueued after the write committed, under stable
arq job ids (docs/architecture/index.md; jobs/README.md; docs/rules/concerns.md).

The `_job_id` of an agent-loop job is `engine.concern.scheduler.job_id(concern, trigger
kind, event key)`: every enqueuer — two workers' crons, a repeated reply, a retried API
call — derives the same id for the same concern and event, and arq keeps one job per id.
The loop itself also records the job id in `handled_triggers`, so even after arq forgot the
id a rerun decides nothing.

The one exception is the first turn a raise enqueues at once (`first_turn_job_id`): it runs
at the raise's moment, and a scheduler run at a later moment that finds the same item due
must still get its own job at its own moment. Under one shared id arq would keep the raise's
job and drop the scan's, and a scan that came while the raise's job was queued would deliver
before the turn had written its reports: what the owner is told would depend on which job
ran first. The trigger's id in `handled_triggers` keeps the loop from deciding twice; the
second job only delivers what is due at its moment.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from arq.connections import ArqRedis

from engine.concern.scheduler import Trigger

ADVANCE_JOB = "advance_concern"
DELIVER_JOB = "deliver_concern_outbox"
SCHEDULER_JOB = "run_concern_scheduler"
ANSWER_JOB = "settle_concern_answer"


def delivery_job_id(key: str) -> str:
    return f"concern-deliver:{key}"


def first_turn_job_id(concern_id: str) -> str:
    """The arq id of the turn a raise enqueues at once (not the scan's: see above)."""
    return f"concern:{concern_id}:raised"


def answer_job_id(concern_id: str, messages: int) -> str:
    """One job per version of the concern's conversation (`m<messages>`, its review's)."""
    return f"concern-answer:{concern_id}:m{messages}"


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
    job_id: str | None = None,
) -> bool:
    """True when enqueued now; False when the same trigger is already queued or done.
    `job_id` defaults to the trigger's own id."""
    job = await pool.enqueue_job(
        ADVANCE_JOB,
        concern_id=concern_id,
        trigger=trigger.model_dump(mode="json"),
        now=now.isoformat() if now is not None else None,
        signal=signal,
        _job_id=job_id or trigger.job_id(concern_id),
        _queue_name=queue_name,
    )
    return job is not None


async def enqueue_delivery(
    pool: ArqRedis,
    queue_name: str,
    *,
    concern_id: str | None,
    key: str,
    now: datetime | None = None,
) -> bool:
    """Deliver a concern's due rows, or (`concern_id` None: a row outside any concern, the
    agenda's report of a signal) the one row `key`."""
    job = await pool.enqueue_job(
        DELIVER_JOB,
        concern_id=concern_id,
        key=None if concern_id else key,
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


async def enqueue_answer(
    pool: ArqRedis,
    queue_name: str,
    *,
    concern_id: str,
    messages: int,
    now: datetime,
    defer: timedelta,
) -> bool:
    """The concern's answer, written by a job of its own once the one-review lease is free
    (the turn found another review holding it); recorded at the turn's moment `now`."""
    job = await pool.enqueue_job(
        ANSWER_JOB,
        concern_id=concern_id,
        now=now.isoformat(),
        _job_id=answer_job_id(concern_id, messages),
        _queue_name=queue_name,
        _defer_by=defer,
    )
    return job is not None
