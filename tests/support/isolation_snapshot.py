"""What the isolation test compares before and after the attacks (issue 26 item 6c): every
node of scope B with its outgoing relationships, and every job of the deployment's queue
that names one of B's objects, whether queued, running or finished (arq keeps results).

`drained` waits (polling, with a deadline) until the worker on the queue has nothing due and
nothing running, so the snapshot is taken on a settled queue.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any

from arq.constants import job_key_prefix, result_key_prefix
from arq.jobs import deserialize_job, deserialize_result
from neo4j import AsyncDriver
from redis.asyncio import Redis

from jobs.serialization import deserialize

NODES = (
    "MATCH (n) WHERE n.scope = $scope OR n.library_id = $library OR n.libraryId = $library"
    " OPTIONAL MATCH (n)-[r]->(m)"
    " WITH n, [x IN collect([type(r), coalesce(m.id, m.key, '')]) WHERE x[0] IS NOT NULL] AS out"
    " RETURN labels(n) AS labels, properties(n) AS props, out"
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
        _text({"labels": sorted(r["labels"]), "props": r["props"], "out": sorted(r["out"])})
        for r in records
        if r["props"].get("scope") != other_scope
    )


async def queue_jobs(redis: Redis, queue: str, names: Sequence[str]) -> list[str]:
    """Jobs of `queue` (queued, running or finished) whose function call names one of
    `names`, as sorted text: (job id, function, arguments)."""
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
    return sorted(call for call in found.values() if any(name in call for name in names))


async def drained(redis: Redis, queue: str, within_s: float = 120) -> None:
    """Wait until no job of `queue` is due or running (deferred ones may wait): arq keeps a
    job in the queue until it has finished."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if await redis.zcount(queue, "-inf", time.time() * 1000) == 0:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"queue {queue} did not drain in {within_s} s")
