"""Reading the cost ledger: `costLedger(scope, from, to)` and a run's cost.

The reader role on the scope is checked first (FORBIDDEN, naming no scope); both bounds must
carry a zone and `from` must not be after `to` (INVALID_INPUT). `to` defaults to now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.clock import instant, utc
from engine.llm.ledger import CostLine, CostSum
from engine.principal import Principal
from engine.scope import require_scope
from engine.story.diff import check_window
from graph.llm.ledger import CostLedger, call_totals
from jobs.deps import Deps


@dataclass(frozen=True)
class CostAnswer:
    scope: str
    since: datetime
    until: datetime
    lines: list[CostLine]


def ledger_of(deps: Deps) -> CostLedger:
    return CostLedger(deps.driver, deps.database)


async def cost_ledger(
    deps: Deps, principal: Principal, scope: str, *, since: datetime, until: datetime | None
) -> CostAnswer:
    scope = require_scope(principal, "reader", scope)
    start = instant(since, "from")
    end = instant(until, "to") or utc(deps.clock())
    check_window(start, end)
    lines = await ledger_of(deps).in_scope(scope, start, end)
    return CostAnswer(scope=scope, since=start, until=end, lines=lines)


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
