"""The graph view's URL holds its state, the search text and "changed since" included, and
Back and Forward move through the page's own states (a real headless Chromium on the real
API): a search and a changed-since choice are each a history entry; Back undoes the last
one on the page (the list of changes empties, the search box clears); Forward brings it
back; a link with both opens the page in that state."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from playwright.async_api import Page

from api.demo import load_into
from engine.settings import Settings
from graph.story.repository import StoryRepository
from tests.support.browser import offline_page
from tests.support.graph_view import open_view
from tests.support.processes import Server

pytestmark = pytest.mark.browser
WORD = "支付模块"


@pytest_asyncio.fixture
async def demo_scope(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[str]:
    scope = f"vizu-{uuid.uuid4().hex[:10]}"
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), scope)
    yield scope
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=services.neo4j_database
    )


def state(page: Page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


async def searched(page: Page, text: str) -> None:
    await page.fill("#search", text)
    await page.press("#search", "Enter")
    await page.wait_for_function(
        "(t) => (document.getElementById('searchInfo').dataset.done || '').startsWith(t + '@')",
        arg=text,
        timeout=30_000,
    )


async def changes_listed(page: Page, moment: int | None) -> None:
    want = "none@" if moment is None else f"{moment}@"
    await page.wait_for_function(
        "(w) => (window.vizChanges.done || '').startsWith(w)", arg=want, timeout=30_000
    )


async def went(page: Page, step: str) -> None:
    before = page.url
    await (page.go_back() if step == "back" else page.go_forward())
    await page.wait_for_function(
        "(u) => location.href !== u && window.viz.restored === location.search",
        arg=before,
        timeout=30_000,
    )


async def test_search_and_changed_since_live_in_the_url_and_back_forward_walk_them(
    api: Server, demo_scope: str
) -> None:
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        await searched(page, WORD)
        assert state(page)["q"] == WORD
        assert "sel" in state(page)  # the hit the search selected, in the same entry
        moment = await page.evaluate("() => viz.S.moments[0]")
        await page.select_option("#changedSince", str(moment))
        await changes_listed(page, moment)
        since = state(page)["since"]
        assert await page.evaluate("(s) => Date.parse(s)", since) == moment
        assert await page.locator("#changesList li").count() > 0

        # Back: the changed-since choice is undone; the search stays
        await went(page, "back")
        assert "since" not in state(page) and state(page)["q"] == WORD
        assert await page.input_value("#changedSince") == ""
        assert await page.locator("#changesList li").count() == 0
        # Back again: the search is undone too
        await went(page, "back")
        assert "q" not in state(page)
        assert await page.input_value("#search") == ""
        assert await page.evaluate("() => window.vizSearch.text") == ""
        # Forward twice: both come back
        await went(page, "forward")
        assert await page.input_value("#search") == WORD
        await went(page, "forward")
        await changes_listed(page, moment)
        assert await page.input_value("#changedSince") == str(moment)
        assert await page.locator("#changesList li").count() > 0
        link = page.url

    # a link with both opens the page in that state
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        await open_view(page, link)
        await changes_listed(page, moment)
        assert await page.input_value("#changedSince") == str(moment)
        await page.wait_for_function(
            "(t) => (document.getElementById('searchInfo').dataset.done || '').startsWith(t)",
            arg=WORD,
            timeout=30_000,
        )
        assert await page.input_value("#search") == WORD
    assert seen.console_errors == [] and seen.refused == []
