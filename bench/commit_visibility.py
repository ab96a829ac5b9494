"""Probe: does a reader see one part of a committed Neo4j transaction before another?

. A supervision run's status and its result were written in ONE transaction,
yet under load a client read the run `completed` and the result by id answered NOT_FOUND.
Neo4j's read-committed reads take no locks and no snapshot: a commit applies its store
records (nodes, properties) and then its index entries, and a reader in between sees the
new property values of a node it finds through an existing index entry, but not a node
whose own index entry is not yet applied. This probe counts it.

Each trial: a `Probe` run node exists (status running); a writer creates a `ProbeResult`
node (unique id) with `EVENTS` indexed `ProbeEvent` nodes and sets the run `completed`
naming the result, in one transaction; `READERS` processes poll the run by id and, in the
SAME statement, look the result up by its id. A reader that reads `completed` while the
result is not found has seen a partly applied commit. The fix (engine.review.lifecycle):
a run reads completed only once a later transaction has recorded it stopped.

Run: `.venv/bin/python -m bench.commit_visibility [trials]` with the test services up (the
labels are dropped afterwards). Prints the trials in which a reader saw a partial commit.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import sys
import time
import uuid
from multiprocessing.queues import Queue
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.settings import Settings
from graph.driver import open_driver

READERS = 3
EVENTS = 150
SCHEMA = (
    "CREATE CONSTRAINT probe_run IF NOT EXISTS FOR (r:ProbeRun) REQUIRE r.id IS UNIQUE",
    "CREATE CONSTRAINT probe_result IF NOT EXISTS FOR (r:ProbeResult) REQUIRE r.id IS UNIQUE",
    "CREATE CONSTRAINT probe_event IF NOT EXISTS FOR (e:ProbeEvent) REQUIRE e.id IS UNIQUE",
    "CREATE INDEX probe_event_title IF NOT EXISTS FOR (e:ProbeEvent) ON (e.title)",
)
DROP = (
    "DROP CONSTRAINT probe_run IF EXISTS",
    "DROP CONSTRAINT probe_result IF EXISTS",
    "DROP CONSTRAINT probe_event IF EXISTS",
    "DROP INDEX probe_event_title IF EXISTS",
)
READ = (
    "MATCH (r:ProbeRun {id: $id}) OPTIONAL MATCH (x:ProbeResult {id: r.result})"
    " RETURN r.status AS status, x IS NULL AS missing"
)


def reader(runs: Queue[Any], seen: Queue[bool]) -> None:
    """Poll each run given until it reads completed; report whether its result was missing."""

    async def main() -> None:
        settings = Settings()
        driver = open_driver(settings)
        try:
            while (run_id := runs.get()) is not None:
                while True:
                    records, _, _ = await driver.execute_query(
                        READ, id=run_id, database_=settings.neo4j_database, routing_="r"
                    )
                    if records and records[0]["status"] == "completed":
                        seen.put(bool(records[0]["missing"]))
                        break
        finally:
            await driver.close()

    asyncio.run(main())


async def publish(tx: AsyncManagedTransaction, run_id: str, result_id: str) -> None:
    """The result, its events and the run's completion: one transaction."""
    await tx.run("CREATE (r:ProbeResult) SET r = {id: $id}", id=result_id)
    await tx.run(
        "UNWIND range(1, $n) AS i CREATE (:ProbeEvent {id: $id + '-' + i, title: 'event ' + i})",
        id=result_id,
        n=EVENTS,
    )
    await tx.run(
        "MATCH (r:ProbeRun {id: $run}) SET r.status = 'completed', r.result = $id",
        run=run_id,
        id=result_id,
    )


async def probe(trials: int) -> int:
    settings = Settings()
    db = settings.neo4j_database
    driver = open_driver(settings)
    for statement in SCHEMA:
        await driver.execute_query(statement, database_=db)
    await driver.execute_query("CALL db.awaitIndexes()", database_=db)
    queues: list[tuple[Queue[Any], Queue[bool]]] = [
        (mp.Queue(), mp.Queue()) for _ in range(READERS)
    ]
    procs = [mp.Process(target=reader, args=pair) for pair in queues]
    for proc in procs:
        proc.start()
    partial = 0
    started = time.perf_counter()
    try:
        for _ in range(trials):
            run_id, result_id = uuid.uuid4().hex, uuid.uuid4().hex
            await driver.execute_query(
                "CREATE (:ProbeRun {id: $id, status: 'running'})", id=run_id, database_=db
            )
            for runs, _ in queues:
                runs.put(run_id)

            async with driver.session(database=db) as session:
                await session.execute_write(publish, run_id, result_id)
            if any([seen.get() for _, seen in queues]):
                partial += 1
        print(
            f"commit visibility: {partial} of {trials} trials had a reader see the run"
            f" completed while its result was not found ({READERS} readers,"
            f" {EVENTS} events a commit, {time.perf_counter() - started:.1f} s)"
        )
    finally:
        for runs, _ in queues:
            runs.put(None)
        for proc in procs:
            proc.join()
        async with driver.session(database=db) as session:
            result = await session.run(
                "MATCH (n) WHERE n:ProbeRun OR n:ProbeResult OR n:ProbeEvent"
                " CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS"
            )
            await result.consume()
        for statement in DROP:
            await driver.execute_query(statement, database_=db)
        await driver.close()
    return partial


if __name__ == "__main__":
    asyncio.run(probe(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
