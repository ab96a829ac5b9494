"""Supervision runs and their stage / batch / navigation records (docs/rules/reviews.md).

Every change to a run is one write transaction that first takes the run node's write lock
(`review/run_lock`), then reads the run, applies an engine decision and writes the result.
A cancel stored by the API and a batch commit by a worker therefore apply one after the
other: a batch committed after the cancel sees `cancelled` and is refused by the engine,
so nothing of it is written. A leaf batch's output is written in the same transaction as
its committed state and offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.errors import NotFound
from engine.llm.ledger import LedgerEntry
from engine.review.lifecycle import SupervisionRun
from graph.base import Store
from graph.llm.ledger import call_row
from graph.review.codec import (
    RunOptions,
    StoredRun,
    batch_row,
    load_run,
    node_row,
    run_row,
    stage_rows,
)
from graph.temporal import to_neo4j


@dataclass
class RunChange:
    """What a decision made of a run: the new run, plus outputs to store with their records."""

    run: SupervisionRun
    leaf_outputs: Mapping[int, str] = field(default_factory=dict)
    node_outputs: Mapping[str, str] = field(default_factory=dict)
    value: Any = None
    calls: Sequence[LedgerEntry] = ()  # model calls to write into the cost ledger with it


Decide = Callable[[StoredRun], RunChange]


class SupervisionRuns(Store):
    def __init__(self, driver: AsyncDriver, database: str, *, deployment: str) -> None:
        super().__init__(driver, database)
        self.deployment = deployment  # the arq queue name: a deployment's global records

    async def write_run(
        self,
        tx: AsyncManagedTransaction,
        run: SupervisionRun,
        options: RunOptions,
        *,
        leaf_outputs: Mapping[int, str] | None = None,
        node_outputs: Mapping[str, str] | None = None,
        calls: Sequence[LedgerEntry] = (),
    ) -> None:
        leaf_outputs = leaf_outputs or {}
        node_outputs = node_outputs or {}
        await self.rows(
            tx,
            "review/run_write",
            run=run_row(run, self.deployment, options),
            stages=stage_rows(run),
            batches=[batch_row(b, leaf_outputs.get(b.index)) for b in run.ledger.batches],
            nodes=[node_row(n, node_outputs.get(n.node_id)) for n in run.ledger.nodes],
            calls=[call_row(c) for c in calls],
        )

    async def create(self, run: SupervisionRun, options: RunOptions) -> None:
        """Store a new run (`running`, collect running) before anything is collected."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await self.write_run(tx, run, options)

        await self.write(work)

    async def load_in(self, tx: AsyncManagedTransaction, ids: Iterable[str]) -> list[StoredRun]:
        return [load_run(r) for r in await self.rows(tx, "review/run_load", ids=list(ids))]

    async def locked(self, tx: AsyncManagedTransaction, run_id: str) -> StoredRun:
        """Lock and read a run inside a write transaction."""
        if not await self.rows(tx, "review/run_lock", id=run_id):
            raise NotFound("no such supervision run", id=run_id)
        (stored,) = await self.load_in(tx, [run_id])
        if stored.run is None:
            raise NotFound("no such supervision run", id=run_id)
        return stored

    async def get(self, run_id: str) -> StoredRun:
        async def work(tx: AsyncManagedTransaction) -> list[StoredRun]:
            return await self.load_in(tx, [run_id])

        found = await self.read(work)
        if not found:
            raise NotFound("no such supervision run", id=run_id)
        return found[0]

    async def mutate(self, run_id: str, decide: Decide) -> RunChange:
        """Lock, read, decide, write — one transaction. An exception writes nothing."""

        async def work(tx: AsyncManagedTransaction) -> RunChange:
            stored = await self.locked(tx, run_id)
            change = decide(stored)
            await self.write_run(
                tx,
                change.run,
                stored.options,
                leaf_outputs=change.leaf_outputs,
                node_outputs=change.node_outputs,
                calls=change.calls,
            )
            return change

        return await self.write(work)

    async def recent(
        self,
        *,
        scope_key: str | None = None,
        scopes: Sequence[str] | None = None,
        after: tuple[datetime, str] | None = None,
        limit: int = 500,
    ) -> list[StoredRun]:
        """Newest first, after the keyset `after` (created_at, id); `scopes` (story scopes)
        limits them to a caller's, None: every scope. A caller's scopes are each sought on
        their own (`runs_list_in_scopes`), so other scopes' runs are never walked."""

        async def work(tx: AsyncManagedTransaction) -> list[StoredRun]:
            params: dict[str, Any] = {
                "deployment": self.deployment,
                "scope_key": scope_key,
                "after_created_at": to_neo4j(after[0]) if after else None,
                "after_id": after[1] if after else None,
                "limit": limit,
            }
            if scopes is None:
                found = await self.rows(tx, "review/runs_list", **params)
            else:
                scoped = sorted(set(scopes))
                found = await self.rows(tx, "review/runs_list_in_scopes", scopes=scoped, **params)
            ids = [r["id"] for r in found]
            loaded = {s.run.run_id: s for s in await self.load_in(tx, ids)}
            return [loaded[i] for i in ids if i in loaded]

        return await self.read(work)

    async def count(
        self, *, scope_key: str | None = None, scopes: Sequence[str] | None = None
    ) -> int:
        async def work(tx: AsyncManagedTransaction) -> int:
            rows = await self.rows(
                tx,
                "review/runs_count",
                deployment=self.deployment,
                scope_key=scope_key,
                scopes=list(scopes) if scopes is not None else None,
            )
            return int(rows[0]["total"])

        return await self.read(work)

    async def unfinished(self) -> list[StoredRun]:
        """Runs whose execution or cleanup has not stopped, in this deployment."""

        async def work(tx: AsyncManagedTransaction) -> list[StoredRun]:
            rows = await self.rows(tx, "review/runs_unfinished", deployment=self.deployment)
            return await self.load_in(tx, [r["id"] for r in rows])

        return await self.read(work)

    async def outputs(self, run_id: str) -> tuple[dict[int, str], dict[str, tuple[str, bool]]]:
        """Committed leaf outputs by batch index and navigation outputs by node id."""

        async def work(tx: AsyncManagedTransaction) -> list[Any]:
            return await self.rows(tx, "review/run_outputs", id=run_id)

        rows = await self.read(work)
        if not rows:
            raise NotFound("no such supervision run", id=run_id)
        leaves = {int(x["index"]): x["output"] for x in rows[0]["leaves"] if x["output"]}
        nodes = {
            x["node_id"]: (x["output"], bool(x["is_root"])) for x in rows[0]["nodes"] if x["output"]
        }
        return leaves, nodes
