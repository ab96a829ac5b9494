"""What the isolation test compares before and after the attacks: every node of scope B
with its relationships out of it and into it (an edge written from anywhere into B shows),
every job of the deployment's queue whatever it names, queued, running or finished (arq
keeps results), and every key of the Redis database by a digest of its value. A job or a
key that appears or changes must be accounted for as the attacker's own (A's) or the
deployment's own housekeeping: nothing is matched by a marker of B.

`drained` waits (polling, with a deadline) until the worker on the queue has nothing due and
nothing running, so the snapshot is taken on a settled queue.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from arq.constants import job_key_prefix, result_key_prefix
from arq.jobs import deserialize_job, deserialize_result
from neo4j import AsyncDriver
from redis.asyncio import Redis

from jobs.serialization import deserialize
from tests.support.polling import until_async

NODES = (
    "MATCH (n) WHERE n.scope = $scope OR n.library_id = $library OR n.libraryId = $library"
    " OPTIONAL MATCH (n)-[r]->(m)"
    " WITH n, [x IN collect([type(r), coalesce(m.id, m.key, ''), properties(r)])"
    "  WHERE x[0] IS NOT NULL] AS out"
    " OPTIONAL MATCH (o)-[r2]->(n)"
    " WITH n, out, [x IN collect([type(r2), coalesce(o.id, o.key, ''), labels(o), properties(r2)])"
    "  WHERE x[0] IS NOT NULL] AS into"
    " RETURN labels(n) AS labels, properties(n) AS props, out, into"
)


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


async def scope_nodes(
    driver: AsyncDriver, database: str, scope: str, library: str, *, other_scope: str
) -> list[str]:
    """Every node of `scope` (and of its library entry), with its outgoing relationships,
    as sorted text; nodes of `other_scope` placed in the same library are left out."""
    records, _, _ = await driver.execute_query(
        NODES, scope=scope, library=library, database_=database
    )
    return sorted(
        _text(
            {
                "labels": sorted(r["labels"]),
                "props": r["props"],
                "out": sorted(_text(x) for x in r["out"]),
                "into": sorted(_text(x) for x in r["into"]),  # an edge from anywhere into B
            }
        )
        for r in records
        if r["props"].get("scope") != other_scope
    )


async def all_jobs(redis: Redis, queue: str) -> dict[str, str]:
    """Every job of `queue` (queued, running or finished), whatever it names: job id ->
    (job id, function, arguments) as text."""
    found: dict[str, str] = {}
    for raw in await redis.zrange(queue, 0, -1):
        job_id = raw.decode()
        data = await redis.get(job_key_prefix + job_id)
        if data is not None:
            job = deserialize_job(data, deserializer=deserialize)
            found[job_id] = _text([job_id, job.function, job.args, job.kwargs])
    async for key in redis.scan_iter(match=f"{result_key_prefix}*"):
        data = await redis.get(key)
        if data is None:
            continue
        result = deserialize_result(data, deserializer=deserialize)
        if result.queue_name == queue:
            found[result.job_id] = _text(
                [result.job_id, result.function, result.args, result.kwargs]
            )
    return found


async def queue_jobs(redis: Redis, queue: str, names: Sequence[str]) -> list[str]:
    """Jobs of `queue` whose function call names one of `names`, as sorted text."""
    found = await all_jobs(redis, queue)
    return sorted(call for call in found.values() if any(name in call for name in names))


async def redis_keys(redis: Redis) -> dict[str, str]:
    """Every key of the Redis database with a digest of its value (DUMP), so a key written
    or changed between two snapshots shows whatever it names."""
    found: dict[str, str] = {}
    async for key in redis.scan_iter(count=1000):
        dumped = await redis.dump(key)
        if dumped is not None:
            found[key.decode()] = hashlib.sha256(dumped).hexdigest()[:16]
    return found


def unexplained(
    before: dict[str, str], after: dict[str, str], explained: Callable[[str, str], bool]
) -> list[str]:
    """Entries added, changed or removed between two snapshots that `explained(key, value)`
    does not account for (value: the later one, or the earlier one of a removed entry)."""
    changed = [k for k in after if before.get(k) != after[k]]
    removed = [k for k in before if k not in after]
    return sorted(
        [f"+ {k}" for k in changed if not explained(k, after[k])]
        + [f"- {k}" for k in removed if not explained(k, before[k])]
    )


async def drained(redis: Redis, queue: str, within_s: float = 120) -> None:
    """Wait until no job of `queue` is due or running (deferred ones may wait): arq keeps a
    job in the queue until it has finished."""

    async def due() -> int:
        return int(await redis.zcount(queue, "-inf", time.time() * 1000))

    await until_async(due, lambda n: n == 0, f"queue {queue} drained", within_s)
