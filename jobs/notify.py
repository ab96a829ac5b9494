"""graphChanged: a Redis pub/sub channel per scope, so clients learn of writes as they land.

Writers (API mutations, the publish stage of supervision runs) call `graph_changed` after
their transaction committed; the `graphChanged(scope)` subscription listens. Messages are a
hint to re-read (they carry what changed and the result id), never the data itself, so a
missed message loses nothing: the graph in Neo4j stays the truth.

An API process listens through one `GraphChangeHub`: a single Redis connection (named
`storygraph-changes:<pid>` in `CLIENT LIST`) subscribed to every scope's channel by pattern,
fanned out in-process to each subscription's queue, so a thousand websocket subscribers
hold one Redis connection, not a thousand. `listen` (one connection per call) stays for
code outside the API.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from engine.clock import utcnow
from engine.settings import Settings
from jobs.redis_client import open_redis

log = logging.getLogger("storygraph.notify")
PATTERN = "storygraph:graph-changed:*"
# messages a slow subscriber may have waiting; beyond, its oldest hint is dropped (a hint
# lost is harmless: the client re-reads)
QUEUE_SIZE = 100


def channel(scope: str) -> str:
    return f"storygraph:graph-changed:{scope}"


async def graph_changed(redis: Redis, scope: str, *, kind: str, ids: list[str], by: str) -> None:
    message = {
        "scope": scope,
        "kind": kind,
        "ids": ids,
        "by": by,
        "at": utcnow().isoformat(),
    }
    await redis.publish(channel(scope), json.dumps(message, ensure_ascii=False))


async def listen(redis: Redis, scope: str) -> AsyncIterator[dict[str, Any]]:
    pubsub = redis.pubsub()
    await pubsub.subscribe(channel(scope))
    try:
        async for message in pubsub.listen():
            if message.get("type") == "message":
                yield json.loads(message["data"])
    finally:
        await pubsub.unsubscribe(channel(scope))
        await pubsub.aclose()


def hub_client_name(pid: int | None = None) -> str:
    """The Redis client name of a process's one graphChanged subscriber."""
    return f"storygraph-changes:{pid if pid is not None else os.getpid()}"


class GraphChangeHub:
    """One Redis subscriber per process, fanned out to in-process subscribers by scope.

    `run()` (a task the API lifespan starts) holds the pattern subscription and reconnects
    with backoff after a Redis outage; `listen(scope)` registers a queue and yields that
    scope's messages until the subscriber goes away."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._queues: dict[str, set[asyncio.Queue[dict[str, Any]]]] = {}
        self.subscribed = asyncio.Event()  # set while the Redis subscription is live

    @property
    def listeners(self) -> int:
        return sum(len(qs) for qs in self._queues.values())

    async def run(self) -> None:
        delay = 0.5
        while True:
            redis = open_redis(self._settings, client_name=hub_client_name())
            try:
                async with redis.pubsub() as pubsub:
                    await pubsub.psubscribe(PATTERN)
                    self.subscribed.set()
                    delay = 0.5
                    async for message in pubsub.listen():
                        if message.get("type") == "pmessage":
                            self._fan_out(message["data"])
            except (RedisError, OSError) as exc:
                log.warning(
                    "graphChanged subscriber lost Redis; reconnecting",
                    extra={"fields": {"error": str(exc), "retry_in_s": delay}},
                )
            finally:
                self.subscribed.clear()
                await redis.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    def _fan_out(self, data: bytes | str) -> None:
        try:
            message = json.loads(data)
            queues = self._queues.get(message["scope"], set())
        except (ValueError, KeyError, TypeError):
            return
        for queue in queues:
            if queue.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
            queue.put_nowait(message)

    async def listen(self, scope: str) -> AsyncIterator[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(QUEUE_SIZE)
        self._queues.setdefault(scope, set()).add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            queues = self._queues.get(scope)
            if queues is not None:
                queues.discard(queue)
                if not queues:
                    del self._queues[scope]
