"""Every story and knowledge read is index-backed: no label scan, no all-nodes scan."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import AsyncDriver

from engine.clock import FOREVER
from engine.settings import Settings
from graph.queries import Queries
from tests.support.story import T0

PARAMS: dict[str, Any] = {
    "scope": "p",
    "as_of": T0,
    "ids": ["a"],
    "id": "a",
    "key": "k",
    "result_id": "r",
    "forever": FOREVER,
    "from_time": None,
    "to_time": None,
    "story_id": None,
    "target_id": "t",
    "entity_id": "e",
    "result_ids": ["r"],
    "source_id": "s",
    "version": "v",
    "valid_at": None,
    "owner_ids": ["a"],
    "keys": [{"source_id": "s", "version": "v"}],
    # the paged lists (graph/story/pages.py)
    "after_name": "",
    "after_type": "",
    "after_id": "",
    "kind": None,
    "status": None,
    "name_contains": None,
    "confirmation": None,
    "include_removed": False,
    "lower": T0,
    "upper": FOREVER,
    "limit": 51,
    "cap": 5001,
    # the diff (graph/story/diff.py) and the inbox (graph/story/inbox.py, dismissals.py)
    "since": T0,
    "until": FOREVER,
    "after_at": FOREVER,
    "bookkeeping": {
        k: ["seq"] for k in ("story", "event", "entity", "relation", "suggestion", "signal")
    },
    "pairs": [{"owner": "a", "result": "r", "target": "t", "field": "f"}],
    "kinds": ["field"],
    "types": ["responsible_for"],
    "statuses": ["failed", "paused"],
    "items": [{"id": "a", "target": "t", "result": "r", "repeat_of": None}],
}
READS = sorted(
    k
    for k, q in Queries().named().items()
    if k.split("/")[0] in ("story", "knowledge", "inbox")
    and not k.split("/")[1].startswith("write_")
)


def _operators(plan: dict[str, Any]) -> list[str]:
    out = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        out.extend(_operators(child))
    return out


@pytest.mark.parametrize("key", READS)
async def test_story_read_uses_an_index(
    key: str, neo4j_driver: AsyncDriver, settings: Settings
) -> None:
    named = Queries().named()[key]
    params = {name: PARAMS[name] for name in named.declared}
    _, summary, _ = await neo4j_driver.execute_query(
        "EXPLAIN " + named.text, params, database_=settings.neo4j_database
    )
    assert summary.plan is not None
    ops = _operators(summary.plan)
    assert not {"NodeByLabelScan", "AllNodesScan"} & set(ops), (key, ops)
