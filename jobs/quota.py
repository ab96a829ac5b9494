"""Per-caller quotas kept in Redis, shared by every process: a fixed window per kind of
request and per holder (a token's name, a scope). `take` counts one use and raises
`RateLimited` once the window's allowance is spent; the key names a hash of the holder, never
caller text."""

from __future__ import annotations

import hashlib

from redis.asyncio import Redis

from engine.clock import utcnow
from engine.errors import RateLimited

PREFIX = "storygraph:quota:"


def _key(kind: str, holder: str, window: int) -> str:
    digest = hashlib.sha256(holder.encode()).hexdigest()[:32]
    return f"{PREFIX}{kind}:{digest}:{window}"


async def take(
    redis: Redis, kind: str, holder: str, limit: int, window_s: int, what: str, amount: int = 1
) -> None:
    """Count `amount` `kind` uses by `holder`; RateLimited (naming `what`) past `limit` uses
    in the current `window_s`-second window. Redis errors propagate to the caller."""
    now = utcnow().timestamp()
    window = int(now // window_s)
    key = _key(kind, holder, window)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.incrby(key, amount)
        pipe.expire(key, window_s + 60)
        used, _ = await pipe.execute()
    if int(used) > limit:
        retry = int((window + 1) * window_s - now) + 1
        raise RateLimited(
            f"{what}: at most {limit} every {window_s} s; try again in {retry} s",
            limit=limit,
            retry_after_s=retry,
        )
