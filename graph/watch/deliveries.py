"""Where each hand-off's delivery stands (docs/rules/watches.md; engine/watch/delivery).

The delivery state lives on the `WatchHandOff` node (`delivery_status`, `delivery_attempts`,
`delivery_channel`, `delivery_error`, `delivery_next_attempt_at`, `delivered_at`): one
attempt is claimed at a time, and a delivered or dead hand-off is never claimed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.watch.delivery import Delivery
from engine.watch.model import HandOff
from graph.base import Store, rows
from graph.watch import codec


@dataclass(frozen=True)
class StoredHandOff:
    scope: str
    handoff: HandOff
    delivery: Delivery


def stored_handoff(props: Any) -> StoredHandOff:
    return StoredHandOff(str(props["scope"]), codec.handoff_from(props), codec.delivery_from(props))


class HandOffDeliveries(Store):
    async def claim(
        self, scope: str, execution_key: str, *, worker_id: str, now: datetime
    ) -> StoredHandOff | None:
        """Take one attempt (its number is `delivery.attempts`); None when there is nothing
        to deliver: unknown, already delivered or dead."""

        async def work(tx: AsyncManagedTransaction) -> StoredHandOff | None:
            found = await rows(
                tx,
                "watch/claim_handoff_delivery",
                scope=scope,
                execution_key=execution_key,
                worker_id=worker_id,
                now=now,
            )
            return stored_handoff(found[0]["h"]) if found else None

        result: StoredHandOff | None = await self.write(work)
        return result

    async def settle(self, scope: str, execution_key: str, delivery: Delivery) -> None:
        async def work(tx: AsyncManagedTransaction) -> None:
            await rows(
                tx,
                "watch/settle_handoff_delivery",
                scope=scope,
                execution_key=execution_key,
                props=codec.delivery_props(delivery),
            )

        await self.write(work)

    async def get(self, scope: str, execution_key: str) -> StoredHandOff | None:
        async def work(tx: AsyncManagedTransaction) -> StoredHandOff | None:
            found = await rows(tx, "watch/handoff_by_key", scope=scope, execution_key=execution_key)
            return stored_handoff(found[0]["h"]) if found else None

        result: StoredHandOff | None = await self.read(work)
        return result

    async def of_session(self, scope: str, session_id: str, limit: int) -> list[StoredHandOff]:
        async def work(tx: AsyncManagedTransaction) -> list[StoredHandOff]:
            found = await rows(
                tx, "watch/handoffs_of_session", scope=scope, session_id=session_id, limit=limit
            )
            return [stored_handoff(r["h"]) for r in found]

        result: list[StoredHandOff] = await self.read(work)
        return result
