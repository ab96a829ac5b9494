"""The steps that start and steer supervision runs (seed 004 活动记录, 应用启停与执行).

No caller check here: `jobs.review.commands` checks the Principal and then calls these;
the heartbeat's downstream check (automatic) calls them as the worker.
- the app switch is asked first (`admit`): a manual request while off is DISABLED;
- the one-review lease is taken before a run is stored: a manual start or continue while
  another review runs or stops is refused at once with BUSY, an automatic one waits;
- the run is stored `running` (collect running) before anything is collected, then the
  execution job is queued under a stable id;
- pause and cancel are stored at once; the executing worker sees them between batches.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from engine.errors import Conflict
from engine.review import lifecycle as lc
from engine.review import lock
from engine.review.checkpoints import CheckpointKey, Track
from engine.review.runner import choose_automatic
from engine.review.settings import Work, admit
from engine.review.types import Scope, Trigger
from graph.review.codec import RunOptions, StoredRun
from graph.review.runs import RunChange
from jobs.review.services import DEFAULT_PER_BATCH, QUEUED, ReviewServices

SUPERVISE = "supervise"

RUN_ID_LENGTH = 20


def owner_for(svc: ReviewServices, run_id: str) -> str:
    """The lease owner of one execution of a run: also the arq job id that executes it."""
    return f"{SUPERVISE}:{run_id}:{svc.ids('', 8)}"


async def enqueue_execution(
    svc: ReviewServices, run_id: str, owner: str, token: int, *, defer: timedelta | None = None
) -> bool:
    """Queue one execution under its owner as job id; False when that job is already known."""
    if svc.pool is None:
        raise RuntimeError("no arq pool to queue the review on")
    job = await svc.pool.enqueue_job(
        SUPERVISE,
        run_id=run_id,
        owner=owner,
        token=token,
        _job_id=owner,
        _queue_name=svc.settings.queue_name,
        _defer_by=defer,
    )
    return job is not None


async def _acquire(
    svc: ReviewServices, run_id: str, owner: str, trigger: Trigger, worker_id: str
) -> lock.Acquired | lock.Wait:
    return await svc.lease.acquire(
        owner=owner,
        run_id=run_id,
        worker_id=worker_id,
        trigger=trigger,
        now=svc.now(),
        ttl=svc.lease_ttl,
    )


async def start_review(
    svc: ReviewServices,
    scope: Scope,
    *,
    trigger: Trigger = Trigger.MANUAL,
    interval: tuple[datetime, datetime] | None = None,
    heartbeat_run_id: str | None = None,
    options: RunOptions | None = None,
    per_batch: int = DEFAULT_PER_BATCH,
    enqueue: bool = True,
) -> tuple[lc.SupervisionRun, str, int] | lock.Wait:
    """Take the lease, store the new run `running`, queue its execution.

    Manual `startReview(scope, from, to)` re-reads that interval and never touches automatic
    progress; an automatic start reads and (at publish) advances the supervision checkpoint.
    """
    if trigger is Trigger.MANUAL:
        admit(await svc.app.get(), Work.MANUAL_REVIEW)
    run_id = svc.ids("sup", RUN_ID_LENGTH)
    owner = owner_for(svc, run_id)
    got = await _acquire(svc, run_id, owner, trigger, QUEUED if enqueue else svc.worker_id)
    if isinstance(got, lock.Wait):
        return got
    try:
        run = lc.create_run(
            run_id=run_id,
            scope=scope,
            trigger=trigger,
            mode=lc.ReviewMode.INTERVAL if interval else lc.ReviewMode.INCREMENTAL,
            worker_id=QUEUED if enqueue else svc.worker_id,
            per_batch=per_batch,
            stage_timeout=svc.stage_timeout,
            now=svc.now(),
            heartbeat_run_id=heartbeat_run_id,
            interval=interval,
        )
        await svc.runs.create(run, options or RunOptions())
        if enqueue:
            await enqueue_execution(svc, run_id, owner, got.lease.token)
    except BaseException:
        await svc.lease.release(owner=owner, token=got.lease.token)
        raise
    return run, owner, got.lease.token


async def _versions(svc: ReviewServices, scope: Scope) -> dict[str, str]:
    return {s.source_id: s.version for s in await svc.sources.states(scope)}


async def continue_review(
    svc: ReviewServices, run_id: str, *, trigger: Trigger = Trigger.MANUAL, enqueue: bool = True
) -> tuple[lc.SupervisionRun, str, int] | lock.Wait:
    """`continueReview`: the same run resumes; committed leaves and nodes are kept."""
    if trigger is Trigger.MANUAL:
        admit(await svc.app.get(), Work.MANUAL_REVIEW)
    stored = await svc.runs.get(run_id)
    current = await _versions(svc, stored.run.scope)
    owner = owner_for(svc, run_id)
    worker = QUEUED if enqueue else svc.worker_id
    got = await _acquire(svc, run_id, owner, trigger, worker)
    if isinstance(got, lock.Wait):
        return got
    try:
        change = await svc.runs.mutate(
            run_id,
            lambda s: RunChange(
                lc.continue_run(s.run, worker_id=worker, current_versions=current, now=svc.now())
            ),
        )
        if enqueue:
            await enqueue_execution(svc, run_id, owner, got.lease.token)
    except BaseException:
        await svc.lease.release(owner=owner, token=got.lease.token)
        raise
    return change.run, owner, got.lease.token


async def pause_review(svc: ReviewServices, run_id: str) -> lc.SupervisionRun:
    """Paused at once; the batch in flight may still land, then the worker stops."""
    change = await svc.runs.mutate(
        run_id, lambda s: RunChange(lc.pause(s.run, now=svc.now()).state)
    )
    return change.run


async def cancel_review(svc: ReviewServices, run_id: str) -> lc.SupervisionRun:
    """Cancelled at once; reads as cancelling until the worker has stopped."""
    change = await svc.runs.mutate(
        run_id, lambda s: RunChange(lc.cancel(s.run, now=svc.now()).state)
    )
    if change.run.stopped:
        await svc.lease.release_run(run_id)
    return change.run


async def automatic_supervision(
    svc: ReviewServices,
    scope: Scope,
    *,
    heartbeat_run_id: str,
    options: RunOptions,
    linked: lc.SupervisionRun | None = None,
) -> tuple[StoredRun, str, int] | lock.Wait | lc.SupervisionRun:
    """The check after a heartbeat (seed 004: 自动回顾等待占用释放，再检查未完成运行和增量来源):
    once it holds the lease, it continues the scope's failed automatic run if its sources are
    unchanged, else starts a new one. The caller executes it in place.

    `linked`: the run this heartbeat's check already started (the check is delivered again
    after its worker died); it is continued or, answered as it stands, left alone."""
    runs = [] if linked else [s.run for s in await svc.runs.recent(scope_key=scope.key, limit=50)]
    choice = choose_automatic(runs, scope, await _versions(svc, scope), linked=linked)
    if choice.settled and linked is not None:
        return linked
    if choice.continue_run_id is not None:
        got = await continue_review(
            svc, choice.continue_run_id, trigger=Trigger.AUTOMATIC, enqueue=False
        )
    else:
        got = await start_review(
            svc,
            scope,
            trigger=Trigger.AUTOMATIC,
            heartbeat_run_id=heartbeat_run_id,
            options=options,
            enqueue=False,
        )
    if isinstance(got, lock.Wait):
        return got
    run, owner, token = got
    return await svc.runs.get(run.run_id), owner, token


def checkpoint_key(scope: Scope) -> CheckpointKey:
    return CheckpointKey.of(Track.SUPERVISION, scope)


def wait_seconds(wait: lock.Wait, now: datetime) -> float:
    """How long automatic work defers while another review holds the lease."""
    left = (wait.retry_at - now) / timedelta(seconds=1)
    return max(1.0, min(left, 10.0))


def ensure_running(run: lc.SupervisionRun) -> None:
    if run.status is not lc.RunStatus.RUNNING:
        raise Conflict("the run is not running", run_id=run.run_id, status=run.status.value)
