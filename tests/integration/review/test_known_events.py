"""A manual re-review of an interval keeps one event per message (docs/rules/reviews.md:
工作回顾的手动操作重新整理所选区间 — it re-reads every message, and a message an earlier run
organised must not become a second event).

The leaf is offered the scope's current events whose references cite text of its segments
(matched by the cited text, since the source version changes from v1 to v2 while old lines
keep their text); the model names one by id; publish reuses the stored event and adds
references to the new version. The grounded responder can name an event id only when the
request listed it, so these tests fail when the product withholds known events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest_asyncio
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.review.types import Scope
from engine.settings import Settings
from engine.story.inputs import EntityEdit
from engine.story.models import Actor
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, open_run
from jobs.story.common import story_repo
from tests.support.grounded_review import leaf_requests, offered_event_ids, review_answer
from tests.support.review_jobs import (
    BASE,
    count,
    push_conversation,
    review_deps,
    run_worker,
)
from tests.support.scripted_model import ScriptedModelServer

V1 = [
    (0, "张三", "支付模块卡在第三方回调接口"),
    (2, "李四", "前端部分周四能提测"),
    (4, "王五", "我来协调沙箱"),
]
V2 = V1 + [(6, "张三", "临时方案：先用 mock 跑通主流程"), (8, "李四", "张三的方案我同意")]
CHANGES_PER_LINK = (
    "MATCH (c:Change) WHERE c.scope = $scope "
    "WITH c.event_id AS e, c.entity_id AS n, count(*) AS k RETURN max(k)"
)


def chat(rows: list[tuple[int, str, str]]) -> str:
    return "".join(
        f"[{(BASE + timedelta(minutes=m)).isoformat()}] {who}: {said}\n" for m, who, said in rows
    )


async def review_day(deps: Deps, scope: str) -> str:
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(hours=1)),
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    run = (await runs_of(deps).get(got.run.run_id)).run
    assert run.result_id, run
    return run.result_id


async def titles_by_id(deps: Deps, scope: str) -> dict[str, str]:
    graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
    return {e.id: e.title for e in graph.events}


async def test_re_review_reuses_each_messages_event_by_id_and_cites_the_new_version(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", chat(V1))
    await review_day(deps, scope)
    first = await titles_by_id(deps, scope)
    assert len(first) == 3
    assert offered_event_ids(model_server) == set()

    model_server.reset()
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", chat(V2), version="v2")
    second_id = await review_day(deps, scope)

    assert offered_event_ids(model_server) == set(first)  # the stored events were offered
    [sent] = leaf_requests(model_server)
    for known in sent["known_events"]:
        assert known["title"] == first[known["id"]] and known["cited"]
    now = await titles_by_id(deps, scope)
    assert len(now) == 5 and len(set(now.values())) == 5, now
    assert {i: now[i] for i in first} == first  # the same ids, the same titles
    second = await story_repo(deps).result(scope, second_id)
    assert second.events == [e for e in second.events if e.id not in first]  # no new versions
    cited = {(r.owner_id, r.source_version) for r in second.references}
    assert {(i, "v2") for i in first} <= cited  # reused events cite the new version
    assert await count(neo4j_driver, deps.settings, CHANGES_PER_LINK, scope=scope) == 1


async def test_events_of_another_scope_citing_the_same_text_are_never_offered(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    other = f"{scope}-other"
    try:
        model_server.answer_with(review_answer)
        await push_conversation(deps, other, "chat-1", chat(V1))
        await review_day(deps, other)
        elsewhere = set(await titles_by_id(deps, other))
        model_server.reset()
        model_server.answer_with(review_answer)
        await push_conversation(deps, scope, "chat-1", chat(V1))
        await review_day(deps, scope)
        assert offered_event_ids(model_server) == set()
        assert not elsewhere & set(await titles_by_id(deps, scope))
        assert len(await titles_by_id(deps, scope)) == 3
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $scope}) DETACH DELETE n",
            scope=other,
            database_=deps.settings.neo4j_database,
        )


@pytest_asyncio.fixture
async def offline_deps(
    neo4j_driver: AsyncDriver, services: Settings, pool: ArqRedis, scope: str
) -> AsyncIterator[Deps]:
    """Review deps and workers with no model configured: the offline rule model, in the
    deployment's own TIMEZONE."""
    settings = services.model_copy(update={"model_base_url": None})
    async with review_deps(neo4j_driver, settings, pool) as deps:
        yield deps


async def test_offline_re_review_keeps_one_event_per_message_one_person_and_no_garbage_names(
    offline_deps: Deps, neo4j_driver: AsyncDriver, scope: str
) -> None:
    deps = offline_deps
    await push_conversation(deps, scope, "chat-1", chat(V1))
    await review_day(deps, scope)
    first = await titles_by_id(deps, scope)
    assert sorted(first.values()) == sorted(said for _, _, said in V1)  # speakers are linked
    graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
    [zhang] = [e for e in graph.entities if e.name == "张三"]
    await story_repo(deps).update_entity(
        scope,
        zhang.id,
        EntityEdit(description="支付负责人（用户修正）"),
        seen_version=zhang.seq,
        by=Actor.user("u1"),
        now=utcnow(),
    )

    await push_conversation(deps, scope, "chat-1", chat(V2), version="v2")
    await review_day(deps, scope)

    now = await titles_by_id(deps, scope)
    # "临时方案：先用 mock 跑通主流程" names no time, thing or undertaking: no event offline
    assert sorted(now.values()) == sorted(said for _, _, said in V2 if "mock" not in said), now
    assert {i: now[i] for i in first} == first
    graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
    assert sorted(e.name for e in graph.entities) == ["张三", "李四", "王五"]
    assert [e.id for e in graph.entities if e.name == "张三"] == [zhang.id]
    [agree] = [e.id for e in graph.events if e.title == "张三的方案我同意"]
    assert {c.entity_id for c in graph.changes if c.event_id == agree} >= {zhang.id}
    view = await story_repo(deps).entity(scope, zhang.id, as_of=utcnow())
    assert view.entity.description == "支付负责人（用户修正）"
    assert view.pending_suggestions == []  # the rules describe nobody: nothing to propose
    assert await count(neo4j_driver, deps.settings, CHANGES_PER_LINK, scope=scope) == 1


async def test_a_message_said_again_later_is_a_new_event_offline(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await push_conversation(deps, scope, "chat-1", chat(V1))
    await review_day(deps, scope)
    again = V1 + [(10, "王五", "我来协调沙箱")]
    await push_conversation(deps, scope, "chat-1", chat(again), version="v2")
    await review_day(deps, scope)
    titles = sorted((await titles_by_id(deps, scope)).values())
    assert titles.count("我来协调沙箱") == 2 and len(titles) == 4
