"""Channel health in the shell: failed deliveries make a channel unreachable, and the next
messages to the boss fall back from the preferred channel to the originating one."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver

from engine.settings import Settings
from graph.concern.channel_health import ChannelHealthStore
from graph.concern.outbox import Outbox
from graph.concern.persons import PersonStore
from jobs.concern.channel import WebhookChannel, deliver_due
from tests.support.concern_jobs import at, delegation
from tests.support.webhook import Webhook


async def test_failed_deliveries_make_the_preferred_channel_fall_back_to_the_originating_one(
    raise_one: Any,
    job_ctx: dict[str, Any],
    neo4j_driver: AsyncDriver,
    settings: Settings,
    scope: str,
) -> None:
    db = settings.neo4j_database
    await PersonStore(neo4j_driver, db).upsert(
        scope,
        {
            "person_id": "p_owner",
            "display_name": "老板",
            "preferred_channel": "feishu",
            "channels": ["feishu", "telegram"],
            "is_owner": True,
        },
    )
    first = await raise_one()
    reports = [
        r for r in await Outbox(neo4j_driver, db).of_concern(first.concern_id) if r.kind == "report"
    ]
    assert reports and all(r.channel == "feishu" for r in reports), "preferred channel first"

    with Webhook() as hook:  # answers 503 to everything
        channel = WebhookChannel(job_ctx["http"], hook.url)
        for minute in range(1, 4):
            await deliver_due(neo4j_driver, db, channel, now=at(minute), worker_id="w", scope=scope)
        assert hook.refused >= 3
    assert await ChannelHealthStore(neo4j_driver, db).unreachable(scope, at(4)) == {"feishu"}

    second = await raise_one(
        delegation(title="联系李四确认提测时间", people=[("p_lisi", "李四")]), now=at(5)
    )
    reports = [
        r
        for r in await Outbox(neo4j_driver, db).of_concern(second.concern_id)
        if r.kind == "report"
    ]
    assert reports and all(r.channel == "telegram" for r in reports), (
        "with feishu unreachable the boss is told on the originating channel"
    )

    with Webhook() as hook:
        hook.failing = False
        await deliver_due(
            neo4j_driver,
            db,
            WebhookChannel(job_ctx["http"], hook.url),
            now=at(6),
            worker_id="w",
            scope=scope,
        )
        assert hook.accepted
    assert await ChannelHealthStore(neo4j_driver, db).unreachable(scope, at(7)) == frozenset()
