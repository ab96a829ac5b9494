"""An arq Worker that outlives a Redis outage.

arq's `Worker.main` lets the first Redis error of a poll escape, and `close()` then fails
deleting its health key, so a Redis restart ended the process for good. Here a poll that
hits Redis errors is logged once, retried with backoff (0.5 s doubling to 5 s), and the
worker carries on with the same pool (redis-py reconnects a dropped connection on its next
command). Crons and the health key are part of the poll, so they resume with it. Shutdown
tolerates a Redis that is gone.

Two more rules for work that must not get stuck:
- a job that meets an unreachable Neo4j (after the driver's own retry) or a Redis that is
  away or between primaries (a dropped connection, a demoted primary's READONLY, a lone
  primary's NOREPLICAS, a write not acknowledged by a replica) is retried by arq with
  backoff (`Retry`, 2 s doubling to 60 s) within its `max_tries`, not failed at once: a job
  failed on a failover left a review run `running` that nothing would execute again;
- a failed job leaves no arq result: arq refuses a job id whose result exists, so a kept
  failure (`keep_result`, an hour) blocked the next scheduler tick or the reconciler from
  enqueueing the same concern turn or report again. The failure is kept for an hour under
  `storygraph:failed:<job id>` instead, for whoever investigates.

A job of a worker that was killed (SIGKILL, OOM, power) is taken over within
`IN_PROGRESS_TTL_S`: arq marks a running job with an in-progress key that lives
`job_timeout + 10 s` (over ten minutes here), and no other worker starts the job while
it exists. Here the key lives 30 s and the running worker renews it every 10 s, so only a
dead worker's jobs lose it; `job_timeout` still bounds a job's run.

A job whose own Redis bookkeeping failed mid-outage is not lost: its queue entry stays
(AOF keeps it across a restart) and arq runs it again once its in-progress key expires; the
reconciler (jobs/tasks/reconcile.py) re-enqueues work whose queue entry did not survive.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import signal
from typing import Any

from arq.constants import in_progress_key_prefix
from arq.jobs import SerializationError, deserialize_result
from arq.typing import WorkerCoroutine
from arq.utils import timestamp_ms
from arq.worker import Retry, Worker
from neo4j.exceptions import ServiceUnavailable, SessionExpired
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError, RedisError, ResponseError, WatchError
from redis.exceptions import TimeoutError as RedisTimeoutError

from jobs.redis_client import NotReplicated

log = logging.getLogger("storygraph.worker")

REDIS_DOWN = (RedisError, OSError)
BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 5.0
NEO4J_DOWN = (ServiceUnavailable, SessionExpired)
REDIS_AWAY = (RedisConnectionError, RedisTimeoutError, ReadOnlyError, NotReplicated, OSError)
# the replies of a primary that cannot take writes now (the rest of ResponseError is a fault)
REDIS_AWAY_REPLIES = ("NOREPLICAS", "MASTERDOWN", "TRYAGAIN")
FAILED_RESULT_S = 3600
IN_PROGRESS_TTL_S = 30.0
RENEW_EVERY_S = 10.0
FAILED_PREFIX = "storygraph:failed:"


def store_away(exc: BaseException) -> bool:
    """Neo4j unreachable, or Redis away or between primaries: a job meeting it is retried."""
    if isinstance(exc, (*NEO4J_DOWN, *REDIS_AWAY)):
        return True
    return isinstance(exc, ResponseError) and str(exc).startswith(REDIS_AWAY_REPLIES)


def retry_when_a_store_is_away(coroutine: WorkerCoroutine) -> WorkerCoroutine:
    """Turn an unreachable Neo4j or a Redis away (`store_away`) into arq's `Retry` with
    backoff (2, 4, 8 … 60 s)."""

    @functools.wraps(coroutine)
    async def run(ctx: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return await coroutine(ctx, *args, **kwargs)
        except Exception as exc:
            if not store_away(exc):
                raise
            defer = min(2.0 ** int(ctx.get("job_try") or 1), 60.0)
            log.warning(
                "a store is unreachable; the job will be retried",
                extra={
                    "fields": {
                        "job_id": ctx.get("job_id"),
                        "defer_s": defer,
                        "error": str(exc) or type(exc).__name__,
                    }
                },
            )
            raise Retry(defer=defer) from exc

    return run


class ResilientWorker(Worker):
    """`Worker` whose poll loop survives Redis errors (see the module note)."""

    _redis_down_since: float | None = None
    _backoff_s: float = BACKOFF_FIRST_S

    _renewed_at: float = 0.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_progress_timeout_s = IN_PROGRESS_TTL_S
        self.functions = {
            name: dataclasses.replace(f, coroutine=retry_when_a_store_is_away(f.coroutine))
            for name, f in self.functions.items()
        }

    async def finish_job(
        self,
        job_id: str,
        finish: bool,
        result_data: bytes | None,
        result_timeout_s: float | None,
        keep_result_forever: bool,
        incr_score: int | None,
        keep_in_progress: float | None,
    ) -> None:
        failed = finish and result_data is not None and not self._succeeded(result_data)
        await super().finish_job(
            job_id,
            finish,
            None if failed else result_data,
            result_timeout_s,
            keep_result_forever,
            incr_score,
            keep_in_progress,
        )
        if failed and result_data is not None:
            await self._keep_failure(job_id, result_data)

    async def finish_failed_job(self, job_id: str, result_data: bytes | None) -> None:
        await super().finish_failed_job(job_id, None)
        if result_data is not None:
            await self._keep_failure(job_id, result_data)

    async def _keep_failure(self, job_id: str, result_data: bytes) -> None:
        await self.pool.set(FAILED_PREFIX + job_id, result_data, ex=FAILED_RESULT_S)

    def _succeeded(self, result_data: bytes) -> bool:
        try:
            return deserialize_result(result_data, deserializer=self.job_deserializer).success
        except SerializationError:
            return False

    async def main(self) -> None:
        """arq's main loop, with the in-progress renewal on a task of its own: the poll loop
        can wait a long time for a free job slot, and a mark that lapsed meanwhile would let
        a job still running here start a second time."""
        await self._until_redis_answers()
        renewer = asyncio.get_running_loop().create_task(self._renew_forever())
        try:
            await super().main()
        finally:
            renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewer

    async def _until_redis_answers(self) -> None:
        """A worker started while Redis is away (or while the sentinels promote a replica)
        waits for it here, with the poll loop's backoff, instead of exiting at arq's first
        command."""
        if self._pool is None:  # arq builds its own pool from redis_settings, with retries
            return
        while True:
            try:
                await self.pool.ping()
            except REDIS_DOWN as exc:
                if self._redis_down_since is None:
                    self._redis_down_since = asyncio.get_running_loop().time()
                    log.error(
                        "Redis is unreachable; the worker keeps retrying",
                        extra={"fields": {"error": str(exc) or type(exc).__name__}},
                    )
                await asyncio.sleep(self._backoff_s)
                self._backoff_s = min(self._backoff_s * 2, BACKOFF_MAX_S)
            else:
                self._redis_down_since = None
                self._backoff_s = BACKOFF_FIRST_S
                return

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY_S)
            with contextlib.suppress(*REDIS_DOWN):
                await self._renew_in_progress()

    async def _renew_in_progress(self) -> None:
        now = asyncio.get_running_loop().time()
        if now - self._renewed_at < RENEW_EVERY_S / 2:
            return
        self._renewed_at = now
        running = [job_id for job_id, task in self.tasks.items() if not task.done()]
        if not running:
            return
        async with self.pool.pipeline(transaction=False) as pipe:
            for job_id in running:
                pipe.pexpire(in_progress_key_prefix + job_id, int(IN_PROGRESS_TTL_S * 1000))
            await pipe.execute()

    async def _poll_iteration(self) -> None:
        try:
            await super()._poll_iteration()
            await self._renew_in_progress()
        except REDIS_DOWN as exc:
            if self._redis_down_since is None:
                self._redis_down_since = asyncio.get_running_loop().time()
                log.error(
                    "Redis is unreachable; the worker keeps retrying",
                    extra={"fields": {"error": str(exc) or type(exc).__name__}},
                )
            await asyncio.sleep(self._backoff_s)
            self._backoff_s = min(self._backoff_s * 2, BACKOFF_MAX_S)
            return
        if self._redis_down_since is not None:
            down = asyncio.get_running_loop().time() - self._redis_down_since
            log.warning(
                "Redis is back; the worker resumed", extra={"fields": {"down_s": round(down, 1)}}
            )
            self._redis_down_since = None
            self._backoff_s = BACKOFF_FIRST_S
            self._last_health_check = 0  # rewrite the health key lost with the old Redis

    async def start_jobs(self, job_ids: list[bytes]) -> None:
        """arq's own, except that a Redis error between taking a slot and starting the job
        gives the slot back (arq leaks it, and after `max_jobs` leaks the worker idles)."""
        for job_id_b in job_ids:
            await self.sem.acquire()
            if self.job_counter >= self.max_jobs:
                self.sem.release()
                return
            self.job_counter += 1
            job_id = job_id_b.decode()
            started = False
            try:
                started = await self._claim(job_id)
            finally:
                if not started:
                    self.job_counter -= 1
                    self.sem.release()

    async def _claim(self, job_id: str) -> bool:
        running = self.tasks.get(job_id)
        if running is not None and not running.done():
            return False  # never a second copy of a job this worker is running
        in_progress_key = in_progress_key_prefix + job_id
        async with self.pool.pipeline(transaction=True) as pipe:
            await pipe.watch(in_progress_key)
            ongoing = await pipe.exists(in_progress_key)
            score = await pipe.zscore(self.queue_name, job_id)
            if ongoing or not score or score > timestamp_ms():
                return False
            pipe.multi()
            pipe.psetex(in_progress_key, int(self.in_progress_timeout_s * 1000), b"1")
            try:
                await pipe.execute()
            except (ResponseError, WatchError):
                return False
        task = self.loop.create_task(self.run_job(job_id, int(score)))
        task.add_done_callback(lambda _: self._release_sem_dec_counter_on_complete())
        self.tasks[job_id] = task
        return True

    async def close(self) -> None:
        """arq's close, tolerant of a Redis that is down: on_shutdown always runs."""
        if not self._handle_signals:
            self.handle_sig(signal.SIGUSR1)
        if not self._pool:
            return
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        with contextlib.suppress(*REDIS_DOWN):
            await self.pool.delete(self.health_check_key)
        if self.on_shutdown:
            await self.on_shutdown(self.ctx)
        with contextlib.suppress(*REDIS_DOWN):
            await self.pool.aclose(close_connection_pool=True)
        self._pool = None
