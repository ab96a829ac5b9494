"""The graph view tells the demo's story, in a real headless Chromium set to
Beijing time and an English browser locale, on the demo written in Beijing time.

Events of the demo each get their own readable point; relation lines carry their type; every
time says its zone and the window fields follow the page (zh: 年-月-日), not the browser; the
history names who made each version; a relation is offered only the actions its standing
allows; the selection has a colour no standing uses; a heading with nothing under it is not
shown; the scope picker leaves out empty scopes unless asked; the pages have a favicon.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from playwright.async_api import Page

from api.demo import load_into
from engine.settings import Settings
from graph.story.repository import StoryRepository
from tests.support.browser import offline_page
from tests.support.processes import Server

pytestmark = pytest.mark.browser

# every colour a standing is drawn in (viz.js STYLE and REL_STROKE)
STANDING_COLOURS = {
    "#60a5fa",  # entity (main)
    "#e5e7eb",  # entity (candidate)
    "#f59e0b",  # event
    "#a78bfa",  # stage
    "#9ca3af",  # relation line
    "#c4c9d1",  # suggested at scale
    "#059669",  # confirmed
    "#dc2626",  # rejected
}


@pytest_asyncio.fixture
async def demo(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[str]:
    scope = f"story-{uuid.uuid4().hex[:10]}"
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), scope)
    yield scope
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=services.neo4j_database
    )


@asynccontextmanager
async def beijing_view(api: Server, scope: str) -> AsyncIterator[Page]:
    async with offline_page(
        timezone_id="Asia/Shanghai", locale="en-US", viewport={"width": 1400, "height": 900}
    ) as seen:
        page = seen.page
        misses: list[str] = []
        page.on("response", lambda r: misses.append(r.url) if r.status >= 400 else None)
        await page.goto(f"{api.url}/viz?scope={scope}", wait_until="load")
        await page.wait_for_function("() => window.viz && window.viz.ready", timeout=20_000)
        yield page
        assert misses == [], f"the page asked for what is not there: {misses}"
        assert seen.refused == [] and seen.console_errors == [], (seen.refused, seen.console_errors)


def rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r},{g},{b})"


async def select(page: Page, object_id: str) -> str:
    await page.evaluate("(id) => document.getElementById('li-' + id).click()", object_id)
    await page.wait_for_function(
        "(id) => (document.getElementById('detail').dataset.shown || '').startsWith(id + '@')",
        arg=object_id,
        timeout=10_000,
    )
    return await page.inner_text("#detail")


async def test_demo_events_relations_and_times_read_as_a_story(api: Server, demo: str) -> None:
    async with beijing_view(api, demo) as page:
        events = await page.evaluate(
            "() => cy.nodes().filter(n => ['event', 'day'].includes(n.data('kind')))"
            ".map(n => [n.data('kind'), n.position('x'), n.position('y'), n.data('label')])"
        )
        assert [e[0] for e in events] == ["event"] * 4, "four events, four points, no '4' cluster"
        gaps = [math.dist(a[1:3], b[1:3]) for i, a in enumerate(events) for b in events[i + 1 :]]
        assert min(gaps) > 60, f"events overlap on the ring: {gaps}"
        spread = {round(math.degrees(math.atan2(e[2], e[1])) / 45) for e in events}
        assert len(spread) >= 3, "the events use the ring, not one corner of it"

        relations = await page.evaluate(
            "() => cy.edges('.relation').map(e => [e.data('label'), e.style('label'), e.visible()])"
        )
        assert relations and all(label and shown == label for label, shown, _ in relations), (
            "every relation line carries its type"
        )

        moment = await page.inner_text("#momentLabel")
        assert "UTC+08:00" in moment, moment
        assert "2026-03-18 09:00:00 UTC+08:00" in moment, "Beijing time, said as such"
        assert "UTC+08:00" in await page.inner_text("#list")
        for field in ("#from", "#to"):
            kind = await page.get_attribute(field, "type")
            assert kind in (None, "text"), "no browser-locale date picker (mm/dd/yyyy)"
            assert await page.get_attribute(field, "placeholder") == "年-月-日"


async def test_history_actions_selection_and_headings(api: Server, demo: str) -> None:
    async with beijing_view(api, demo) as page:
        confirmed = await page.evaluate("() => cy.edges('.relation.confirmed')[0].id()")
        detail = await select(page, confirmed)
        history = await page.inner_text("#detail ol.history")
        assert "by run run-demo-" in history and "by person boss" in history, history
        ops = await page.evaluate(
            "() => [...document.querySelectorAll('#detail button[data-op]')].map(b => b.dataset.op)"
        )
        assert ops == ["reject", "remove"], f"no Confirm on a confirmed relation: {ops}"
        assert "UTC+08:00" in detail

        suggested = await page.evaluate("() => cy.edges('.relation.suggested')[0].id()")
        await select(page, suggested)
        ops = await page.evaluate(
            "() => [...document.querySelectorAll('#detail button[data-op]')].map(b => b.dataset.op)"
        )
        assert ops == ["confirm", "reject", "remove"]

        colours = await page.evaluate(
            "() => { const e = cy.$(':selected'); return [e.style('line-color'),"
            " e.style('underlay-color')]; }"
        )
        assert not {c.replace(" ", "") for c in colours} & {rgb(c) for c in STANDING_COLOURS}
        entity = await page.evaluate("() => cy.nodes('.entity')[0].id()")
        await select(page, entity)
        border = await page.evaluate("() => cy.$(':selected').style('border-color')")
        assert border.replace(" ", "") not in {rgb(c) for c in STANDING_COLOURS}, border

        # a stage's detail shows a heading only with something under it
        stage = await page.evaluate("() => cy.nodes('.stage')[0].id()")
        await select(page, stage)
        empty = await page.evaluate(
            "() => [...document.querySelectorAll('#detail h3')].filter(h => {"
            " const n = h.nextElementSibling; return n && n.tagName === 'UL' && !n.children.length;"
            " }).map(h => h.textContent)"
        )
        assert empty == []
        # the list hides a group heading once the filter leaves nothing under it
        await page.fill("#filter", "张三")
        groups = await page.evaluate(
            "() => [...document.querySelectorAll('#list li.group')]"
            ".filter(g => !g.hidden).map(g => g.textContent)"
        )
        assert "Stages" not in groups and "Entities" in groups, groups


async def test_scope_picker_leaves_out_empty_scopes_unless_asked(api: Server, demo: str) -> None:
    empty = f"empty-{uuid.uuid4().hex[:8]}"
    made = api.graphql(
        """mutation($s: String!) { upsertSource(input: {scope: $s, id: "n1", kind: NOTE,
        version: "v1", text: "还没有整理"}) { id } }""",
        {"s": empty},
    ).json()
    assert "errors" not in made, made
    listed = {s["scope"] for s in api.graphql("{ scopes { scope } }").json()["data"]["scopes"]}
    assert empty in listed, "the API lists it; the picker leaves it out"
    async with beijing_view(api, demo) as page:
        await page.wait_for_function("() => viz.scopesReady", timeout=10_000)
        options = await page.evaluate(
            "() => [...document.querySelectorAll('#scopeList option')].map(o => o.value)"
        )
        assert demo in options and empty not in options
        await page.check("#emptyScopes")
        await page.wait_for_function("() => viz.scopesReady", timeout=10_000)
        options = await page.evaluate(
            "() => [...document.querySelectorAll('#scopeList option')].map(o => o.value)"
        )
        assert empty in options


def test_pages_have_a_favicon(api: Server) -> None:
    icon = httpx.get(f"{api.url}/favicon.ico", timeout=10)
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in icon.content
