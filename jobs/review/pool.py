"""The supervision FIFO pool in Redis, shared by every worker (docs/rules/reviews.md).

The decisions (ticket order, the bound, expired slots, the timeout from the grant) are the
engine's (`engine.review.pool`); this shell stores their `PoolState` under one key per arq
queue name (`storygraph:pool:<queue>`) with a compare-and-set: WATCH the key, read, decide,
MULTI/SET/EXEC, and decide again when another worker wrote in between. Expiries are judged
by the Redis server's clock (`TIME`), so workers on different machines agree on them.

`hold(holder, ...)` waits in line (asking again every `poll` seconds, which keeps the ticket
alive, and calling `on_wait` now and then so the review lease stays fresh while waiting),
renews the slot in the background while the holder works, and releases it on exit. The
holder runs its model request through `Held.within`, which enforces the timeout fixed at
creation, counted from the grant. Only review work calls this: ordinary chat goes to the
model gateway directly and never queues here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from redis.asyncio import Redis
from redis.exceptions import WatchError

from engine.errors import Conflict
from engine.review import pool as pl
from jobs.redis_client import acknowledged

log = logging.getLogger("storygraph.review.pool")

T = TypeVar("T")
IDLE_EXPIRY_S = 3600  # the whole pool record goes away after an hour nobody touched it


def pool_key(queue: str) -> str:
    return f"storygraph:pool:{queue}"


class LeftLine(Exception):
    """The holder left the line before getting a slot (its run was paused or cancelled)."""


class StageTimedOut(Exception):
    """The work holding a slot ran past the stage timeout (counted from the grant)."""

    def __init__(self, holder: str, timeout: timedelta) -> None:
        super().__init__(f"{holder} ran past its {timeout.total_seconds():g} s stage timeout")
        self.holder = holder
        self.timeout = timeout


@dataclass
class Held:
    """A granted slot while its holder works."""

    slot: pl.Slot
    granted_now: datetime  # the pool clock when this grant was seen

    def remaining(self, timeout: timedelta) -> timedelta:
        return pl.remaining(self.slot, timeout, now=self.granted_now)

    async def within(self, stage_timeout: timedelta, work: Awaitable[T]) -> T:
        """Run `work` under the stage timeout fixed at creation, counted from the grant."""
        left = self.remaining(stage_timeout).total_seconds()
        try:
            async with asyncio.timeout(left):
                return await work
        except TimeoutError:
            raise StageTimedOut(self.slot.holder, stage_timeout) from None


class ReviewPool:
    def __init__(
        self,
        redis: Redis,
        queue: str,
        *,
        timings: pl.PoolTimings | None = None,
        poll: float = 0.2,
        wait_refresh: timedelta = timedelta(seconds=10),
        leave_check: timedelta = timedelta(seconds=2),
    ) -> None:
        self.redis = redis
        self.key = pool_key(queue)
        self.timings = timings or pl.PoolTimings()
        self.poll = poll
        self.wait_refresh = wait_refresh
        self.leave_check = leave_check

    async def now(self) -> datetime:
        seconds, micros = await self.redis.time()
        return datetime.fromtimestamp(seconds + micros / 1_000_000, UTC)

    async def state(self) -> pl.PoolState:
        raw = await self.redis.get(self.key)
        return pl.PoolState.model_validate_json(raw) if raw else pl.PoolState()

    async def change(self, decide: Callable[[pl.PoolState, datetime], tuple[pl.PoolState, T]]) -> T:
        """Compare-and-set: decide on the stored state, write only if nobody wrote meanwhile."""
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(self.key)
                    raw = await pipe.get(self.key)
                    state = pl.PoolState.model_validate_json(raw) if raw else pl.PoolState()
                    new, out = decide(state, await self.now())
                    pipe.multi()
                    pipe.set(self.key, new.model_dump_json(), ex=IDLE_EXPIRY_S)
                    await pipe.execute()
                    await acknowledged(self.redis)  # a slot survives a failover
                    return out
                except WatchError:
                    continue

    async def request(self, holder: str) -> tuple[pl.Granted | pl.Queued, datetime]:
        def decide(
            state: pl.PoolState, now: datetime
        ) -> tuple[pl.PoolState, tuple[pl.Granted | pl.Queued, datetime]]:
            new, answer = pl.request(state, holder, now=now, timings=self.timings)
            return new, (answer, now)

        return await self.change(decide)

    async def renew(self, holder: str) -> None:
        await self.change(lambda s, now: (pl.renew(s, holder, now=now, timings=self.timings), None))

    async def release(self, holder: str) -> None:
        await self.change(lambda s, now: (pl.release(s, holder), None))

    async def acquire(
        self,
        holder: str,
        *,
        on_wait: Callable[[], Awaitable[None]] | None = None,
        leave_if: Callable[[], Awaitable[bool]] | None = None,
    ) -> Held:
        """Wait in line until this holder has a slot.

        `leave_if` is asked every `leave_check` while waiting; when it answers True the
        holder leaves the line (`LeftLine`), e.g. a run paused or cancelled meanwhile.
        """
        refreshed: datetime | None = None
        checked: datetime | None = None
        try:
            while True:
                answer, now = await self.request(holder)
                for gone in answer.reclaimed:
                    log.warning("pool slot reclaimed", extra={"fields": {"holder": gone}})
                if isinstance(answer, pl.Granted):
                    return Held(slot=answer.slot, granted_now=now)
                if on_wait is not None and (
                    refreshed is None or now - refreshed >= self.wait_refresh
                ):
                    await on_wait()
                    refreshed = now
                if leave_if is not None and (checked is None or now - checked >= self.leave_check):
                    checked = now
                    if await leave_if():
                        raise LeftLine(holder)
                await asyncio.sleep(self.poll)
        except BaseException:
            await asyncio.shield(self.release(holder))  # leave the line (or the slot) behind
            raise

    async def _keep(self, holder: str) -> None:
        every = self.timings.slot_ttl.total_seconds() / 3
        while True:
            await asyncio.sleep(every)
            try:
                await self.renew(holder)
            except Conflict:
                log.warning("pool slot lost while working", extra={"fields": {"holder": holder}})
                return

    @contextlib.asynccontextmanager
    async def hold(
        self,
        holder: str,
        *,
        on_wait: Callable[[], Awaitable[None]] | None = None,
        leave_if: Callable[[], Awaitable[bool]] | None = None,
    ) -> AsyncIterator[Held]:
        """A slot for the duration of the block; released on exit (also on errors)."""
        held = await self.acquire(holder, on_wait=on_wait, leave_if=leave_if)
        keeper = asyncio.create_task(self._keep(holder), name=f"pool-slot:{holder}")
        try:
            yield held
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
            await asyncio.shield(self.release(holder))
