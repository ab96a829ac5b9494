"""A `watches` page costs a fixed number of queries (per-request DataLoaders, so nested
fields never query per item). The schema runs in process against the real Neo4j with
a driver wrapper that counts the queries the resolvers send."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver

from api.context import Context
from api.schema import build_schema
from engine.principal import OPEN_PRINCIPAL
from engine.settings import Settings
from tests.support.counting_driver import CountingDriver
from tests.support.watch_world import World

PAGE = """query($s: String!, $first: Int!) { watches(scope: $s, first: $first) {
  totalCount edges { node { id title deliveryState bindings { sourceKey } steps { stepId }
    observations { runId } handOffs { executionKey } checkpoints { id }
    grants { sourceKey } receipts { id } } } } }"""


async def page_cost(
    driver: AsyncDriver, settings: Settings, scope: str, first: int
) -> tuple[int, dict[str, Any]]:
    counting = CountingDriver(driver)
    context = Context(
        request=None,
        settings=settings,
        driver=counting,  # type: ignore[arg-type]
        pool=None,
        principal=OPEN_PRINCIPAL,
    )  # type: ignore[arg-type]
    result = await build_schema().execute(
        PAGE, variable_values={"s": scope, "first": first}, context_value=context
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    return len(counting.queries), result.data["watches"]


async def test_a_watches_page_costs_the_same_queries_for_two_or_six_watches(
    world: World, settings: Settings
) -> None:
    for _ in range(6):
        await world.watch()
    small, two = await page_cost(world.driver, settings, world.scope, 2)
    large, six = await page_cost(world.driver, settings, world.scope, 6)
    assert len(two["edges"]) == 2 and len(six["edges"]) == 6 and six["totalCount"] == 6
    assert small == large == 7, "page + count + one query per nested field (5)"
    node = six["edges"][0]["node"]
    assert node["deliveryState"] == "nothing_recorded"
    assert [b["sourceKey"] for b in node["bindings"]] == [world.note_key, world.doc_key]
    assert node["grants"] and node["grants"][0]["sourceKey"] == world.doc_key
    assert node["observations"] == [] and node["receipts"] == []
