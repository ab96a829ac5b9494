"""A job that meets a store away is retried, not failed: Neo4j unreachable, or Redis away
or between primaries during a failover (a dropped connection, a demoted primary's READONLY,
a lone primary's NOREPLICAS, a write no replica acknowledged). A job that failed on a
failover left its review run `running`, held by a live worker that never executed it again.
Any other error still fails the job."""

from __future__ import annotations

from typing import Any

import pytest
from arq.worker import Retry
from neo4j.exceptions import ServiceUnavailable
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError, ResponseError

from jobs.redis_client import NotReplicated
from jobs.resilient_worker import retry_when_a_store_is_away


def job_raising(error: Exception) -> Any:
    async def job(ctx: dict[str, Any]) -> str:
        raise error

    return retry_when_a_store_is_away(job)


@pytest.mark.parametrize(
    "error",
    [
        NotReplicated("the write reached 0 of 1 Redis replicas within 1000 ms"),
        ReadOnlyError("You can't write against a read only replica."),
        ResponseError("NOREPLICAS Not enough good replicas to write."),
        RedisConnectionError("Connection closed by server."),
        ServiceUnavailable("Couldn't connect to 127.0.0.1:7687"),
    ],
    ids=["not-replicated", "readonly", "noreplicas", "connection", "neo4j"],
)
async def test_a_job_meeting_a_store_away_is_retried_with_backoff(error: Exception) -> None:
    for job_try, defer in ((1, 2.0), (3, 8.0), (9, 60.0)):
        with pytest.raises(Retry) as raised:
            await job_raising(error)({"job_id": "j", "job_try": job_try})
        assert raised.value.defer_score == int(defer * 1000)


@pytest.mark.parametrize(
    "error",
    [ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"),
     ValueError("a fault")],
    ids=["wrongtype", "fault"],
)  # fmt: skip
async def test_any_other_error_still_fails_the_job(error: Exception) -> None:
    with pytest.raises(type(error)):
        await job_raising(error)({"job_id": "j", "job_try": 1})
