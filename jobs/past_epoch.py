"""The scope's change counter for cached past answers (docs/guides/graphql.md).

An answer as of a past moment can change only if a source version is withdrawn or the scope
is deleted, so those two use cases move the scope's counter and every cached past answer is
keyed by it. The counter lives in Redis: `INCR` before the write (if Redis is unreachable the
write is refused, so no answer outlives it) and again after it commits (an answer computed
while the write was in flight is not served once it has). A deployment generation, set once
(`SET NX`) and read with the counters, makes a flushed or replaced Redis start a new keyspace,
so a process never serves an answer kept under a counter value that has restarted at zero.
Scope names are hashed into keys: no caller text reaches Redis as a key.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence

from redis.asyncio import Redis

from jobs.redis_client import acknowledged

GENERATION_KEY = "storygraph:past:generation"


def counter_key(scope: str) -> str:
    return "storygraph:past:counter:" + hashlib.sha256(scope.encode()).hexdigest()[:32]


async def move(redis: Redis | None, scope: str) -> int:
    """Move `scope`'s counter: every cached past answer of the scope stops being served.
    Without a pool (a job run inline, in tests) there is no Redis, so no cache to move."""
    if redis is None:
        return 0
    moved = int(await redis.incr(counter_key(scope)))
    # replicated before the write goes on: a failover that lost the move would bring the
    # counter back and serve answers cached before it again
    await acknowledged(redis)
    return moved


async def read(redis: Redis, scopes: Sequence[str]) -> str:
    """The generation and the scopes' counters, as one string for a cache key."""
    await redis.set(GENERATION_KEY, uuid.uuid4().hex, nx=True)
    values = await redis.mget([GENERATION_KEY, *(counter_key(s) for s in scopes)])
    return ":".join(v.decode() if isinstance(v, bytes) else str(v or 0) for v in values)
