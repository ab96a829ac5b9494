"""A worker killed mid-job (SIGKILL): another worker takes the job over once the killed one's
short in-progress mark lapses (`IN_PROGRESS_TTL_S`, renewed only by a live worker) — not
arq's mark of job_timeout + 10 s (over ten minutes) — and runs it to completion once. The
test reads the mark's time to live after the kill; it asserts no wall-clock duration."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid

from arq.connections import create_pool
from arq.constants import in_progress_key_prefix

from engine.settings import PROJECT_ROOT, Settings
from jobs.queue import redis_settings
from jobs.resilient_worker import IN_PROGRESS_TTL_S
from jobs.serialization import SERIALIZERS
from tests.support.polling import until_async
from tests.support.slow_worker import JOB_TIMEOUT_S


def _slow_worker(settings: Settings, queue: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.slow_worker", settings.effective_redis_url, queue],
        cwd=PROJECT_ROOT,
        env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def test_a_job_of_a_killed_worker_is_taken_over_and_completes_once(
    services: Settings,
) -> None:
    queue = f"storygraph:kill:{uuid.uuid4().hex[:8]}"
    key = uuid.uuid4().hex[:8]
    pool = await create_pool(redis_settings(services), default_queue_name=queue, **SERIALIZERS)
    first = _slow_worker(services, queue)
    second: subprocess.Popen[bytes] | None = None
    try:
        assert await pool.enqueue_job("slow", key=key, _job_id=f"slow:{key}") is not None
        await until_async(lambda: pool.exists(f"started:{key}"), what="the first try to start")
        job_id = f"slow:{key}"
        first.send_signal(signal.SIGKILL)
        first.wait()
        # what frees the job is the short in-progress mark, not arq's job_timeout + 10 s
        left_ms = await pool.pttl(in_progress_key_prefix + job_id)
        assert 0 < left_ms <= IN_PROGRESS_TTL_S * 1000 < JOB_TIMEOUT_S * 1000, left_ms
        second = _slow_worker(services, queue)
        await until_async(
            lambda: pool.exists(f"done:{key}"), what="the job taken over and completed", within=90
        )

        async def still_there() -> bool:  # queued or in progress
            queued = await pool.zscore(queue, job_id) is not None
            return queued or bool(await pool.exists(in_progress_key_prefix + job_id))

        # the job has ended for good (left the queue, nothing in progress) before counting
        await until_async(still_there, lambda there: not there, what="the taken-over job to end")
        assert int(await pool.get(f"done:{key}")) == 1, "the job completed more than once"
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)
        await pool.delete(queue, f"started:{key}", f"done:{key}")
        await pool.aclose()
