"""Heartbeat plans and the app switch, as a person asks (Modal, 应用启停与执行;
docs/rules/reviews.md): save, delete and run a plan now; switch heartbeats on or off.

Each takes the `Deps` and the caller's `Principal` first: a plan scope the caller cannot use
is FORBIDDEN, another scope's plan is NOT_FOUND like a missing one, and the app switch (every
scope's heartbeats) needs `admin`. Saving or deleting a plan leaves runs, history and source
progress alone; the switch creates, seeds or enables no plan.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.principal import Principal
from engine.review import heartbeat as hb
from engine.review import plans as pl
from engine.review.plans import HeartbeatPlan
from engine.review.settings import AppSettings
from engine.review.settings import set_heartbeat_enabled as switch
from engine.review.types import Scope
from jobs.deps import Deps
from jobs.review.common import (
    HEARTBEAT_REPORT,
    ID_LENGTH,
    app_of,
    heartbeats_of,
    plans_of,
    require_review_scope,
    stage_timeout,
    visible_plan,
)


async def save_plan(
    deps: Deps, principal: Principal, scope: Scope, data: Mapping[str, object]
) -> HeartbeatPlan:
    """Save a plan draft of `scope`: a new one is saved enabled; an edit keeps enabled."""
    require_review_scope(principal, "operator", scope)
    draft = pl.draft_from_input(data)
    existing = (
        await visible_plan(deps, principal, "operator", draft.config_id)
        if draft.config_id
        else None
    )
    saved = pl.save_plan(
        draft, existing, new_config_id=deps.ids("cfg", ID_LENGTH), now=deps.clock()
    )
    return await plans_of(deps).put(saved.plan)


async def delete_plan(deps: Deps, principal: Principal, config_id: str) -> None:
    """Delete a plan; runs, history and progress stay."""
    await visible_plan(deps, principal, "operator", config_id)
    await plans_of(deps).delete(config_id)


async def run_plan_now(deps: Deps, principal: Principal, config_id: str) -> hb.HeartbeatRun:
    """A fresh heartbeat report now; its report job is queued after the claim committed."""
    plan = await visible_plan(deps, principal, "operator", config_id)
    run = hb.run_plan_now(
        plan,
        await app_of(deps).get(),
        run_id=deps.ids("hb", ID_LENGTH),
        worker_id=deps.worker_id,
        now=deps.clock(),
        timeout=stage_timeout(deps),
    )
    await heartbeats_of(deps).claim(run, f"manual:{run.run_id}")
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
    app = app_of(deps)
    return await app.put(switch(await app.get(), enabled), now=deps.clock())
