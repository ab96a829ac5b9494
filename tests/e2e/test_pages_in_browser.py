"""The pages people open, in a real headless Chromium with no internet (loopback only)."""

from __future__ import annotations

import json

import pytest

from tests.support.browser import offline_page

from .conftest import Server

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
