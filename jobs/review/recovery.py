"""Recovery when a worker starts, and the reconciler's review case.

Worker start (docs/rules/reviews.md: 重开应用将没有完成的监督运行标为失败，
旧成功结果保持可读): unfinished runs of workers with no liveness key become failed
(worker_lost) or, when they were pausing or cancelling, stopped; the lease a dead worker held
is freed. Queued runs (no worker yet) are left for the worker that picks them up. Run as the
worker (`WORKER`) from `jobs.tasks.review_worker.review_startup`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta

from engine.principal import Principal
from engine.review.lifecycle import SupervisionRun
from engine.review.runner import recover_on_worker_start
from graph.review.codec import StoredRun
from graph.review.runs import RunChange
from jobs.deps import Deps
from jobs.review.common import QUEUED, enqueue_execution, lease_of, runs_of


async def recover(deps: Deps, principal: Principal, live: set[str]) -> list[str]:
    """Mark unfinished runs of dead workers; free a dead holder's lease. Returns run ids.
    Every scope's runs: `admin` (the worker acts as `WORKER`)."""
    principal.require("admin")
    now = deps.clock()
    keep = live | {QUEUED}
    recovered: list[str] = []
    for stored in await runs_of(deps).unfinished():
        if recover_on_worker_start([stored.run], keep, now=now):
            _, changed = await recover_run(deps, stored.run.run_id, live)
            if changed:
                recovered.append(stored.run.run_id)
    await lease_of(deps).release_dead(keep)
    return recovered


async def recover_run(
    deps: Deps, run_id: str, live: set[str], *, queued_too: bool = False
) -> tuple[SupervisionRun, bool]:
    """One run, as at a worker's start: while its execution has not stopped and its worker is
    not live, it is failed (worker_lost, continuable) or, when it was pausing or cancelling,
    stopped, and the lease held for it is freed. A run still `queued` (no worker yet) is
    left alone unless `queued_too` (the reconciler's lost queued runs). The decision is taken
    again inside the run's transaction: a worker may have picked the run up since it was
    read. Returns the run as it now stands and whether this call changed it."""
    keep = live if queued_too else live | {QUEUED}
    now = deps.clock()

    def decide(s: StoredRun) -> RunChange:
        changed = recover_on_worker_start([s.run], keep, now=now)
        return RunChange(changed[0] if changed else s.run, value=bool(changed))

    change = await runs_of(deps).mutate(run_id, decide)
    if change.value:
        await lease_of(deps).release_run(run_id)
    return change.run, bool(change.value)


@dataclass(frozen=True)
class ReviewsReconciled:
    requeued: list[str] = field(default_factory=list)  # queued again under the same job id
    failed: list[str] = field(default_factory=list)  # failed worker_lost: continuable


async def reconcile_runs(
    deps: Deps,
    principal: Principal,
    live: set[str],
    *,
    grace: timedelta,
    job_known: Callable[[str], Awaitable[bool]],
) -> ReviewsReconciled:
    """The reconciler's review case: a run recorded `queued` longer than `grace` whose job
    Redis no longer knows (a Redis restart or flush, an enqueue that failed after the run was
    stored) is queued again under the same job id while it still holds the review lease, and
    failed as `worker_lost` (continuable with continueReview) once it does not: nothing else
    would ever run it. A run a live worker holds whose job Redis no longer knows (the job
    ended on an error the run did not record) is failed `worker_lost` the same way once its
    lease is not renewed or its job is gone. Runs of workers that died since the last worker
    start are recovered as at a worker's start. Safe on every worker at once: the job id is
    stable (arq refuses a second copy) and each change is decided again inside its own
    transaction."""
    principal.require("admin")
    now = deps.clock()
    lease = await lease_of(deps).current()
    result = ReviewsReconciled()
    for stored in await runs_of(deps).unfinished():
        run = stored.run
        if run.stopped or now - run.updated_at < grace:
            continue
        if run.worker_id != QUEUED:
            if run.worker_id not in live:
                continue  # a dead worker's run: `recover` below
            if (
                lease is not None
                and lease.run_id == run.run_id
                and not lease.expired(now)
                and await job_known(lease.owner)
            ):
                continue  # its job is queued, running or retried: it goes on
            # a live worker's run whose job is gone (it ended on an error the run did not
            # record, e.g. Redis failing under it): nothing will execute it again
            _, failed = await recover_run(deps, run.run_id, live - {run.worker_id})
            if failed:
                result.failed.append(run.run_id)
            continue
        if lease is not None and lease.run_id == run.run_id and not lease.expired(now):
            if await job_known(lease.owner):
                continue
            if await enqueue_execution(deps, run.run_id, lease.owner, lease.token):
                result.requeued.append(run.run_id)
            continue

        _, failed = await recover_run(deps, run.run_id, live, queued_too=True)
        if failed:
            result.failed.append(run.run_id)
    result.failed.extend(await recover(deps, principal, live))
    return result
