"""Events at one instant read on the ring (a real headless Chromium on the real API): three
events recorded at the same instant are one mark with their count, not three labels stacked
illegibly; a click on the mark unfolds them on the ring, each selectable, and lists them in
the details; a second click folds them again. An event alone keeps its own mark."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from engine.settings import Settings
from tests.support.browser import offline_page
from tests.support.graph_view import PUBLISH, open_view
from tests.support.processes import Server

pytestmark = pytest.mark.browser
AT = datetime(2026, 3, 17, 10, 0, tzinfo=timezone(timedelta(hours=8)))
SAME = ["站会：张三同步支付模块", "站会：李四同步前端", "站会：王五同步对账"]


@pytest_asyncio.fixture
async def instants(
    api: Server, neo4j_driver: AsyncDriver, services: Settings
) -> AsyncIterator[str]:
    scope = f"vizi-{uuid.uuid4().hex[:10]}"
    events = [{"ref": f"s{i}", "title": t, "at": AT.isoformat()} for i, t in enumerate(SAME)]
    events.append(
        {"ref": "later", "title": "老板拍板周五提测", "at": (AT + timedelta(hours=4)).isoformat()}
    )
    body = api.graphql(
        PUBLISH,
        {
            "input": {
                "scope": scope,
                "key": "instants",
                "events": events,
                "entities": [{"ref": "p", "name": "支付模块", "kind": "module"}],
            }
        },
    ).json()
    assert "errors" not in body, body
    yield scope
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=services.neo4j_database
    )


# a tap, returning nothing: a returned cytoscape collection is serialized whole (seconds)
TAP = "(id) => { cy.getElementById(id).emit('tap'); }"
SHOWN_EVENTS = "() => cy.nodes('.event').filter(n => n.visible()).map(n => n.data('label')).sort()"


async def test_events_at_one_instant_are_one_mark_with_a_count_that_unfolds(
    api: Server, instants: str
) -> None:
    async with offline_page(
        timezone_id="Asia/Shanghai", viewport={"width": 1400, "height": 900}
    ) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={instants}")
        marks = await page.evaluate(
            "() => cy.nodes('.instant').filter(n => n.visible()).map(n => [n.id(), n.data('count')])"
        )
        assert [m[1] for m in marks] == ["3"], marks
        # folded: only the event alone is drawn as an event
        assert await page.evaluate(SHOWN_EVENTS) == ["老板拍板周五提测"]
        [(mark, _)] = marks
        await page.evaluate(TAP, mark)
        await page.wait_for_function(
            "() => cy.nodes('.event').filter(n => n.visible()).length === 4", timeout=10_000
        )
        assert await page.evaluate(SHOWN_EVENTS) == sorted([*SAME, "老板拍板周五提测"])
        detail = await page.inner_text("#detail")
        assert "2026-03-17 10:00:00" in detail and all(t in detail for t in SAME), detail
        # unfolded, apart: each stacked outwards from the mark, none on top of another
        spots = await page.evaluate(
            "() => cy.nodes('.event').filter(n => n.visible()).map(n => "
            "[Math.round(n.position('x')), Math.round(n.position('y'))])"
        )
        assert len({tuple(s) for s in spots}) == 4, spots
        await page.evaluate(TAP, mark)
        await page.wait_for_function(
            "() => cy.nodes('.event').filter(n => n.visible()).length === 1", timeout=10_000
        )
        assert seen.console_errors == [], seen.console_errors
