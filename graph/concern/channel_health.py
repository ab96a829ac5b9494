"""Channel health records in Neo4j: one `(:ChannelHealth {scope, channel})` per channel."""

from __future__ import annotations

from datetime import datetime

from neo4j import AsyncDriver

from engine.concern.channel_health import ChannelHealth, after_failure, after_success, unreachable
from graph.concern.codec import utc
from graph.queries import queries


async def load(driver: AsyncDriver, database: str, scope: str) -> dict[str, ChannelHealth]:
    records, _, _ = await driver.execute_query(
        queries()["concern/channel_health_of_scope"], scope=scope, database_=database, routing_="r"
    )
    return {
        r["channel"]: ChannelHealth(
            channel=r["channel"],
            consecutive_failures=r["consecutive_failures"],
            last_failure_at=r["last_failure_at"].to_native() if r["last_failure_at"] else None,
            last_error=r["last_error"] or "",
        )
        for r in records
    }


async def _save(driver: AsyncDriver, database: str, scope: str, health: ChannelHealth) -> None:
    await driver.execute_query(
        queries()["concern/channel_health_save"],
        scope=scope,
        channel=health.channel,
        consecutive_failures=health.consecutive_failures,
        last_failure_at=utc(health.last_failure_at),  # stdlib UTC: see codec.utc
        last_error=health.last_error,
        database_=database,
    )


async def record_delivery(
    driver: AsyncDriver,
    database: str,
    scope: str,
    channel: str,
    *,
    now: datetime,
    error: str | None,
) -> None:
    """Count a failed send, or reset the count after a good one (only when it was failing)."""
    if not channel:
        return
    current = (await load(driver, database, scope)).get(channel, ChannelHealth(channel))
    if error is not None:
        await _save(driver, database, scope, after_failure(current, now, error))
    elif current.consecutive_failures:
        await _save(driver, database, scope, after_success(current))


async def unreachable_channels(
    driver: AsyncDriver, database: str, scope: str, now: datetime
) -> frozenset[str]:
    return unreachable((await load(driver, database, scope)).values(), now)
