"""The one-review lease in Neo4j (docs/rules/reviews.md:
同一时刻只允许一个监督回顾执行，包括停止清理阶段； 不同 scope 也共用此限制).

One `ReviewLease` node per deployment. Every operation is a write transaction that MERGEs
the node on its unique key and writes to it first, which takes its lock: readers-then-
writers in other processes wait, so acquire / renew / release are compare-and-set. The
decisions (busy, wait, take over an expired lease, fencing token) are the engine's
(`engine.review.lock`). A holder that crashed keeps the lease only until it expires, or
until a starting worker sees that the holder's process is gone (`release_dead`).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.review import lock
from engine.review.types import Trigger
from graph.base import Store
from graph.temporal import from_neo4j, to_neo4j

_EMPTY = {"owner": None, "run_id": None, "acquired_at": None, "expires_at": None, "worker_id": None}


def _lease(props: dict[str, Any] | None) -> lock.Lease | None:
    if not props or not props.get("owner"):
        return None
    return lock.Lease(
        owner=props["owner"],
        run_id=props["run_id"],
        token=props["token"],
        acquired_at=from_neo4j(props["acquired_at"]),
        expires_at=from_neo4j(props["expires_at"]),
    )


def _row(lease: lock.Lease, worker_id: str) -> dict[str, Any]:
    return {
        "owner": lease.owner,
        "run_id": lease.run_id,
        "token": lease.token,
        "acquired_at": to_neo4j(lease.acquired_at),
        "expires_at": to_neo4j(lease.expires_at),
        "worker_id": worker_id,
    }


class ReviewLease(Store):
    def __init__(self, driver: AsyncDriver, database: str, *, deployment: str) -> None:
        super().__init__(driver, database)
        self.deployment = deployment  # the arq queue name: a deployment's global records

    @property
    def key(self) -> str:
        return f"{lock.LOCK_KEY}:{self.deployment}"

    async def _locked(self, tx: AsyncManagedTransaction) -> dict[str, Any]:
        rows = await self.rows(tx, "review/lease_lock", key=self.key)
        return dict(rows[0]["lease"])

    async def acquire(
        self,
        *,
        owner: str,
        run_id: str,
        worker_id: str,
        trigger: Trigger,
        now: datetime,
        ttl: timedelta,
    ) -> lock.Acquired | lock.Wait:
        """Take the lease, or raise `Busy` (manual) / return `Wait` (automatic)."""

        async def work(tx: AsyncManagedTransaction) -> lock.Acquired | lock.Wait:
            props = await self._locked(tx)
            current = _lease(props)
            decided = lock.acquire(
                current, owner=owner, run_id=run_id, trigger=trigger, now=now, ttl=ttl
            )
            if isinstance(decided, lock.Acquired):
                lease = decided.lease
                last = props.get("token") or 0
                if current is None and lease.token <= last:
                    # the token keeps growing across releases (fencing)
                    lease = lease.model_copy(update={"token": last + 1})
                    decided = decided.model_copy(update={"lease": lease})
                await self.rows(tx, "review/lease_put", key=self.key, row=_row(lease, worker_id))
            return decided

        return await self.write(work)

    async def renew(self, *, owner: str, token: int, now: datetime, ttl: timedelta) -> lock.Lease:
        """Check and refresh before a model request; `Conflict` when the lease was lost."""

        async def work(tx: AsyncManagedTransaction) -> lock.Lease:
            props = await self._locked(tx)
            lease = lock.renew(_lease(props), owner=owner, token=token, now=now, ttl=ttl)
            await self.rows(
                tx, "review/lease_put", key=self.key, row={"expires_at": to_neo4j(lease.expires_at)}
            )
            return lease

        return await self.write(work)

    async def release(self, *, owner: str, token: int) -> bool:
        """Give the lease back; a holder that lost it releases nothing. True when released."""

        async def work(tx: AsyncManagedTransaction) -> bool:
            props = await self._locked(tx)
            current = _lease(props)
            if current is None or lock.release(current, owner=owner, token=token) is not None:
                return False
            await self.rows(tx, "review/lease_put", key=self.key, row=_EMPTY)
            return True

        return await self.write(work)

    async def release_run(self, run_id: str) -> bool:
        """Give back the lease held for `run_id` (its execution has stopped), whoever holds it."""

        async def work(tx: AsyncManagedTransaction) -> bool:
            current = _lease(await self._locked(tx))
            if current is None or current.run_id != run_id:
                return False
            await self.rows(tx, "review/lease_put", key=self.key, row=_EMPTY)
            return True

        return await self.write(work)

    async def release_dead(self, live_workers: Collection[str]) -> lock.Lease | None:
        """A starting worker frees a lease whose holding process is gone."""

        async def work(tx: AsyncManagedTransaction) -> lock.Lease | None:
            props = await self._locked(tx)
            current = _lease(props)
            if current is None or props.get("worker_id") in live_workers:
                return None
            await self.rows(tx, "review/lease_put", key=self.key, row=_EMPTY)
            return current

        return await self.write(work)

    async def acquire_worker(self, *, owner: str, token: int, worker_id: str) -> bool:
        """The worker executing the lease's run records its id (liveness for recovery)."""

        async def work(tx: AsyncManagedTransaction) -> bool:
            current = _lease(await self._locked(tx))
            if current is None or current.owner != owner or current.token != token:
                return False
            await self.rows(tx, "review/lease_put", key=self.key, row={"worker_id": worker_id})
            return True

        return await self.write(work)

    async def current(self) -> lock.Lease | None:
        async def work(tx: AsyncManagedTransaction) -> lock.Lease | None:
            rows = await self.rows(tx, "review/lease_get", key=self.key)
            return _lease(dict(rows[0]["lease"])) if rows else None

        return await self.read(work)

    async def holder_worker(self) -> str | None:
        async def work(tx: AsyncManagedTransaction) -> str | None:
            rows = await self.rows(tx, "review/lease_get", key=self.key)
            return rows[0]["lease"].get("worker_id") if rows else None

        return await self.read(work)
