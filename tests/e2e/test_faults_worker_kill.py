"""A worker killed mid-job (SIGKILL): another worker takes the job over within about half a
minute — not after arq's in-progress mark of job_timeout + 10 s (over ten minutes) — and
runs it to completion once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid

from arq.connections import create_pool
from arq.constants import in_progress_key_prefix

from engine.settings import PROJECT_ROOT, Settings
from jobs.queue import redis_settings
from jobs.serialization import SERIALIZERS


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
        deadline = time.monotonic() + 30
        while not await pool.exists(f"started:{key}"):
            assert time.monotonic() < deadline, "the first worker never started the job"
            await asyncio.sleep(0.1)

        first.send_signal(signal.SIGKILL)
        first.wait()
        killed_at = time.monotonic()
        second = _slow_worker(services, queue)

        while not await pool.exists(f"done:{key}"):
            assert time.monotonic() - killed_at < 60, (
                "the killed worker's job was not taken over within a minute"
            )
            await asyncio.sleep(0.2)
        print(f"take-over completed {time.monotonic() - killed_at:.0f} s after the kill")
        # the job has ended for good (left the queue, nothing in progress) before counting
        job_id = f"slow:{key}"
        while await pool.zscore(queue, job_id) is not None or await pool.exists(
            in_progress_key_prefix + job_id
        ):
            assert time.monotonic() - killed_at < 90, "the taken-over job never ended"
            await asyncio.sleep(0.2)
        assert int(await pool.get(f"done:{key}")) == 1, "the job completed more than once"
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)
        await pool.delete(queue, f"started:{key}", f"done:{key}")
        await pool.aclose()
