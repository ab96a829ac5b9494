"""A manual re-review of an interval keeps one event per message (seed 004 自动增量与手动重看:
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

import httpx
import pytest_asyncio
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.review.types import Scope
from engine.settings import Settings
from engine.story.inputs import EntityEdit
from engine.story.models import Actor
from jobs.llm.gateway import build_gateway
from jobs.review.lifecycle import start_review
from jobs.review.services import ReviewServices
from jobs.story.common import story_repo
from tests.support.grounded_review import leaf_requests, offered_event_ids, review_answer
from tests.support.review_jobs import (
    BASE,
    clear_deployment,
    count,
    push_conversation,
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


async def review_day(svc: ReviewServices, scope: str) -> str:
    got = await start_review(
        svc,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(hours=1)),
    )
    assert isinstance(got, tuple)
    await run_worker(svc.settings)
    run = (await svc.runs.get(got[0].run_id)).run
    assert run.result_id, run
    return run.result_id


async def titles_by_id(svc: ReviewServices, scope: str) -> dict[str, str]:
    graph = await story_repo(svc.deps).story_graph(scope, as_of=utcnow())
    return {e.id: e.title for e in graph.events}


async def test_re_review_reuses_each_messages_event_by_id_and_cites_the_new_version(
    svc: ReviewServices, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    model_server.answer_with(review_answer)
    await push_conversation(svc, scope, "chat-1", chat(V1))
    await review_day(svc, scope)
    first = await titles_by_id(svc, scope)
    assert len(first) == 3
    assert offered_event_ids(model_server) == set()

    model_server.reset()
    model_server.answer_with(review_answer)
    await push_conversation(svc, scope, "chat-1", chat(V2), version="v2")
    second_id = await review_day(svc, scope)

    assert offered_event_ids(model_server) == set(first)  # the stored events were offered
    [sent] = leaf_requests(model_server)
    for known in sent["known_events"]:
        assert known["title"] == first[known["id"]] and known["cited"]
    now = await titles_by_id(svc, scope)
    assert len(now) == 5 and len(set(now.values())) == 5, now
    assert {i: now[i] for i in first} == first  # the same ids, the same titles
    second = await story_repo(svc.deps).result(scope, second_id)
    assert second.events == [e for e in second.events if e.id not in first]  # no new versions
    cited = {(r.owner_id, r.source_version) for r in second.references}
    assert {(i, "v2") for i in first} <= cited  # reused events cite the new version
    assert await count(neo4j_driver, svc.settings, CHANGES_PER_LINK, scope=scope) == 1


async def test_events_of_another_scope_citing_the_same_text_are_never_offered(
    svc: ReviewServices, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    other = f"{scope}-other"
    try:
        model_server.answer_with(review_answer)
        await push_conversation(svc, other, "chat-1", chat(V1))
        await review_day(svc, other)
        elsewhere = set(await titles_by_id(svc, other))
        model_server.reset()
        model_server.answer_with(review_answer)
        await push_conversation(svc, scope, "chat-1", chat(V1))
        await review_day(svc, scope)
        assert offered_event_ids(model_server) == set()
        assert not elsewhere & set(await titles_by_id(svc, scope))
        assert len(await titles_by_id(svc, scope)) == 3
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $scope}) DETACH DELETE n",
            scope=other,
            database_=svc.settings.neo4j_database,
        )


@pytest_asyncio.fixture
async def offline_svc(
    neo4j_driver: AsyncDriver, services: Settings, pool: ArqRedis, scope: str
) -> AsyncIterator[ReviewServices]:
    """Review services and workers with no model configured: the offline rule model."""
    settings = services.model_copy(update={"model_base_url": None})
    await clear_deployment(neo4j_driver, settings)
    async with httpx.AsyncClient() as http:
        svc = ReviewServices(
            settings=settings,
            driver=neo4j_driver,
            worker_id="test-api",
            pool=pool,
            gateway=build_gateway(settings, http=http),
        )
        await svc.app.put(
            (await svc.app.get()).model_copy(update={"heartbeat_enabled": True}), now=BASE
        )
        yield svc
    await clear_deployment(neo4j_driver, settings)


async def test_offline_re_review_keeps_one_event_per_message_one_person_and_no_garbage_names(
    offline_svc: ReviewServices, neo4j_driver: AsyncDriver, scope: str
) -> None:
    svc = offline_svc
    await push_conversation(svc, scope, "chat-1", chat(V1))
    await review_day(svc, scope)
    first = await titles_by_id(svc, scope)
    assert sorted(first.values()) == sorted(f"{who}：{said}" for _, who, said in V1)
    graph = await story_repo(svc.deps).story_graph(scope, as_of=utcnow())
    [zhang] = [e for e in graph.entities if e.name == "张三"]
    await story_repo(svc.deps).update_entity(
        scope,
        zhang.id,
        EntityEdit(description="支付负责人（用户修正）"),
        seen_version=zhang.seq,
        by=Actor.user("u1"),
        now=utcnow(),
    )

    await push_conversation(svc, scope, "chat-1", chat(V2), version="v2")
    await review_day(svc, scope)

    now = await titles_by_id(svc, scope)
    assert sorted(now.values()) == sorted(f"{who}：{said}" for _, who, said in V2), now
    assert {i: now[i] for i in first} == first
    graph = await story_repo(svc.deps).story_graph(scope, as_of=utcnow())
    assert sorted(e.name for e in graph.entities) == ["张三", "李四", "王五"]
    assert [e.id for e in graph.entities if e.name == "张三"] == [zhang.id]
    [agree] = [e.id for e in graph.events if e.title == "李四：张三的方案我同意"]
    assert {c.entity_id for c in graph.changes if c.event_id == agree} >= {zhang.id}
    view = await story_repo(svc.deps).entity(scope, zhang.id, as_of=utcnow())
    assert view.entity.description == "支付负责人（用户修正）"
    assert [s.field for s in view.pending_suggestions] == ["description"]
    assert await count(neo4j_driver, svc.settings, CHANGES_PER_LINK, scope=scope) == 1


async def test_a_message_said_again_later_is_a_new_event_offline(
    offline_svc: ReviewServices, scope: str
) -> None:
    svc = offline_svc
    await push_conversation(svc, scope, "chat-1", chat(V1))
    await review_day(svc, scope)
    again = V1 + [(10, "王五", "我来协调沙箱")]
    await push_conversation(svc, scope, "chat-1", chat(again), version="v2")
    await review_day(svc, scope)
    titles = sorted((await titles_by_id(svc, scope)).values())
    assert titles.count("王五：我来协调沙箱") == 2 and len(titles) == 4
