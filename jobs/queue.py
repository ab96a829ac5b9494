"""Enqueueing from the API side: one arq pool per process, stable job ids for idempotency."""

from __future__ import annotations

from arq.connections import ArqRedis

from engine.settings import Settings
from jobs.redis_client import open_pool, redis_settings

__all__ = ["enqueue_probe", "open_pool", "redis_settings"]


async def enqueue_probe(pool: ArqRedis, settings: Settings, *, probe_id: str, note: str) -> bool:
    """True when enqueued now; False when a job with the same id is already known."""
    job = await pool.enqueue_job(
        "probe",
        probe_id=probe_id,
        note=note,
        _job_id=f"probe:{probe_id}",
        _queue_name=settings.queue_name,
    )
    return job is not None
