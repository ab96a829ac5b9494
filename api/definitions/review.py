"""Supervision review queries, mutations and the runProgress subscription (docs/rules/reviews.md).

Manual requests go through the app switch (DISABLED while off) and the one-review lease
(BUSY while another review runs or stops, never queued); edits that do not fit the run's
state are CONFLICT. Reads never trigger execution.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import Connection, connection, page_size, wants_total
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
from api.paging import ACTIVITY, RUNS, read_after
from engine.language.lang import Lang, lang_of
from jobs.review import plans, reads, runs

POLL_SECONDS = 0.5


def _lang(info: Info[Context, None]) -> Lang:
    return lang_of(info.context.settings.locale)


@strawberry.type
class Query:
    @strawberry.field(description="App settings; a missing heartbeatEnabled reads as false.")
    async def settings(self, info: Info[Context, None]) -> AppSettings:
        s = await reads.app_settings(info.context.deps, info.context.caller())
        return AppSettings(heartbeat_enabled=s.heartbeat_enabled)

    @strawberry.field(description="Saved heartbeat plans, told apart by configId.")
    async def plans(self, info: Info[Context, None]) -> list[Plan]:
        ctx = info.context
        return [Plan.from_model(p) for p in await reads.list_plans(ctx.deps, ctx.caller())]

    @strawberry.field
    async def supervision_runs(
        self,
        info: Info[Context, None],
        scope: ReviewScopeInput | None = None,
        first: int | None = None,
        after: str | None = None,
    ) -> Connection[SupervisionRun]:
        ctx = info.context
        page = await read_after(
            RUNS,
            after,
            lambda key: reads.page_runs(
                ctx.deps,
                ctx.caller(),
                scope=scope.to_model() if scope else None,
                first=page_size(first, ctx.settings.page_max_first),
                after=key,
                with_total=wants_total(info),
            ),
        )
        return connection(page, SupervisionRun.from_model)

    @strawberry.field
    async def supervision_run(self, info: Info[Context, None], id: str) -> SupervisionRun:
        ctx = info.context
        return SupervisionRun.from_model(await reads.get_run(ctx.deps, ctx.caller(), id))

    @strawberry.field(
        description="One heartbeat run with its report; NOT_FOUND once its plan's retention "
        "removed it (its supervision run and result stay readable)."
    )
    async def heartbeat_run(self, info: Info[Context, None], id: str) -> HeartbeatRun:
        ctx = info.context
        run, report = await reads.heartbeat_run(ctx.deps, ctx.caller(), id)
        return HeartbeatRun.from_model(run, report)

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
        ctx = info.context
        page = await read_after(
            ACTIVITY,
            after,
            lambda key: reads.activity(
                ctx.deps,
                ctx.caller(),
                statuses=statuses,
                scope=scope.to_model() if scope else None,
                config_id=config_id,
                since=since,
                until=until,
                first=page_size(first, ctx.settings.page_max_first),
                after=key,
                with_total=wants_total(info),
            ),
        )
        lang = _lang(info)
        return connection(page, lambda r: Activity.from_model(r, lang))


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Flip the app switch; creates, seeds or enables no plan.")
    async def set_heartbeat_enabled(self, info: Info[Context, None], enabled: bool) -> AppSettings:
        ctx = info.context
        saved = await plans.set_heartbeat_enabled(ctx.deps, ctx.caller(), enabled)
        return AppSettings(heartbeat_enabled=saved.heartbeat_enabled)

    @strawberry.mutation(
        description="Save a plan draft: a new one is saved enabled; an edit keeps enabled."
    )
    async def save_plan(self, info: Info[Context, None], plan: PlanInput) -> Plan:
        ctx = info.context
        saved = await plans.save_plan(ctx.deps, ctx.caller(), plan.scope.to_model(), plan.to_data())
        return Plan.from_model(saved)

    @strawberry.mutation(description="Delete a plan; runs, history and progress stay.")
    async def delete_plan(self, info: Info[Context, None], config_id: str) -> bool:
        await plans.delete_plan(info.context.deps, info.context.caller(), config_id)
        return True

    @strawberry.mutation(
        description="A fresh heartbeat report now; its supervision follows automatic progress."
    )
    async def run_plan_now(self, info: Info[Context, None], config_id: str) -> HeartbeatRun:
        ctx = info.context
        return HeartbeatRun.from_model(await plans.run_plan_now(ctx.deps, ctx.caller(), config_id))

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
        ctx = info.context
        run = await runs.start_review(ctx.deps, ctx.caller(), scope.to_model(), from_, to)
        return SupervisionRun.from_model(run)

    @strawberry.mutation(description="Resume a paused or failed run; committed batches are kept.")
    async def continue_review(self, info: Info[Context, None], id: str) -> SupervisionRun:
        ctx = info.context
        return SupervisionRun.from_model(await runs.continue_review(ctx.deps, ctx.caller(), id))

    @strawberry.mutation
    async def pause_review(self, info: Info[Context, None], id: str) -> SupervisionRun:
        ctx = info.context
        return SupervisionRun.from_model(await runs.pause_review(ctx.deps, ctx.caller(), id))

    @strawberry.mutation(
        description="Stored cancelled at once; reads cancelling until execution stops."
    )
    async def cancel_review(self, info: Info[Context, None], id: str) -> SupervisionRun:
        ctx = info.context
        return SupervisionRun.from_model(await runs.cancel_review(ctx.deps, ctx.caller(), id))


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="Stage progress of a run, from its stored records, until it ends."
    )
    async def run_progress(
        self, info: Info[Context, None], run_id: str
    ) -> AsyncGenerator[RunProgress, None]:
        ctx = info.context
        last: RunProgress | None = None
        with ctx.subscription_slot():
            async for run in reads.follow_run(ctx.deps, ctx.caller(), run_id, poll=POLL_SECONDS):
                current = run_progress(run)
                if current != last:
                    yield current
                    last = current
