"""Every named read query of every area is index-backed (every lookup path has an index
or constraint): EXPLAIN shows no label scan and no all-nodes scan."""

from __future__ import annotations

import re
from typing import Any

import pytest
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.queries import queries

WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DETACH)\b")


def body(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not ln.strip().startswith("//"))


READS = sorted(k for k, q in queries().named().items() if not WRITES.search(body(q.text)))


def operators(plan: dict[str, Any]) -> list[str]:
    found = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        found += operators(child)
    return found


def test_reads_of_every_area_are_checked() -> None:
    areas = {k.split("/")[0] for k in READS}
    assert {"story", "concern", "watch", "review", "platform"} <= areas


@pytest.mark.parametrize("key", READS)
async def test_read_query_uses_an_index(
    neo4j_driver: AsyncDriver, settings: Settings, key: str
) -> None:
    params = {name: None for name in queries().named()[key].declared}
    _, summary, _ = await neo4j_driver.execute_query(
        "EXPLAIN " + queries().text(key), params, database_=settings.neo4j_database
    )
    assert summary.plan is not None
    ops = operators(summary.plan)
    assert not any(op.startswith(("NodeByLabelScan", "AllNodesScan")) for op in ops), (key, ops)
