"""`costLedger(scope, from, to)` and the `cost` of a supervision run: what the model work
cost, from the ledger of model calls (`jobs.cost`)."""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.dataloader import DataLoader
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import Connection, connection, page_size, wants_total
from api.paging import COST_LINES, read_after
from engine.llm import ledger as lg
from jobs import cost as use_case


@strawberry.type(description="Summed model calls: tokens as the responses' usage reported them.")
class Cost:
    calls: int
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    retries: int
    estimated_calls: int = strawberry.field(
        description="Calls whose server omitted usage: their tokens are ceil(characters / 4)."
    )


def cost_type(s: lg.CostSum) -> Cost:
    return Cost(
        calls=s.calls,
        prompt_tokens=s.prompt_tokens,
        completion_tokens=s.completion_tokens,
        tokens=s.tokens,
        retries=s.retries,
        estimated_calls=s.estimated_calls,
    )


@strawberry.type(
    description="The calls of one owner (run and batch, concern, watch), stage and model."
)
class CostLine:
    stage: str
    model: str
    run_id: str | None
    batch: str | None
    concern_id: str | None
    watch_id: str | None
    cost: Cost


@strawberry.type
class OwnerCost:
    id: str
    cost: Cost


@strawberry.type
class StageCost:
    stage: str
    model: str
    cost: Cost


@strawberry.type(description="What the model work of a scope cost in [from, to).")
class CostLedger:
    scope: str
    since: datetime
    until: datetime
    total: Cost
    by_stage: list[StageCost]
    by_run: list[OwnerCost]
    by_concern: list[OwnerCost]
    by_watch: list[OwnerCost]

    @strawberry.field(
        description=(
            "The calls per owner (run and batch, concern, watch), stage and model, in the "
            "order of run, batch, stage, model, concern and watch, paged in the database."
        )
    )
    async def lines(
        self, info: Info[Context, None], first: int | None = 50, after: str | None = None
    ) -> Connection[CostLine]:
        ctx = info.context
        page = await read_after(
            COST_LINES,
            after,
            lambda key: use_case.cost_lines(
                ctx.deps,
                ctx.caller(),
                self.scope,
                since=self.since,
                until=self.until,
                first=page_size(first, ctx.settings.page_max_first),
                after=key,
                with_total=wants_total(info),
            ),
        )
        return connection(page, lambda keyed: line_type(keyed.line))


@strawberry.type(description="What a supervision run's model calls cost, in all and per batch.")
class RunCost:
    total: Cost
    lines: list[CostLine]


def line_type(line: lg.CostLine) -> CostLine:
    return CostLine(
        stage=line.stage,
        model=line.model,
        run_id=line.run_id,
        batch=line.batch,
        concern_id=line.concern_id,
        watch_id=line.watch_id,
        cost=cost_type(line.cost),
    )


def owner_costs(sums: list[tuple[str, lg.CostSum]]) -> list[OwnerCost]:
    return [OwnerCost(id=key, cost=cost_type(s)) for key, s in sums]


def run_cost_type(lines: list[lg.CostLine]) -> RunCost:
    return RunCost(total=cost_type(lg.sum_lines(lines)), lines=[line_type(x) for x in lines])


def owner_cost(info: Info[Context, None], owner: str, owner_id: str) -> Awaitable[Cost]:
    """A concern's or a watch's cost through the request's loader: a page of them costs one
    query, whatever its size."""
    ctx = info.context

    async def load(ids: list[str]) -> list[Cost]:
        return [cost_type(s) for s in await use_case.owner_costs(ctx.deps, owner, ids)]

    loader = ctx.loader(f"cost:{owner}", lambda: DataLoader[str, Cost](load_fn=load))
    return loader.load(owner_id)


async def resolve_run_cost(info: Info[Context, None], scope: str, run_id: str) -> RunCost:
    ctx = info.context
    return run_cost_type(await use_case.run_cost(ctx.deps, ctx.caller(), scope, run_id))


@strawberry.type
class Query:
    @strawberry.field(
        description=(
            "The cost ledger of a scope in [from, to): model calls, prompt and completion "
            "tokens, retries and estimated calls, in all, per stage and model, per run, "
            "concern and watch, and per batch. to defaults to now; times need a zone."
        )
    )
    async def cost_ledger(
        self,
        info: Info[Context, None],
        scope: str,
        from_: Annotated[datetime, strawberry.argument(name="from")],
        to: datetime | None = None,
    ) -> CostLedger:
        ctx = info.context
        got = await use_case.cost_ledger(ctx.deps, ctx.caller(), scope, since=from_, until=to)
        sums = got.sums
        return CostLedger(
            scope=got.scope,
            since=got.since,
            until=got.until,
            total=cost_type(sums.total),
            by_stage=[
                StageCost(stage=stage, model=model, cost=cost_type(s))
                for stage, model, s in sums.by_stage
            ],
            by_run=owner_costs(sums.by_run),
            by_concern=owner_costs(sums.by_concern),
            by_watch=owner_costs(sums.by_watch),
        )
