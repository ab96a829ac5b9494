"""Supervision runs (docs/rules/reviews.md): start, continue, pause and cancel a
review, and the automatic check that follows a heartbeat.

Each use case takes the `Deps` and the caller's `Principal` first and checks role and scope
before it claims or reads anything (`jobs.review.common`): a review scope the caller cannot
use is FORBIDDEN, another scope's run is NOT_FOUND like a missing one. Then, in order:
- the app switch is asked (`admit`): a manual request while off is DISABLED;
- the one-review lease is taken before a run is stored: a manual start or continue while
  another review runs or stops is refused at once with BUSY, an automatic one waits;
- the run is stored `running` (collect running) before anything is collected, then the
  execution job is queued under a stable id (after commit);
- pause and cancel are stored at once; the executing worker sees them between batches.
`open_run` and `resume_run` are those lease-store-queue steps, shared by a person's request
and the heartbeat's automatic check (which executes its run in place); `execute` is the
worker's `supervise` job, which runs the stored run's stages (`jobs.review.execution`).
Ids come from `deps.ids`, `now` from `deps.clock()`, read once per use case.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from engine.principal import Principal
from engine.review import lifecycle as lc
from engine.review import lock
from engine.review.runner import choose_automatic
from engine.review.settings import Work, admit
from engine.review.types import Scope, Trigger
from graph.review.codec import RunOptions, StoredRun
from graph.review.runs import RunChange
from jobs.deps import Deps
from jobs.review.common import (
    DEFAULT_PER_BATCH,
    ID_LENGTH,
    QUEUED,
    app_of,
    enqueue_execution,
    lease_of,
    lease_ttl,
    owner_for,
    require_review_scope,
    runs_of,
    sources_of,
    stage_timeout,
    visible_run,
)
from jobs.review.execution import Execution
from jobs.review.model import Gateway

log = logging.getLogger("storygraph.review")


@dataclass(frozen=True)
class Opened:
    """A run stored with the lease held for it: `owner` (also the execution's arq job id)
    and the lease's fencing `token`."""

    run: lc.SupervisionRun
    owner: str
    token: int


# --- what a person asks -------------------------------------------------------------------


async def start_review(
    deps: Deps,
    principal: Principal,
    scope: Scope,
    start: datetime,
    end: datetime,
    *,
    per_batch: int = DEFAULT_PER_BATCH,
) -> lc.SupervisionRun:
    """`startReview(scope, from, to)`: re-read [start, end) of `scope` now; never touches
    automatic progress. BUSY while another review runs, DISABLED while the app is off."""
    require_review_scope(principal, "operator", scope)  # before anything is claimed
    admit(await app_of(deps).get(), Work.MANUAL_REVIEW)
    got = await open_run(
        deps, scope, trigger=Trigger.MANUAL, interval=(start, end), per_batch=per_batch
    )
    assert isinstance(got, Opened)  # manual requests never wait: BUSY is raised
    return got.run


async def continue_review(deps: Deps, principal: Principal, run_id: str) -> lc.SupervisionRun:
    """Resume a paused or failed run; committed batches and nodes are kept."""
    await visible_run(deps, principal, "operator", run_id)
    admit(await app_of(deps).get(), Work.MANUAL_REVIEW)
    got = await resume_run(deps, run_id, trigger=Trigger.MANUAL)
    assert isinstance(got, Opened)
    return got.run


async def pause_review(deps: Deps, principal: Principal, run_id: str) -> lc.SupervisionRun:
    """Paused at once; the batch in flight may still land, then the worker stops."""
    await visible_run(deps, principal, "operator", run_id)
    now = deps.clock()
    change = await runs_of(deps).mutate(run_id, lambda s: RunChange(lc.pause(s.run, now=now).state))
    return change.run


async def cancel_review(deps: Deps, principal: Principal, run_id: str) -> lc.SupervisionRun:
    """Cancelled at once; reads as cancelling until the worker has stopped."""
    await visible_run(deps, principal, "operator", run_id)
    now = deps.clock()
    change = await runs_of(deps).mutate(
        run_id, lambda s: RunChange(lc.cancel(s.run, now=now).state)
    )
    if change.run.stopped:
        await lease_of(deps).release_run(run_id)
    return change.run


# --- the heartbeat's automatic check ------------------------------------------------------


async def automatic_supervision(
    deps: Deps,
    principal: Principal,
    scope: Scope,
    *,
    heartbeat_run_id: str,
    options: RunOptions,
    linked: lc.SupervisionRun | None = None,
) -> Opened | lock.Wait | lc.SupervisionRun:
    """The check after a heartbeat (自动回顾等待占用释放，再检查未完成运行和增量来源;
    docs/rules/reviews.md): once it holds the lease, it continues the scope's failed automatic run
    if its sources are unchanged, else starts a new one. The caller executes it in place.

    `linked`: the run this heartbeat's check already started (the check is delivered again
    after its worker died); it is continued or, answered as it stands, left alone."""
    require_review_scope(principal, "operator", scope)
    runs = (
        [] if linked else [s.run for s in await runs_of(deps).recent(scope_key=scope.key, limit=50)]
    )
    choice = choose_automatic(runs, scope, await _versions(deps, scope), linked=linked)
    if choice.settled and linked is not None:
        return linked
    if choice.continue_run_id is not None:
        return await resume_run(
            deps, choice.continue_run_id, trigger=Trigger.AUTOMATIC, enqueue=False
        )
    return await open_run(
        deps,
        scope,
        trigger=Trigger.AUTOMATIC,
        heartbeat_run_id=heartbeat_run_id,
        options=options,
        enqueue=False,
    )


def wait_seconds(wait: lock.Wait, now: datetime) -> float:
    """How long automatic work defers while another review holds the lease."""
    left = (wait.retry_at - now) / timedelta(seconds=1)
    return max(1.0, min(left, 10.0))


# --- the worker's execution ------------------------------------------------------------


async def claim_execution(deps: Deps, run_id: str) -> None:
    """The worker that picks a queued run up writes its id on it (for worker-start recovery)."""

    def claim(s: StoredRun) -> RunChange:
        return RunChange(s.run.model_copy(update={"worker_id": deps.worker_id}))

    await runs_of(deps).mutate(run_id, claim)


async def execute(
    deps: Deps, principal: Principal, run_id: str, owner: str, token: int, *, gateway: Gateway
) -> str:
    """Execute a supervision run from its stored records (idempotent: a repeat of a finished
    run does nothing).

    An execution whose lease is no longer current stops before it writes anything: a job
    redelivered after its worker was killed, while the run was recovered and continued under
    a new lease. Had it written its worker id on the run, the run would be held by a live
    worker that never executes it: `running` for good, out of the reconciler's reach."""
    principal.require("operator")
    if not await lease_of(deps).acquire_worker(owner=owner, token=token, worker_id=deps.worker_id):
        log.warning("review lease lost", extra={"fields": {"run_id": run_id, "owner": owner}})
        return "lease_lost"
    await claim_execution(deps, run_id)
    return await Execution(deps, run_id, owner, token, gateway=gateway).run()


# --- the steps: lease, store, queue -------------------------------------------------------


async def open_run(
    deps: Deps,
    scope: Scope,
    *,
    trigger: Trigger = Trigger.MANUAL,
    interval: tuple[datetime, datetime] | None = None,
    heartbeat_run_id: str | None = None,
    options: RunOptions | None = None,
    per_batch: int = DEFAULT_PER_BATCH,
    enqueue: bool = True,
) -> Opened | lock.Wait:
    """Take the lease, store the new run `running`, queue its execution (after commit).

    An interval run re-reads that interval; an incremental (automatic) one reads and, at
    publish, advances the supervision checkpoint. Checked by the caller."""
    run_id = deps.ids("sup", ID_LENGTH)

    async def store(worker: str, now: datetime) -> lc.SupervisionRun:
        run = lc.create_run(
            run_id=run_id,
            scope=scope,
            trigger=trigger,
            mode=lc.ReviewMode.INTERVAL if interval else lc.ReviewMode.INCREMENTAL,
            worker_id=worker,
            per_batch=per_batch,
            stage_timeout=stage_timeout(deps),
            now=now,
            heartbeat_run_id=heartbeat_run_id,
            interval=interval,
        )
        await runs_of(deps).create(run, options or RunOptions())
        return run

    return await _under_lease(deps, run_id, trigger=trigger, enqueue=enqueue, store=store)


async def resume_run(
    deps: Deps, run_id: str, *, trigger: Trigger, enqueue: bool = True
) -> Opened | lock.Wait:
    """The same run resumes under a new lease; committed leaves and nodes are kept.
    Checked by the caller."""
    runs = runs_of(deps)
    stored = await runs.get(run_id)
    current = await _versions(deps, stored.run.scope)

    async def store(worker: str, now: datetime) -> lc.SupervisionRun:
        change = await runs.mutate(
            run_id,
            lambda s: RunChange(
                lc.continue_run(s.run, worker_id=worker, current_versions=current, now=now)
            ),
        )
        return change.run

    return await _under_lease(deps, run_id, trigger=trigger, enqueue=enqueue, store=store)


async def _under_lease(
    deps: Deps,
    run_id: str,
    *,
    trigger: Trigger,
    enqueue: bool,
    store: Callable[[str, datetime], Awaitable[lc.SupervisionRun]],
) -> Opened | lock.Wait:
    """Take the one-review lease for `run_id` (BUSY for a manual trigger, `Wait` for an
    automatic one), store the run (`store(worker id, now)`), queue its execution after
    commit; the lease is given back when any of it fails."""
    now = deps.clock()
    owner = owner_for(deps, run_id)
    worker = QUEUED if enqueue else deps.worker_id
    lease = lease_of(deps)
    got = await lease.acquire(
        owner=owner, run_id=run_id, worker_id=worker, trigger=trigger, now=now, ttl=lease_ttl(deps)
    )
    if isinstance(got, lock.Wait):
        return got
    try:
        run = await store(worker, now)
        if enqueue:
            await enqueue_execution(deps, run_id, owner, got.lease.token)
    except BaseException:
        await lease.release(owner=owner, token=got.lease.token)
        raise
    return Opened(run, owner, got.lease.token)


async def _versions(deps: Deps, scope: Scope) -> dict[str, str]:
    states = await sources_of(deps).states(scope, now=deps.clock())
    return {s.source_id: s.version for s in states}
