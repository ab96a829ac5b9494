"""The effects of watch use cases: jobs enqueued after the write committed, each under a
stable arq job id, so a repeated trigger enqueues nothing twice (arq: "jobs may be called
more than once")."""

from __future__ import annotations

from datetime import datetime

from arq.connections import ArqRedis

from engine.settings import Settings


def check_job_id(scope: str, watch_id: str, request_id: str) -> str:
    """The stable arq job id of one requested check: a repeated trigger is not enqueued."""
    return f"watch-check:{scope}:{watch_id}:{request_id}"


def sync_job_id(checkpoint_id: str) -> str:
    return f"watch-checkpoint-sync:{checkpoint_id}"


def round_job_id(scope: str, round_id: str) -> str:
    return f"watch-round:{scope}:{round_id}"


def round_run_id(round_id: str, watch_id: str) -> str:
    """The run id of a round's check of one watch (stable: the round's id and the watch's)."""
    return f"round:{round_id}:{watch_id}"


def default_round_id(now: datetime, full: bool) -> str:
    """One round per minute slot and mode unless the caller names the round."""
    return now.strftime("%Y%m%dT%H%M") + ("-full" if full else "")


async def enqueue_check(
    pool: ArqRedis, settings: Settings, *, scope: str, watch_id: str, request_id: str
) -> bool:
    """True when enqueued now; False when this request id was already enqueued."""
    job = await pool.enqueue_job(
        "run_watch_check",
        scope=scope,
        watch_id=watch_id,
        run_id=request_id,
        _job_id=check_job_id(scope, watch_id, request_id),
        _queue_name=settings.queue_name,
    )
    return job is not None


async def enqueue_sync(
    pool: ArqRedis, settings: Settings, *, scope: str, checkpoint_id: str
) -> bool:
    job = await pool.enqueue_job(
        "sync_watch_checkpoint",
        scope=scope,
        checkpoint_id=checkpoint_id,
        _job_id=sync_job_id(checkpoint_id),
        _queue_name=settings.queue_name,
    )
    return job is not None


async def enqueue_round(
    pool: ArqRedis, settings: Settings, *, scope: str, full: bool, round_id: str
) -> bool:
    job = await pool.enqueue_job(
        "run_watch_round",
        scope=scope,
        full=full,
        round_id=round_id,
        _job_id=round_job_id(scope, round_id),
        _queue_name=settings.queue_name,
    )
    return job is not None
