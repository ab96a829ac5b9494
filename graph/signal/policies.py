"""The per-scope agenda policy, versioned: each save is a new immutable
AgendaPolicyVersion node; the newest is current; a scope that never saved one has the
defaults (`AgendaPolicy()`, version 1)."""

from __future__ import annotations

import json
from datetime import datetime

from neo4j import AsyncManagedTransaction, Record

from engine.errors import Conflict
from engine.signal.policy import AgendaPolicy
from graph.base import Store
from graph.temporal import from_neo4j, to_neo4j


class AgendaPolicies(Store):
    async def current(self, scope: str) -> tuple[AgendaPolicy, str, datetime | None]:
        """The current policy, who saved it and when (defaults: "", None)."""
        return _decoded(await self.read_one("signal/agenda_policy_current", scope=scope))

    async def current_in(self, tx: AsyncManagedTransaction, scope: str) -> AgendaPolicy:
        """The current policy read inside the caller's transaction (the publish stage)."""
        rows = await self.rows(tx, "signal/agenda_policy_current", scope=scope)
        return _decoded(rows)[0]

    async def save(
        self, scope: str, policy: AgendaPolicy, *, seen_version: int, by: str, now: datetime
    ) -> AgendaPolicy:
        """A new version after `seen_version`; a stale one is CONFLICT and writes nothing."""
        current, _, _ = await self.current(scope)
        if current.version != seen_version:
            raise Conflict(
                "the agenda policy changed since you read it",
                seen_version=seen_version,
                current_version=current.version,
            )
        saved = policy.model_copy(update={"version": seen_version + 1})
        row = {
            "scope": scope,
            "version": saved.version,
            "policy": json.dumps(saved.model_dump(mode="json", exclude={"version"})),
            "by": by,
            "recorded_at": to_neo4j(now),
        }

        async def work(tx):  # type: ignore[no-untyped-def]
            return await self.rows(tx, "signal/write_agenda_policy", row=row)

        await self.write(work)
        return saved


def _decoded(rows: list[Record]) -> tuple[AgendaPolicy, str, datetime | None]:
    if not rows:
        return AgendaPolicy(), "", None
    p = rows[0]["p"]
    policy = AgendaPolicy.model_validate({**json.loads(p["policy"]), "version": p["version"]})
    return policy, str(p["by"]), from_neo4j(p["recorded_at"])
