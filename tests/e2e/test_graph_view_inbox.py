"""The graph view's "changed since" choice and its inbox in a real
headless Chromium on the real API: choosing a moment marks what was added or revised after it
(legend beside) and lists each change as `storyGraphDiff` answers it; the inbox shows the
pending suggestion with its quoted evidence, current and proposed values and who proposed it;
accept, dismiss and edit-then-accept change the graph and the inbox; a stale seenVersion shows
the CONFLICT message and writes nothing."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver
from playwright.async_api import Page

from api.demo import load_into
from engine.review.lifecycle import ReviewMode, create_run, mark_stopped, pause
from engine.review.types import Scope, Trigger
from engine.settings import Settings
from graph.review.codec import RunOptions
from graph.review.runs import SupervisionRuns
from graph.story.repository import StoryRepository
from tests.support.browser import offline_page
from tests.support.graph_view import open_view
from tests.support.processes import Server

pytestmark = pytest.mark.browser

STORY_Q = """query($s: String!) { storyGraph(scope: $s) {
  entities { id seq name description }
  suggestions { id targetId field currentValue proposedValue status } } }"""
DIFF_Q = """query($s: String!, $since: DateTime!) { storyGraphDiff(scope: $s, since: $since,
  first: 200) { pageInfo { hasNextPage } edges { node { objectKind objectId change } } } }"""


@pytest_asyncio.fixture
async def demo_scope(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[str]:
    scope = f"vizi-{uuid.uuid4().hex[:10]}"
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), scope)
    yield scope
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=services.neo4j_database
    )


def gql(api: Server, query: str, **variables: object) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body["errors"]
    return body["data"]  # type: ignore[no-any-return]


UPSERT = """mutation($input: UpsertSourceInput!) { upsertSource(input: $input) { id } }"""
PUBLISH = """mutation($input: PublishResultInput!, $run: String!) {
  publishResult(input: $input, runId: $run) { repeat } }"""
PASSAGE = "张三: 审计模块由开发负责"


def propose(api: Server, scope: str) -> dict[str, Any]:
    """A run's proposal against a person's edit, citing a passage: it waits in the inbox."""
    text = f"{PASSAGE}\n李四: 好的"
    src = {"scope": scope, "id": "chat-a", "kind": "CONVERSATION", "version": "v1", "text": text}
    gql(api, UPSERT, input=src)

    def publish(key: str, run: str, **kw: Any) -> None:
        ref = {"sourceId": "chat-a", "sourceVersion": "v1", "locator": "lines:1-1"}
        entity = {"ref": "audit", "name": "审计模块", "references": [ref], **kw}
        gql(api, PUBLISH, input={"scope": scope, "key": key, "entities": [entity]}, run=run)

    publish("k-audit-1", "run-a1", description="后端", status="MAIN")
    audit = next(
        e for e in gql(api, STORY_Q, s=scope)["storyGraph"]["entities"] if e["name"] == "审计模块"
    )
    gql(
        api,
        "mutation($s: String!, $id: ID!, $v: Int!) { updateEntity(scope: $s, id: $id, "
        'seenVersion: $v, edit: {description: "测试"}) { id } }',
        s=scope,
        id=audit["id"],
        v=audit["seq"],
    )
    publish("k-audit-2", "run-a2", id=audit["id"], description="开发")
    return pending(api, scope)


def pending(api: Server, scope: str) -> dict[str, Any]:
    graph = gql(api, STORY_Q, s=scope)["storyGraph"]
    return next(
        s for s in graph["suggestions"] if s["status"] == "PENDING" and s["proposedValue"] == "开发"
    )


def entity(api: Server, scope: str, entity_id: str) -> dict[str, Any]:
    graph = gql(api, STORY_Q, s=scope)["storyGraph"]
    return next(e for e in graph["entities"] if e["id"] == entity_id)


async def choose_since(page: Page, index: int) -> dict[str, Any]:
    """Pick the `index`th record moment under "changed since" as a person does; wait for the
    diff to be listed; return the moment (ms) and what the page holds."""
    moment = await page.evaluate("(i) => viz.S.moments[i]", index)
    await page.select_option("#changedSince", str(moment))
    await page.wait_for_function(
        "(m) => (window.vizChanges.done || '').startsWith(`${m}@${viz.S.scope}@`)",
        arg=moment,
        timeout=10_000,
    )
    return {"moment": moment}


async def marks(page: Page) -> dict[str, str]:
    return dict(
        await page.evaluate(
            "() => cy.elements('.chg-added, .chg-revised, .chg-retracted').map(e => [e.id(),"
            " ['added', 'revised', 'retracted'].find(c => e.hasClass('chg-' + c))])"
        )
    )


async def test_changed_since_marks_and_lists_what_the_diff_answers(
    api: Server, demo_scope: str
) -> None:
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        picked = await choose_since(page, 0)
        legend = page.locator("#changesLegend")
        assert await legend.is_visible()
        assert (await legend.inner_text()).split() == [
            "added",
            "revised",
            "retracted",
            "/",
            "removed",
        ]
        since = await page.evaluate(
            "(m) => new Date(m).toISOString().slice(0, 23) + '999Z'", picked["moment"]
        )
        diff = gql(api, DIFF_Q, s=demo_scope, since=since)["storyGraphDiff"]
        n = len(diff["edges"])
        assert n > 0 and not diff["pageInfo"]["hasNextPage"]
        rows = page.locator("#changesList li")
        assert await rows.count() == n
        listed = await page.locator("#changesInfo").inner_text()
        assert listed.startswith(f"{n} changes since")
        drawn = await marks(page)
        kinds = {"ADDED": "added", "REVISED": "revised", "RESTORED": "revised"}
        for e in (x["node"] for x in diff["edges"]):
            if e["objectKind"].upper() == "ENTITY" and e["change"] in kinds:
                assert drawn.get(e["objectId"]) == kinds[e["change"]], e

        # a person edits an entity: the page follows; since the moment before, only that
        # entity is listed, revised, its description before -> after, and marked amber
        target = next(iter(k for k, v in drawn.items() if v == "added"))
        before = entity(api, demo_scope, target)
        count = await page.evaluate("() => viz.S.moments.length")
        gql(
            api,
            "mutation($s: String!, $id: ID!, $v: Int!) { updateEntity(scope: $s, id: $id, "
            'seenVersion: $v, edit: {description: "改过的描述"}) { id } }',
            s=demo_scope,
            id=target,
            v=before["seq"],
        )
        await page.wait_for_function(
            "(n) => viz.S.moments.length === n + 1 && "
            "document.querySelectorAll('#changedSince option').length === n + 1",
            arg=count,
            timeout=10_000,
        )
        await choose_since(page, count - 1)
        assert await rows.count() == 1
        row = await rows.first.inner_text()
        # a sentence a person reads: the entity by name, the field in words, no stored names
        assert row.startswith("revised") and f"修改了实体「{before['name']}」" in row
        assert f"描述「{before['description']}」 → 「改过的描述」" in row
        assert "description" not in row and "user_fields" not in row and target not in row
        title = await rows.first.locator(".sentence").get_attribute("title")
        assert title is not None and title.startswith(target)  # the id is the title
        assert await marks(page) == {target: "revised"}
        await page.select_option("#changedSince", "")
        await page.wait_for_function("() => window.vizChanges.done.startsWith('none@')")
        assert await marks(page) == {}
    assert seen.console_errors == [] and seen.refused == []


async def inbox_item(page: Page, suggestion_id: str) -> Any:
    item = page.locator(f"#inboxList li[data-id='{suggestion_id}']")
    await item.wait_for(timeout=10_000)
    return item


@pytest.mark.parametrize("choice", ["accept", "dismiss", "edit"])
async def test_the_inbox_shows_evidence_and_acts_on_the_graph(
    api: Server, demo_scope: str, choice: str
) -> None:
    s = propose(api, demo_scope)
    target = entity(api, demo_scope, s["targetId"])
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}&sel={target['id']}")
        item = await inbox_item(page, s["id"])
        text = await item.inner_text()
        # the field in words, the target by name (its id the title), the proposer as a name
        assert target["name"] in text and "描述" in text and "description" not in text
        assert f"current {s['currentValue']} → proposed {s['proposedValue']}" in text
        assert "proposed by 自动整理（run-a2）" in text
        assert await item.locator(".target").get_attribute("title") == target["id"]
        quotes = item.locator("blockquote")
        assert await quotes.count() == 1
        assert (await quotes.first.inner_text()).startswith(f"“{PASSAGE}”")  # the cited passage
        badge = await page.locator("#inboxBadges .badge[data-kind=field]").inner_text()
        assert badge != "field 0"

        if choice == "edit":
            await item.locator("button[data-act=edit]").click()
            await item.locator(".editValue").fill("人工改写后的描述")
            await item.locator("button[data-act=acceptEdited]").click()
            wanted = "人工改写后的描述"
        else:
            await item.locator(f"button[data-act={choice}]").click()
            wanted = s["proposedValue"] if choice == "accept" else target["description"]
        # gone from the inbox; the graph's detail shows the value the person chose
        await page.locator(f"#inboxList li[data-id='{s['id']}']").wait_for(
            state="detached", timeout=10_000
        )
        await page.locator("#detail .description", has_text=wanted).wait_for(timeout=10_000)
    after = entity(api, demo_scope, target["id"])
    assert after["description"] == wanted
    status = gql(api, STORY_Q, s=demo_scope)["storyGraph"]["suggestions"]
    assert s["id"] not in {x["id"] for x in status if x["status"] == "PENDING"}
    assert seen.console_errors == [] and seen.refused == []


async def test_a_stale_seen_version_shows_conflict_and_writes_nothing(
    api: Server, demo_scope: str
) -> None:
    s = propose(api, demo_scope)
    target = entity(api, demo_scope, s["targetId"])
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        item = await inbox_item(page, s["id"])
        await page.locator("#follow").uncheck()  # pinned: the page does not re-read by itself
        # another person edits the target meanwhile: the item's seenVersion is stale
        gql(
            api,
            "mutation($s: String!, $id: ID!, $v: Int!) { updateEntity(scope: $s, id: $id, "
            'seenVersion: $v, edit: {description: "别人刚改的"}) { id } }',
            s=demo_scope,
            id=target["id"],
            v=target["seq"],
        )
        await item.locator("button[data-act=accept]").click()
        alert = page.locator(f"#inboxList li[data-id='{s['id']}'] [role=alert]")
        await alert.wait_for(timeout=10_000)
        assert "CONFLICT" in await alert.inner_text()
        # nothing written: still pending, the other person's text stands
        assert pending(api, demo_scope)["id"] == s["id"]
        assert entity(api, demo_scope, target["id"])["description"] == "别人刚改的"
        # read again, the item carries the current version: accepting now works
        await page.locator(f"#inboxList li[data-id='{s['id']}'] button[data-act=accept]").click()
        await page.locator(f"#inboxList li[data-id='{s['id']}']").wait_for(
            state="detached", timeout=10_000
        )
    assert entity(api, demo_scope, target["id"])["description"] == s["proposedValue"]
    assert seen.console_errors == []


async def test_a_paused_run_waits_in_the_inbox_and_is_cancelled_from_it(
    api: Server, demo_scope: str, neo4j_driver: AsyncDriver, services: Settings
) -> None:
    now = datetime.now(UTC)
    run = create_run(
        run_id=f"sup-{uuid.uuid4().hex[:12]}",
        scope=Scope.projects(demo_scope),
        trigger=Trigger.MANUAL,
        mode=ReviewMode.INCREMENTAL,
        worker_id="gone",
        per_batch=1000,
        stage_timeout=timedelta(minutes=5),
        now=now,
    )
    reason = "token budget of 10 per run exceeded (12 used); continueReview goes on"
    run = mark_stopped(pause(run, now=now, reason=reason).state, now=now).state
    runs = SupervisionRuns(neo4j_driver, services.neo4j_database, deployment=services.queue_name)
    await runs.create(run, RunOptions())
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        item = await inbox_item(page, run.run_id)
        text = await item.inner_text()
        assert "监督运行已暂停" in text and reason in text  # what happened and why
        assert await item.locator("button[data-act=continueReview]").inner_text() == "Continue"
        badge = page.locator("#inboxBadges .badge[data-kind=paused]")
        assert await badge.inner_text() == "paused 1"
        await item.locator("button[data-act=cancelReview]").click()
        await page.locator(f"#inboxList li[data-id='{run.run_id}']").wait_for(
            state="detached", timeout=10_000
        )
        assert await badge.inner_text() == "paused 0"
    assert (await runs.get(run.run_id)).run.status.value == "cancelled"
    assert seen.console_errors == []


HOLDER_TEXT = "王五: 张三负责审计模块\n王五: 审计模块改由李四负责"


def propose_holder(api: Server, scope: str) -> dict[str, Any]:
    """A person-confirmed holder (张三 responsible_for 审计模块) and a run naming another one
    (李四): a pending DIFFERENCE on the relation's from_id."""
    src = {"scope": scope, "id": "chat-h", "kind": "CONVERSATION", "version": "v1"}
    gql(api, UPSERT, input={**src, "text": HOLDER_TEXT})

    def cite(line: int) -> list[dict[str, str]]:
        return [{"sourceId": "chat-h", "sourceVersion": "v1", "locator": f"lines:{line}-{line}"}]

    def publish(key: str, run: str, holder: str, line: int, audit: dict[str, Any]) -> None:
        entities = [
            {
                "ref": "who",
                "name": holder,
                "kind": "person",
                "status": "MAIN",
                "references": cite(line),
            },
            {
                "ref": "audit",
                "name": "审计模块",
                "status": "MAIN",
                "references": cite(line),
                **audit,
            },
        ]
        relations = [
            {
                "ref": "r",
                "from": "who",
                "to": "audit",
                "type": "responsible_for",
                "references": cite(line),
            }
        ]
        got = gql(
            api,
            PUBLISH,
            input={"scope": scope, "key": key, "entities": entities, "relations": relations},
            run=run,
        )
        assert got["publishResult"]["repeat"] is False

    publish("k-h1", "run-h1", "张三", 1, {})
    graph = gql(api, RELATIONS_Q, s=scope)["storyGraph"]
    names = {e["id"]: e["name"] for e in graph["entities"]}
    [held] = [
        r
        for r in graph["relations"]
        if r["type"] == "responsible_for" and names[r["toId"]] == "审计模块"
    ]
    gql(
        api,
        'mutation($s: String!, $id: ID!) { confirmRelation(scope: $s, id: $id, why: "对") { seq } }',
        s=scope,
        id=held["id"],
    )
    publish("k-h2", "run-h2", "李四", 2, {"id": held["toId"]})
    graph = gql(api, RELATIONS_Q, s=scope)["storyGraph"]
    return next(
        s for s in graph["suggestions"] if s["status"] == "PENDING" and s["kind"] == "DIFFERENCE"
    )


RELATIONS_Q = """query($s: String!) { storyGraph(scope: $s) {
  entities { id name } relations { id fromId toId type }
  suggestions { id kind status field currentLabel proposedLabel } } }"""


def holders_of(api: Server, scope: str, thing: str) -> list[str]:
    graph = gql(api, RELATIONS_Q, s=scope)["storyGraph"]
    names = {e["id"]: e["name"] for e in graph["entities"]}
    return sorted(
        names[r["fromId"]]
        for r in graph["relations"]
        if r["type"] == "responsible_for" and names[r["toId"]] == thing
    )


async def test_a_holder_difference_reads_by_name_and_accepting_moves_the_relation(
    api: Server, demo_scope: str
) -> None:
    s = propose_holder(api, demo_scope)
    assert (s["field"], s["currentLabel"], s["proposedLabel"]) == ("from_id", "张三", "李四")
    async with offline_page(viewport={"width": 1400, "height": 900}) as seen:
        page = seen.page
        await open_view(page, f"{api.url}/viz?scope={demo_scope}")
        item = await inbox_item(page, s["id"])
        text = await item.inner_text()
        # the holders by name, not their entity ids; no free-text edit of an entity id
        assert "current 张三 → proposed 李四" in text and "ent_" not in text
        # the field in words (a responsibility's holder), never the stored names
        assert "负责人" in text and "from_id" not in text and "responsible_for" not in text
        assert await item.locator("button[data-act=edit]").count() == 0
        badge = await page.locator("#inboxBadges .badge[data-kind=difference]").inner_text()
        assert badge != "difference 0"
        await item.locator("button[data-act=accept]").click()
        await page.locator(f"#inboxList li[data-id='{s['id']}']").wait_for(
            state="detached", timeout=10_000
        )
    assert holders_of(api, demo_scope, "审计模块") == ["李四"]
    assert seen.console_errors == [] and seen.refused == []
