"""`make run`'s demo shows what the product does, in a real headless Chromium on the real API:
the demo (the v2.0 提测 story, its showcase and the loop: 周三同步 reviewed by the offline model,
张三's answered difference) gives the Signals list its rows — 李四's open commitment, 王五's
blocker, the settled difference — and the time ring its due mark for the open commitment;
the difference's chain ends at 张三's answer. Its watch 提测前检查 reads over GraphQL as a
person meets it: the check step done with 张三's stand-up line as evidence."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from api.demo import load_into
from api.demo_loop import ANSWER, add_loop
from api.demo_showcase import STANDUP, add_showcase
from api.demo_watch import add_watch
from engine.settings import Settings
from graph.story.repository import StoryRepository
from jobs.deps import Deps
from jobs.queue import open_pool
from tests.support.browser import offline_page, screenshot_path
from tests.support.graph_view import open_view
from tests.support.processes import Server

pytestmark = pytest.mark.browser


@pytest_asyncio.fixture
async def demo(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[str]:
    scope = f"vizd-{uuid.uuid4().hex[:10]}"
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), scope)
    pool = await open_pool(services)
    deps = Deps(settings=services, driver=neo4j_driver, pool=pool)
    await add_showcase(replace(deps, pool=None), scope)
    await add_loop(deps, scope)
    await add_watch(deps, scope, STANDUP)
    await pool.aclose()
    yield scope
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=services.neo4j_database
    )


@pytest.mark.timeout(600)
async def test_the_demo_fills_the_signals_list_and_marks_the_open_promise_on_the_ring(
    api: Server, demo: str
) -> None:
    async with offline_page(
        timezone_id="Asia/Shanghai", locale="en-US", viewport={"width": 1400, "height": 900}
    ) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo}")
        rows = await page.evaluate(
            "() => [...viz.S.sigs.keys()].map(id => document.getElementById('li-' + id))"
            ".filter(li => li && !li.hidden && !li.classList.contains('gone'))"
            ".map(li => li.innerText)"
        )
        text = "\n".join(rows)
        assert len(rows) == 3, rows
        assert "前端回归周五能提测" in text and "对账脚本卡在银行对账单接口" in text, text
        marks = await page.evaluate(
            "() => cy.nodes('.due').filter(n => !n.hasClass('gone')).map(n => n.data('label'))"
        )
        assert len(marks) == 1 and "前端回归" in marks[0], marks
        # the difference's chain ends at 张三's answer, quoted
        difference = await page.evaluate(
            "() => [...viz.S.sigs.entries()].find(([, vs]) => vs.at(-1).kind === 'difference')[0]"
        )
        await page.evaluate("(id) => document.getElementById('li-' + id).click()", difference)
        await page.wait_for_function(
            "(id) => (document.getElementById('detail').dataset.shown || '').startsWith(id + '@')",
            arg=difference,
            timeout=20_000,
        )
        detail = await page.inner_text("#detail")
        assert ANSWER in detail, detail
        path = screenshot_path("demo_signals_and_due_mark")
        if path:
            await page.screenshot(path=path)
        assert seen.refused == [] and seen.console_errors == [], (
            seen.refused,
            seen.console_errors,
        )


WATCHES = """query($s: String!) { watches(scope: $s) { edges { node {
  title deliveryState pendingHandOffs bindings { noteId title }
  steps { stepId kind status completionCriteria evidence }
  observations(first: 1) { summary outcome { status factsRecorded } } } } } }"""


def test_the_demos_watch_shows_the_evidence_its_check_found(api: Server, demo: str) -> None:
    answer = api.graphql(WATCHES, {"s": demo}).json()
    assert "errors" not in answer, answer
    (edge,) = answer["data"]["watches"]["edges"]
    watch = edge["node"]
    assert watch["title"] == "提测前检查" and watch["deliveryState"] == "facts_recorded"
    assert [b["noteId"] for b in watch["bindings"]] == ["pretest-checklist", STANDUP]
    check, execute = watch["steps"]
    assert (check["kind"], check["status"]) == ("check", "done")
    assert "支付模块继续用 mock 跑主流程" in check["evidence"], check
    assert (execute["kind"], execute["status"]) == ("execute", "pending")
    (seen,) = watch["observations"]
    assert seen["outcome"] == {"status": "success", "factsRecorded": True}, seen
    assert watch["pendingHandOffs"] == 1  # no webhook here: it waits for the partner session


ID_LIKE = re.compile(
    r"\b(?:ent|rel|evt|res|sug)_[0-9a-f]{6,}|\b(?:from_id|to_id|user_fields)\b|∅ →"
)


async def test_the_demos_inbox_and_changes_read_as_sentences(api: Server, demo: str) -> None:
    """On the demo, what waits and what changed read in a person's words: the inbox's first
    item is the difference 张三 answered (the field in words, names not ids, his answer
    quoted); "changed since" the first moment lists sentences, never an id or a field name."""
    async with offline_page(
        timezone_id="Asia/Shanghai", locale="en-US", viewport={"width": 1400, "height": 900}
    ) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo}")
        await page.wait_for_function(
            "() => (window.vizInbox.done || '').startsWith(viz.S.scope + '@')", timeout=20_000
        )
        first = await page.inner_text("#inboxList > li:first-child")
        assert "负责人" in first and "李四" in first and "张三" in first, first
        assert ANSWER in first, first
        assert not ID_LIKE.search(first), first
        path = screenshot_path("demo_inbox_answered_difference")
        if path:
            await page.screenshot(path=path)

        await page.click("#inboxPanel > summary")  # folded: the changes list has the room
        moment = await page.evaluate("() => viz.S.moments[0]")
        await page.select_option("#changedSince", str(moment))
        await page.wait_for_function(
            "(m) => (window.vizChanges.done || '').startsWith(`${m}@${viz.S.scope}@`)",
            arg=moment,
            timeout=20_000,
        )
        rows = await page.locator("#changesList li .sentence").all_inner_texts()
        assert len(rows) > 5, rows
        assert not [r for r in rows if ID_LIKE.search(r)], rows
        assert any("「李四 负责 前端」" in r for r in rows), rows
        path = screenshot_path("demo_changes_in_words")
        if path:
            await page.screenshot(path=path)
        assert seen.refused == [] and seen.console_errors == [], (
            seen.refused,
            seen.console_errors,
        )
