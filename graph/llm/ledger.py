"""The cost ledger in Neo4j: `(:ModelCall)` nodes, written with their owner's records.

A supervision run's calls are written by `review/run_write` in the transaction that
commits the batch or node they were made for (no round trip of their own), hung on the run
with `MADE_CALL`. Sums are read per run, batch, concern, watch and scope by index
(cypher/schema/080_model_calls.cypher).
"""

from __future__ import annotations

from typing import Any

from engine.llm.ledger import LedgerEntry
from graph.temporal import to_neo4j


def call_row(entry: LedgerEntry) -> dict[str, Any]:
    row = entry.model_dump(mode="python")
    row["stage"] = entry.stage.value
    row["at"] = to_neo4j(entry.at)
    return row
