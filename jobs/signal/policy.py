"""The per-scope agenda policy read and edited: `operator` (or `admin`) role; a
save names the version it was made against, and a stale one is CONFLICT (nothing written)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine.principal import Principal
from engine.scope import require_scope
from engine.signal.model import SignalKind
from engine.signal.policy import AgendaPolicy, KindRule
from graph.signal.policies import AgendaPolicies
from jobs.deps import Deps


@dataclass(frozen=True)
class PolicyEdit:
    loop_enabled: bool
    owner_person_id: str | None
    owner_name: str
    owner_channel: str
    act_on: frozenset[SignalKind]  # the kinds the agenda acts on; the others are ignored


@dataclass(frozen=True)
class StoredPolicy:
    policy: AgendaPolicy
    by: str
    recorded_at: datetime | None


def policies(deps: Deps) -> AgendaPolicies:
    return AgendaPolicies(deps.driver, deps.database)


async def agenda_policy(deps: Deps, principal: Principal, scope: str) -> StoredPolicy:
    scope = require_scope(principal, "operator", scope)
    return StoredPolicy(*await policies(deps).current(scope))


async def save_agenda_policy(
    deps: Deps, principal: Principal, scope: str, edit: PolicyEdit, *, seen_version: int
) -> StoredPolicy:
    scope = require_scope(principal, "operator", scope)
    current, _, _ = await policies(deps).current(scope)
    kinds = {
        str(k): current.rule(k).model_copy(update={"act": k in edit.act_on}) for k in SignalKind
    }
    policy = current.model_copy(
        update={
            "loop_enabled": edit.loop_enabled,
            "owner_person_id": edit.owner_person_id or None,
            "owner_name": edit.owner_name,
            "owner_channel": edit.owner_channel,
            **{k: KindRule.model_validate(v.model_dump()) for k, v in kinds.items()},
        }
    )
    now = deps.clock()
    saved = await policies(deps).save(
        scope, policy, seen_version=seen_version, by=principal.actor_id(None), now=now
    )
    return StoredPolicy(saved, principal.actor_id(None), now)
