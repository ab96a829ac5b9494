"""Worker probes: the smallest real job round-trip (API enqueues, worker writes, API reads)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncManagedTransaction

from graph.base import Store
from graph.temporal import from_neo4j


@dataclass(frozen=True)
class Probe:
    id: str
    note: str
    worker_id: str
    written_at: datetime
    runs: int


class ProbeStore(Store):
    async def record(self, *, id: str, note: str, worker_id: str) -> None:
        """Idempotent by id: a second run of the same probe only counts the run."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await self.rows(tx, "platform/probe_write", id=id, note=note, worker_id=worker_id)

        await self.write(work)

    async def get(self, id: str) -> Probe | None:
        found = await self.query("platform/probe_read", id=id)
        if not found:
            return None
        r = found[0]
        return Probe(r["id"], r["note"], r["worker_id"], from_neo4j(r["written_at"]), r["runs"])
