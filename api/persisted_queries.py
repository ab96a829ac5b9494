"""Persisted (hashed) queries, Apollo's automatic persisted queries protocol: a request may
carry `extensions.persistedQuery = {"version": 1, "sha256Hash": "<hex>"}` instead of the
query text, so a past read travels as a short GET a browser, proxy or CDN can keep.

- hash and query: the query's SHA-256 must equal the hash (else 400); it is kept in Redis
  for every API process (a week), then run;
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


async def resolve(redis: Redis, request: GraphQLRequestData) -> GraphQLRequestData:
    """`request` with its query, kept or looked up."""
    digest = _hash_of(request.extensions)
    if digest is None:
        return request
    query = request.query
    if query:
        if hashlib.sha256(query.encode()).hexdigest() != digest:
            raise HTTPException(400, "persistedQuery.sha256Hash is not the query's SHA-256")
        try:
            await redis.set(PREFIX + digest, query, ex=KEEP_SECONDS)
        except (RedisError, OSError):
            pass  # run it anyway; the next hash-only request sends the pair again
        return request
    try:
        kept = await redis.get(PREFIX + digest)
    except (RedisError, OSError):
        kept = None
    if kept is None:
        raise PersistedQueryNotFound(NOT_FOUND)
    text = kept.decode() if isinstance(kept, bytes) else str(kept)
    return dataclasses.replace(request, query=text)
