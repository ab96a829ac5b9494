"""Redis through Sentinel, against a real primary, replica and three sentinels: every client
of the project finds the primary through the sentinels, an acknowledged write is already on
the replica, and a replica that cannot take it makes the write fail instead of pretending."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import uuid
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from redis.exceptions import RedisError

from engine.settings import Settings
from jobs import past_epoch
from jobs.notify import GraphChangeHub, channel
from jobs.queue import enqueue_probe
from jobs.redis_client import NotReplicated, open_pool, open_redis
from local.redis_ha import LocalRedisHA
from tests.support.polling import until, until_async
from tests.support.redis_ha import kill_node, node_pid, on_node, own_redis_ha, promoted

PORTS = [6420, 6421]
SENTINELS = [26420, 26421, 26422]


@pytest.fixture(name="ha")
def ha_fixture(services: Settings, tmp_path: Path) -> Iterator[tuple[Settings, LocalRedisHA]]:
    with own_redis_ha(
        services, tmp_path, ports=PORTS, sentinel_ports=SENTINELS, queue_prefix="sentinel"
    ) as pair:
        yield pair


async def test_queue_cache_and_pubsub_reach_the_primary_through_the_sentinels(
    ha: tuple[Settings, LocalRedisHA],
) -> None:
    settings, server = ha
    assert settings.redis_url is None and settings.effective_wait_replicas == 1
    pool = await open_pool(settings)
    hub = GraphChangeHub(settings)
    listening = asyncio.create_task(hub.run())
    try:
        probe = f"s-{uuid.uuid4().hex[:8]}"
        assert await enqueue_probe(pool, settings, probe_id=probe, note="through sentinel")
        # acknowledged: the job is on the replica the moment the enqueue returned
        assert on_node(server, PORTS[1], "EXISTS", f"arq:job:probe:{probe}") == 1
        assert on_node(server, PORTS[1], "ZSCORE", settings.queue_name, f"probe:{probe}")
        # the past cache's counter moves on the primary
        assert await past_epoch.move(pool, "scope-a") == 1
        assert on_node(server, PORTS[0], "GET", past_epoch.counter_key("scope-a")) == b"1"
        # graphChanged: the hub subscribes through the sentinels and hears a publish
        await asyncio.wait_for(hub.subscribed.wait(), 20)
        heard = cast(AsyncGenerator[dict[str, Any], None], hub.listen("scope-a"))
        next_message = asyncio.ensure_future(anext(heard))
        publisher = open_redis(settings)
        await until_async(
            lambda: publisher.publish(channel("scope-a"), json.dumps({"scope": "scope-a"})),
            what="a subscriber to hear the publish",
        )
        assert (await asyncio.wait_for(next_message, 10))["scope"] == "scope-a"
        await heard.aclose()
        await publisher.aclose()
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening
        await pool.aclose()


async def test_a_stalled_replica_makes_the_enqueue_fail_not_succeed_silently(
    ha: tuple[Settings, LocalRedisHA],
) -> None:
    settings, server = ha
    pool = await open_pool(settings.model_copy(update={"redis_wait_timeout_ms": 500}))
    replica = node_pid(server, PORTS[1])
    os.kill(replica, signal.SIGSTOP)  # alive, connected, but taking nothing in
    try:
        with pytest.raises(NotReplicated, match="0 of 1 Redis replicas"):
            await enqueue_probe(pool, settings, probe_id="stalled", note="not replicated")
        # a withdrawal's move of the past cache's counter is held to the same rule
        with pytest.raises(NotReplicated):
            await past_epoch.move(pool, "scope-b")
    finally:
        os.kill(replica, signal.SIGCONT)
    # once the replica takes it in again, the same enqueue is acknowledged
    await enqueue_probe(pool, settings, probe_id="stalled", note="again")
    await pool.aclose()


async def test_every_acknowledged_job_survives_the_primary_being_killed(
    ha: tuple[Settings, LocalRedisHA],
) -> None:
    settings, server = ha
    pool = await open_pool(settings)
    ids = [f"kept-{i}" for i in range(50)]
    for probe in ids:
        await enqueue_probe(pool, settings, probe_id=probe, note="before the kill")
    kill_node(server, PORTS[0])
    new_primary = promoted(server, PORTS[0])
    assert new_primary == PORTS[1]
    keys = [f"arq:job:probe:{p}" for p in ids]
    assert on_node(server, new_primary, "EXISTS", *keys) == len(ids)
    assert on_node(server, new_primary, "ZCARD", settings.queue_name) == len(ids)

    # alone, the promoted primary refuses writes (no replica would hold them) ...
    async def alone() -> str:
        try:
            await enqueue_probe(pool, settings, probe_id="alone", note="no replica")
        except RedisError as exc:  # the first may be a connection to the dead primary
            return str(exc)
        return "acknowledged"

    await until_async(alone, lambda m: "NOREPLICAS" in m, what="the refusal", within=30)
    # ... until the old primary is back, as a replica of the new one
    server.start_node(PORTS[0])
    until(
        lambda: on_node(server, PORTS[0], "ROLE")[0] == b"slave", what="the old primary a replica"
    )

    async def enqueued() -> bool:
        try:
            return await enqueue_probe(pool, settings, probe_id="after", note="replica back")
        except RedisError:  # not yet: the replica is still syncing
            return False

    await until_async(enqueued, what="an acknowledged enqueue on the new primary")
    assert server.current_primary() == ("127.0.0.1", PORTS[1])
    await pool.aclose()
