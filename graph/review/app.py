"""The heartbeat app switch and the heartbeat plans (Modal; docs/rules/reviews.md).

Settings are one `AppSettings` node per deployment; a missing node or property means
`heartbeatEnabled` false. Plans are `HeartbeatPlan` nodes keyed by `configId`. Neither
write touches the other: toggling the switch creates, seeds or enables no plan, and saving
or deleting a plan leaves runs and checkpoints alone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.errors import NotFound
from engine.review.compose import story_scope
from engine.review.plans import HeartbeatPlan
from engine.review.settings import AppSettings
from graph.base import Store
from graph.review.codec import dumps
from graph.temporal import to_neo4j


class AppSettingsStore(Store):
    def __init__(self, driver: AsyncDriver, database: str, *, deployment: str) -> None:
        super().__init__(driver, database)
        self.deployment = deployment  # the arq queue name: a deployment's global records

    async def get(self) -> AppSettings:
        async def work(tx: AsyncManagedTransaction) -> AppSettings:
            rows = await self.rows(tx, "review/settings_get", key=self.deployment)
            if not rows:
                return AppSettings.from_stored(None)
            prefs = rows[0]["preferences"]
            return AppSettings.from_stored(
                {
                    "heartbeatEnabled": rows[0]["heartbeatEnabled"],
                    "preferences": json.loads(prefs) if prefs else {},
                }
            )

        return await self.read(work)

    async def put(self, settings: AppSettings, *, now: datetime) -> AppSettings:
        async def work(tx: AsyncManagedTransaction) -> None:
            await self.rows(
                tx,
                "review/settings_put",
                key=self.deployment,
                enabled=settings.heartbeat_enabled,
                preferences=dumps(settings.preferences),
                now=to_neo4j(now),
            )

        await self.write(work)
        return settings


def plan_row(plan: HeartbeatPlan, deployment: str) -> dict[str, object]:
    return {
        "config_id": plan.config_id,
        "deployment": deployment,
        "scope": story_scope(plan.scope),
        "scope_key": plan.scope.key,
        "name": plan.name,
        "enabled": plan.enabled,
        "created_at": to_neo4j(plan.created_at),
        "doc": dumps(plan.model_dump(mode="json")),
    }


class PlanStore(Store):
    def __init__(self, driver: AsyncDriver, database: str, *, deployment: str) -> None:
        super().__init__(driver, database)
        self.deployment = deployment  # the arq queue name: a deployment's global records

    async def saved(self, *, scopes: Sequence[str] | None = None) -> list[HeartbeatPlan]:
        """Every plan, or those of `scopes` (story scopes) when given."""

        async def work(tx: AsyncManagedTransaction) -> list[HeartbeatPlan]:
            rows = await self.rows(
                tx,
                "review/plans_list",
                deployment=self.deployment,
                scopes=list(scopes) if scopes is not None else None,
            )
            return [HeartbeatPlan.model_validate(json.loads(r["doc"])) for r in rows]

        return await self.read(work)

    async def get(self, config_id: str) -> HeartbeatPlan | None:
        async def work(tx: AsyncManagedTransaction) -> HeartbeatPlan | None:
            rows = await self.rows(
                tx, "review/plan_get", deployment=self.deployment, config_id=config_id
            )
            return HeartbeatPlan.model_validate(json.loads(rows[0]["doc"])) if rows else None

        return await self.read(work)

    async def put(self, plan: HeartbeatPlan) -> HeartbeatPlan:
        async def work(tx: AsyncManagedTransaction) -> None:
            await self.rows(tx, "review/plan_put", row=plan_row(plan, self.deployment))

        await self.write(work)
        return plan

    async def delete(self, config_id: str) -> None:
        async def work(tx: AsyncManagedTransaction) -> int:
            rows = await self.rows(
                tx, "review/plan_delete", deployment=self.deployment, config_id=config_id
            )
            return int(rows[0]["deleted"]) if rows else 0

        if not await self.write(work):
            raise NotFound("no plan with this config id", config_id=config_id)
