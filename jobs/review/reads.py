"""The reads of reviews (docs/rules/reviews.md): app settings, plans, runs, one run, the activity
list and a run's progress, each limited to the caller's scopes.

Lists are filtered to the principal's scopes inside the query. `page_runs` pages in Cypher
after a keyset cursor (created_at, id), newest first, and counts only when asked. `activity`
joins heartbeats to runs in memory and pages that joined list by row id (`engine.review
.activity`), over the newest 500 of each, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime

from engine.errors import InvalidInput, NotFound
from engine.page import Page
from engine.principal import Principal
from engine.review import activity as act
from engine.review import lifecycle as lc
from engine.review.heartbeat import HeartbeatRun
from engine.review.plans import HeartbeatPlan
from engine.review.settings import AppSettings
from engine.review.types import Scope
from graph.review.activity import ActivityFilters, ActivityKey, ActivityReads
from jobs.deps import Deps
from jobs.review.common import (
    activity_of,
    app_of,
    heartbeats_of,
    plans_of,
    require_review_scope,
    require_seen,
    runs_of,
    visible_run,
)

RunKey = tuple[datetime, str]  # (created_at, run id): the keyset of the runs list


async def app_settings(deps: Deps, principal: Principal) -> AppSettings:
    """App settings; a missing heartbeatEnabled reads as false."""
    principal.require("reader")
    return await app_of(deps).get()


async def list_plans(deps: Deps, principal: Principal) -> list[HeartbeatPlan]:
    """Saved heartbeat plans of the caller's scopes."""
    principal.require("reader")
    return await plans_of(deps).saved(scopes=principal.visible_scopes())


async def page_runs(
    deps: Deps,
    principal: Principal,
    *,
    scope: Scope | None,
    first: int,
    after: RunKey | None,
    with_total: bool,
) -> Page[lc.SupervisionRun]:
    """Runs newest first, of `scope` (when given) and of the caller's scopes."""
    principal.require("reader")
    key = require_review_scope(principal, "reader", scope).key if scope is not None else None
    scopes = principal.visible_scopes()
    runs = runs_of(deps)
    stored = await runs.recent(scope_key=key, scopes=scopes, after=after, limit=first + 1)
    total = await runs.count(scope_key=key, scopes=scopes) if with_total else None
    return Page.of([s.run for s in stored], first, total)


async def heartbeat_run(
    deps: Deps, principal: Principal, run_id: str
) -> tuple[HeartbeatRun, str | None]:
    """A heartbeat run with its report text (None until the report is done); NOT_FOUND for
    another scope's run, a missing one, or one removed by its plan's retention."""
    principal.require("reader")
    missing = NotFound("no such heartbeat run", id=run_id)
    found = await heartbeats_of(deps).with_report(run_id)
    if found is None:
        raise missing
    require_seen(principal, "reader", found[0].scope, missing)
    return found


async def get_run(deps: Deps, principal: Principal, run_id: str) -> lc.SupervisionRun:
    return (await visible_run(deps, principal, "reader", run_id)).run


ACTIVITY_BATCH_MAX = 500  # rows read per statement while a status filter skips rows


async def activity(
    deps: Deps,
    principal: Principal,
    *,
    statuses: list[str] | None,
    scope: Scope | None,
    config_id: str | None,
    since: datetime | None,
    until: datetime | None,
    first: int,
    after: ActivityKey | None,
    with_total: bool,
) -> Page[act.Activity]:
    """Heartbeats joined to supervision runs by saved run id, of the caller's scopes, newest
    first. The database pages and filters; statuses are derived per row, so with a status
    filter further rows are read (in growing batches) until the page is full."""
    principal.require("reader")
    if scope is not None:
        require_review_scope(principal, "reader", scope)
    try:
        flt = act.ActivityFilter(
            statuses=frozenset(act.ActivityStatus(s) for s in statuses) if statuses else None,
            scope_key=scope.key if scope else None,
            config_id=config_id,
            since=since,
            until=until,
        )
    except ValueError as exc:
        raise InvalidInput("invalid activity filter", problem=str(exc)) from None
    filters = ActivityFilters(
        scopes=principal.visible_scopes(),
        scope_key=flt.scope_key,
        config_id=config_id,
        since=since,
        until=until,
    )
    store = activity_of(deps)
    rows: list[act.Activity] = []
    cursor, size = after, first + 1
    while len(rows) <= first:
        batch = await store.page(filters, after=cursor, limit=size)
        rows += [r for r in act.activity_rows(batch.records, batch.joined) if flt.matches(r)]
        if batch.read < size or batch.last is None:
            break
        cursor, size = batch.last, min(size * 2, ACTIVITY_BATCH_MAX)
    total = None
    if with_total:
        total = (
            await store.count(filters)
            if flt.statuses is None
            else await _count_matching(store, filters, flt)
        )
    return Page.of(rows, first, total)


async def _count_matching(
    store: ActivityReads, filters: ActivityFilters, flt: act.ActivityFilter
) -> int:
    """totalCount under a status filter: every row is derived (asked for, so paid for)."""
    counted, cursor = 0, None
    while True:
        batch = await store.page(filters, after=cursor, limit=ACTIVITY_BATCH_MAX)
        counted += sum(1 for r in act.activity_rows(batch.records, batch.joined) if flt.matches(r))
        if batch.read < ACTIVITY_BATCH_MAX or batch.last is None:
            return counted
        cursor = batch.last


async def follow_run(
    deps: Deps, principal: Principal, run_id: str, *, poll: float
) -> AsyncIterator[lc.SupervisionRun]:
    """A run as stored, read every `poll` seconds until it has stopped (the caller is checked
    before the first read)."""
    await visible_run(deps, principal, "reader", run_id)
    runs = runs_of(deps)
    while True:
        run = (await runs.get(run_id)).run
        yield run
        if run.stopped:
            return
        await asyncio.sleep(poll)
