"""The reconciler's review case: a run recorded `queued` whose job Redis
lost is queued again under its job id, once, while it holds the review lease; once it does
not, it is failed worker_lost (visible, continuable) and the lease is free again."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from datetime import datetime, timedelta

from arq.connections import ArqRedis
from arq.jobs import Job, JobStatus

from engine.principal import WORKER
from engine.review import lifecycle as lc
from engine.review.lifecycle import DisplayStatus
from engine.review.types import Scope, Trigger
from graph.review.codec import RunOptions
from jobs.deps import Deps
from jobs.reconcile import job_known
from jobs.review.common import QUEUED, lease_of, runs_of
from jobs.review.model import Gateway
from jobs.review.recovery import reconcile_runs
from jobs.review.runs import Opened, claim_execution, execute, open_run
from tests.support.processes import forget_queue_async
from tests.support.review_jobs import conversation, push_conversation

GRACE = timedelta(minutes=2)


def at(deps: Deps, moment: datetime) -> Deps:
    return dataclasses.replace(deps, clock=lambda: moment)


async def _opened(deps: Deps, scope: str) -> Opened:
    """An automatic run over a six-message conversation, stored `queued` with its job."""
    await push_conversation(deps, scope, "chat-1", conversation(6))
    got = await open_run(
        deps,
        Scope.projects(scope),
        trigger=Trigger.AUTOMATIC,
        options=RunOptions(window=timedelta(days=7)),
    )
    assert isinstance(got, Opened)
    return got


async def _queued_run_whose_job_was_lost(deps: Deps, pool: ArqRedis, scope: str) -> tuple[str, str]:
    got = await _opened(deps, scope)
    run, owner = got.run, got.owner
    assert run.worker_id == QUEUED
    queue = deps.settings.queue_name
    assert await Job(owner, pool, _queue_name=queue).status() is JobStatus.queued
    await forget_queue_async(pool, queue)  # Redis restarted without its queue
    assert await Job(owner, pool, _queue_name=queue).status() is JobStatus.not_found
    return run.run_id, owner


async def test_a_queued_run_whose_job_was_lost_is_queued_again_once(
    deps: Deps, pool: ArqRedis, scope: str
) -> None:
    run_id, owner = await _queued_run_whose_job_was_lost(deps, pool, scope)
    queue = deps.settings.queue_name

    known = functools.partial(job_known, pool, queue)

    created = (await runs_of(deps).get(run_id)).run.created_at
    early = await reconcile_runs(
        at(deps, created + timedelta(seconds=30)), WORKER, set(), grace=GRACE, job_known=known
    )
    assert early.requeued == [] and early.failed == [], "within the grace nothing is touched"

    later = at(deps, created + GRACE + timedelta(seconds=1))
    first, second = await asyncio.gather(
        reconcile_runs(later, WORKER, set(), grace=GRACE, job_known=known),
        reconcile_runs(later, WORKER, set(), grace=GRACE, job_known=known),
    )
    assert first.requeued + second.requeued == [run_id]
    assert first.failed == second.failed == []
    assert await Job(owner, pool, _queue_name=queue).status() is JobStatus.queued
    again = await reconcile_runs(later, WORKER, set(), grace=GRACE, job_known=known)
    assert again.requeued == [] and again.failed == []
    run = (await runs_of(deps).get(run_id)).run
    assert run.status is lc.RunStatus.RUNNING and not run.stopped


async def test_a_queued_run_that_lost_its_job_and_its_lease_is_failed_visibly_and_continuable(
    deps: Deps, pool: ArqRedis, scope: str
) -> None:
    run_id, owner = await _queued_run_whose_job_was_lost(deps, pool, scope)
    queue = deps.settings.queue_name

    known = functools.partial(job_known, pool, queue)

    lease = await lease_of(deps).current()
    assert lease is not None and lease.run_id == run_id
    past_lease = at(deps, lease.expires_at + timedelta(seconds=1))
    got = await reconcile_runs(past_lease, WORKER, set(), grace=GRACE, job_known=known)
    assert got.failed == [run_id] and got.requeued == []
    run = (await runs_of(deps).get(run_id)).run
    assert run.status is lc.RunStatus.FAILED and run.stopped
    assert run.error is not None and run.error.kind.value == "worker_lost"
    assert run.display_status is DisplayStatus.FAILED
    assert not run.blocks_new_review
    assert await lease_of(deps).current() is None, "the lease is free for the next review"
    assert await Job(owner, pool, _queue_name=queue).status() is JobStatus.not_found
    again = await reconcile_runs(past_lease, WORKER, set(), grace=GRACE, job_known=known)
    assert again.failed == [] and again.requeued == []


async def test_a_stale_execution_of_a_queued_run_leaves_it_for_the_reconciler(
    deps: Deps, gateway: Gateway, pool: ArqRedis, scope: str
) -> None:
    """An execution whose lease is no longer current (a job redelivered after a worker was
    killed, while the run was continued under a new lease) stops before it writes anything:
    it must not stamp its worker on the run, or the run, now held by a live worker that will
    never execute it, stays `running` for good and the reconciler never queues it again
    (found by tests/e2e/test_chaos.py, seed 840876279)."""
    run_id, owner = await _queued_run_whose_job_was_lost(deps, pool, scope)
    lease = await lease_of(deps).current()
    assert lease is not None and lease.run_id == run_id
    stale = await execute(deps, WORKER, run_id, f"{owner}-before", lease.token - 1, gateway=gateway)
    assert stale == "lease_lost"
    run = (await runs_of(deps).get(run_id)).run
    assert run.worker_id == QUEUED and run.status is lc.RunStatus.RUNNING
    known = functools.partial(job_known, pool, deps.settings.queue_name)
    later = at(deps, run.created_at + GRACE + timedelta(seconds=1))
    got = await reconcile_runs(later, WORKER, set(), grace=GRACE, job_known=known)
    assert got.requeued == [run_id]


async def _run_a_live_worker_took(deps: Deps, scope: str) -> tuple[str, str]:
    """A run a live worker picked up (its lease and its id on the run), whose job is queued."""
    got = await _opened(deps, scope)
    worker = dataclasses.replace(deps, worker_id="w-live")
    lease = await lease_of(deps).current()
    assert lease is not None and lease.run_id == got.run.run_id
    assert await lease_of(worker).acquire_worker(
        owner=got.owner, token=lease.token, worker_id="w-live"
    )
    await claim_execution(worker, got.run.run_id)
    assert (await runs_of(deps).get(got.run.run_id)).run.worker_id == "w-live"
    return got.run.run_id, got.owner


async def test_a_live_workers_run_whose_job_ended_unrecorded_is_failed_visibly_and_continuable(
    deps: Deps, pool: ArqRedis, scope: str
) -> None:
    """A job that ended on an error its run did not record (Redis failing under it during a
    failover) leaves the run `running`, held by a worker that is alive and will never execute
    it again: past the grace, with its job unknown to Redis, it is failed worker_lost."""
    run_id, owner = await _run_a_live_worker_took(deps, scope)
    queue = deps.settings.queue_name
    known = functools.partial(job_known, pool, queue)
    live = {"w-live"}
    created = (await runs_of(deps).get(run_id)).run.created_at
    later = at(deps, created + GRACE + timedelta(seconds=1))

    # while its job is known to Redis (queued, running or retried), it goes on untouched
    going = await reconcile_runs(later, WORKER, live, grace=GRACE, job_known=known)
    assert going.failed == [] and going.requeued == []
    assert (await runs_of(deps).get(run_id)).run.status is lc.RunStatus.RUNNING

    await forget_queue_async(pool, queue)  # the job ended, failed, and left no result
    assert await Job(owner, pool, _queue_name=queue).status() is JobStatus.not_found
    early = await reconcile_runs(
        at(deps, created + timedelta(seconds=30)), WORKER, live, grace=GRACE, job_known=known
    )
    assert early.failed == [], "within the grace nothing is touched"

    got = await reconcile_runs(later, WORKER, live, grace=GRACE, job_known=known)
    assert got.failed == [run_id] and got.requeued == []
    run = (await runs_of(deps).get(run_id)).run
    assert run.status is lc.RunStatus.FAILED and run.stopped
    assert run.error is not None and run.error.kind.value == "worker_lost"
    assert run.display_status is DisplayStatus.FAILED and not run.blocks_new_review
    assert await lease_of(deps).current() is None, "the lease is free for the next review"
    again = await reconcile_runs(later, WORKER, live, grace=GRACE, job_known=known)
    assert again.failed == [] and again.requeued == []
