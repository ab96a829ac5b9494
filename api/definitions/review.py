"""Supervision review queries, mutations and the runProgress subscription (seed 004 监督者).

Manual requests go through the app switch (DISABLED while off) and the one-review lease
(BUSY while another review runs or stops, never queued); edits that do not fit the run's
state are CONFLICT. Reads never trigger execution.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import Connection, Edge, PageInfo, paginate
from api.definitions.review_types import (
    Activity,
    AppSettings,
    HeartbeatRun,
    Plan,
    PlanInput,
    ReviewScopeInput,
    RunProgress,
    SupervisionRun,
    run_progress,
)
from engine.errors import InvalidInput, NotFound, StorygraphError
from engine.review import activity as act
from engine.review import heartbeat as hb
from engine.review import plans as pl
from engine.review.compose import GLOBAL_STORY_SCOPE
from engine.review.plans import HeartbeatPlan
from engine.review.settings import set_heartbeat_enabled
from engine.review.types import Scope, Trigger
from graph.review.codec import StoredRun
from jobs.tasks.heartbeat import HEARTBEAT_REPORT
from jobs.tasks.review_ops import cancel_review, continue_review, new_id, pause_review, start_review
from jobs.tasks.review_services import ReviewServices

POLL_SECONDS = 0.5


def services(info: Info[Context, None]) -> ReviewServices:
    c = info.context
    return ReviewServices(settings=c.settings, driver=c.driver, worker_id="api", pool=c.pool)


def story_scopes(scope: Scope) -> list[str]:
    """The story scopes (project ids, or global) a review scope reads and writes."""
    return [GLOBAL_STORY_SCOPE] if scope.is_global else list(scope.project_ids)


def usable_scope(ctx: Context, role: str, scope: ReviewScopeInput) -> Scope:
    """A review scope argument: FORBIDDEN (naming no scope) unless the caller may use all of
    it, checked before anything is claimed."""
    model = scope.to_model()
    for s in story_scopes(model):
        ctx.require(role, s)
    return model


def seen(ctx: Context, role: str, scope: Scope | None, missing: StorygraphError) -> None:
    """A stored run or plan of `scope` reads as `missing` unless the caller may use it."""
    for s in story_scopes(scope) if scope is not None else [None]:
        ctx.visible(role, s, missing)


def no_run(run_id: str) -> NotFound:
    return NotFound("no such supervision run", id=run_id)


def no_plan(config_id: str) -> NotFound:
    return NotFound("no plan with this config id", config_id=config_id)


async def visible_run(info: Info[Context, None], role: str, run_id: str) -> StoredRun:
    stored = await services(info).runs.get(run_id)
    seen(info.context, role, stored.run.scope, no_run(run_id))
    return stored


async def visible_plan(info: Info[Context, None], role: str, config_id: str) -> HeartbeatPlan:
    plan = await services(info).plans.get(config_id)
    if plan is None:
        raise no_plan(config_id)
    seen(info.context, role, plan.scope, no_plan(config_id))
    return plan


def _lang(info: Info[Context, None]) -> act.Lang:
    return "en" if info.context.settings.locale.startswith("en") else "zh"


@strawberry.type
class Query:
    @strawberry.field(description="App settings; a missing heartbeatEnabled reads as false.")
    async def settings(self, info: Info[Context, None]) -> AppSettings:
        info.context.require("reader")
        s = await services(info).app.get()
        return AppSettings(heartbeat_enabled=s.heartbeat_enabled)

    @strawberry.field(description="Saved heartbeat plans, told apart by configId.")
    async def plans(self, info: Info[Context, None]) -> list[Plan]:
        scopes = info.context.require("reader").visible_scopes()
        return [Plan.from_model(p) for p in await services(info).plans.saved(scopes=scopes)]

    @strawberry.field
    async def supervision_runs(
        self,
        info: Info[Context, None],
        scope: ReviewScopeInput | None = None,
        first: int | None = None,
        after: str | None = None,
    ) -> Connection[SupervisionRun]:
        scopes = info.context.require("reader").visible_scopes()
        key = usable_scope(info.context, "reader", scope).key if scope else None
        stored = await services(info).runs.recent(scope_key=key, scopes=scopes)
        return paginate([SupervisionRun.from_model(s.run) for s in stored], first, after)

    @strawberry.field
    async def supervision_run(self, info: Info[Context, None], id: str) -> SupervisionRun:
        return SupervisionRun.from_model((await visible_run(info, "reader", id)).run)

    @strawberry.field(description="Heartbeats joined to supervision runs by saved run id.")
    async def activity(
        self,
        info: Info[Context, None],
        statuses: list[str] | None = None,
        scope: ReviewScopeInput | None = None,
        config_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> Connection[Activity]:
        scopes = info.context.require("reader").visible_scopes()
        if scope is not None:
            usable_scope(info.context, "reader", scope)
        svc = services(info)
        try:
            flt = act.ActivityFilter(
                statuses=frozenset(act.ActivityStatus(s) for s in statuses) if statuses else None,
                scope_key=scope.to_model().key if scope else None,
                config_id=config_id,
                since=since,
                until=until,
            )
        except ValueError as exc:
            raise InvalidInput("invalid activity filter", problem=str(exc)) from None
        rows = act.build_activity(
            await svc.heartbeats.recent(scopes=scopes),
            [s.run for s in await svc.runs.recent(scopes=scopes)],
        )
        page = act.select_activity(rows, flt, first=first, after=after)
        lang = _lang(info)
        edges = [Edge(cursor=r.id, node=Activity.from_model(r, lang)) for r in page.rows]
        return Connection(
            edges=edges,
            page_info=PageInfo(
                has_next_page=page.has_next_page,
                has_previous_page=after is not None,
                start_cursor=edges[0].cursor if edges else None,
                end_cursor=page.end_cursor,
            ),
            total_count=page.total_count,
        )


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Flip the app switch; creates, seeds or enables no plan.")
    async def set_heartbeat_enabled(self, info: Info[Context, None], enabled: bool) -> AppSettings:
        info.context.require("admin")  # the app switch holds for every scope
        svc = services(info)
        saved = await svc.app.put(
            set_heartbeat_enabled(await svc.app.get(), enabled), now=svc.now()
        )
        return AppSettings(heartbeat_enabled=saved.heartbeat_enabled)

    @strawberry.mutation(
        description="Save a plan draft: a new one is saved enabled; an edit keeps enabled."
    )
    async def save_plan(self, info: Info[Context, None], plan: PlanInput) -> Plan:
        info.context.require("operator")
        usable_scope(info.context, "operator", plan.scope)
        svc = services(info)
        draft = pl.draft_from_input(plan.to_data())
        existing = (
            await visible_plan(info, "operator", draft.config_id) if draft.config_id else None
        )
        saved = pl.save_plan(draft, existing, new_config_id=new_id("cfg"), now=svc.now())
        return Plan.from_model(await svc.plans.put(saved.plan))

    @strawberry.mutation(description="Delete a plan; runs, history and progress stay.")
    async def delete_plan(self, info: Info[Context, None], config_id: str) -> bool:
        await visible_plan(info, "operator", config_id)
        await services(info).plans.delete(config_id)
        return True

    @strawberry.mutation(
        description="A fresh heartbeat report now; its supervision follows automatic progress."
    )
    async def run_plan_now(self, info: Info[Context, None], config_id: str) -> HeartbeatRun:
        plan = await visible_plan(info, "operator", config_id)
        svc = services(info)
        run = hb.run_plan_now(
            plan,
            await svc.app.get(),
            run_id=new_id("hb"),
            worker_id="api",
            now=svc.now(),
            timeout=svc.stage_timeout,
        )
        await svc.heartbeats.claim(run, f"manual:{run.run_id}")
        await info.context.pool.enqueue_job(
            HEARTBEAT_REPORT,
            run_id=run.run_id,
            _job_id=f"{HEARTBEAT_REPORT}:{run.run_id}",
            _queue_name=svc.settings.queue_name,
        )
        return HeartbeatRun.from_model(run)

    @strawberry.mutation(
        description="Re-read [from, to) of a scope now; BUSY while another review runs."
    )
    async def start_review(
        self,
        info: Info[Context, None],
        scope: ReviewScopeInput,
        from_: Annotated[datetime, strawberry.argument(name="from")],
        to: datetime,
    ) -> SupervisionRun:
        model = usable_scope(info.context, "operator", scope)
        got = await start_review(
            services(info), model, trigger=Trigger.MANUAL, interval=(from_, to)
        )
        assert isinstance(got, tuple)  # manual requests never wait: BUSY is raised
        return SupervisionRun.from_model(got[0])

    @strawberry.mutation(description="Resume a paused or failed run; committed batches are kept.")
    async def continue_review(self, info: Info[Context, None], id: str) -> SupervisionRun:
        await visible_run(info, "operator", id)
        got = await continue_review(services(info), id, trigger=Trigger.MANUAL)
        assert isinstance(got, tuple)
        return SupervisionRun.from_model(got[0])

    @strawberry.mutation
    async def pause_review(self, info: Info[Context, None], id: str) -> SupervisionRun:
        await visible_run(info, "operator", id)
        return SupervisionRun.from_model(await pause_review(services(info), id))

    @strawberry.mutation(
        description="Stored cancelled at once; reads cancelling until execution stops."
    )
    async def cancel_review(self, info: Info[Context, None], id: str) -> SupervisionRun:
        await visible_run(info, "operator", id)
        return SupervisionRun.from_model(await cancel_review(services(info), id))


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="Stage progress of a run, from its stored records, until it ends."
    )
    async def run_progress(
        self, info: Info[Context, None], run_id: str
    ) -> AsyncGenerator[RunProgress, None]:
        await visible_run(info, "reader", run_id)
        svc = services(info)
        last: RunProgress | None = None
        while True:
            run = (await svc.runs.get(run_id)).run
            current = run_progress(run)
            if current != last:
                yield current
                last = current
            if run.stopped:
                return
            await asyncio.sleep(POLL_SECONDS)
