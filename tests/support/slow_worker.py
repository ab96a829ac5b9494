"""A real ResilientWorker process with one slow job, for kill tests.

`python -m tests.support.slow_worker <redis url> <queue>`: the job `slow(key)` hangs on its
first try (so the test can SIGKILL the worker mid-job) and on a later try records
`done:<key>` with the try number in Redis and returns.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from arq.connections import RedisSettings
from arq.worker import func

from jobs.resilient_worker import ResilientWorker
from jobs.serialization import SERIALIZERS

JOB_TIMEOUT_S = 600


async def slow(ctx: dict[str, Any], *, key: str) -> int:
    if ctx["job_try"] == 1:
        await ctx["redis"].set(f"started:{key}", "1")
        await asyncio.sleep(3600)
    await ctx["redis"].incr(f"done:{key}")
    return int(ctx["job_try"])


def main() -> None:
    url, queue = sys.argv[1], sys.argv[2]
    ResilientWorker(
        functions=[func(slow, name="slow", max_tries=5)],
        redis_settings=RedisSettings.from_dsn(url),
        queue_name=queue,
        job_timeout=JOB_TIMEOUT_S,
        poll_delay=0.2,
        **SERIALIZERS,
    ).run()


if __name__ == "__main__":
    main()
