"""Signals read time-sliced: the signals of a scope believed at asOf, paged in the
database after a keyset; `reader` role, another scope's signals are NOT_FOUND."""

from __future__ import annotations

from datetime import datetime

from engine.page import Page
from engine.principal import Principal
from engine.scope import require_scope
from engine.signal.model import SignalKind, SignalStatus
from engine.signal.stored import Signal
from jobs.deps import Deps, as_of_now
from jobs.signal.record import signal_store


async def signals_page(
    deps: Deps,
    principal: Principal,
    scope: str,
    first: int,
    *,
    as_of: datetime | None = None,
    after: str | None = None,
    kind: SignalKind | None = None,
    status: SignalStatus | None = None,
    with_total: bool = False,
) -> Page[Signal]:
    """Signals believed at asOf (default now; a time without a zone is INVALID_INPUT) in id
    order after the keyset `after` (the last id read); their count when asked for."""
    scope = require_scope(principal, "reader", scope)
    return await signal_store(deps).page(
        scope,
        as_of=as_of_now(deps, as_of),
        kind=kind.value if kind is not None else None,
        status=status.value if status is not None else None,
        first=first,
        after_id=after,
        with_total=with_total,
    )
