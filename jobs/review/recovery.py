"""Recovery when a worker starts (seed 004 活动记录: 重开应用将没有完成的监督运行标为失败，
旧成功结果保持可读): unfinished runs of workers with no liveness key become failed
(worker_lost) or, when they were pausing or cancelling, stopped; the lease a dead worker held
is freed. Queued runs (no worker yet) are left for the worker that picks them up. Run as the
worker (`WORKER`) from `jobs.tasks.review_worker.review_startup`.
"""

from __future__ import annotations

from engine.review.runner import recover_on_worker_start
from graph.review.codec import StoredRun
from graph.review.runs import RunChange
from jobs.review.services import QUEUED, ReviewServices


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
