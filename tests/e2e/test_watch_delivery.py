"""Hand-offs delivered to the partner session, not only stored (docs/rules/watches.md).

A real worker without a model endpoint (the offline checker, end to end) checks a note with
numbered steps and hands off; the hand-off goes out as a signed webhook POST to a receiver on
loopback (`Idempotency-Key` = execution key), through the `watchHandOffs(scope)`
subscription and the partner session's MCP resource; the watch shows the delivery state. A
repeat over unchanged sources is delivered nowhere again; a refusing webhook is retried and
then dead-lettered.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
import redis.asyncio as aioredis
import websockets
from arq.jobs import Job

from engine.settings import Settings
from jobs.concern.channel import sign
from jobs.notify import channel
from jobs.queue import open_pool
from jobs.serialization import deserialize
from jobs.watch.delivery import delivery_job_id
from tests.support.mcp import http_client
from tests.support.processes import Server, process_env, start_worker, stop
from tests.support.watch import until
from tests.support.webhook import Webhook

SECRET = "watch-hook-secret"
NOTE = "1. 核对官网版本号必须为 v2.3。\n2. 生成发布草稿。\n官网当前版本号：v2.3"
CREATE = """mutation($input: CreateWatchInput!) { createWatch(input: $input) { id } }"""
RUN = """mutation($s: String!, $id: ID!, $req: String) {
  runWatchNow(scope: $s, id: $id, requestId: $req) { runId enqueued } }"""
WATCH = """query($s: String!, $id: ID!) { watch(scope: $s, id: $id) {
  observations { runId handoffStatus outcome { status } }
  handOffs { executionKey sessionId
             delivery { status attempts channel lastError nextAttemptAt deliveredAt } }
} }"""
SUBSCRIBE = """subscription($s: String!) { watchHandOffs(scope: $s) {
  executionKey watchId sessionId dependencies steps { stepId kind status }
  delivery { status } } }"""


@pytest.fixture(scope="module")
def hook() -> Iterator[Webhook]:
    with Webhook(failing=False) as receiver:
        yield receiver


@pytest.fixture(scope="module")
def stack(start_server: Any, services: Settings, hook: Webhook) -> Iterator[Server]:
    queue = f"storygraph:test:watch-delivery:{uuid.uuid4().hex[:8]}"
    api = start_server(QUEUE_NAME=queue)
    env = process_env(
        services,
        QUEUE_NAME=queue,
        CONCERN_WEBHOOK_URL=hook.url,
        CONCERN_WEBHOOK_SECRET=SECRET,
        WORKER_CRONS="false",
    )
    for name in ("MODEL_BASE_URL", "MODEL_API_KEY", "MODEL_NAME"):
        env.pop(name, None)  # the offline checker
    worker = start_worker(services, env)
    yield api
    stop(worker)


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def put_note(api: Server, scope: str, version: str, text: str) -> None:
    source = {"scope": scope, "id": "n1", "kind": "NOTE", "version": version, "title": "发布检查"}
    gql(
        api,
        "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
        i={**source, "text": text},
    )


def create_watch(api: Server, scope: str, session: str) -> str:
    watch = {
        "scope": scope,
        "sessionId": session,
        "title": "发布检查",
        "executionEnabled": True,
        "bindings": [{"kind": "note", "noteId": "n1", "title": "发布检查"}],
    }
    return str(gql(api, CREATE, input=watch)["createWatch"]["id"])


def check(api: Server, scope: str, wid: str, name: str) -> dict[str, Any]:
    """Run one check and wait for its observation (run ids are unique across scopes)."""
    request = f"{name}-{uuid.uuid4().hex[:8]}"
    assert gql(api, RUN, s=scope, id=wid, req=request)["runWatchNow"]["enqueued"]

    def observed() -> dict[str, Any] | None:
        found = gql(api, WATCH, s=scope, id=wid)["watch"]["observations"]
        return next((o for o in found if o["runId"] == request), None)

    return until(observed, timeout=60)  # type: ignore[no-any-return]


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


async def next_handoff(ws: Any) -> dict[str, Any]:
    message = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
    assert message["type"] == "next", message
    assert "errors" not in message["payload"], message
    return message["payload"]["data"]["watchHandOffs"]  # type: ignore[no-any-return]


async def live(ws: Any, services: Settings, scope: str, key: str) -> int:
    """Wait until the subscription is registered: re-announce a stored hand-off's hint until
    the stream yields it. Returns how many more of those re-announcements may still arrive."""
    redis = aioredis.Redis.from_url(services.effective_redis_url)
    hint = json.dumps({"scope": scope, "kind": "watch_handoff", "ids": [key], "by": "test"})
    published = 0
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            await redis.publish(channel(scope), hint)
            published += 1
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=0.5))
            except TimeoutError:
                continue
            assert message["payload"]["data"]["watchHandOffs"]["executionKey"] == key
            return published - 1
    finally:
        await redis.aclose()
    raise AssertionError("the subscription never yielded")


async def test_a_hand_off_is_posted_signed_streamed_and_readable_once_per_execution_key(
    stack: Server, hook: Webhook, scope: str, services: Settings
) -> None:
    api = stack
    put_note(api, scope, "r1", NOTE)
    wid = create_watch(api, scope, "s-partner")
    first = await asyncio.to_thread(check, api, scope, wid, "d-1")
    assert first["outcome"]["status"] == "success" and first["handoffStatus"] == "delivered"

    # the watch shows it delivered, by the webhook, at the first attempt
    def delivered() -> dict[str, Any] | None:
        [h] = gql(api, WATCH, s=scope, id=wid)["watch"]["handOffs"]
        return h if h["delivery"]["status"] == "delivered" else None

    shown = await asyncio.to_thread(until, delivered)
    key = shown["executionKey"]
    assert shown["delivery"]["attempts"] == 1 and shown["delivery"]["channel"] == "webhook"
    assert shown["delivery"]["deliveredAt"] and shown["delivery"]["lastError"] is None

    # the webhook got one signed POST keyed by the execution key
    posts = hook.by_key()[key]
    assert len(posts) == 1
    assert posts[0]["kind"] == "watch_handoff" and posts[0]["session_id"] == "s-partner"
    assert [s["step_id"] for s in posts[0]["steps"]] == ["s1", "s2"]
    headers, raw = next((h, r) for h, r in hook.raw if h["idempotency-key"] == key)
    stamp = headers["x-storygraph-timestamp"]
    assert headers["x-storygraph-signature"] == sign(SECRET, stamp, raw)

    # the partner session's MCP resource
    uri = f"storygraph://{scope}/sessions/s-partner/watch-handoffs"
    async with http_client(api.url, None) as client:
        read = json.loads((await client.read_resource(uri)).contents[0].text)  # type: ignore[union-attr]
        other_uri = uri.replace("s-partner", "s-other")
        other = json.loads((await client.read_resource(other_uri)).contents[0].text)  # type: ignore[union-attr]
    assert [h["execution_key"] for h in read["handoffs"]] == [key]
    assert read["handoffs"][0]["delivery"]["status"] == "delivered"
    assert [s["step_id"] for s in read["handoffs"][0]["steps"]] == ["s1", "s2"]
    assert other["handoffs"] == []

    async with AsyncExitStack() as exits:
        ws = await subscribe(exits, api, scope)
        extra = await live(ws, services, scope, key)
        # the same sources checked again: the same key, handed off nowhere again
        second = await asyncio.to_thread(check, api, scope, wid, "d-2")
        assert second["handoffStatus"] == "dropped"
        # a new revision of the note: a new key, streamed and posted once
        put_note(api, scope, "r2", NOTE + "\n备注：本周已复核。")
        third = await asyncio.to_thread(check, api, scope, wid, "d-3")
        assert third["handoffStatus"] == "delivered"
        streamed = await next_handoff(ws)
        while streamed["executionKey"] == key and extra > 0:  # a late re-announcement above
            extra -= 1
            streamed = await next_handoff(ws)
        new_key = streamed["executionKey"]
        assert new_key != key
        assert streamed["watchId"] == wid and streamed["sessionId"] == "s-partner"
        assert [(s["stepId"], s["kind"], s["status"]) for s in streamed["steps"]] == [
            ("s1", "check", "done"),
            ("s2", "execute", "pending"),
        ]
        await asyncio.to_thread(until, lambda: hook.by_key().get(new_key))
    seen = hook.by_key()
    assert {k: len(seen[k]) for k in (key, new_key)} == {key: 1, new_key: 1}


async def test_a_refused_hand_off_is_retried_then_dead_lettered_on_the_watch(
    stack: Server, hook: Webhook, scope: str
) -> None:
    api = stack
    hook.failing = True
    try:
        put_note(api, scope, "r1", NOTE)
        wid = create_watch(api, scope, "s-refused")
        await asyncio.to_thread(check, api, scope, wid, "dead-1")
        states: list[str] = []

        def dead() -> dict[str, Any] | None:
            [h] = gql(api, WATCH, s=scope, id=wid)["watch"]["handOffs"]
            states.append(h["delivery"]["status"])
            return h if h["delivery"]["status"] == "dead" else None

        shown = await asyncio.to_thread(until, dead)
    finally:
        hook.failing = False
    delivery = shown["delivery"]
    assert delivery["attempts"] == 4 and "503" in delivery["lastError"]
    assert delivery["deliveredAt"] is None and delivery["channel"] == "webhook"
    assert "retrying" in states, states
    assert hook.refused == 4
    assert shown["executionKey"] not in hook.by_key()


ACK = """mutation($s: String!, $k: String!) { acknowledgeWatchHandOff(scope: $s, executionKey: $k) {
  executionKey delivery { status channel deliveredAt acknowledgedBy } } }"""
PENDING = """query($s: String!, $id: ID!) { watch(scope: $s, id: $id) { pendingHandOffs
  handOffs { executionKey delivery { status channel deliveredAt acknowledgedBy } } } }"""


@pytest.mark.timeout(300)  # its own API and worker start first; minutes on a busy machine
async def test_without_a_webhook_a_hand_off_is_pending_until_the_session_acknowledges_it(
    start_server: Any, services: Settings, scope: str
) -> None:
    """No channel can deliver it: the delivery job leaves it `pending`, shown and counted on
    the watch, never `delivered` without a receipt; the partner session's acknowledgement is
    that receipt (delivered on channel session, with who acknowledged it)."""
    queue = f"storygraph:test:watch-pending:{uuid.uuid4().hex[:8]}"
    api = start_server(QUEUE_NAME=queue)
    env = process_env(services, QUEUE_NAME=queue, WORKER_CRONS="false")
    for name in ("MODEL_BASE_URL", "MODEL_API_KEY", "MODEL_NAME", "CONCERN_WEBHOOK_URL"):
        env.pop(name, None)
    worker = start_worker(services, env)
    redis = await open_pool(services)
    try:
        put_note(api, scope, "r1", NOTE)
        wid = create_watch(api, scope, "s-partner")
        first = await asyncio.to_thread(check, api, scope, wid, "p-1")
        assert first["handoffStatus"] == "delivered"  # handed off (stored), not a repeat
        [shown] = gql(api, PENDING, s=scope, id=wid)["watch"]["handOffs"]
        key = shown["executionKey"]
        # the worker ran its delivery job: nothing could deliver it
        job = Job(delivery_job_id(key), redis, _queue_name=queue, _deserializer=deserialize)
        assert await job.result(timeout=60) == {"executionKey": key, "status": "pending"}
        watch = gql(api, PENDING, s=scope, id=wid)["watch"]
        assert watch["pendingHandOffs"] == 1
        assert watch["handOffs"][0]["delivery"] == {
            "status": "pending",
            "channel": None,
            "deliveredAt": None,
            "acknowledgedBy": None,
        }
        acked = gql(api, ACK, s=scope, k=key)["acknowledgeWatchHandOff"]["delivery"]
        assert acked["status"] == "delivered" and acked["channel"] == "session"
        assert acked["deliveredAt"] and acked["acknowledgedBy"]
        again = gql(api, ACK, s=scope, k=key)["acknowledgeWatchHandOff"]["delivery"]
        assert again == acked  # a repeat changes nothing
        watch = gql(api, PENDING, s=scope, id=wid)["watch"]
        assert watch["pendingHandOffs"] == 0 and watch["handOffs"][0]["delivery"] == acked
        missing = api.graphql(ACK, {"s": scope, "k": "no-such-key"}).json()
        assert missing["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    finally:
        await redis.aclose()
        stop(worker)
