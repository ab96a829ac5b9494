"""The graph view shows the loop, in a real headless Chromium set to Beijing
time: the Signals list says what the agenda decided for each signal; selecting one shows its
chain in order — the passage it cites, the signal, the concern raised for it, 李四's answer
(the line the event cites in the concern's conversation) and the event the review of that
conversation proposed via the concern; the event shows the chain it closes; an open
commitment is marked on the time ring at its due time (with a legend entry) and the mark
leaves once the commitment is kept."""

from __future__ import annotations

import math
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from neo4j import AsyncDriver
from playwright.async_api import Page

from engine.clock import utcnow
from engine.settings import Settings
from jobs.deps import Deps
from jobs.story.common import story_repo
from tests.support.agenda_api import next_monday
from tests.support.browser import offline_page
from tests.support.processes import Server
from tests.support.signal_chain import ANSWER, KEPT_TITLE, SAID, build_chain, record_commitment

pytestmark = pytest.mark.browser
SCREENSHOTS = os.environ.get("STORYGRAPH_SCREENSHOTS", "")


@asynccontextmanager
async def view(api: Server, scope: str) -> AsyncIterator[Page]:
    async with offline_page(
        timezone_id="Asia/Shanghai", locale="en-US", viewport={"width": 1400, "height": 900}
    ) as seen:
        page = seen.page
        await page.goto(f"{api.url}/viz?scope={scope}", wait_until="load")
        await page.wait_for_function("() => window.viz && window.viz.ready", timeout=20_000)
        yield page
        assert seen.refused == [] and seen.console_errors == [], (seen.refused, seen.console_errors)


async def select(page: Page, object_id: str) -> str:
    await page.evaluate("(id) => document.getElementById('li-' + id).click()", object_id)
    await page.wait_for_function(
        "(id) => (document.getElementById('detail').dataset.shown || '').startsWith(id + '@')",
        arg=object_id,
        timeout=10_000,
    )
    return await page.inner_text("#detail")


async def steps(page: Page) -> list[tuple[str, str]]:
    found = await page.evaluate(
        "() => [...document.querySelectorAll('#detail ol.chain li.step')]"
        ".map(li => [li.dataset.step, li.innerText])"
    )
    return [(s, t) for s, t in found]


async def shown_due_marks(page: Page) -> list[str]:
    return await page.evaluate(  # type: ignore[no-any-return]
        "() => cy.nodes('.due').filter(n => !n.hasClass('gone')).map(n => n.data('signal'))"
    )


async def test_a_signals_chain_and_an_open_commitment_on_the_time_ring(
    api: Server, neo4j_driver: AsyncDriver, services: Settings, scope: str
) -> None:
    deps = Deps(settings=services, driver=neo4j_driver, pool=None)
    chain = await build_chain(deps, scope)  # answered: kept, the event written
    # still open: promised next Monday for that Thursday, by a speaker bound to no one
    waiting = await record_commitment(
        deps, scope, source_id="chat-2", said=next_monday(), bound=False
    )
    graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
    [promised] = [e.id for e in graph.events if e.at == SAID]  # the chain's promise, first
    async with view(api, scope) as page:
        legend = await page.inner_text("#legend")
        assert "open commitment, at its due time on the ring" in legend
        # the kept commitment has no mark any more; the open one is marked at its due time
        assert await shown_due_marks(page) == [waiting.id]
        mark, first = await page.evaluate(
            "(ids) => ids.map(id => { const p = cy.getElementById(id).position();"
            " return [p.x, p.y]; })",
            [f"due:{waiting.id}", promised],
        )
        # on the ring where its time falls: the due time is the scope's latest time, so the
        # ring's end, clockwise from the chain's promise on the Monday (the ring's start)
        assert 900 < math.hypot(*mark) < 1000
        angle = math.degrees(math.atan2(mark[1], mark[0]) - math.atan2(first[1], first[0]))
        assert abs(angle % 360 - 0.94 * 360) < 1, (mark, first)

        rows = await page.evaluate(
            "() => [...document.querySelectorAll('#list li[data-id]')]"
            ".filter(li => li.dataset.id.startsWith('sig-') && !li.classList.contains('gone'))"
            ".map(li => li.textContent)"
        )
        assert len(rows) == 2, rows
        # what the agenda decided: a follow-up for 李四's bound promise, nothing for the other
        assert any(
            r.startswith("[commitment · kept]") and f"raised {chain.concern_id}" in r for r in rows
        ), rows
        assert any(
            r.startswith("[commitment · open]") and "ignored: no reachable person" in r
            for r in rows
        ), rows

        # the chain of the answered signal, step by step
        await select(page, chain.signal.id)
        chain_steps = await steps(page)
        assert [s for s, _ in chain_steps] == ["passage", "signal", "concern", "answer", "event"]
        text = dict(chain_steps)
        assert "前端部分周四能提测" in text["passage"] and "chat-1 @ v1" in text["passage"]
        assert "kept" in text["signal"] and "李四" in text["signal"]
        assert "due 2026-03-19 18:00:00 UTC+08:00" in text["signal"]
        assert f"raised {chain.concern_id}" in text["signal"]
        assert (
            chain.concern_id in text["concern"] and "确认前端部分提测是否已完成" in text["concern"]
        )
        assert (
            f"李四: {ANSWER}" in text["answer"] and f"concern-{chain.concern_id}" in text["answer"]
        )
        # the review of the concern's conversation read the answer (not as 李四's own act)
        assert KEPT_TITLE in text["event"] and f"by concern {chain.concern_id}" in text["event"]
        if SCREENSHOTS:  # for a person to look at: STORYGRAPH_SCREENSHOTS=<folder>
            await page.screenshot(path=str(Path(SCREENSHOTS) / "loop-surfaces-chain.png"))

        # from the event the answer wrote: the chain it closes
        await page.click(f"#detail a[data-go='{chain.event_id}']")
        await page.wait_for_function(
            "(id) => (document.getElementById('detail').dataset.shown || '').startsWith(id + '@')"
            " && document.querySelector('#chainOf ol.chain')",
            arg=chain.event_id,
            timeout=10_000,
        )
        event_detail = await page.inner_text("#detail")
        assert KEPT_TITLE in event_detail and f"by concern {chain.concern_id}" in event_detail
        assert [s for s, _ in await steps(page)] == [
            "passage",
            "signal",
            "concern",
            "answer",
            "event",
        ]

        # the mark of the open commitment selects it: nobody was asked yet
        await page.evaluate(f"() => {{ cy.getElementById('due:{waiting.id}').emit('tap'); }}")
        await page.wait_for_function(
            "(id) => (document.getElementById('detail').dataset.shown || '').startsWith(id + '@')",
            arg=waiting.id,
            timeout=10_000,
        )
        assert [s for s, t in await steps(page)] == ["passage", "signal", "concern"]
        assert "none" in dict(await steps(page))["concern"]

        # as known when the first signal was recorded: it was open, so it was marked
        await page.evaluate(
            "() => { const m = document.getElementById('moment');"
            " m.value = '0'; m.dispatchEvent(new Event('input')); }"
        )
        await page.wait_for_function("() => viz.renderedMoment === 0", timeout=10_000)
        assert await shown_due_marks(page) == [chain.signal.id]
