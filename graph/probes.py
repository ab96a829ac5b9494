"""Worker probes: the smallest real job round-trip (API enqueues, worker writes, API reads)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncDriver, AsyncManagedTransaction, unit_of_work

from graph.queries import queries


@dataclass(frozen=True)
class Probe:
    id: str
    note: str
    worker_id: str
    written_at: datetime
    runs: int


async def write_probe(
    driver: AsyncDriver, database: str, *, id: str, note: str, worker_id: str
) -> None:
    @unit_of_work(metadata={"query": "platform/probe_write"})
    async def work(tx: AsyncManagedTransaction) -> None:
        result = await tx.run(
            queries().text("platform/probe_write"), id=id, note=note, worker_id=worker_id
        )
        await result.consume()

    async with driver.session(database=database) as session:
        await session.execute_write(work)


async def read_probe(driver: AsyncDriver, database: str, id: str) -> Probe | None:
    records, _, _ = await driver.execute_query(
        queries()["platform/probe_read"], id=id, database_=database, routing_="r"
    )
    if not records:
        return None
    r = records[0]
    return Probe(r["id"], r["note"], r["worker_id"], r["written_at"].to_native(), r["runs"])
