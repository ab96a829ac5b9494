"""The graph view page (/viz) in a real headless Chromium on the real API (docs/rules/story-graph.md
#views-knowledge-and-discussion): Cytoscape draws the demo, the slider replays an earlier record moment,
selecting an entity shows its excerpts, a correction made on the page is visible over GraphQL,
the URL keeps scope, moment and selection, an unknown scope says so, and 1,000 entities /
2,000 relations / 600 events are usable within a second.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from playwright.async_api import Page

from api.demo import load_into
from engine.settings import PROJECT_ROOT, Settings
from graph.story.repository import StoryRepository
from tests.support.browser import offline_page
from tests.support.graph_view import move_slider, open_view, publish_large_scope
from tests.support.processes import Server

pytestmark = pytest.mark.browser

SHOTS = PROJECT_ROOT / ".local" / "artefacts" / "screenshots"
VIEW_Q = """query($s: String!, $a: DateTime) { graphView(scope: $s, asOf: $a) {
  nodes { id label } timeline { id title } edges { id kind status } } }"""
REPLAY_Q = "query($s: String!) { graphReplay(scope: $s) { tables } }"


async def _drop(driver: AsyncDriver, settings: Settings, scope: str) -> None:
    await driver.execute_query(
        "MATCH (n {scope: $scope}) DETACH DELETE n", scope=scope, database_=settings.neo4j_database
    )


@pytest_asyncio.fixture
async def demo_scope(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[str]:
    scope = f"viz-{uuid.uuid4().hex[:10]}"
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), scope)
    yield scope
    await _drop(neo4j_driver, services, scope)


async def shot(page: Page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    await page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path


async def detail_shown(page: Page, object_id: str) -> None:
    """Wait until the detail panel has been drawn for this object at the current moment."""
    await page.wait_for_function(
        "(id) => (document.getElementById('detail').dataset.shown || '')"
        ".startsWith(id + '@') && document.getElementById('detail').dataset.shown === "
        "`${id}@${viz.S.T}`",
        arg=object_id,
        timeout=10_000,
    )


async def visible_ids(page: Page, kind: str) -> set[str]:
    return set(
        await page.evaluate(
            "(kind) => cy.nodes().filter(n => n.data('kind') === kind && !n.hasClass('gone'))"
            ".map(n => n.id())",
            kind,
        )
    )


async def visible_edges(page: Page, kind: str) -> set[str]:
    return set(
        await page.evaluate(
            "(kind) => cy.edges().filter(e => e.data('kind') === kind && !e.hasClass('gone'))"
            ".map(e => e.id())",
            kind,
        )
    )


def gql(api: Server, query: str, **variables: object) -> dict:  # type: ignore[type-arg]
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body["errors"]
    return body["data"]  # type: ignore[no-any-return]


async def test_the_demo_renders_on_cytoscape_and_in_the_list(api: Server, demo_scope: str) -> None:
    view = gql(api, VIEW_Q, s=demo_scope, a=None)["graphView"]
    async with offline_page() as seen:
        page = seen.page
        await page.set_viewport_size({"width": 1400, "height": 900})
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        assert await visible_ids(page, "entity") == {n["id"] for n in view["nodes"]}
        events_drawn = await page.evaluate(
            "() => cy.nodes().filter(n => ['event', 'day'].includes(n.data('kind')) && "
            "!n.hasClass('gone')).length"
        )
        assert events_drawn >= 1
        relations = {e["id"] for e in view["edges"] if e["kind"] == "relation"}
        assert await visible_edges(page, "relation") == relations
        assert await page.evaluate("() => cy.nodes('.stage').length") >= 1, "a stage marker"
        listed = await page.locator("#list li[data-id]:not(.gone)").all_inner_texts()
        for node in view["nodes"]:
            assert any(node["label"] in text for text in listed), node["label"]
        for event in view["timeline"]:
            assert any(event["title"] in text for text in listed), event["title"]
        assert any("张三" in text for text in listed), "Chinese text renders in the list"
        await shot(page, "graph_view_demo")
    assert seen.refused == [], f"the page tried to reach the internet: {seen.refused}"
    assert any("/static/cytoscape/cytoscape.min.js" in u for u in seen.requested)
    assert seen.console_errors == []


async def test_the_slider_snaps_to_record_moments_and_shows_an_earlier_state(
    api: Server, demo_scope: str
) -> None:
    moments = gql(api, REPLAY_Q, s=demo_scope)["graphReplay"]["tables"]["moments"]
    assert len(moments) >= 4
    async with offline_page() as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        assert await page.get_attribute("#moment", "max") == str(len(moments) - 1)
        assert await page.locator("#ticks option").count() == len(moments), "one tick a moment"
        now_entities = await visible_ids(page, "entity")
        await move_slider(page, 0)
        first = await page.evaluate("() => new Date(viz.S.T).toISOString()")
        early = gql(api, VIEW_Q, s=demo_scope, a=first[:23] + "999Z")["graphView"]
        early_entities = await visible_ids(page, "entity")
        assert early_entities == {n["id"] for n in early["nodes"]}
        assert len(early_entities) < len(now_entities), "fewer objects were known at first"
        positions_before = await page.evaluate(
            f"() => cy.getElementById({sorted(early_entities)[0]!r}).position()"
        )
        await move_slider(page, len(moments) - 1)
        positions_after = await page.evaluate(
            f"() => cy.getElementById({sorted(early_entities)[0]!r}).position()"
        )
        assert positions_before == positions_after, "positions are stable while replaying"
        await move_slider(page, 0)
        await shot(page, "graph_view_demo_first_moment")
    assert seen.console_errors == []


async def test_selecting_an_entity_shows_excerpts_history_and_neighbours(
    api: Server, demo_scope: str
) -> None:
    graph = gql(
        api,
        """query($s: String!) { storyGraph(scope: $s) { entities { id name }
           references { ownerId excerpt { available text } } } }""",
        s=demo_scope,
    )["storyGraph"]
    cited = {
        r["ownerId"]: r["excerpt"]["text"] for r in graph["references"] if r["excerpt"]["available"]
    }
    entity = next(e for e in graph["entities"] if e["id"] in cited)
    async with offline_page() as seen:
        page = seen.page
        await page.set_viewport_size({"width": 1400, "height": 900})
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        # a click on the node in the graph (its rendered position on the canvas)
        pos = await page.evaluate(
            "(id) => { const n = cy.getElementById(id); cy.center(n); return n.renderedPosition(); }",
            entity["id"],
        )
        box = await page.locator("#cy").bounding_box()
        assert box is not None
        await page.mouse.click(box["x"] + pos["x"], box["y"] + pos["y"])
        await page.locator("#detail blockquote.excerpt").first.wait_for(timeout=10_000)
        excerpts = await page.locator("#detail blockquote.excerpt").all_inner_texts()
        assert cited[entity["id"]] in excerpts
        assert await page.locator("#detail h2").inner_text() == entity["name"]
        await page.locator("#history li").first.wait_for(timeout=10_000)
        # the list shares the selection
        selected = page.locator('#list li[aria-selected="true"]')
        assert await selected.get_attribute("data-id") == entity["id"]
        assert await page.evaluate("() => cy.$(':selected').id()") == entity["id"]
        # keyboard: arrow down in the list moves the shared selection
        await selected.focus()
        await page.keyboard.press("ArrowDown")
        moved = await page.evaluate("() => viz.S.sel")
        assert moved != entity["id"]
        assert await page.evaluate("() => cy.$(':selected').id()") == moved
        await page.keyboard.press("ArrowUp")
        await page.locator("#detail blockquote.excerpt").first.wait_for(timeout=10_000)
        await shot(page, "graph_view_entity_excerpts")
    assert seen.console_errors == []


async def test_corrections_made_on_the_page_are_visible_over_graphql(
    api: Server, demo_scope: str
) -> None:
    rels = gql(
        api,
        "query($s: String!) { storyGraph(scope: $s) { relations { id confirmation } "
        "entities { id name seq description } } }",
        s=demo_scope,
    )["storyGraph"]
    suggested = next(r for r in rels["relations"] if r["confirmation"] == "SUGGESTED")
    entity = rels["entities"][0]
    async with offline_page() as seen:
        page = seen.page
        await page.set_viewport_size({"width": 1400, "height": 900})
        await open_view(page, f"{api.url}/viz?scope={demo_scope}&sel={suggested['id']}")
        await page.locator("#detail button[data-op=confirm]").click()
        await page.locator("#detail .confirmation", has_text="confirmed").wait_for(timeout=10_000)
        edge_classes = await page.evaluate(
            "(id) => cy.getElementById(id).classes()", suggested["id"]
        )
        assert "confirmed" in edge_classes, "the line shows the confirmation"
        # edit a description, with the version the page showed
        await page.locator("#list li[data-id='{}']".format(entity["id"])).click()
        await detail_shown(page, entity["id"])
        await page.locator("#editBox summary").click()
        await page.locator("#editText").fill("页面上改的描述：王五负责对账")
        await page.locator("#detail button[data-act=updateEntity]").click()
        await page.locator("#detail .description", has_text="页面上改的描述").wait_for(
            timeout=10_000
        )
        await page.locator("#detail .outcome", has_text="description saved").wait_for()
        # a stale edit (made from the moment before the save, which still shows the entity at
        # its earlier version) is a readable CONFLICT that stays on the panel and writes nothing
        last = await page.evaluate("() => viz.S.moments.length - 1")
        await move_slider(page, last - 1)
        await detail_shown(page, entity["id"])
        assert "页面上改的描述" not in await page.locator("#detail .description").inner_text()
        await page.locator("#editBox summary").click()
        await page.locator("#editText").fill("stale")
        await page.locator("#detail button[data-act=updateEntity]").click()
        conflict = page.locator("#detail .outcome.error", has_text="CONFLICT")
        await conflict.wait_for(timeout=10_000)
        await detail_shown(page, entity["id"])
        assert await conflict.is_visible(), "the refusal stays after the panel is drawn again"
        await shot(page, "graph_view_correction")
    after = gql(
        api,
        "query($s: String!, $id: ID!) { entity(scope: $s, id: $id) { entity { description } } "
        "relations(scope: $s, confirmation: CONFIRMED, first: 100) { edges { node { id by { id } } } } }",
        s=demo_scope,
        id=entity["id"],
    )
    assert after["entity"]["entity"]["description"] == "页面上改的描述：王五负责对账"
    assert suggested["id"] in {e["node"]["id"] for e in after["relations"]["edges"]}


async def test_scope_moment_and_selection_survive_a_reload(api: Server, demo_scope: str) -> None:
    view = gql(api, VIEW_Q, s=demo_scope, a=None)["graphView"]
    target = view["nodes"][0]
    async with offline_page() as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        await page.locator("#list li[data-id='{}']".format(target["id"])).click()
        await move_slider(page, 3)
        url = page.url
        assert "at=" in url and f"sel={target['id']}" in url and f"scope={demo_scope}" in url
        moment = await page.evaluate("() => viz.S.T")
        await page.reload(wait_until="load")
        await page.wait_for_function("() => window.viz && window.viz.ready", timeout=20_000)
        assert await page.evaluate("() => viz.S.T") == moment
        assert await page.input_value("#moment") == "3"
        assert not await page.is_checked("#follow"), "a chosen moment stays pinned"
        assert await page.evaluate("() => viz.S.sel") == target["id"]
        assert (
            await page.locator('#list li[aria-selected="true"]').get_attribute("data-id")
            == target["id"]
        )
    assert seen.console_errors == []


async def test_an_unknown_scope_says_so_instead_of_a_blank_canvas(api: Server) -> None:
    async with offline_page() as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope=nobody-{uuid.uuid4().hex[:6]}")
        message = page.locator("#message")
        assert await message.is_visible()
        assert "unknown or empty" in await message.inner_text()
        await shot(page, "graph_view_unknown_scope")
    assert seen.console_errors == []


#  target: usable (first paint and a slider move) within 1 s at this size. The page
# is opened OPENS times in one browser: the first open also pays Neo4j planning the replay
# read for the first time since it started (~0.7 s of a 1.2 s open), so it is guarded at
# 2.5 s; the median of the later opens, what a person opening a scope on a running service
# meets, must be under 1 s, and so must every slider move.
async def drawn_relations(page: Page) -> set[str]:
    """The relations whose lines are drawn under the graph (a scope at scale)."""
    return set(await page.evaluate("() => [...(viz.drawnRelations || [])]"))


# A drawn relation line and a point on it (rendered px in #cy) that no node covers and no
# other drawn line passes within 2 px of (the nearest line within 5 px is the one picked).
LINE_TO_CLICK = """() => {
  const z = cy.zoom(), p = cy.pan(), S = viz.S, r = (q) => ({ x: q.x * z + p.x, y: q.y * z + p.y });
  const nodes = cy.nodes(':visible').map((n) => [r(n.position()), n.renderedWidth() / 2 + 4]);
  const seg = [...viz.drawnRelations].map((id) => {
    const v = S.vis.get(id).v; return [id, r(S.pos.get(v.from)), r(S.pos.get(v.to))]; });
  const box = document.getElementById('cy').getBoundingClientRect();
  const legend = document.getElementById('legend').getBoundingClientRect();
  const covered = (q) => box.left + q.x >= legend.left - 4 && box.left + q.x <= legend.right + 4
    && box.top + q.y >= legend.top - 4 && box.top + q.y <= legend.bottom + 4;
  const dist = (q, a, b) => { const dx = b.x - a.x, dy = b.y - a.y;
    const t = Math.max(0, Math.min(1, ((q.x - a.x) * dx + (q.y - a.y) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(q.x - a.x - t * dx, q.y - a.y - t * dy); };
  for (const [id, a, b] of seg) {
    for (const t of [0.5, 0.35, 0.65]) {
      const q = { x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y) };
      if (q.x < 60 || q.y < 60 || q.x > cy.width() - 60 || q.y > cy.height() - 60) continue;
      if (covered(q)) continue;  // under the legend: not a line a person can click
      if (nodes.some(([n, w]) => Math.hypot(n.x - q.x, n.y - q.y) < w)) continue;
      if (seg.some(([o, c, d]) => o !== id && dist(q, c, d) < 2)) continue;
      return [id, q.x, q.y];
    }
  }
  throw new Error('no clear line to click');
}"""

OPENS = 2


async def test_a_thousand_entities_render_replay_and_pick_a_line(
    api: Server, neo4j_driver: AsyncDriver, services: Settings
) -> None:
    """The scale  on the page: every entity and relation line drawn, an earlier
    moment with fewer lines, and a click on a line selecting its relation. How long opening
    and replay take is measured by `bench/graph_view.py` (against its 2,500 / 1,000 ms
    guards), not asserted here."""
    scope = f"viz-large-{uuid.uuid4().hex[:8]}"
    try:
        publish_large_scope(api, scope, entities=1000, relations=2000, events=600, batches=4)
        async with offline_page() as seen:
            page = seen.page
            await page.set_viewport_size({"width": 1400, "height": 900})
            for _ in range(OPENS):  # a cold open, then one with the browser's caches
                await open_view(page, f"{api.url}/viz?scope={scope}&view=all")
            assert len(await visible_ids(page, "entity")) == 1000
            assert len(await drawn_relations(page)) == 2000  # lines under the graph at scale
            for i in (1, 0, 3, 2):
                await move_slider(page, i)
            assert 0 < len(await drawn_relations(page)) < 2000  # an earlier moment has fewer
            await shot(page, "graph_view_1000_entities")
            # a click on a line selects its relation, which becomes a graph edge
            await move_slider(page, 3)
            await page.locator("#zoomIn").click()  # as a person would before picking a line
            await page.locator("#zoomIn").click()
            target, x, y = await page.evaluate(LINE_TO_CLICK)
            box = await page.locator("#cy").bounding_box()
            assert box is not None
            await page.mouse.click(box["x"] + x, box["y"] + y)
            await detail_shown(page, target)
            assert await page.evaluate("(id) => cy.getElementById(id).selected()", target)
            assert "relation" in (await page.locator("#detail .meta").first.inner_text())
    finally:
        await _drop(neo4j_driver, services, scope)


# ---------------------------------------------------------------- the remaining page actions
STORY_Q = """query($s: String!) { storyGraph(scope: $s, includeRemoved: true) {
  entities { id name description }
  relations { id seq removed confirmation }
  references { ownerId ownerKind excerpt { available } }
  suggestions { id targetId field proposedValue status } } }"""


async def answer_of(page: Page, field: str, click: Callable[[], Any]) -> dict:  # type: ignore[type-arg]
    """Click, and return the data of the GraphQL mutation `field` the page sent for it."""
    async with page.expect_response(
        lambda r: r.url.endswith("/graphql") and field in (r.request.post_data or "")
    ) as info:
        await click()
    body = await (await info.value).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


async def test_a_relation_is_removed_then_restored_on_the_page(
    api: Server, demo_scope: str
) -> None:
    graph = gql(api, STORY_Q, s=demo_scope)["storyGraph"]
    target = next(r for r in graph["relations"] if not r["removed"])
    current = "query($s: String!) { storyGraph(scope: $s) { relations { id } } }"
    async with offline_page() as seen:
        page = seen.page
        await page.set_viewport_size({"width": 1400, "height": 900})
        await open_view(page, f"{api.url}/viz?scope={demo_scope}&sel={target['id']}")
        await page.locator("#detail button[data-op=remove]").click()
        await page.locator("#detail button[data-op=restore]").wait_for(timeout=10_000)
        assert "removed" in await page.locator("#detail div.meta:not(.outcome)").first.inner_text()
        # over GraphQL: removed (gone from the current graph, kept with includeRemoved)
        mid = {r["id"]: r for r in gql(api, STORY_Q, s=demo_scope)["storyGraph"]["relations"]}
        assert mid[target["id"]]["removed"] is True
        assert target["id"] not in {
            r["id"] for r in gql(api, current, s=demo_scope)["storyGraph"]["relations"]
        }
        # the line is hidden, and shown faded with "removed" ticked
        assert target["id"] not in await visible_edges(page, "relation")
        await page.locator("#showRemoved").check()
        assert target["id"] in await visible_edges(page, "relation")
        assert "removed" in await page.evaluate(
            "(id) => cy.getElementById(id).classes()", target["id"]
        )
        await shot(page, "graph_view_relation_removed")
        await page.locator("#detail button[data-op=restore]").click()
        await page.locator("#detail button[data-op=remove]").wait_for(timeout=10_000)
        assert "removed" not in await page.evaluate(
            "(id) => cy.getElementById(id).classes()", target["id"]
        )
    after = {r["id"]: r for r in gql(api, STORY_Q, s=demo_scope)["storyGraph"]["relations"]}
    assert after[target["id"]]["removed"] is False
    assert after[target["id"]]["seq"] == target["seq"] + 2, "remove and restore are two versions"
    assert target["id"] in {
        r["id"] for r in gql(api, current, s=demo_scope)["storyGraph"]["relations"]
    }
    assert seen.console_errors == []


@pytest.mark.parametrize("choice", ["accept", "dismiss"])
async def test_a_pending_suggestion_is_accepted_or_dismissed_on_the_page(
    api: Server, demo_scope: str, choice: str
) -> None:
    graph = gql(api, STORY_Q, s=demo_scope)["storyGraph"]
    suggestion = next(s for s in graph["suggestions"] if s["status"] == "PENDING")
    assert suggestion["field"] == "description"
    entity = next(e for e in graph["entities"] if e["id"] == suggestion["targetId"])
    assert entity["description"] != suggestion["proposedValue"]
    async with offline_page() as seen:
        page = seen.page
        await page.set_viewport_size({"width": 1400, "height": 900})
        await open_view(page, f"{api.url}/viz?scope={demo_scope}&sel={entity['id']}")
        box = page.locator("#detail .suggestion", has_text=suggestion["proposedValue"])
        await box.wait_for(timeout=10_000)
        await box.locator(f"button[data-act={choice}Suggestion]").click()
        await page.locator("#detail .outcome", has_text=f"suggestion {choice}").wait_for(
            timeout=10_000
        )
        assert await page.locator("#detail .suggestion").count() == 0, "no longer pending"
        if choice == "accept":
            await page.locator(
                "#detail .description", has_text=suggestion["proposedValue"]
            ).wait_for(timeout=10_000)
        await shot(page, f"graph_view_suggestion_{choice}")
    after = gql(api, STORY_Q, s=demo_scope)["storyGraph"]
    status = {s["id"]: s["status"] for s in after["suggestions"]}
    assert status.get(suggestion["id"], "gone") != "PENDING"
    if suggestion["id"] in status:
        assert status[suggestion["id"]] == ("ACCEPTED" if choice == "accept" else "DISMISSED")
    described = next(e for e in after["entities"] if e["id"] == entity["id"])["description"]
    if choice == "accept":
        assert described == suggestion["proposedValue"]
    else:
        assert described == entity["description"]
    assert seen.console_errors == []


ENTRY_Q = """query($s: String!, $id: ID!) { knowledgeEntry(scope: $s, id: $id) {
  version available text source { id kind } } }"""


async def test_save_to_knowledge_is_previewed_then_confirmed_on_the_page(
    api: Server, demo_scope: str
) -> None:
    graph = gql(api, STORY_Q, s=demo_scope)["storyGraph"]
    cited = {r["ownerId"] for r in graph["references"] if r["excerpt"]["available"]}
    entity = next(e for e in graph["entities"] if e["id"] in cited)
    async with offline_page() as seen:
        page = seen.page
        await page.set_viewport_size({"width": 1400, "height": 900})
        await open_view(page, f"{api.url}/viz?scope={demo_scope}&sel={entity['id']}")
        preview_button = page.locator("#detail button[data-act=previewSave]")
        preview = (await answer_of(page, "previewSaveToKnowledge", preview_button.click))["p"]
        await page.locator("#preview button[data-act=confirmSave]").wait_for(timeout=10_000)
        shown = await page.locator("#preview pre").all_inner_texts()
        assert [e["text"] for e in preview["entries"]] == shown, (
            "the page shows what a confirm writes"
        )
        assert any(entity["name"] in text for text in shown)
        for e in preview["entries"]:  # the preview wrote nothing
            before = api.graphql(ENTRY_Q, {"s": demo_scope, "id": e["sourceId"]}).json()
            if e["action"] == "CREATE":
                assert before.get("errors"), f"{e['sourceId']} exists before the confirm"
        await shot(page, "graph_view_save_preview")
        confirm = page.locator("#preview button[data-act=confirmSave]")
        saved = (await answer_of(page, "confirmSaveToKnowledge", confirm.click))["o"]
        await page.locator("#preview .saved").wait_for(timeout=10_000)
        assert saved["repeat"] is False
    assert saved["entries"], "an entry was written"
    written = {e["id"]: e for e in saved["entries"]}
    for e in preview["entries"]:
        if e["action"] == "UNCHANGED":
            continue
        entry = gql(api, ENTRY_Q, s=demo_scope, id=e["sourceId"])["knowledgeEntry"]
        assert entry["source"]["kind"] == "KNOWLEDGE"
        assert entry["text"] == e["text"]
        assert entry["version"] == written[e["sourceId"]]["currentVersion"]
    assert seen.console_errors == []


async def test_continue_discussion_is_previewed_then_started_on_the_page(
    api: Server, demo_scope: str
) -> None:
    graph = gql(api, STORY_Q, s=demo_scope)["storyGraph"]
    relation = next(r for r in graph["relations"] if not r["removed"])
    async with offline_page() as seen:
        page = seen.page
        await page.set_viewport_size({"width": 1400, "height": 900})
        await open_view(page, f"{api.url}/viz?scope={demo_scope}&sel={relation['id']}")
        button = page.locator("#detail button[data-act=previewDiscuss]")
        preview = (await answer_of(page, "previewContinueDiscussion", button.click))["p"]
        await page.locator("#preview button[data-act=confirmDiscuss]").wait_for(timeout=10_000)
        assert await page.locator("#preview pre").inner_text() == preview["text"]
        await shot(page, "graph_view_discussion_preview")
        confirm = page.locator("#preview button[data-act=confirmDiscuss]")
        made = (await answer_of(page, "confirmContinueDiscussion", confirm.click))["o"]
        await page.locator("#preview .saved", has_text=made["conversation"]["id"]).wait_for(
            timeout=10_000
        )
    assert made["repeat"] is False
    conversation = gql(api, ENTRY_Q, s=demo_scope, id=made["conversation"]["id"])["knowledgeEntry"]
    assert conversation["source"]["kind"] == "CONVERSATION"
    assert conversation["text"] == preview["text"]
    assert gql(api, STORY_Q, s=demo_scope)["storyGraph"] == graph, "the graph is unchanged"
    assert seen.console_errors == []


async def test_the_scope_picker_lists_readable_scopes_with_sizes_and_switches_the_view(
    api: Server, demo_scope: str, neo4j_driver: AsyncDriver, services: Settings
) -> None:
    other = f"picker-{uuid.uuid4().hex[:8]}"
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), other)
    try:
        sizes = {s["scope"]: s for s in gql(api, "{ scopes { scope entities events } }")["scopes"]}
        async with offline_page() as seen:
            page = seen.page
            await open_view(page, f"{api.url}/viz?scope={demo_scope}")
            await page.wait_for_function("() => viz.scopesReady", timeout=10_000)
            options = await page.evaluate(
                "() => [...document.querySelectorAll('#scopeList option')]"
                ".map(o => [o.value, o.textContent])"
            )
            listed = dict(options)
            assert {demo_scope, other} <= set(listed)
            mine = sizes[demo_scope]
            assert listed[demo_scope] == f"{mine['entities']} entities · {mine['events']} events"
            # choosing another scope from the picker shows that scope
            await page.fill("#scope", other)
            await page.dispatch_event("#scope", "change")
            await page.wait_for_function(
                "(s) => viz.S.scope === s && viz.ready && viz.S.moments.length > 0",
                arg=other,
                timeout=20_000,
            )
            assert f"scope={other}" in page.url
        assert seen.console_errors == []
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n", s=other, database_=services.neo4j_database
        )


async def _edit(api: Server, scope: str, entity_id: str, text: str) -> float:
    """Edit an entity's description over GraphQL as another person would; when it committed."""
    seen = gql(
        api,
        "query($s: String!, $id: ID!) { entity(scope: $s, id: $id) { entity { seq } } }",
        s=scope,
        id=entity_id,
    )["entity"]["entity"]["seq"]
    gql(
        api,
        "mutation($s: String!, $id: ID!, $v: Int!, $d: String!) { updateEntity(scope: $s, "
        "id: $id, seenVersion: $v, edit: {description: $d}) { id } }",
        s=scope,
        id=entity_id,
        v=seen,
        d=text,
    )
    return time.monotonic()


async def test_following_shows_a_write_as_it_commits_and_a_pinned_moment_stays(
    api: Server, demo_scope: str
) -> None:
    target = gql(api, VIEW_Q, s=demo_scope, a=None)["graphView"]["nodes"][0]["id"]
    async with offline_page() as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}&sel={target}")
        await page.wait_for_function("() => viz.live === 'on'", timeout=10_000)
        assert await page.locator("#live").inner_text() == "● live"
        before = await page.evaluate("() => viz.S.moments.length")

        # following: another person's write shows within seconds (polling took up to 20 s)
        committed = await _edit(api, demo_scope, target, "跟随：新描述一")
        await page.locator("#detail .description", has_text="跟随：新描述一").wait_for(
            timeout=5_000
        )
        lag = time.monotonic() - committed
        print(f"graph view follow lag: {lag * 1000:.0f} ms")
        assert await page.evaluate("() => viz.S.moments.length") == before + 1
        assert await page.evaluate("() => viz.S.index === viz.S.moments.length - 1")

        # pinned at an earlier moment: a write is heard but the chosen moment stays
        await move_slider(page, before - 1)
        pinned = await page.evaluate("() => viz.S.T")
        hints = await page.evaluate("() => viz.hints")
        await _edit(api, demo_scope, target, "跟随：新描述二")
        await page.wait_for_function("(n) => viz.hints > n", arg=hints, timeout=5_000)
        await page.wait_for_timeout(500)  # longer than the re-read's 250 ms gathering
        assert await page.evaluate("() => viz.S.T") == pinned
        assert await page.evaluate("() => viz.S.moments.length") == before + 1
        # ticking "follow now" again reads what was written meanwhile
        await page.locator("#follow").check()
        await page.locator("#detail .description", has_text="跟随：新描述二").wait_for(
            timeout=5_000
        )
        assert await page.evaluate("() => viz.S.moments.length") == before + 2

        # somebody typing in the panel is not redrawn under their hands; closing the box
        # catches up with what was written meanwhile
        await page.locator("#editBox summary").click()
        await page.locator("#editText").fill("我正在写")
        hints = await page.evaluate("() => viz.hints")
        await _edit(api, demo_scope, target, "跟随：别人写的")
        await page.wait_for_function("(n) => viz.hints > n", arg=hints, timeout=5_000)
        await page.wait_for_timeout(500)
        assert await page.input_value("#editText") == "我正在写"
        await page.locator("#editBox summary").click()
        await page.locator("#detail .description", has_text="跟随：别人写的").wait_for(
            timeout=5_000
        )

        # a dropped socket reconnects, and a write made while it was down is not lost
        await page.evaluate("() => viz.dropLive()")
        await _edit(api, demo_scope, target, "跟随：断线时写的")
        await page.locator("#detail .description", has_text="跟随：断线时写的").wait_for(
            timeout=10_000
        )
        await page.wait_for_function("() => viz.live === 'on'", timeout=10_000)
    assert seen.console_errors == []
