"""The graph view is readable at 1,000 entities / 2,000 relations / 600 events,
in a real headless Chromium at 1400x900.

At the fitted zoom the most connected entities are named, at a size one reads (>= 12 px on
screen), and the names do not overlap; zoomed in, every entity is named at that size. The
list filter, the kind filter and the standing filter hide what does not match in the graph
itself (fewer entity nodes, fewer relation lines drawn). Selecting an entity keeps its
neighbourhood and fades the rest. "group by kind" puts each kind in a sector of its own, with
a node naming the kind. It opens as an overview: one mark per kind with its size and no
entity drawn until a mark is clicked on the canvas or "every node" is asked for. Timings are printed,
never asserted.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from engine.settings import Settings
from tests.support.browser import offline_page, screenshot_path
from tests.support.graph_view import publish_large_scope
from tests.support.processes import Server

pytestmark = pytest.mark.browser

NAMED = """() => cy.nodes('.entity').filter(n => n.visible() && n.style('label'))
  .map(n => { const b = n.boundingBox({ includeNodes: false, includeLabels: true });
              return [n.id(), parseFloat(n.style('font-size')) * cy.zoom(), b.x1, b.y1, b.x2, b.y2]; })"""
SHOWN = """() => [cy.nodes('.entity').filter(n => n.visible()).length,
  viz.drawnRelations ? viz.drawnRelations.size : cy.edges('.relation').filter(e => e.visible()).length]"""

# where a node (its label included) is drawn, in page coordinates
MARK_AT = """(id) => { const b = cy.getElementById(id).renderedBoundingBox({ includeLabels: true });
  const r = document.getElementById('cy').getBoundingClientRect();
  return { x: r.left + (b.x1 + b.x2) / 2, y: r.top + (b.y1 + b.y2) / 2 }; }"""


@pytest_asyncio.fixture
async def large(api: Server, neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[str]:
    scope = f"viz-scale-{uuid.uuid4().hex[:8]}"
    publish_large_scope(api, scope, entities=1000, relations=2000, events=600, batches=4)
    yield scope
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=services.neo4j_database
    )


async def shot(page: Page, name: str) -> None:
    path = screenshot_path(name)
    if path:
        await page.screenshot(path=path)


async def labels_settled(page: Page) -> None:
    """Names follow the zoom after a short pause (viz.labels records the zoom applied)."""
    await page.wait_for_function(
        "() => viz.labels && Math.abs(viz.labels.zoom - cy.zoom()) < 1e-9", timeout=10_000
    )


def overlapping(named: list[list]) -> int:  # type: ignore[type-arg]
    boxes = [n[2:] for n in named]
    return sum(
        1
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
    )


async def test_names_follow_the_zoom_and_filters_thin_the_graph(api: Server, large: str) -> None:
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        started = time.perf_counter()
        await page.goto(f"{api.url}/viz?scope={large}", wait_until="load")
        await page.wait_for_function("() => window.viz && window.viz.ready", timeout=30_000)
        print(
            f"1,000 entities: overview painted in {(time.perf_counter() - started) * 1000:.0f} ms"
        )

        # the overview groups by kind before it draws every node: one mark per kind with its
        # size, no entity drawn; a click on a mark draws that kind's entities
        assert await page.evaluate(SHOWN) == [0, 0]
        bubbles = await page.evaluate(
            "() => cy.nodes('.group.bubble').map(n => [n.id(), n.data('label')])"
        )
        sizes = {label.split(" ")[0]: int(label.split("(")[1].rstrip(")")) for _, label in bubbles}
        assert set(sizes) == {"person", "module", "task"} and sum(sizes.values()) == 1000, bubbles
        assert "overview: 1000 entities in 3 kinds" in await page.inner_text("#overviewNote")
        await shot(page, "graph_view_1000_overview")
        # a person clicks the kind's mark where it is drawn on the canvas
        person = next(i for i, label in bubbles if label.startswith("person"))
        mark = await page.evaluate(MARK_AT, person)
        await page.mouse.click(mark["x"], mark["y"])
        try:
            await page.wait_for_function(
                "() => viz.overview && viz.overview.includes('person')", timeout=10_000
            )
        except PlaywrightTimeout:
            pytest.fail(f"a click on the person kind's mark at {mark} opened no kind")
        entities, _ = await page.evaluate(SHOWN)
        assert entities == sizes["person"], (entities, sizes)
        assert "1 drawn" in await page.inner_text("#overviewNote")
        await labels_settled(page)
        await shot(page, "graph_view_1000_one_kind_opened")
        await page.click("#everyNode")
        await page.wait_for_function("() => viz.overview === null", timeout=30_000)
        assert "view=all" in page.url
        await labels_settled(page)
        print(
            f"1,000 entities painted and named in {(time.perf_counter() - started) * 1000:.0f} ms"
        )
        await shot(page, "graph_view_1000_every_node")

        # default zoom: the most connected are named, readable, apart
        rank = await page.evaluate("() => viz.S.rank.slice(0, 5)")
        named = await page.evaluate(NAMED)
        ids = {n[0] for n in named}
        assert 20 <= len(named) <= 60, len(named)
        assert rank[0] in ids, "the most connected entity is named at the fitted zoom"
        assert min(n[1] for n in named) >= 12, "names are drawn at a readable size"
        assert overlapping(named) == 0, "names at the fitted zoom do not overlap"
        # zoomed in: every entity is named, at the same readable size
        await page.evaluate(
            "() => { cy.zoom({ level: cy.zoom() * 4, renderedPosition: "
            "{ x: cy.width() / 2, y: cy.height() / 2 } }); }"
        )
        await labels_settled(page)
        named = await page.evaluate(NAMED)
        assert len(named) == 1000, len(named)
        assert min(n[1] for n in named) >= 12
        await page.click("#fit")
        await labels_settled(page)

        # the filters thin the graph itself
        assert await page.evaluate(SHOWN) == [1000, 2000]
        await page.fill("#filter", "实体 1-")
        entities, lines = await page.evaluate(SHOWN)
        assert entities == 250 and 0 < lines < 2000, (entities, lines)
        await page.fill("#filter", "")
        await page.select_option("#kindFilter", "person")
        entities, lines = await page.evaluate(SHOWN)
        assert 300 < entities < 400 and lines < 1000, (entities, lines)
        await page.select_option("#kindFilter", "")
        assert await page.evaluate(SHOWN) == [1000, 2000]
        await page.select_option("#standingFilter", "confirmed")
        assert await page.evaluate(SHOWN) == [0, 0], "nothing in this scope is confirmed"
        await page.select_option("#standingFilter", "candidate")
        assert (await page.evaluate(SHOWN))[0] == 1000
        await page.select_option("#standingFilter", "")

        # selecting an entity keeps its neighbourhood and fades the rest; its details are read
        # for it alone (its neighbourhood), never as the whole scope's 1,000 entities
        top = rank[0]
        reads: list[str] = []
        page.on(
            "request",
            lambda r: reads.append(f"{r.url} {r.post_data or ''}") if "/graphql" in r.url else None,
        )
        await page.evaluate("(id) => document.getElementById('li-' + id).click()", top)
        await page.wait_for_function("(id) => viz.S.focus && viz.S.focus.has(id)", arg=top)
        await page.wait_for_function(
            "(id) => (document.getElementById('detail').dataset.shown || '').startsWith(id + '@')",
            arg=top,
            timeout=30_000,
        )
        assert any("storyObjects" in r for r in reads), reads
        assert not any("storyGraph" in r for r in reads), "a click read the whole scope"
        kept = await page.evaluate(
            "() => cy.nodes('.entity').filter(n => !n.hasClass('faded')).map(n => n.id())"
        )
        neighbours = await page.evaluate(
            """(id) => { const s = new Set([id]); for (const [rid, vs] of viz.S.rels) {
                 const v = vs.at(-1); if (v.from === id) s.add(v.to); if (v.to === id) s.add(v.from); }
                 return [...s]; }""",
            top,
        )
        assert set(kept) == set(neighbours) and 1 < len(kept) < 50
        named_now = {n[0] for n in await page.evaluate(NAMED)}
        assert set(neighbours) <= named_now, "the neighbourhood is named"

        # grouped by kind: one sector per kind, each named
        await page.check("#groupKind")
        await page.wait_for_function("() => viz.grouped === 'kind'", timeout=20_000)
        groups = await page.evaluate("() => cy.nodes('.group').map(n => n.data('label'))")
        kinds = {g.split(" ")[0]: int(g.split("(")[1].rstrip(")")) for g in groups}
        assert set(kinds) == {"person", "module", "task"} and sum(kinds.values()) == 1000, groups
        sectors = await page.evaluate(
            """() => { const s = {}; cy.nodes('.entity').forEach(n => {
                 const k = viz.S.ents.get(n.id()).at(-1).kind, p = n.position();
                 (s[k] = s[k] || []).push(Math.atan2(p.y, p.x)); }); return s; }"""
        )
        spans = sorted(
            (
                min((a + math.pi / 2) % (2 * math.pi) for a in v),
                max((a + math.pi / 2) % (2 * math.pi) for a in v),
            )
            for v in sectors.values()
        )
        assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False)), spans
        assert "group=kind" in page.url
    assert seen.refused == [] and seen.console_errors == []
