"""Reading the cost ledger: `costLedger(scope, from, to)` and a run's cost.

The reader role on the scope is checked first (FORBIDDEN, naming no scope); both bounds must
carry a zone and `from` must not be after `to` (INVALID_INPUT). `to` defaults to now. The
sums cover the whole window; its lines are read a page at a time after a keyset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.clock import instant, utc
from engine.llm.ledger import CostLine, CostSum
from engine.page import Page
from engine.principal import Principal
from engine.scope import require_scope
from engine.story.diff import check_window
from graph.llm.ledger import CostLedger, KeyedLine, LedgerSums, call_totals
from jobs.deps import Deps


@dataclass(frozen=True)
class CostAnswer:
    scope: str
    since: datetime
    until: datetime
    sums: LedgerSums


def ledger_of(deps: Deps) -> CostLedger:
    return CostLedger(deps.driver, deps.database)


async def cost_ledger(
    deps: Deps, principal: Principal, scope: str, *, since: datetime, until: datetime | None
) -> CostAnswer:
    """The window's sums (in all, per stage and model, per run, concern and watch)."""
    scope, start, end = _window(deps, principal, scope, since, until)
    sums = await ledger_of(deps).sums(scope, start, end)
    return CostAnswer(scope=scope, since=start, until=end, sums=sums)


async def cost_lines(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    since: datetime,
    until: datetime | None,
    first: int,
    after: str | None = None,
    with_total: bool = False,
) -> Page[KeyedLine]:
    """One page of the window's lines (per owner, stage and model) after the keyset `after`."""
    scope, start, end = _window(deps, principal, scope, since, until)
    return await ledger_of(deps).lines_page(
        scope, start, end, first=first, after=after, with_total=with_total
    )


def _window(
    deps: Deps, principal: Principal, scope: str, since: datetime, until: datetime | None
) -> tuple[str, datetime, datetime]:
    scope = require_scope(principal, "reader", scope)
    start = instant(since, "from")
    end = instant(until, "to") or utc(deps.clock())
    check_window(start, end)
    return scope, start, end


async def run_cost(deps: Deps, principal: Principal, scope: str, run_id: str) -> list[CostLine]:
    """The ledger lines of one supervision run of `scope` (per batch, stage and model)."""
    require_scope(principal, "reader", scope)
    return await ledger_of(deps).of_runs([run_id])


async def owner_costs(deps: Deps, owner: str, ids: Sequence[str]) -> list[CostSum]:
    """The summed calls of concerns or watches (`owner`: "concern" or "watch") the caller
    has already read (their scope was checked by that read), in the order of `ids`."""
    if owner == "concern":
        return await ledger_of(deps).of_concerns(ids)
    return await ledger_of(deps).of_watches(ids)


async def ledger_totals(deps_driver: Any, database: str) -> list[tuple[str, str, int, int, int]]:
    """The deployment-wide totals per stage and model (for /metrics; no scope, no caller)."""
    return await call_totals(CostLedger(deps_driver, database))
