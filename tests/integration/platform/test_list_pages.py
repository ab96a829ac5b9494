"""The work lists page in Cypher and cost what they return (issue 14 item 1): concerns,
concern messages, watches, supervision runs, heartbeat runs and activity. Two scopes of one
shape, one 10x the other: each page statement answers the same page at the same PROFILE db
hits (within 1.3x), in list order, and a page after a cursor deep in the list costs what
the first page costs (the read seeks from the cursor instead of walking up to it). Before,
each of these read and sorted every row of its scope or deployment: 10x the rows, 10x the
db hits."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from engine.settings import Settings
from tests.support.profile import profile

T0 = datetime(2026, 3, 1, tzinfo=UTC)
SMALL = 80
LIMIT = 21
PERSON = "p_boss"

# One node of each listed kind per minute, in the properties their pages read and return.
SEED = """
UNWIND range(1, $n) AS i
WITH i, $t0 + duration({minutes: i}) AS t, $scope + '-' + right('00000' + toString(i), 6) AS k
CREATE (:Concern {scope: $scope, concern_id: 'con-' + k, status: 'waiting_reply',
                  priority: 'medium', created_at: t, doc: '{"id": "con-' + k + '"}'})
CREATE (:Watch {scope: $scope, id: 'w-' + k, created_at: t, status: 'active'})
CREATE (:OutboxMessage {scope: $scope, recipient_person_id: $person, key: 'o-' + k, seq: i,
                        status: 'sent', deliver_at: t, concern_id: 'con-' + k})
CREATE (:SupervisionRun {deployment: $scope, scope: $scope, scope_key: $scope,
                         id: 'r-' + k, created_at: t})
CREATE (:HeartbeatRun {deployment: $scope, scope: $scope, scope_key: $scope, id: 'h-' + k,
                       claim_key: 'h-' + k, claimed_at: t + duration({seconds: 30}),
                       doc: '{"id": "h-' + k + '"}'})
"""

LABELS = ("Concern", "Watch", "OutboxMessage", "SupervisionRun", "HeartbeatRun")


@pytest_asyncio.fixture(scope="module")
async def scopes(neo4j_driver: AsyncDriver, settings: Settings) -> AsyncIterator[dict[int, str]]:
    run = uuid.uuid4().hex[:10]
    made = {1: f"test-lists-{run}-x1", 10: f"test-lists-{run}-x10"}
    db = settings.neo4j_database
    try:
        for factor, scope in made.items():
            await neo4j_driver.execute_query(
                SEED, n=SMALL * factor, scope=scope, t0=T0, person=PERSON, database_=db
            )
        yield made
    finally:
        for scope in made.values():
            for label in LABELS:
                await neo4j_driver.execute_query(
                    f"MATCH (n:{label}) WHERE n.scope = $scope DETACH DELETE n",
                    scope=scope,
                    database_=db,
                )


def at(i: int) -> datetime:
    return T0 + timedelta(minutes=i)


def key(scope: str, i: int) -> str:
    return f"{scope}-{i:06d}"


# name: (query, parameters of a first page, the first page's ids newest/oldest first,
#        parameters of the page after the item at position i, the id each row answers)
def pages(scope: str, n: int) -> dict[str, tuple[str, dict[str, Any], list[str], Any, Any]]:
    newest = [key(scope, i) for i in range(n, n - LIMIT, -1)]
    oldest = [key(scope, i) for i in range(1, LIMIT + 1)]
    mid = n // 2
    concern = {"statuses": None, "priorities": None, "person_id": None}
    activity = {"scopes": [scope], "scope_key": None, "config_id": None}
    activity |= {"since": None, "until": None}
    return {
        "concerns": (
            "concern/page",
            {"scope": scope, **concern, "after_created_at": None, "after_id": None},
            [f"con-{k}" for k in newest],
            {"after_created_at": at(mid), "after_id": f"con-{key(scope, mid)}"},
            lambda r: json.loads(r["doc"])["id"],
        ),
        "watches": (
            "watch/page_watches",
            {"scope": scope, "after_created_at": None, "after_id": None},
            [f"w-{k}" for k in oldest],
            {"after_created_at": at(mid), "after_id": f"w-{key(scope, mid)}"},
            lambda r: r["w"]["id"],
        ),
        "concernMessages": (
            "concern/outbox_page_recipient",
            {"scope": scope, "person_id": PERSON, "statuses": None}
            | {"after_deliver_at": None, "after_seq": None, "after_key": None},
            [f"o-{k}" for k in oldest],
            {"after_deliver_at": at(mid), "after_seq": mid, "after_key": f"o-{key(scope, mid)}"},
            lambda r: r["row"]["key"],
        ),
        "supervisionRuns": (
            "review/runs_list",
            {"deployment": scope, "scope_key": None, "scopes": [scope]}
            | {"after_created_at": None, "after_id": None},
            [f"r-{k}" for k in newest],
            {"after_created_at": at(mid), "after_id": f"r-{key(scope, mid)}"},
            lambda r: r["id"],
        ),
        "heartbeatRuns": (
            "review/heartbeats_list",
            {"deployment": scope, "scopes": [scope]},
            [f"h-{k}" for k in newest],
            None,
            lambda r: json.loads(r["doc"])["id"],
        ),
        "activity": (
            "review/activity_page",
            {"deployment": scope, **activity, "after_at": None, "after_key": None},
            [p for k in newest for p in (f"heartbeat:h-{k}", f"supervision:r-{k}")][:LIMIT],
            {"after_at": at(mid), "after_key": f"supervision:r-{key(scope, mid)}"},
            lambda r: r["key"],
        ),
    }


LISTS = sorted(pages("s", SMALL))


@pytest.mark.parametrize("name", LISTS)
async def test_a_work_list_page_costs_the_same_db_hits_at_10x_the_scope(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str], name: str
) -> None:
    cost = {}
    for factor, scope in scopes.items():
        query, params, first, _, ident = pages(scope, SMALL * factor)[name]
        rows, hits = await profile(neo4j_driver, settings, query, limit=LIMIT, **params)
        assert len(rows) == LIMIT, (name, factor)
        assert [ident(r) for r in rows] == first, name
        cost[factor] = hits
    assert cost[10] <= 1.3 * cost[1], (name, cost)


@pytest.mark.parametrize("name", [n for n in LISTS if n != "heartbeatRuns"])
async def test_a_page_deep_in_a_work_list_costs_what_the_first_page_costs(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str], name: str
) -> None:
    """The page after a cursor half way through the 10x list seeks from the cursor: it costs
    what the first page costs, not the rows before the cursor."""
    scope = scopes[10]
    query, params, _, after, _ = pages(scope, SMALL * 10)[name]
    _, first_hits = await profile(neo4j_driver, settings, query, limit=LIMIT, **params)
    rows, deep_hits = await profile(
        neo4j_driver, settings, query, limit=LIMIT, **{**params, **after}
    )
    assert len(rows) == LIMIT
    assert deep_hits <= 1.3 * first_hits, (name, first_hits, deep_hits)
