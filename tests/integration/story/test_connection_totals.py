"""`totalCount` answers on the lists of the loop and the inbox (signals, storyGraphDiff,
inbox), counted by a statement of its own only when selected: a client paging with
`first: 1` learns how many there are, with the filters of the page applied (it read -1)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.settings import Settings
from engine.signal.derive import from_fact
from engine.signal.model import Passage, SignalDraft
from engine.story.inputs import EntityEdit
from graph.story import StoryRepository
from jobs.deps import Deps
from jobs.signal.record import signal_store
from tests.support.in_process import graphql
from tests.support.review_jobs import push_conversation
from tests.support.signal_chain import SAID
from tests.support.story import ALICE, RUN, StepClock, cite, entity, publish, source, two_people

LISTS = """query($s: String!, $since: DateTime!, $kinds: [String!]) {
  all: signals(scope: $s, first: 1) { totalCount pageInfo { hasNextPage } }
  risks: signals(scope: $s, kind: RISK, first: 1) { totalCount }
  blockers: signals(scope: $s, kind: BLOCKER, first: 1) { totalCount }
  storyGraphDiff(scope: $s, since: $since, first: 1) { totalCount pageInfo { hasNextPage } }
  inbox(scope: $s, first: 1) { totalCount edges { cursor } }
  differences: inbox(scope: $s, kinds: $kinds, first: 1) { totalCount }
}"""


async def lists(deps: Deps, scope: str, since: str) -> dict[str, Any]:
    variables = {"s": scope, "since": since, "kinds": ["DIFFERENCE"]}
    return await graphql(deps.settings, deps.driver, LISTS, variables)


def said(kind: str, text: str, i: int) -> SignalDraft:
    passage = Passage(source_id="chat", source_version="v1", locator=f"chars:{i}-{i + 1}")
    draft = from_fact(kind, text, passage, SAID, "Asia/Shanghai")
    assert draft is not None
    return draft


async def test_signals_diff_and_inbox_count_what_they_page_through(
    neo4j_driver: AsyncDriver, settings: Settings, clock: StepClock, scope: str
) -> None:
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)
    since = utcnow() - timedelta(seconds=1)
    await push_conversation(deps, scope, "chat", "x" * 100)
    found = [said("risk", f"张三：风险{i}", i) for i in range(3)]
    found.append(said("blocker", "李四：支付模块卡在第三方回调接口", 9))
    store = signal_store(deps)

    async def work(tx):  # type: ignore[no-untyped-def]
        return await store.record_in(
            tx, found, scope=scope, run_id="run-t", result_id="res-t", now=utcnow()
        )

    await store.write(work)
    # two field suggestions on a person-edited entity: two inbox items
    repo = StoryRepository(neo4j_driver, settings.neo4j_database)
    await repo.upsert_source(source(scope), now=clock())
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    zs = next(e.id for e in out.plan.entities if e.name == "张三")
    await repo.update_entity(
        scope, zs, EntityEdit(description="验收负责人"), seen_version=1, by=ALICE, now=clock()
    )
    for key, text in (("k2", "开发"), ("k3", "运维")):
        zhang = entity("z", "张三", id=zs, description=text, references=[cite(locator="chars:0-4")])
        await repo.publish_result(publish(scope, key, entities=[zhang]), by=RUN, now=clock())

    got = await lists(deps, scope, since.isoformat())
    assert got["all"] == {"totalCount": 4, "pageInfo": {"hasNextPage": True}}
    assert (got["risks"]["totalCount"], got["blockers"]["totalCount"]) == (3, 1)
    assert got["inbox"]["totalCount"] == 2 and len(got["inbox"]["edges"]) == 1
    assert got["differences"]["totalCount"] == 0
    diff = got["storyGraphDiff"]
    assert diff["pageInfo"]["hasNextPage"]
    # the total is the length of the whole list, read page by page
    whole = await lists_diff_length(deps, scope, since.isoformat())
    # the window since `since` holds the four signals (the step clock recorded the rest long
    # before it)
    assert diff["totalCount"] == whole == 4


async def lists_diff_length(deps: Deps, scope: str, since: str) -> int:
    query = """query($s: String!, $since: DateTime!, $after: String) {
      storyGraphDiff(scope: $s, since: $since, first: 3, after: $after) {
        edges { cursor } pageInfo { hasNextPage endCursor } } }"""
    seen, after = 0, None
    while True:
        variables = {"s": scope, "since": since, "after": after}
        page = (await graphql(deps.settings, deps.driver, query, variables))["storyGraphDiff"]
        seen += len(page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            return seen
        after = page["pageInfo"]["endCursor"]
