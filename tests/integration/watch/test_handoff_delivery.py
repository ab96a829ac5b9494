"""A hand-off whose delivery job was lost is enqueued again by the next check, and the
delivery job sends it once (docs/rules/watches.md伴会话")."""

from __future__ import annotations

import uuid
from typing import Any

from arq.jobs import Job, JobStatus

from engine.settings import Settings
from engine.watch.delivery import DeliveryStatus
from graph.watch.deliveries import HandOffDeliveries
from jobs.queue import open_pool
from jobs.tasks.watch import deliver_watch_handoff
from jobs.watch.delivery import delivery_job_id
from tests.support.processes import forget_queue_async
from tests.support.watch_world import World
from tests.support.webhook import Webhook


async def test_a_repeat_enqueues_a_lost_delivery_again_and_the_job_delivers_once(
    offline_ctx: dict[str, Any], world: World, services: Settings
) -> None:
    await world.put_source(
        "n1", "每周一检查发布页。\n官网当前版本号：v2.3", version="r2", title="每周检查笔记"
    )
    state = await world.watch()
    # a ctx without Redis: the hand-off is stored, its delivery job never enqueued (as when
    # the worker died between the two)
    assert (await world.check(offline_ctx, state))["handoff"] == "delivered"
    [handoff] = await world.records.handoffs(world.scope, state.watch.watch_id)
    key = handoff.execution_key
    deliveries = HandOffDeliveries(world.driver, world.database)
    stored = await deliveries.get(world.scope, key)
    assert stored is not None and stored.delivery.status is DeliveryStatus.PENDING

    queue = f"{services.queue_name}:watch-delivery:{uuid.uuid4().hex[:8]}"
    pool = await open_pool(services)
    try:
        with Webhook(failing=False) as hook:
            settings = offline_ctx["settings"].model_copy(
                update={"queue_name": queue, "concern_webhook_url": hook.url}
            )
            ctx = {**offline_ctx, "settings": settings, "redis": pool}
            assert (await world.check(ctx, state))["handoff"] == "dropped"
            job = Job(delivery_job_id(key), pool, _queue_name=queue)
            assert await job.status() is JobStatus.queued

            sent = await deliver_watch_handoff(ctx, scope=world.scope, execution_key=key)
            assert sent == {"executionKey": key, "status": "delivered", "attempts": 1}
            again = await deliver_watch_handoff(ctx, scope=world.scope, execution_key=key)
            assert again == {"executionKey": key, "status": "skipped"}
            assert [p["idem"] for p in hook.accepted] == [key]
            assert hook.accepted[0]["session_id"] == state.watch.session_id
    finally:
        await forget_queue_async(pool, queue)
        await pool.aclose()
    stored = await deliveries.get(world.scope, key)
    assert stored is not None and stored.delivery.status is DeliveryStatus.DELIVERED
