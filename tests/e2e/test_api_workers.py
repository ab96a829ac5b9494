"""`storygraph serve --workers N`: several API processes on one socket sharing only
Neo4j and Redis; each holds its own graphChanged subscriber on Redis, and subscribers over
websockets and Server-Sent Events hear a change whichever process they reached."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import uuid
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import redis.asyncio as aioredis
import websockets

from engine.settings import Settings
from jobs.notify import hub_client_name
from local.redis_server import with_redis_password
from tests.support.js_clients import SseSubscription
from tests.support.polling import until, until_async
from tests.support.processes import Server
from tests.support.story_api import PUBLISH

TOKEN = "workers-token"
TOKENS = [{"token": TOKEN, "name": "workers", "scopes": ["*"], "roles": ["reader", "editor"]}]
CHANGED = "subscription($s: String!) { graphChanged(scope: $s) { scope kind } }"


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found |= {int(p) for p in text}
    return found


async def hubs_of(redis: aioredis.Redis, pids: set[int]) -> set[int]:
    names = {hub_client_name(p): p for p in pids}
    return {names[c["name"]] for c in await redis.client_list() if c.get("name") in names}


async def websocket(stack: AsyncExitStack, api: Server, scope: str) -> Any:
    url = api.url.replace("http://", "ws://") + "/graphql"
    ws = await stack.enter_async_context(
        websockets.connect(url, subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    )
    await ws.send(json.dumps({"type": "connection_init", "payload": {
        "Authorization": f"Bearer {TOKEN}"}}))  # fmt: skip
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    payload = {"query": CHANGED, "variables": {"s": scope}}
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
    return ws


async def test_several_processes_serve_and_every_subscriber_hears_a_change(
    start_server: Any, services: Settings
) -> None:
    api: Server = start_server(API_TOKENS=json.dumps(TOKENS), API_WORKERS="2")
    redis = aioredis.Redis.from_url(with_redis_password(services).effective_redis_url)
    scope = f"workers-{uuid.uuid4().hex[:8]}"
    async with AsyncExitStack() as stack:
        stack.push_async_callback(redis.aclose)
        # two worker processes, each with its own Redis subscriber for graphChanged
        await until_async(
            lambda: hubs_of(redis, children(api.process.pid)),
            lambda hubs: len(hubs) >= 2,
            "two API worker processes subscribed",
        )

        sockets = [await websocket(stack, api, scope) for _ in range(4)]
        streams = [
            await SseSubscription.start(f"{api.url}/graphql", TOKEN, CHANGED, {"s": scope})
            for _ in range(4)
        ]
        for stream in streams:
            stack.push_async_callback(stream.close)
            assert (await stream.line())["event"] == "connected"

        heard: dict[int, dict[str, Any]] = {}
        pending: dict[int, asyncio.Task[Any]] = {}
        for i, ws in enumerate(sockets):
            pending[i] = asyncio.ensure_future(ws.recv())
        for j, stream in enumerate(streams):
            pending[100 + j] = asyncio.ensure_future(stream.line(timeout_s=60))
        deadline = time.monotonic() + 60
        while pending:
            assert time.monotonic() < deadline, f"not heard by {sorted(pending)}"
            event = {"ref": "e", "title": "提测", "at": "2026-03-16T10:00:00Z"}
            body = {"scope": scope, "key": uuid.uuid4().hex[:8], "events": [event]}
            answer = await asyncio.to_thread(api.graphql, PUBLISH, {"input": body}, TOKEN)
            assert answer.json().get("data"), answer.text
            done, _ = await asyncio.wait(pending.values(), timeout=1.0)
            for key, task in list(pending.items()):
                if task in done:
                    got = task.result()
                    heard[key] = json.loads(got) if isinstance(got, (str, bytes)) else got
                    del pending[key]
        for key, message in heard.items():
            payload = message["payload"]
            assert payload["data"]["graphChanged"] == {"scope": scope, "kind": "result"}, key


def sockets_by_pid(port: int, state: str) -> Counter[int]:
    """The API's sockets on `port` in `state` (listening, established), by the process
    holding each (ss -p)."""
    out = subprocess.run(
        ["ss", "-tnpH", "state", state, f"( sport = :{port} )"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return Counter(
        int(pid.split(",")[0]) for line in out.splitlines() for pid in line.split("pid=")[1:]
    )


async def test_connections_arriving_together_are_spread_over_the_workers(
    start_server: Any, services: Settings
) -> None:
    """32 clients connecting at once are served by both processes: each worker listens on
    its own socket (api/listeners.py). On one shared socket the worker awake first took
    them nearly all (28 / 4), and one core served 32 clients while the other idled."""
    api: Server = start_server(API_TOKENS=json.dumps(TOKENS), API_WORKERS="2")
    port = int(urlsplit(api.url).port or 0)
    # both workers listening on their own sockets (a started worker is not listening yet)
    until(
        lambda: set(sockets_by_pid(port, "listening")) & children(api.process.pid),
        lambda listening: len(listening) >= 2,
        "two API workers listening",
    )
    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    headers = {"authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(timeout=60, limits=limits, headers=headers) as client:
        query = {"query": "{ __typename }"}
        answers = await asyncio.gather(
            *(client.post(f"{api.url}/graphql", json=query) for _ in range(32))
        )
        assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
        held = sockets_by_pid(port, "established")
    workers = children(api.process.pid)
    assert set(held) <= workers and sum(held.values()) == 32, held
    assert len(held) == 2 and max(held.values()) <= 24, held
