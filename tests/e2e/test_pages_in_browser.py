"""The pages people open, in a real headless Chromium with no internet (loopback only)."""

from __future__ import annotations

import json

import pytest

from tests.support.browser import offline_page, screenshot_path
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


async def run_in_graphiql(page, query: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """Type `query` into GraphiQL's editor as a person pastes it, run it, read the answer."""
    editor = page.locator(".graphiql-query-editor .CodeMirror")
    await editor.wait_for(timeout=20_000)
    await editor.evaluate("(el, q) => el.CodeMirror.setValue(q)", query)
    # GraphiQL takes in an edit after a pause (it works out the operation to run, then stores
    # the query): run only once the query is stored, or it runs the page's first operation
    await page.wait_for_function(
        "(q) => localStorage.getItem('graphiql:query') === q", arg=query, timeout=20_000
    )
    await page.evaluate(
        "() => { const r = document.querySelector('.graphiql-response .CodeMirror');"
        " if (r) r.CodeMirror.setValue(''); }"
    )
    await page.locator(".graphiql-execute-button").click()
    await page.wait_for_function(
        "() => (document.querySelector('.graphiql-response .CodeMirror')"
        "?.CodeMirror?.getValue() || '').trim().startsWith('{')",
        timeout=20_000,
    )
    result = page.locator(".graphiql-response .CodeMirror")
    answer: dict = json.loads(await result.evaluate("el => el.CodeMirror.getValue()"))  # type: ignore[type-arg]
    return answer


async def test_graphiql_names_an_unknown_scope_and_the_argument_of_a_bad_input(api: Server) -> None:
    """In the page a person uses to try the API: a mistyped scope reads `scopeKnown: false`
    (not a silent empty graph), and `asOf: "yesterday"` or February 30 is refused with a
    message that names the argument and the form it expects, with `extensions.code`."""
    async with offline_page() as seen:
        page = seen.page
        await page.goto(f"{api.url}/graphql", wait_until="load")
        unknown = await run_in_graphiql(
            page, '{ storyGraph(scope: "demo-typo-zz") { scopeKnown entities { name } } }'
        )
        assert unknown == {"data": {"storyGraph": {"scopeKnown": False, "entities": []}}}
        for bad in ("yesterday", "2026-02-30T10:00:00+08:00"):
            answer = await run_in_graphiql(
                page, f'{{ storyGraph(scope: "demo", asOf: "{bad}") {{ asOf }} }}'
            )
            [error] = answer["errors"]
            assert "asOf" in error["message"], error
            assert "ISO 8601" in error["message"] or "YYYY-MM-DD" in error["message"], error
            assert error["extensions"]["code"] in ("INVALID_INPUT", "GRAPHQL_VALIDATION_FAILED")
        path = screenshot_path("graphiql_bad_input")
        if path:
            await page.screenshot(path=path)
    assert seen.refused == [], seen.refused
