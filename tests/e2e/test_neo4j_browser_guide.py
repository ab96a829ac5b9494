"""Neo4j Browser explains the data, in a real headless Chromium.

The API serves a storygraph guide (its queries are the saved queries of `cypher/browser/`);
the project's Neo4j tells Browser to play it on connect and allows guides from loopback.
Here Browser (served by the test Neo4j) connects, plays the guide from the test API, one of
its queries is clicked and run, and the graph is drawn with the entities' names as captions.
"""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from api.demo import load_into
from api.guide import render_guide
from engine.settings import PROJECT_ROOT, Settings
from graph.driver import neo4j_password
from graph.story.repository import StoryRepository
from local.neo4j_server import browser_settings, guide_url
from tests.support.browser import offline_page
from tests.support.processes import Server

pytestmark = pytest.mark.browser


@pytest_asyncio.fixture
async def demo_loaded(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[None]:
    """The guide's queries read scope `demo`, as on `make run`."""
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), "demo")
    yield
    await neo4j_driver.execute_query(
        "MATCH (n {scope: 'demo'}) DETACH DELETE n", database_=services.neo4j_database
    )


def test_the_guide_is_served_to_browser_with_the_saved_queries(api: Server) -> None:
    answer = httpx.get(f"{api.url}/guide/storygraph.html", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == "*"
    page = answer.text
    assert page.count("<slide") == 10 and page.count('class="pre-scrollable code runnable') == 10
    # every saved query of cypher/browser/ is one click away in the guide
    for saved in sorted((PROJECT_ROOT / "cypher" / "browser").glob("*.cypher")):
        first = saved.read_text(encoding="utf-8").strip().splitlines()[0]
        assert html.escape(first, quote=False) in page, saved.name
    assert "a signal's chain" in page and "a watch's evidence" in page and "search" in page
    assert "A watch's evidence" in page and "提测前检查" in page
    assert "signal_chain" not in page and "One signal's chain" in page
    assert "{{" not in page and "WITH 'demo' AS scope" in page
    assert page == render_guide()
    # Browser fetches it with headers of its own: the preflight allows them
    preflight = httpx.options(
        f"{api.url}/guide/storygraph.html",
        headers={
            "origin": "http://127.0.0.1:7474",
            "access-control-request-method": "GET",
            "access-control-request-headers": "pragma,cache-control,sentry-trace",
        },
        timeout=10,
    )
    assert preflight.status_code == 204
    assert "sentry-trace" in preflight.headers["access-control-allow-headers"]


def test_the_docs_name_every_outside_request_browser_makes() -> None:
    """README points at the page that lists each host Browser's bundle asks for, Sentry
    included, and why Neo4j Community cannot switch it off."""
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    page = (PROJECT_ROOT / "docs" / "guides" / "neo4j-browser.md").read_text(encoding="utf-8")
    assert "(docs/guides/neo4j-browser.md)" in readme
    for host in ("fonts.googleapis.com", "cdn.segment.com", "canny.io", "ingest.sentry.io"):
        assert host in readme and host in page, host
    assert "browser.allow_outgoing_connections" in page and "Enterprise" in page


def test_the_projects_neo4j_plays_the_guide_on_connect(services: Settings) -> None:
    lines = browser_settings(services)
    assert f"browser.post_connect_cmd=clear; play {guide_url(services)}" in lines
    assert guide_url(services).startswith("http://localhost:")  # on Browser's default allowlist
    assert "client.allow_telemetry=false" in lines


async def test_browser_plays_the_guide_and_draws_named_nodes(
    api: Server, services: Settings, demo_loaded: None
) -> None:
    port = api.url.rsplit(":", 1)[1]
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        await page.goto(
            f"http://127.0.0.1:{services.neo4j_http_port}/browser/"
            f"?dbms=bolt://neo4j@127.0.0.1:{services.neo4j_bolt_port}",
            wait_until="load",
        )
        password = page.locator("input[data-testid=password]")
        await password.wait_for(timeout=30_000)
        await page.wait_for_function(
            "() => document.body.innerText.includes('Connect to Neo4j')", timeout=30_000
        )
        await password.fill(neo4j_password(services))
        await password.press("Enter")
        # on connect the project's Neo4j plays the guide alone: Browser's own `:play start`
        # and the connect frame are cleared first (the post-connect commands)
        await page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=frameCommand]')]"
            ".some(f => f.innerText.startsWith(':play http://localhost:'))",
            timeout=30_000,
        )
        commands = await page.evaluate(
            "() => [...document.querySelectorAll('[data-testid=frameCommand]')]"
            ".map(f => f.innerText.trim())"
        )
        # one frame: the guide (whichever API port the server was configured with)
        assert len(commands) == 1 and commands[0].startswith(":play http://localhost:"), commands
        assert commands[0].endswith("/guide/storygraph.html"), commands
        # the test API runs on a port of its own: play its guide as Browser's post-connect
        # command would play the configured one
        editor = page.locator("[data-testid=activeEditor], .monaco-editor").first
        await editor.click()
        await page.keyboard.type(f":play http://localhost:{port}/guide/storygraph.html")
        await page.keyboard.press("Enter")
        await page.wait_for_function(
            "() => document.body.innerText.includes('storygraph remembers')", timeout=30_000
        )
        await page.locator("[data-testid=nextSlide]").first.click()
        query = page.locator("pre.runnable", has_text="The data model on the demo").first
        await query.click()
        await page.locator("[data-testid=editor-Run]").first.click()
        await page.wait_for_function(
            "() => [...document.querySelectorAll('svg g.node text')]"
            ".some(t => t.textContent.includes('张三'))",
            timeout=30_000,
        )
        captions = await page.evaluate(
            "() => [...document.querySelectorAll('svg g.node')].map(g => "
            "[...g.querySelectorAll('text')].map(t => t.textContent).join('').trim())"
        )
        assert "张三" in captions, captions
        assert any(re.search(r"[\u4e00-\u9fff]", c) for c in captions if c != "张三")
    # Browser's own bundle still asks for web fonts and error reporting (refused here)
    print(f"Browser asked the internet for (refused): {sorted(set(seen.refused))}")
