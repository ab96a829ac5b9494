"""The watch heartbeat: every slot, one round per scope that has enabled watches.

A watch is a standing check (seed 000 持续关注): without this cron it would only run when
someone asked. Each slot enqueues `run_watch_round` per scope under a stable job id
(`watch-round:<scope>:hb-<slot>`), so several workers running the same cron enqueue each
round once, and the round itself closes one item at a time (多候选关注每轮优先闭环一个事项).
The heartbeat app switch governs it like every scheduled heartbeat: off (the default) means
no round is started (seed 004 应用启停).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.review.settings import Work, admit
from engine.settings import Settings
from graph.queries import queries
from graph.review.app import AppSettingsStore
from jobs.tasks.watch_round import enqueue_round

log = logging.getLogger("storygraph.watch.heartbeat")
SLOT = timedelta(minutes=30)
MAX_SCOPES = 1000


def slot_id(now: datetime, slot: timedelta = SLOT) -> str:
    """The round id of the slot `now` falls in (UTC), e.g. `hb-20350319T0200`."""
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    start = epoch + ((now.astimezone(UTC) - epoch) // slot) * slot
    return "hb-" + start.strftime("%Y%m%dT%H%M")


async def watch_heartbeat_tick(ctx: dict[str, Any], *, now: datetime | None = None) -> int:
    """Enqueue this slot's rounds; returns how many were new."""
    settings: Settings = ctx["settings"]
    driver = ctx["driver"]
    app = await AppSettingsStore(driver, settings.neo4j_database, settings.queue_name).get()
    if not admit(app, Work.SCHEDULED_CLAIM):
        return 0
    records, _, _ = await driver.execute_query(
        queries()["watch/scopes_with_enabled_watches"],
        limit=MAX_SCOPES,
        database_=settings.neo4j_database,
        routing_="r",
    )
    round_id = slot_id(now or datetime.now(UTC))
    started = 0
    for record in records:
        if await enqueue_round(
            ctx["redis"], settings, scope=record["scope"], full=False, round_id=round_id
        ):
            started += 1
    if started:
        log.info("watch heartbeat", extra={"fields": {"round_id": round_id, "rounds": started}})
    return started
