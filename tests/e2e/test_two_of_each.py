"""Two API processes and two workers on one Neo4j and one Redis.

API A and worker 1 reach Neo4j with `bolt://`; API B and worker 2 with the `neo4j://`
routing scheme a cluster or Aura needs (here against the single server), so moving to a
cluster is a configuration change. A subscriber on A sees what is done through B, the one
review lease holds across both APIs and both workers, and both workers count as live.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
import websockets
from neo4j import AsyncDriver

from engine.settings import Settings
from tests.support.polling import until
from tests.support.processes import (
    Server,
    forget_queue,
    process_env,
    start_worker,
    stop,
)
from tests.support.story_api import PUBLISH, UPSERT, first_changes

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
CHANGES = "subscription($s: String!) { graphChanged(scope: $s) { scope kind ids } }"
PROGRESS = "subscription($id: String!) { runProgress(runId: $id) { runId status fraction } }"
START = (
    "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
    " startReview(scope: $sc, from: $f, to: $t) { id } }"
)


@dataclass
class Pair:
    a: Server
    b: Server
    queue: str


@pytest.fixture(scope="module")
def pair(services: Settings, start_server: Callable[..., Server]) -> Iterator[Pair]:
    queue = f"{services.queue_name}:two-{uuid.uuid4().hex[:6]}"
    routed = f"neo4j://127.0.0.1:{services.neo4j_bolt_port}"
    mine = services.model_copy(update={"queue_name": queue})
    a = start_server(QUEUE_NAME=queue, MODEL_BASE_URL="")
    b = start_server(QUEUE_NAME=queue, MODEL_BASE_URL="", NEO4J_URI=routed)
    workers = [
        start_worker(mine, process_env(mine, MODEL_BASE_URL="")),
        start_worker(mine, process_env(mine, MODEL_BASE_URL="", NEO4J_URI=routed)),
    ]
    gql(a, "mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }")
    try:
        yield Pair(a, b, queue)
    finally:
        for worker in workers:
            stop(worker)
        client = redis.Redis.from_url(services.effective_redis_url)
        forget_queue(client, queue)
        client.close()


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body["errors"]
    return body["data"]  # type: ignore[no-any-return]


async def subscribe(stack: AsyncExitStack, api: Server, query: str, **variables: Any) -> Any:
    url = api.url.replace("http://", "ws://") + "/graphql"
    ws = await stack.enter_async_context(
        websockets.connect(url, subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    )
    await ws.send(json.dumps({"type": "connection_init"}))
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    payload = {"query": query, "variables": variables}
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
    return ws


def chat(scope: str) -> dict[str, Any]:
    lines = [(0, "张三", "支付模块卡在第三方回调"), (4, "李四", "前端部分周四能提测")]
    text = "".join(f"[{(BASE + timedelta(minutes=m)).isoformat()}] {w}: {s}\n" for m, w, s in lines)
    return {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": text}


def review(api: Server, scope: str) -> dict[str, Any]:
    return api.graphql(  # type: ignore[no-any-return]
        START,
        {
            "sc": {"projectIds": [scope]},
            "f": (BASE - timedelta(hours=1)).isoformat(),
            "t": (BASE + timedelta(hours=2)).isoformat(),
        },
    ).json()


def wait_run(api: Server, run_id: str) -> str:
    status = "query($id: String!) { supervisionRun(id: $id) { status } }"
    return str(
        until(
            lambda: gql(api, status, id=run_id)["supervisionRun"]["status"],
            lambda s: s in ("completed", "failed", "cancelled"),
            "the review to end",
            90,
        )
    )


def test_both_apis_count_both_workers_and_the_routing_uri_reads_and_writes(
    pair: Pair, scope: str
) -> None:
    for api in (pair.a, pair.b):
        health = gql(api, "{ health { neo4j redis workers healthy } }")["health"]
        assert health == {"neo4j": True, "redis": True, "workers": 2, "healthy": True}
    # written through the routing driver, read through the direct one, and back
    gql(pair.b, UPSERT, input=chat(scope))
    published = gql(
        pair.b,
        PUBLISH,
        input={
            "scope": scope,
            "key": "k1",
            "events": [{"ref": "e", "title": "提测", "at": BASE.isoformat()}],
        },
    )["publishResult"]
    assert published["repeat"] is False
    seen = "query($s: String!) { storyGraph(scope: $s) { events { title } } }"
    assert gql(pair.a, seen, s=scope)["storyGraph"]["events"] == [{"title": "提测"}]
    assert gql(pair.b, seen, s=scope)["storyGraph"]["events"] == [{"title": "提测"}]


async def test_a_subscriber_on_one_api_sees_what_is_done_through_the_other(
    pair: Pair, scope: str
) -> None:
    await asyncio.to_thread(gql, pair.b, UPSERT, input=chat(scope))
    async with AsyncExitStack() as stack:
        changes = await subscribe(stack, pair.a, CHANGES, s=scope)

        async def publish(n: int) -> None:
            result = {
                "scope": scope,
                "key": f"k{n + 2}",
                "events": [{"ref": "e", "title": "联调", "at": BASE.isoformat()}],
            }
            await asyncio.to_thread(gql, pair.b, PUBLISH, input=result)

        [message] = await first_changes([changes], publish)
        assert message["type"] == "next", message
        assert message["payload"]["data"]["graphChanged"]["scope"] == scope

        started = await asyncio.to_thread(review, pair.b, scope)
        assert "errors" not in started, started
        run_id = started["data"]["startReview"]["id"]
        progress = await subscribe(stack, pair.a, PROGRESS, id=run_id)
        statuses: list[str] = []
        while not statuses or statuses[-1] not in ("completed", "failed", "cancelled"):
            message = json.loads(await asyncio.wait_for(progress.recv(), timeout=60))
            if message["type"] == "complete":
                break
            assert message["type"] == "next", message
            statuses.append(message["payload"]["data"]["runProgress"]["status"])
        assert statuses and statuses[-1] == "completed", statuses


async def test_the_one_review_lease_holds_across_both_apis_and_workers(
    pair: Pair, neo4j_driver: AsyncDriver, services: Settings
) -> None:
    scopes = [f"two-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    try:
        await _lease_holds(pair, scopes)
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n) WHERE n.scope IN $s DETACH DELETE n",
            s=scopes,
            database_=services.neo4j_database,
        )


async def _lease_holds(pair: Pair, scopes: list[str]) -> None:
    for s in scopes:
        await asyncio.to_thread(gql, pair.a, UPSERT, input=chat(s))
    answers = await asyncio.gather(
        asyncio.to_thread(review, pair.a, scopes[0]), asyncio.to_thread(review, pair.b, scopes[1])
    )
    accepted = [x["data"]["startReview"]["id"] for x in answers if not x.get("errors")]
    refused = [x["errors"][0]["extensions"]["code"] for x in answers if x.get("errors")]
    assert len(accepted) == 1 and refused == ["BUSY"], answers
    assert await asyncio.to_thread(wait_run, pair.b, accepted[0]) == "completed"
    # the lease is free again for the other scope, through the other API
    loser = scopes[1] if not answers[1].get("data") else scopes[0]
    api = pair.b if loser == scopes[1] else pair.a
    again = await asyncio.to_thread(review, api, loser)
    assert "errors" not in again, again
    assert (
        await asyncio.to_thread(wait_run, pair.a, again["data"]["startReview"]["id"]) == "completed"
    )
