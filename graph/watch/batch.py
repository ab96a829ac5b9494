"""Nested watch records for many watches at once (the GraphQL DataLoaders' queries).

Each method is one query over a list of watch ids and returns a list per id, in the order
of the ids given, so a page of watches costs a fixed number of queries whatever its size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from neo4j import AsyncManagedTransaction

from engine.watch.model import Checkpoint
from graph.base import Store, rows
from graph.watch import codec
from graph.watch.deliveries import StoredHandOff, stored_handoff
from graph.watch.records import StoredObservation

T = TypeVar("T")


class WatchBatchReads(Store):
    async def _many(
        self,
        name: str,
        scope: str,
        watch_ids: Sequence[str],
        decode: Callable[[Any], T],
        **params: Any,
    ) -> list[list[T]]:
        async def work(tx: AsyncManagedTransaction) -> dict[str, list[T]]:
            found = await rows(tx, name, scope=scope, watch_ids=list(watch_ids), **params)
            return {r["watch_id"]: [decode(i) for i in r["items"]] for r in found}

        by_id: dict[str, list[T]] = await self.read(work)
        return [by_id.get(w, []) for w in watch_ids]

    async def observations(
        self, scope: str, watch_ids: Sequence[str], limit: int
    ) -> list[list[StoredObservation]]:
        return await self._many(
            "watch/observations_of_watches",
            scope,
            watch_ids,
            lambda o: StoredObservation(codec.observation_from(o), codec.plain(o)),
            limit=limit,
        )

    async def handoffs(self, scope: str, watch_ids: Sequence[str]) -> list[list[StoredHandOff]]:
        return await self._many("watch/handoffs_of_watches", scope, watch_ids, stored_handoff)

    async def checkpoints(
        self, scope: str, watch_ids: Sequence[str], limit: int
    ) -> list[list[tuple[Checkpoint, int]]]:
        return await self._many(
            "watch/checkpoints_of_watches", scope, watch_ids, codec.checkpoint_from, limit=limit
        )

    async def grants(self, scope: str, watch_ids: Sequence[str]) -> list[list[dict[str, Any]]]:
        return await self._many("watch/grants_of_watches", scope, watch_ids, codec.plain)
