"""What a person asks of reviews (seed 004 监督者): start, continue, pause and cancel a run;
save, delete and run a heartbeat plan now; switch heartbeats on or off.

Every function takes the `Deps` and the caller's `Principal` first and checks role and scope
before it claims or reads anything (`jobs.review.access`): a review scope the caller cannot
use is FORBIDDEN, another scope's run or plan is NOT_FOUND like a missing one, and the app
switch (every scope's heartbeats) needs `admin`. Then the steps of `jobs.review.lifecycle`:
the app switch (DISABLED while off), the one-review lease (BUSY), the run stored, its
execution queued after commit. Ids come from `deps.ids`, `now` from `deps.clock`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from engine.principal import Principal
from engine.review import heartbeat as hb
from engine.review import lifecycle as lc
from engine.review import plans as pl
from engine.review.plans import HeartbeatPlan
from engine.review.settings import AppSettings
from engine.review.settings import set_heartbeat_enabled as switch
from engine.review.types import Scope, Trigger
from graph.review.codec import StoredRun
from jobs.deps import Deps
from jobs.review import lifecycle
from jobs.review.access import no_plan, no_run, require_scope, require_seen
from jobs.review.heartbeat import HEARTBEAT_REPORT
from jobs.review.services import ReviewServices

ID_LENGTH = 20


def services(deps: Deps) -> ReviewServices:
    return ReviewServices.from_deps(deps)


async def visible_run(
    svc: ReviewServices, principal: Principal, role: str, run_id: str
) -> StoredRun:
    """The run when the caller may see it with `role`; NOT_FOUND otherwise."""
    principal.require(role)
    stored = await svc.runs.get(run_id)
    require_seen(principal, role, stored.run.scope, no_run(run_id))
    return stored


async def visible_plan(
    svc: ReviewServices, principal: Principal, role: str, config_id: str
) -> HeartbeatPlan:
    principal.require(role)
    plan = await svc.plans.get(config_id)
    if plan is None:
        raise no_plan(config_id)
    require_seen(principal, role, plan.scope, no_plan(config_id))
    return plan


# --- runs ---------------------------------------------------------------------------------


async def start_review(
    deps: Deps, principal: Principal, scope: Scope, start: datetime, end: datetime
) -> lc.SupervisionRun:
    """Re-read [start, end) of `scope` now; BUSY while another review runs."""
    require_scope(principal, "operator", scope)  # before anything is claimed
    got = await lifecycle.start_review(
        services(deps), scope, trigger=Trigger.MANUAL, interval=(start, end)
    )
    assert isinstance(got, tuple)  # manual requests never wait: BUSY is raised
    return got[0]


async def continue_review(deps: Deps, principal: Principal, run_id: str) -> lc.SupervisionRun:
    """Resume a paused or failed run; committed batches are kept."""
    svc = services(deps)
    await visible_run(svc, principal, "operator", run_id)
    got = await lifecycle.continue_review(svc, run_id, trigger=Trigger.MANUAL)
    assert isinstance(got, tuple)
    return got[0]


async def pause_review(deps: Deps, principal: Principal, run_id: str) -> lc.SupervisionRun:
    svc = services(deps)
    await visible_run(svc, principal, "operator", run_id)
    return await lifecycle.pause_review(svc, run_id)


async def cancel_review(deps: Deps, principal: Principal, run_id: str) -> lc.SupervisionRun:
    svc = services(deps)
    await visible_run(svc, principal, "operator", run_id)
    return await lifecycle.cancel_review(svc, run_id)


# --- plans and the app switch -------------------------------------------------------------


async def save_plan(
    deps: Deps, principal: Principal, scope: Scope, data: Mapping[str, object]
) -> HeartbeatPlan:
    """Save a plan draft of `scope`: a new one is saved enabled; an edit keeps enabled."""
    require_scope(principal, "operator", scope)
    svc = services(deps)
    draft = pl.draft_from_input(data)
    existing = (
        await visible_plan(svc, principal, "operator", draft.config_id) if draft.config_id else None
    )
    saved = pl.save_plan(
        draft, existing, new_config_id=deps.ids("cfg", ID_LENGTH), now=deps.clock()
    )
    return await svc.plans.put(saved.plan)


async def delete_plan(deps: Deps, principal: Principal, config_id: str) -> None:
    """Delete a plan; runs, history and progress stay."""
    svc = services(deps)
    await visible_plan(svc, principal, "operator", config_id)
    await svc.plans.delete(config_id)


async def run_plan_now(deps: Deps, principal: Principal, config_id: str) -> hb.HeartbeatRun:
    """A fresh heartbeat report now; its report job is queued after the claim committed."""
    svc = services(deps)
    plan = await visible_plan(svc, principal, "operator", config_id)
    run = hb.run_plan_now(
        plan,
        await svc.app.get(),
        run_id=deps.ids("hb", ID_LENGTH),
        worker_id=deps.worker_id,
        now=deps.clock(),
        timeout=svc.stage_timeout,
    )
    await svc.heartbeats.claim(run, f"manual:{run.run_id}")
    if deps.pool is not None:
        await deps.pool.enqueue_job(
            HEARTBEAT_REPORT,
            run_id=run.run_id,
            _job_id=f"{HEARTBEAT_REPORT}:{run.run_id}",
            _queue_name=deps.settings.queue_name,
        )
    return run


async def set_heartbeat_enabled(deps: Deps, principal: Principal, enabled: bool) -> AppSettings:
    """Flip the app switch; creates, seeds or enables no plan. It holds for every scope."""
    principal.require("admin")
    svc = services(deps)
    return await svc.app.put(switch(await svc.app.get(), enabled), now=deps.clock())
