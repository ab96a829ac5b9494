"""The ConcernScheduler's run (docs/rules/concerns.md) and outbox delivery, as use cases.

`run_scheduler` runs the three index-backed scans — due concerns, timeouts, schedules — and
enqueues one agent-loop job per due item under the item's stable job id, so two workers (or
two ticks) that see the same item enqueue it once. v3.0: a timeout only enqueues the loop;
it never sends a reminder itself. It then delivers outbox rows whose time has come (reports
deferred by the rate limits of docs/rules/concerns.md). Over every scope it needs admin (the cron
runs as `WORKER`); a run at a moved clock was checked (admin) when it was enqueued.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from engine.errors import NotFound
from engine.principal import Principal
from engine.scope import require_scope
from graph.concern.repository import ConcernRepository
from graph.concern.scans import ConcernScans
from jobs.concern.channel import Channel, DeliveryReport, deliver_due, live_senders
from jobs.concern.effects import enqueue_advance
from jobs.deps import Deps


@dataclass(frozen=True)
class SchedulerRun:
    due: int
    enqueued: list[str] = field(default_factory=list)
    delivery: DeliveryReport = field(default_factory=DeliveryReport)


async def run_scheduler(
    deps: Deps,
    principal: Principal,
    channel: Channel,
    *,
    now: datetime | None = None,
    scope: str | None = None,
) -> SchedulerRun:
    if scope is None:
        principal.require("admin")
    else:
        scope = require_scope(principal, "operator", scope)
    moment = now or deps.clock()
    scans = ConcernScans(deps.driver, deps.database)
    found = [
        *await scans.due(moment, scope=scope),
        *await scans.timeouts(moment, scope=scope),
        *await scans.schedules(moment, scope=scope),
    ]
    enqueued = []
    if deps.pool is not None:
        for job in found:
            if await enqueue_advance(
                deps.pool,
                deps.settings.queue_name,
                concern_id=job.concern_id,
                trigger=job.trigger,
                now=moment,
            ):
                enqueued.append(job.job_id)
    delivery = await deliver_due(
        deps.driver,
        deps.database,
        channel,
        now=moment,
        scope=scope,
        worker_id=deps.worker_id,
        live=await live_senders(deps),
    )
    return SchedulerRun(len(found), enqueued, delivery)


async def deliver_outbox(
    deps: Deps,
    principal: Principal,
    channel: Channel,
    concern_id: str | None,
    *,
    key: str | None = None,
    now: datetime | None = None,
) -> DeliveryReport:
    """Deliver one concern's due outbox rows (after raiseConcern, which runs in the API), or
    the one row `key` outside any concern (the agenda's report of a signal: workers only)."""
    principal.require("agenda")
    if concern_id is None:
        if key is None or not principal.all_scopes:
            raise NotFound("no outbox row to deliver", key=key)
    elif not principal.all_scopes:
        stored = await ConcernRepository(deps.driver, deps.database).find(concern_id)
        missing = NotFound(f"no concern {concern_id}", concern_id=concern_id)
        principal.visible("agenda", stored.scope if stored else None, missing)
    return await deliver_due(
        deps.driver,
        deps.database,
        channel,
        now=now or deps.clock(),
        concern_id=concern_id,
        key=key,
        worker_id=deps.worker_id,
        live=await live_senders(deps),
    )
