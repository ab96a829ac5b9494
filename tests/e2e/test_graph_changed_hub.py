"""graphChanged subscriptions of one API process share one Redis subscriber: N websocket
subscribers hold one Redis pub/sub connection (counted in CLIENT LIST by the process's
client name) and every one of them still receives each change."""

from __future__ import annotations

import asyncio
import json
import uuid
from contextlib import AsyncExitStack
from typing import Any

import pytest
import redis.asyncio as aioredis
import websockets

from engine.settings import Settings
from jobs.notify import hub_client_name
from local.redis_server import with_redis_password
from tests.support.processes import Server
from tests.support.story_api import PUBLISH, first_changes

SUBSCRIBERS = 6
SUBSCRIBE = "subscription($s: String!) { graphChanged(scope: $s) { scope kind ids } }"


def one_event(scope: str) -> dict[str, Any]:
    event = {"ref": "e", "title": "提测", "at": "2026-03-16T10:00:00Z"}
    return {"scope": scope, "key": "k", "events": [event]}


async def subscribe(stack: AsyncExitStack, api: Server, scope: str) -> Any:
    url = api.url.replace("http://", "ws://") + "/graphql"
    ws = await stack.enter_async_context(
        websockets.connect(url, subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    )
    await ws.send(json.dumps({"type": "connection_init"}))
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    payload = {"query": SUBSCRIBE, "variables": {"s": scope}}
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
    return ws


async def clients_of(redis: aioredis.Redis, name: str) -> list[dict[str, Any]]:
    return [c for c in await redis.client_list() if c.get("name") == name]


@pytest.fixture(scope="module")
def own_api(start_server) -> Server:  # type: ignore[no-untyped-def]
    return start_server()


async def test_subscribers_share_one_redis_connection_and_all_get_the_change(
    own_api: Server, services: Settings
) -> None:
    scopes = [f"hub-{uuid.uuid4().hex[:8]}", f"hub-{uuid.uuid4().hex[:8]}"]
    name = hub_client_name(own_api.process.pid)
    redis = aioredis.Redis.from_url(with_redis_password(services).effective_redis_url)
    async with AsyncExitStack() as stack:
        stack.push_async_callback(redis.aclose)
        # half on each scope: each gets its own scope's change only
        sockets = [await subscribe(stack, own_api, scopes[i % 2]) for i in range(SUBSCRIBERS)]

        async def publish(n: int) -> None:
            for scope in scopes:
                event = one_event(scope) | {"key": f"k{n}"}
                answer = await asyncio.to_thread(own_api.graphql, PUBLISH, {"input": event})
                assert answer.json()["data"], answer.text

        for i, message in enumerate(await first_changes(sockets, publish)):
            assert message["type"] == "next", message
            change = message["payload"]["data"]["graphChanged"]
            assert (change["scope"], change["kind"]) == (scopes[i % 2], "result")
        subscriber = await clients_of(redis, name)
        assert len(subscriber) == 1, subscriber
        assert subscriber[0]["psub"] == "1" and subscriber[0]["sub"] == "0", subscriber
        assert len(await clients_of(redis, name)) == 1
