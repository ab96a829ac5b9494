"""graphChanged: a Redis pub/sub channel per scope, so clients learn of writes as they land.

Writers (API mutations, the publish stage of supervision runs) call `graph_changed` after
their transaction committed; the `graphChanged(scope)` subscription listens. Messages are a
hint to re-read (they carry what changed and the result id), never the data itself, so a
missed message loses nothing: the graph in Neo4j stays the truth.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from redis.asyncio import Redis


def channel(scope: str) -> str:
    return f"storygraph:graph-changed:{scope}"


async def graph_changed(redis: Redis, scope: str, *, kind: str, ids: list[str], by: str) -> None:
    message = {
        "scope": scope,
        "kind": kind,
        "ids": ids,
        "by": by,
        "at": datetime.now(UTC).isoformat(),
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
