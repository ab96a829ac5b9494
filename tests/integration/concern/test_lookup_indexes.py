"""Every concern read is index-backed: EXPLAIN of each read query shows no label or all-nodes
scan (CONVENTIONS: every lookup path has an index or constraint)."""

from __future__ import annotations

import re

import pytest
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.queries import queries

from .test_scan_indexes import operators

WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE)\b")
READS = sorted(
    key
    for key, q in queries().named().items()
    if key.startswith("concern/") and not WRITES.search(q.text.split("\n", 2)[-1])
)


def test_the_concern_reads_are_found() -> None:
    assert {
        "concern/owner_of_scope",
        "concern/channel_health_of_scope",
        "concern/load_context",
        "concern/persons_by_ids",
    } <= set(READS)


@pytest.mark.parametrize("key", READS)
async def test_concern_read_uses_an_index(
    neo4j_driver: AsyncDriver, settings: Settings, key: str
) -> None:
    params = {name: None for name in queries().named()[key].declared}
    _, summary, _ = await neo4j_driver.execute_query(
        "EXPLAIN " + queries().text(key), params, database_=settings.neo4j_database
    )
    assert summary.plan is not None
    ops = [op.split("@")[0] for op in operators(summary.plan)]
    assert not any(op.startswith(("NodeByLabelScan", "AllNodesScan")) for op in ops), (key, ops)
