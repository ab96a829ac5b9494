"""Story lists page in Cypher: a page costs what it returns, not what the scope
holds. Two scopes of one shape, one 10x the other: PROFILE db hits of each page statement
stay within 1.3x, keyset paging walks the whole list in order exactly once, and a page of 50
entities with their history is one request of two statements."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from api.context import Context
from api.schema import build_schema
from bench.page_scale import drop, seed
from engine.clock import EARLIEST, FOREVER
from engine.errors import InvalidInput
from engine.principal import OPEN_PRINCIPAL
from engine.settings import Settings
from engine.story.filters import EntityFilter, EventFilter
from graph.story.pages import StoryPages
from tests.support.counting_driver import CountingDriver
from tests.support.profile import profile

NOW = datetime(2030, 1, 1, tzinfo=UTC)
SMALL = 60


@pytest_asyncio.fixture(scope="module")
async def scopes(neo4j_driver: AsyncDriver, settings: Settings) -> AsyncIterator[dict[int, str]]:
    run = uuid.uuid4().hex[:10]
    made = {1: f"test-pages-{run}-x1", 10: f"test-pages-{run}-x10"}
    try:
        for factor, scope in made.items():
            await seed(neo4j_driver, settings.neo4j_database, scope, SMALL * factor)
        yield made
    finally:
        for scope in made.values():
            await drop(neo4j_driver, settings.neo4j_database, scope)


PAGES: dict[str, dict[str, Any]] = {
    "story/page_entities": {
        "after_name": "",
        "after_id": "",
        "kind": None,
        "status": None,
        "name_contains": None,
    },
    "story/page_relations": {
        "after_type": "",
        "after_id": "",
        "confirmation": None,
        "include_removed": False,
    },
    "story/page_events": {
        "lower": EARLIEST,
        "upper": FOREVER,
        "after_id": "",
        "story_id": None,
    },
}


@pytest.mark.parametrize("key", sorted(PAGES))
async def test_a_page_costs_the_same_db_hits_at_10x_the_scope(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str], key: str
) -> None:
    cost = {
        f: await profile(neo4j_driver, settings, key, scope=s, as_of=NOW, limit=51, **PAGES[key])
        for f, s in scopes.items()
    }
    (rows1, hits1), (rows10, hits10) = cost[1], cost[10]
    # a page is one record holding its rows (graph/story/pages.py)
    assert len(rows1) == len(rows10) == 1
    assert len(rows1[0]["page"]) == len(rows10[0]["page"]) == 51
    assert hits10 <= 1.3 * hits1, (key, cost)


@pytest.mark.parametrize("stem", ["entity", "relation"])
async def test_histories_of_a_page_cost_the_same_db_hits_at_10x_the_scope(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str], stem: str
) -> None:
    cost = {
        f: await profile(
            neo4j_driver,
            settings,
            f"story/{stem}_histories",
            scope=s,
            as_of=NOW,
            ids=[f"{s}:{stem}:{i:06d}" for i in range(50)],
        )
        for f, s in scopes.items()
    }
    assert len(cost[1][0]) == len(cost[10][0]) == 50 * (3 if stem == "entity" else 2)
    assert cost[10][1] <= 1.3 * cost[1][1], cost


async def test_keyset_pages_walk_every_entity_once_in_order(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str]
) -> None:
    pages = StoryPages(neo4j_driver, settings.neo4j_database)
    seen: list[tuple[str, str]] = []
    after: tuple[str, str] | None = None
    while True:
        page = await pages.entities(
            scopes[1], NOW, EntityFilter(), after=after, limit=7, with_total=True
        )
        assert page.total == SMALL
        seen += [(e.name, e.id) for e in page.items]
        assert all(e.seq == 3 and e.retracted_at is None for e in page.items)
        if not page.has_next:
            break
        after = seen[-1]
    assert seen == sorted(seen) and len(set(seen)) == SMALL


async def test_events_pages_keep_the_window_and_the_order(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str]
) -> None:
    pages = StoryPages(neo4j_driver, settings.neo4j_database)
    first = await pages.events(scopes[1], NOW, EventFilter(), after=None, limit=10, with_total=True)
    assert first.total == 3 * SMALL and first.has_next
    low, high = first.items[3].at, first.items[8].at
    window = await pages.events(
        scopes[1], NOW, EventFilter(from_=low, to=high), after=None, limit=3, with_total=True
    )
    assert window.total == 6 and [e.id for e in window.items] == [e.id for e in first.items[3:6]]
    rest = await pages.events(
        scopes[1],
        NOW,
        EventFilter(from_=low, to=high),
        after=(window.items[-1].at, window.items[-1].id),
        limit=10,
        with_total=False,
    )
    assert [e.id for e in rest.items] == [e.id for e in first.items[6:9]] and not rest.has_next


def context(settings: Settings, driver: Any) -> Context:
    return Context(
        request=None,
        settings=settings,
        driver=driver,  # type: ignore[arg-type]
        pool=None,
        principal=OPEN_PRINCIPAL,
    )  # type: ignore[arg-type]


HISTORY = """query($s: String!) { entities(scope: $s, first: 50) {
  edges { cursor node { id seq history { seq retractedAt } } } pageInfo { hasNextPage } } }"""


async def test_fifty_entities_with_history_are_two_statements(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str]
) -> None:
    counting = CountingDriver(neo4j_driver)
    result = await build_schema(settings).execute(
        HISTORY, variable_values={"s": scopes[10]}, context_value=context(settings, counting)
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    edges = result.data["entities"]["edges"]
    assert len(edges) == 50 and result.data["entities"]["pageInfo"]["hasNextPage"]
    assert len(counting.queries) == 2, counting.queries  # the page, every history
    for edge in edges:
        history = edge["node"]["history"]
        assert [h["seq"] for h in history] == [1, 2, 3]
        assert [h["retractedAt"] is None for h in history] == [False, False, True]


async def test_total_count_is_read_only_when_selected(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str]
) -> None:
    for selection, statements in (("totalCount", 2), ("pageInfo { hasNextPage }", 1)):
        counting = CountingDriver(neo4j_driver)
        result = await build_schema(settings).execute(
            f"query($s: String!) {{ relations(scope: $s, first: 5) {{ {selection} }} }}",
            variable_values={"s": scopes[1]},
            context_value=context(settings, counting),
        )
        assert result.errors is None, result.errors
        assert len(counting.queries) == statements
    assert result.data is not None


@pytest.mark.parametrize("after", ["bm90LWEtY3Vyc29y", "WyJyZWxhdGlvbiIsICJ0MCIsICJ4Il0=", "%%%"])
async def test_a_cursor_not_issued_for_this_list_is_invalid_input(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str], after: str
) -> None:
    result = await build_schema(settings).execute(
        "query($s: String!, $a: String) { entities(scope: $s, after: $a) { totalCount } }",
        variable_values={"s": scopes[1], "a": after},
        context_value=context(settings, neo4j_driver),
    )
    assert result.errors is not None
    assert result.errors[0].extensions is not None
    assert result.errors[0].extensions["code"] == "INVALID_INPUT"


@pytest.mark.parametrize(
    "field", ["storyGraph(scope: $s) { scope }", "graphView(scope: $s) { scope }"]
)
async def test_an_unbounded_read_of_a_large_scope_says_how_to_narrow_it(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str], field: str
) -> None:
    capped = settings.model_copy(update={"story_max_unbounded_objects": 3 * SMALL})
    answers = {}
    for factor, scope in scopes.items():
        result = await build_schema(capped).execute(
            f"query($s: String!) {{ {field} }}",
            variable_values={"s": scope},
            context_value=context(capped, neo4j_driver),
        )
        answers[factor] = result
    assert answers[1].errors is None, answers[1].errors
    errors = answers[10].errors
    assert errors is not None and errors[0].extensions is not None
    assert errors[0].extensions["code"] == "INVALID_INPUT"
    assert "from/to" in errors[0].message and "storyId" in errors[0].message


async def test_check_bounded_counts_no_further_than_the_cap(
    neo4j_driver: AsyncDriver, settings: Settings, scopes: dict[int, str]
) -> None:
    pages = StoryPages(neo4j_driver, settings.neo4j_database)
    await pages.check_bounded(scopes[1], NOW, 3 * SMALL)
    with pytest.raises(InvalidInput):
        await pages.check_bounded(scopes[10], NOW, 3 * SMALL)
