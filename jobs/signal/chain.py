"""The loop's links for the surfaces: a page of signals' concerns, a page
of concerns' signals, the concerns that brought a page of versions. `reader` role; another
scope's concern or signal is absent (null), exactly like a missing one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engine.concern.model import Concern
from engine.errors import NotFound
from engine.principal import Principal
from engine.scope import require_scope
from engine.signal.stored import Signal
from engine.story.sources import excerpt
from engine.story.views import Excerpt
from graph.signal.chain import SignalChain
from jobs.deps import Deps, as_of_now


def _chain(deps: Deps) -> SignalChain:
    return SignalChain(deps.driver, deps.database)


async def concerns_of_signals(
    deps: Deps, principal: Principal, scope: str, rows: Sequence[tuple[str, str | None]]
) -> dict[str, Concern]:
    """Per (signal id, decided concern id): the concern it raised or supplemented."""
    scope = require_scope(principal, "reader", scope)
    return await _chain(deps).concerns_of_signals(scope, rows)


async def concerns_by_ids(
    deps: Deps, principal: Principal, scope: str, ids: Sequence[str]
) -> dict[str, Concern]:
    """The concerns of `scope` among `ids` (the concerns whose answers wrote versions)."""
    scope = require_scope(principal, "reader", scope)
    return await _chain(deps).concerns_by_ids(scope, sorted(set(ids)))


async def signals_by_ids(deps: Deps, principal: Principal, ids: Sequence[str]) -> dict[str, Signal]:
    """The signals (as believed now) the concerns were raised for, of scopes the caller
    may read."""
    principal.require("reader")
    found = await _chain(deps).signals_by_ids(sorted(set(ids)), as_of=as_of_now(deps, None))
    return {i: s for i, s in found.items() if principal.can_scope(s.scope)}


async def passages(
    deps: Deps, principal: Principal, scope: str, keys: Sequence[tuple[str, str, str]]
) -> dict[tuple[str, str, str], Excerpt]:
    """The cited text of each (source id, version, locator) a page of signals stands on, from
    exactly that version (or why it is unavailable), in one read."""
    scope = require_scope(principal, "reader", scope)
    stored = await _chain(deps).passage_versions(scope, sorted({(s, v) for s, v, _ in keys}))
    return {
        k: excerpt(k[0], k[1], k[2], stored.get((k[0], k[1])), deps.settings.locale) for k in keys
    }


async def signal_at(
    deps: Deps, principal: Principal, scope: str, signal_id: str, *, as_of: datetime | None
) -> Signal:
    """One signal as believed at asOf (default now); another scope's reads as missing."""
    scope = require_scope(principal, "reader", scope)
    found = await _chain(deps).signals_by_ids([signal_id], as_of=as_of_now(deps, as_of))
    signal = found.get(signal_id)
    if signal is None or signal.scope != scope:
        raise NotFound(f"no signal {signal_id} in this scope", id=signal_id)
    return signal
