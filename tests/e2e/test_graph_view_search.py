"""The graph view's search box in a real headless Chromium on the real API: a
search highlights its hits, centres on and selects the first, "only hits" keeps the hits and
their neighbours, and moving the slider to an earlier moment searches what was known then."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

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


@pytest_asyncio.fixture
async def demo_scope(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[str]:
    scope = f"vizs-{uuid.uuid4().hex[:10]}"
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), scope)
    yield scope
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) DETACH DELETE n", scope=scope, database_=services.neo4j_database
    )


async def searched(page: Page, text: str) -> None:
    """Type `text` and press Enter as a person does; wait until the answer is painted."""
    await page.fill("#search", text)
    await page.press("#search", "Enter")
    await page.wait_for_function(
        "(t) => (document.getElementById('searchInfo').dataset.done || '') === `${t}@${viz.S.T}`",
        arg=text,
        timeout=10_000,
    )


async def names(page: Page, selector: str) -> set[str]:
    return set(
        await page.evaluate(
            "(sel) => cy.nodes(sel).filter(n => !n.hasClass('gone') && !n.hasClass('offsearch'))"
            ".map(n => n.data('label'))",
            selector,
        )
    )


async def test_search_box_highlights_centres_and_restricts_to_hits(
    api: Server, demo_scope: str
) -> None:
    async with offline_page() as seen:
        page = seen.page
        await page.set_viewport_size({"width": 1400, "height": 900})
        await page.goto(f"{api.url}/viz?scope={demo_scope}", wait_until="load")
        await page.wait_for_function("() => window.viz && window.viz.ready", timeout=20_000)
        everything = await names(page, "node[kind = 'entity']")
        await searched(page, "回调接口")
        assert "第三方回调接口" in await names(page, "node.hit")
        selected = await page.evaluate("() => cy.getElementById(viz.S.sel).data('label')")
        assert selected in await names(page, "node.hit")
        info = await page.text_content("#searchInfo")
        assert info is not None and "in the graph" in info and "lexical" in info

        await page.check("#searchOnly")
        shown = await names(page, "node[kind = 'entity']")
        assert "第三方回调接口" in shown and shown < everything  # neighbours stay, others go
        assert "支付模块" in shown  # blocked_by 第三方回调接口: a neighbour
        await page.uncheck("#searchOnly")
        assert await names(page, "node[kind = 'entity']") == everything

        # the first moment (10:01, before 张三 answered): nothing about the callback yet
        await page.evaluate(
            "() => { const s = document.getElementById('moment'); s.value = '0';"
            " s.dispatchEvent(new Event('input', { bubbles: true })); }"
        )
        await page.wait_for_function(
            "() => (document.getElementById('searchInfo').dataset.done || '') === "
            "`回调接口@${viz.S.T}` && viz.renderedMoment === 0",
            timeout=10_000,
        )
        assert await names(page, "node.hit") == set()
        assert seen.console_errors == []
