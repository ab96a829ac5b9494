"""The ring reads (a real headless Chromium on the real API, the demo's data): the legend can
be hidden and stays hidden on the next visit; the header keeps its height when a search
answers; a stage arc is drawn as one band, as its legend shows it; a stage's label is inside
the fitted view, never cut at its edge; the ring says where time starts and ends and which
way it runs; two moments within a second read apart; the events' titles on the ring never
cross one another or the start and end marks."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from api.demo import load_into
from engine.settings import Settings
from graph.story.repository import StoryRepository
from tests.support.browser import offline_page
from tests.support.graph_view import open_view
from tests.support.processes import Server

pytestmark = pytest.mark.browser
HEADER_ROWS_MAX_PX = 70  # two rows of controls at 1400 px
# the drawn event titles and the ring's start and end marks, as boxes in the graph's pixels
TITLES_AND_MARKS = """() => {
  const titles = cy.nodes('.event').filter(n => n.visible() && n.style('label')).map(n => {
    const b = n.renderedBoundingBox({ includeLabels: true, includeNodes: false });
    return ['title', n.data('label'), b.x1, b.y1, b.x2, b.y2]; });
  const m = document.getElementById('cy').getBoundingClientRect();
  const marks = ['ringStart', 'ringEnd'].map(id => { const b = document.getElementById(id)
    .getBoundingClientRect(); return ['mark', id, b.left - m.left, b.top - m.top,
    b.right - m.left, b.bottom - m.top]; });
  return [...titles, ...marks]; }"""


@pytest_asyncio.fixture
async def demo_scope(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[str]:
    scope = f"vizr-{uuid.uuid4().hex[:10]}"
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), scope)
    yield scope
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=services.neo4j_database
    )


async def test_legend_hides_header_stays_compact_and_the_stage_reads_whole(
    api: Server, demo_scope: str
) -> None:
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        url = f"{api.url}/viz?scope={demo_scope}"
        await open_view(page, url)
        # the events' titles on the ring are drawn apart: none over another, none over the
        # ring's start or end mark (a title with no room shows on hover and in the list)
        boxes = await page.evaluate(TITLES_AND_MARKS)
        titles = [b for b in boxes if b[0] == "title"]
        assert len(titles) >= 3, boxes
        crossing = [
            (a[1], b[1])
            for i, a in enumerate(boxes)
            for b in boxes[i + 1 :]
            if "title" in (a[0], b[0])
            and a[2] < b[4]
            and b[2] < a[4]
            and a[3] < b[5]
            and b[3] < a[5]
        ]
        assert crossing == [], crossing
        header = "() => document.querySelector('header').getBoundingClientRect().height"
        before = await page.evaluate(header)
        await page.fill("#search", "支付模块")
        await page.press("#search", "Enter")
        await page.wait_for_function(
            "() => (document.getElementById('searchInfo').dataset.done || '').startsWith('支付')",
            timeout=30_000,
        )
        after = await page.evaluate(header)
        assert after == before and after <= HEADER_ROWS_MAX_PX, (before, after)

        # the stage arc: marks closer together than they are wide, so they read as one band
        gaps = await page.evaluate(
            """() => { const a = cy.nodes('.arc').filter(n => !n.hasClass('gone'));
                 const w = a.length ? a[0].renderedWidth() : 0, out = [];
                 for (let i = 1; i < a.length; i++) {
                   if (a[i].data('stage') !== a[i - 1].data('stage')) continue;
                   const p = a[i].renderedPosition(), q = a[i - 1].renderedPosition();
                   out.push(Math.hypot(p.x - q.x, p.y - q.y) / w); }
                 return out; }"""
        )
        assert gaps and max(gaps) < 1, gaps[:5]
        # the stage's label, as drawn in the fitted view, lies inside the view
        await page.click("#fit")
        box = await page.evaluate(
            """() => { const s = cy.nodes('.stage').first();
                 const b = s.renderedBoundingBox({ includeLabels: true });
                 return { x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2, w: cy.width(), h: cy.height() }; }"""
        )
        assert 0 <= box["x1"] and box["x2"] <= box["w"], box
        assert 0 <= box["y1"] and box["y2"] <= box["h"], box

        # where time starts and ends on the ring, and which way it runs
        marks = await page.evaluate(
            """() => ['ringStart', 'ringEnd'].map(id => { const e = document.getElementById(id),
                 b = e.getBoundingClientRect(), m = document.querySelector('main').getBoundingClientRect();
                 return { text: e.textContent, inside: b.width > 0 && b.left >= m.left &&
                          b.right <= m.right && b.top >= m.top && b.bottom <= m.bottom }; })"""
        )
        assert marks[0]["text"].startswith("start 2026-03-17") and marks[0]["inside"], marks
        assert marks[1]["text"].startswith("end 2026-03-1") and marks[1]["inside"], marks
        assert await page.get_attribute("#ringArrow", "d")

        # two record moments within one second read apart (milliseconds shown when present);
        # a whole-second moment reads as before
        labels = await page.evaluate(
            "() => [Date.UTC(2026, 2, 17, 2, 10, 0, 250), Date.UTC(2026, 2, 17, 2, 10, 0, 900),"
            " Date.UTC(2026, 2, 17, 2, 10, 0)].map(momentTime)"
        )
        assert labels[0] != labels[1] and ".250 " in labels[0], labels
        assert "." not in labels[2].split(" ")[1], labels

        # the legend hides on a click and stays hidden on the next visit
        rows = page.locator("#legendRows")
        assert await rows.is_visible()
        await page.click("#legendToggle")
        assert not await rows.is_visible()
        assert await page.get_attribute("#legendToggle", "aria-expanded") == "false"
        await open_view(page, url)
        assert not await page.locator("#legendRows").is_visible()
        await page.click("#legendToggle")
        assert await page.locator("#legendRows").is_visible()
    assert seen.console_errors == [] and seen.refused == []
