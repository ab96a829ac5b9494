"""The work lists page in Cypher and cost what they return: concerns,
concern messages, watches, supervision runs and activity. Two scopes of one
shape, one 10x the other: each page statement answers the same page at the same PROFILE db
hits (within 1.3x), in list order, and a page after a cursor deep in the list costs what
the first page costs (the read seeks from the cursor instead of walking up to it). Before,
each of these read and sorted every row of its scope or deployment: 10x the rows, 10x the
db hits."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from bench.page_scale import WORK_T0, drop_work_lists, seed_work_lists, work_first_pages
from engine.settings import Settings
from tests.support.profile import profile

SMALL = 80
LIMIT = 21


@pytest_asyncio.fixture(scope="module")
async def scopes(neo4j_driver: AsyncDriver, settings: Settings) -> AsyncIterator[dict[int, str]]:
    run = uuid.uuid4().hex[:10]
    made = {1: f"test-lists-{run}-x1", 10: f"test-lists-{run}-x10"}
    db = settings.neo4j_database
    try:
        for factor, scope in made.items():
            await seed_work_lists(neo4j_driver, db, scope, SMALL * factor)
        yield made
    finally:
        for scope in made.values():
            await drop_work_lists(neo4j_driver, db, scope)


def at(i: int) -> datetime:
    return WORK_T0 + timedelta(minutes=i)


def key(scope: str, i: int) -> str:
    return f"{scope}-{i:06d}"


# name: (the page's ids in list order from item `start` on, the parameters of the page
#        after the item in the middle, the id a row answers); statements and first pages:
#        bench.page_scale
Expected = tuple[list[str], dict[str, Any], Any]


def expected(scope: str, n: int, start: int | None = None) -> dict[str, Expected]:
    """`start`: the first item the page holds (default: the list's first)."""
    h = n // 2
    newest = [key(scope, i) for i in range(start or n, 0, -1)][:LIMIT]
    oldest = [key(scope, i) for i in range(start or 1, n + 1)][:LIMIT]
    mid, middle = key(scope, h), at(h)
    runs = (
        [f"r-{k}" for k in newest],
        {"after_created_at": middle, "after_id": f"r-{mid}"},
        lambda r: r["id"],
    )
    # newest first, a heartbeat run 30 s after the supervision run of the same minute
    rows = [p for k in newest for p in (f"heartbeat:h-{k}", f"supervision:r-{k}")]
    activity = (
        rows[:LIMIT],
        {"after_at": middle, "after_key": f"supervision:r-{mid}"},
        lambda r: r["key"],
    )
    return {
        "concerns": (
            [f"con-{k}" for k in newest],
            {"after_created_at": middle, "after_id": f"con-{mid}"},
            lambda r: json.loads(r["doc"])["id"],
        ),
        "watches": (
            [f"w-{k}" for k in oldest],
            {"after_created_at": middle, "after_id": f"w-{mid}"},
            lambda r: r["w"]["id"],
        ),
        "concernMessages": (
            [f"o-{k}" for k in oldest],
            {"after_deliver_at": middle, "after_seq": h, "after_key": f"o-{mid}"},
            lambda r: r["row"]["key"],
        ),
        "supervisionRuns": runs,
        "supervisionRuns in scopes": runs,
        "activity": activity,
        "activity in scopes": activity,
    }


LISTS = sorted(work_first_pages("s"))


@pytest.mark.parametrize("name", LISTS)
async def test_a_work_list_page_costs_the_same_db_hits_at_10x_the_scope(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str], name: str
) -> None:
    cost = {}
    for factor, scope in scopes.items():
        query, params = work_first_pages(scope)[name]
        first, _, ident = expected(scope, SMALL * factor)[name]
        rows, hits = await profile(neo4j_driver, settings, query, limit=LIMIT, **params)
        assert len(rows) == LIMIT, (name, factor)
        assert [ident(r) for r in rows] == first, name
        cost[factor] = hits
    assert cost[10] <= 1.3 * cost[1], (name, cost)


@pytest.mark.parametrize("name", LISTS)
async def test_a_page_deep_in_a_work_list_costs_what_the_first_page_costs(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str], name: str
) -> None:
    """The page after a cursor half way through the 10x list answers the items that follow
    the cursor, and seeks from it: it costs what the first page costs, not the rows before
    the cursor."""
    scope, n = scopes[10], SMALL * 10
    query, params = work_first_pages(scope)[name]
    _, after, ident = expected(scope, n)[name]
    _, first_hits = await profile(neo4j_driver, settings, query, limit=LIMIT, **params)
    rows, deep_hits = await profile(
        neo4j_driver, settings, query, limit=LIMIT, **{**params, **after}
    )
    # the page starts at the next item: the minute after the middle, or the one before it
    # for the newest-first lists (activity: that minute's heartbeat run)
    oldest_first = name in ("watches", "concernMessages")
    following = expected(scope, n, start=n // 2 + 1 if oldest_first else n // 2 - 1)[name][0]
    assert [ident(r) for r in rows] == following, name
    assert deep_hits <= 1.3 * first_hits, (name, first_hits, deep_hits)


@pytest.mark.parametrize("name", [n for n in LISTS if n.endswith(" in scopes")])
async def test_a_scoped_callers_page_costs_the_same_beside_another_scopes_runs(
    neo4j_driver: AsyncDriver, settings: Settings, name: str
) -> None:
    """A caller limited to scope A lists runs and activity of a deployment where scope B
    has 10x as many, all newer than A's: the page answers A's newest, in order, at the db
    hits it costs in a deployment of A alone (the page seeks A; it never walks B's runs)."""
    db = settings.neo4j_database
    run = uuid.uuid4().hex[:10]
    alone, busy, other = (f"test-lists-{run}-{s}" for s in ("alone", "busy", "other"))
    later = WORK_T0 + timedelta(days=30)
    try:
        await seed_work_lists(neo4j_driver, db, alone, SMALL)
        await seed_work_lists(neo4j_driver, db, busy, SMALL)
        await seed_work_lists(neo4j_driver, db, other, SMALL * 10, deployment=busy, start_at=later)
        cost = {}
        for scope in (alone, busy):
            query, params = work_first_pages(scope)[name]
            rows, cost[scope] = await profile(neo4j_driver, settings, query, limit=LIMIT, **params)
            first, _, ident = expected(scope, SMALL)[name]
            assert [ident(r) for r in rows] == first
        assert cost[busy] <= 1.3 * cost[alone], (name, cost)
    finally:
        for scope in (alone, busy, other):
            await drop_work_lists(neo4j_driver, db, scope)
