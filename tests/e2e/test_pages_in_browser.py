"""The pages people open, in a real headless Chromium with no internet (loopback only)."""

from __future__ import annotations

import json

import pytest

from tests.support.browser import offline_page
from tests.support.processes import Server

pytestmark = pytest.mark.browser


async def test_graphiql_loads_offline_and_runs_its_example_query(api: Server) -> None:
    async with offline_page() as seen:
        page = seen.page
        await page.goto(f"{api.url}/graphql", wait_until="load")
        editor = page.locator(".graphiql-query-editor .CodeMirror")
        await editor.wait_for(timeout=20_000)
        query_text = await editor.inner_text()
        assert "storyGraph" in query_text, "GraphiQL opens on an example of this API"
        await page.locator(".graphiql-execute-button").click()
        result = page.locator(".graphiql-response .CodeMirror")
        await page.wait_for_function(
            "() => (document.querySelector('.graphiql-response .CodeMirror')"
            "?.CodeMirror?.getValue() || '').includes('storyGraph')",
            timeout=20_000,
        )
        answer = json.loads(await result.evaluate("el => el.CodeMirror.getValue()"))
        assert "errors" not in answer, answer
        assert answer["data"]["storyGraph"]["asOf"]
    assert seen.refused == [], f"the page tried to reach the internet: {seen.refused}"
    assert any("/static/graphiql/graphiql.min.js" in u for u in seen.requested)


async def test_the_root_page_introduces_the_service_and_links_every_surface(api: Server) -> None:
    async with offline_page() as seen:
        page = seen.page
        response = await page.goto(f"{api.url}/", wait_until="load")
        assert response is not None and response.status == 200
        links = {
            await a.inner_text(): await a.get_attribute("href")
            for a in await page.locator("a").all()
        }
        assert links["GraphiQL"] == "/graphql"
        assert links["Graph view"].startswith("/viz")
        assert links["Neo4j Browser"].endswith("/browser/")
        await page.locator("a", has_text="GraphiQL").click()
        await page.locator(".graphiql-query-editor .CodeMirror").wait_for(timeout=20_000)
    assert seen.refused == []
