"""Scopes as a whole: list the scopes a caller may read, with what each
holds, and delete one (admin).

A limited token sees exactly its own scopes (those it names, whether or not they hold
anything yet), so `scopes` never lists or counts another scope; an all-scope token sees
every scope that holds data. Deleting a scope is an all-scope operation: `admin` only.
"""

from __future__ import annotations

import logging

from engine.clock import utc
from engine.principal import Principal
from engine.scope import require_scope
from graph.scopes import ScopeCounts, ScopeDeleted, ScopeStore
from jobs import past_epoch
from jobs.deps import Deps

log = logging.getLogger(__name__)


def _store(deps: Deps) -> ScopeStore:
    return ScopeStore(deps.driver, deps.database)


async def list_scopes(deps: Deps, principal: Principal) -> list[ScopeCounts]:
    """The scopes `principal` may read, each with its counts, by name."""
    principal.require("reader")
    store = _store(deps)
    own = sorted(s for s in principal.scopes if s != "*")
    names = sorted(set(own) | set(await store.names())) if principal.all_scopes else own
    return sorted(await store.counts(names), key=lambda c: c.scope) if names else []


async def delete_scope(deps: Deps, principal: Principal, scope: str) -> ScopeDeleted:
    """Delete every node of `scope` (batched, in transactions) and record who did it."""
    require_scope(principal, "admin", scope)
    await past_epoch.move(deps.pool, scope)  # cached past answers of the scope stop
    done = await _store(deps).delete(
        scope, record_id=deps.ids("scopedel"), by=principal.name, at=utc(deps.clock())
    )
    await past_epoch.move(deps.pool, scope)
    log.warning(
        "scope deleted",
        extra={
            "fields": {
                "scope": scope,
                "by": done.by,
                "deleted_nodes": done.deleted_nodes,
                "record": done.id,
            }
        },
    )
    return done


async def scope_known(deps: Deps, principal: Principal, scope: str) -> bool:
    """Whether anything is recorded in `scope` (story data, a source, a concern or a watch):
    a read of a scope that holds nothing answers empty lists and says so with this, so a
    mistyped scope is named rather than silent (docs/scopes.md)."""
    scope = require_scope(principal, "reader", scope)
    (held,) = await _store(deps).counts([scope])
    return any(
        (held.events, held.entities, held.relations, held.sources, held.concerns, held.watches)
    )


async def holds_data(deps: Deps, scope: str) -> bool:
    """Whether `scope` holds any story data or source now (a scope that does not is
    answered like a missing one); the caller checked the principal already."""
    (held,) = await _store(deps).counts([scope])
    return any((held.events, held.entities, held.relations, held.sources))
