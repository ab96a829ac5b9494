"""What every review use case builds from its `Deps` (jobs/README.md), and how it checks the
caller.

- Repositories: each review repository is a `graph.base.Store` keyed by the deployment (the
  arq queue name: workers and API replicas of one deployment share the one-review lease and
  the app switch; test sessions with their own queue never disturb each other). A use case
  builds the ones it uses (`runs_of(deps)`, `lease_of(deps)`, ...).
- Timings a run keeps: the stage timeout is frozen into the run when it is created
  (docs/rules/reviews.md: 监督超时在 run 创建时保存), and the lease outlives the longest model
  request. Model work of reviews queues in the FIFO pool shared by every worker (`review_pool`).
- Access: a review scope is a set of story scopes (project ids, or global); a caller may use
  it only when it may use every one of them (`require_review_scope`, FORBIDDEN naming no scope). A
  stored run or plan of a scope the caller cannot use reads as NOT_FOUND, the same answer
  as a missing one (`visible_run`, `visible_plan`).
- The execution job: queued after commit under its lease owner as arq job id
  (`enqueue_execution`), so a repeat enqueues nothing twice.
"""

from __future__ import annotations

import functools
from datetime import timedelta
from typing import TypeVar

from engine.errors import NotFound, StorygraphError
from engine.principal import Principal
from engine.review.checkpoints import CheckpointKey, Track
from engine.review.plans import HeartbeatPlan
from engine.review.pool import PoolTimings
from engine.review.types import Scope
from engine.scope import GLOBAL
from graph.review.activity import ActivityReads
from graph.review.app import AppSettingsStore, PlanStore
from graph.review.checkpoints import Checkpoints
from graph.review.codec import StoredRun
from graph.review.heartbeats import HeartbeatRuns
from graph.review.known import KnownEntities, KnownEvents
from graph.review.lease import ReviewLease
from graph.review.runs import SupervisionRuns
from graph.review.sources import ReviewSources
from jobs.deps import Deps
from jobs.review.pool import ReviewPool

DEFAULT_PER_BATCH = 4000  # characters of source text per leaf batch
DEFAULT_WINDOW = timedelta(days=30)  # review window when a run has no plan
QUEUED = "queued"  # worker id of a run no worker has picked up yet
SUPERVISE = "supervise"  # the arq job that executes a run
HEARTBEAT_REPORT = "heartbeat_report"  # the arq job of one heartbeat report
SUPERVISE_AUTOMATIC = "supervise_automatic"  # the automatic check after a report
ID_LENGTH = 20

# --- repositories -------------------------------------------------------------------------


Keyed = TypeVar(
    "Keyed", SupervisionRuns, ReviewLease, HeartbeatRuns, AppSettingsStore, PlanStore, ActivityReads
)


def keyed(cls: type[Keyed], deps: Deps) -> Keyed:
    """A review repository whose records are global to the deployment (the queue name)."""
    return cls(deps.driver, deps.database, deployment=deps.settings.queue_name)


runs_of = functools.partial(keyed, SupervisionRuns)
lease_of = functools.partial(keyed, ReviewLease)
heartbeats_of = functools.partial(keyed, HeartbeatRuns)
app_of = functools.partial(keyed, AppSettingsStore)
plans_of = functools.partial(keyed, PlanStore)
activity_of = functools.partial(keyed, ActivityReads)


def checkpoints_of(deps: Deps) -> Checkpoints:
    return Checkpoints(deps.driver, deps.database)


def sources_of(deps: Deps) -> ReviewSources:
    return ReviewSources(deps.driver, deps.database)


def known_of(deps: Deps) -> tuple[KnownEntities, KnownEvents]:
    return KnownEntities(deps.driver, deps.database), KnownEvents(deps.driver, deps.database)


# --- timings and the pool -----------------------------------------------------------------


def stage_timeout(deps: Deps) -> timedelta:
    return timedelta(seconds=deps.settings.model_deadline_seconds)


def lease_ttl(deps: Deps) -> timedelta:
    """Longer than one model request, so a live holder renews before it expires."""
    return stage_timeout(deps) + timedelta(seconds=60)


def review_pool(deps: Deps, timings: PoolTimings | None = None) -> ReviewPool:
    """The supervision FIFO pool shared by every worker on this queue (docs/rules/reviews.md)."""
    if deps.pool is None:
        raise RuntimeError("the review pool needs the worker's Redis connection")
    return ReviewPool(deps.pool, deps.settings.queue_name, timings=timings)


def checkpoint_key(scope: Scope) -> CheckpointKey:
    return CheckpointKey.of(Track.SUPERVISION, scope)


# --- the execution job --------------------------------------------------------------------


def owner_for(deps: Deps, run_id: str) -> str:
    """The lease owner of one execution of a run: also the arq job id that executes it."""
    return f"{SUPERVISE}:{run_id}:{deps.ids('', 8)}"


async def enqueue_execution(
    deps: Deps, run_id: str, owner: str, token: int, *, defer: timedelta | None = None
) -> bool:
    """Queue one execution under its owner as job id; False when that job is already known."""
    if deps.pool is None:
        raise RuntimeError("no arq pool to queue the review on")
    job = await deps.pool.enqueue_job(
        SUPERVISE,
        run_id=run_id,
        owner=owner,
        token=token,
        _job_id=owner,
        _queue_name=deps.settings.queue_name,
        _defer_by=defer,
    )
    return job is not None


# --- access -------------------------------------------------------------------------------


def story_scopes(scope: Scope) -> list[str]:
    """The story scopes (project ids, or global) a review scope reads and writes."""
    return [GLOBAL] if scope.is_global else list(scope.project_ids)


def require_review_scope(principal: Principal, role: str, scope: Scope) -> Scope:
    """FORBIDDEN (naming no scope) unless the caller may use every story scope of the review
    scope (a project set, or global) with `role`; `engine.scope.require_scope` checks one."""
    principal.require(role)
    for s in story_scopes(scope):
        principal.require(role, s)
    return scope


def require_seen(
    principal: Principal, role: str, scope: Scope | None, missing: StorygraphError
) -> None:
    """A stored run or plan of `scope` reads as `missing` unless the caller may use it."""
    for s in story_scopes(scope) if scope is not None else [None]:
        principal.visible(role, s, missing)


def no_run(run_id: str) -> NotFound:
    return NotFound("no such supervision run", id=run_id)


def no_plan(config_id: str) -> NotFound:
    return NotFound("no plan with this config id", config_id=config_id)


async def visible_run(deps: Deps, principal: Principal, role: str, run_id: str) -> StoredRun:
    """The run when the caller may see it with `role`; NOT_FOUND otherwise."""
    principal.require(role)
    stored = await runs_of(deps).get(run_id)
    require_seen(principal, role, stored.run.scope, no_run(run_id))
    return stored


async def visible_plan(
    deps: Deps, principal: Principal, role: str, config_id: str
) -> HeartbeatPlan:
    principal.require(role)
    plan = await plans_of(deps).get(config_id)
    if plan is None:
        raise no_plan(config_id)
    require_seen(principal, role, plan.scope, no_plan(config_id))
    return plan
