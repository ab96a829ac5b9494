"""Channel health records in Neo4j: one `(:ChannelHealth {scope, channel})` per channel."""

from __future__ import annotations

from datetime import datetime

from engine.concern.channel_health import ChannelHealth, after_failure, after_success, unreachable
from graph.base import Store
from graph.concern.codec import utc
from graph.temporal import from_neo4j


class ChannelHealthStore(Store):
    async def load(self, scope: str) -> dict[str, ChannelHealth]:
        records = await self.query("concern/channel_health_of_scope", scope=scope)
        return {
            r["channel"]: ChannelHealth(
                channel=r["channel"],
                consecutive_failures=r["consecutive_failures"],
                last_failure_at=from_neo4j(r["last_failure_at"]),
                last_error=r["last_error"] or "",
            )
            for r in records
        }

    async def _save(self, scope: str, health: ChannelHealth) -> None:
        await self.query(
            "concern/channel_health_save",
            write=True,
            scope=scope,
            channel=health.channel,
            consecutive_failures=health.consecutive_failures,
            last_failure_at=utc(health.last_failure_at),
            last_error=health.last_error,
        )

    async def record_delivery(
        self, scope: str, channel: str, *, now: datetime, error: str | None
    ) -> None:
        """Count a failed send, or reset the count after a good one (only when failing)."""
        if not channel:
            return
        current = (await self.load(scope)).get(channel, ChannelHealth(channel))
        if error is not None:
            await self._save(scope, after_failure(current, now, error))
        elif current.consecutive_failures:
            await self._save(scope, after_success(current))

    async def unreachable(self, scope: str, now: datetime) -> frozenset[str]:
        return unreachable((await self.load(scope)).values(), now)
