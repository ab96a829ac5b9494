"""Persisted (hashed) queries, Apollo's automatic persisted queries protocol: a request may
carry `extensions.persistedQuery = {"version": 1, "sha256Hash": "<hex>"}` instead of the
query text, so a past read travels as a short GET a browser, proxy or CDN can keep.

- hash and query: the query's SHA-256 must equal the hash (else 400); it runs, and is kept
  in Redis for every API process (a week) only once it passed the document limits (bytes,
  tokens) and validation: a refused text is never kept. Keeping a new text counts against
  the caller's quota (`persisted_queries_per_hour` per token name): past it, RATE_LIMITED;
- hash alone: the kept query runs; an unknown hash answers PERSISTED_QUERY_NOT_FOUND, and
  the client sends the pair once.
A hash is 64 hexadecimal characters or the request is refused (400): no caller text becomes
a Redis key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

from cross_web import HTTPException
from redis.asyncio import Redis
from redis.exceptions import RedisError
from strawberry.http import GraphQLRequestData

from engine.principal import Principal
from engine.settings import Settings
from jobs import quota

PREFIX = "storygraph:persisted:"
KEEP_SECONDS = 7 * 24 * 3600
HASH = re.compile(r"[0-9a-f]{64}")
NOT_FOUND = "PersistedQueryNotFound"


class PersistedQueryNotFound(Exception):
    pass


def _hash_of(extensions: dict[str, object] | None) -> str | None:
    persisted = (extensions or {}).get("persistedQuery")
    if persisted is None:
        return None
    if not isinstance(persisted, dict) or persisted.get("version") != 1:
        raise HTTPException(400, "extensions.persistedQuery must be {version: 1, sha256Hash}")
    digest = persisted.get("sha256Hash")
    if not isinstance(digest, str) or not HASH.fullmatch(digest):
        raise HTTPException(400, "persistedQuery.sha256Hash must be 64 hexadecimal characters")
    return digest


@dataclasses.dataclass(frozen=True)
class ToKeep:
    """A pair whose text is kept once it ran past the limits and validation (`keep`)."""

    digest: str
    query: str


async def resolve(
    redis: Redis, request: GraphQLRequestData, principal: Principal | None, settings: Settings
) -> tuple[GraphQLRequestData, ToKeep | None]:
    """`request` with its query looked up, and the pair to keep after it ran, if any.
    A new pair counts against the caller's quota (RateLimited past it)."""
    digest = _hash_of(request.extensions)
    if digest is None:
        return request, None
    query = request.query
    if query:
        if hashlib.sha256(query.encode()).hexdigest() != digest:
            raise HTTPException(400, "persistedQuery.sha256Hash is not the query's SHA-256")
        try:
            if await redis.exists(PREFIX + digest):
                return request, None
            holder = principal.name if principal is not None else "anonymous"
            await quota.take(
                redis,
                "persisted",
                holder,
                settings.persisted_queries_per_hour,
                3600,
                "new persisted queries of this token",
            )
        except (RedisError, OSError):
            return request, None  # run it anyway; the next hash-only request sends the pair
        return request, ToKeep(digest, query)
    try:
        kept = await redis.get(PREFIX + digest)
    except (RedisError, OSError):
        kept = None
    if kept is None:
        raise PersistedQueryNotFound(NOT_FOUND)
    text = kept.decode() if isinstance(kept, bytes) else str(kept)
    return dataclasses.replace(request, query=text), None


async def keep(redis: Redis, pair: ToKeep) -> None:
    """Keep a pair whose text ran past the limits and validation."""
    try:
        await redis.set(PREFIX + pair.digest, pair.query, ex=KEEP_SECONDS)
    except (RedisError, OSError):
        pass  # the next hash-only request sends the pair again
