"""Reviews reuse stored entities (docs/rules/reviews.md: 跨 run 仅允许引用同 scope 的 Main 候选实体，模型局部
ID 和同名均不构成身份; docs/rules/story-graph.md: 后续自动整理提出补充或修订建议，不静默覆盖用户内容).

The model is the prompt-grounded review responder: it can name a stored id only when the
request listed it in `known_entities`, so these tests fail when the product withholds them.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.review.types import Scope
from engine.story.inputs import EntityEdit, PublishResultInput, parse_input
from engine.story.models import Actor
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, open_run
from jobs.story.common import story_repo
from tests.support.grounded_review import leaf_requests, offered_ids, review_answer
from tests.support.review_jobs import (
    BASE,
    count,
    per_batch_for,
    push_conversation,
    run_worker,
)
from tests.support.scripted_model import ScriptedModelServer

FIRST = [(0, "张三", "v2.0 的接口今天联调"), (3, "李四", "前端部分周四能提测")]
LATER = [
    (20, "张三", "回归测试明天开始"),
    (23, "王五", "文档已更新"),
    (26, "张三", "发布窗口定在周五"),
]
CURRENT_NAMED = (
    "MATCH (v:EntityVersion) WHERE v.scope = $scope AND v.name = $name "
    "AND v.retracted_at > datetime() RETURN count(DISTINCT v.id)"
)


def chat(rows: list[tuple[int, str, str]]) -> str:
    return "".join(
        f"[{(BASE + timedelta(minutes=m)).isoformat()}] {who}: {said}\n" for m, who, said in rows
    )


async def review(deps: Deps, scope: str, start: datetime, *, per_batch: int = 4000) -> str:
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(start, BASE + timedelta(days=1)),
        per_batch=per_batch,
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    run = (await runs_of(deps).get(got.run.run_id)).run
    assert run.result_id, run
    return run.result_id


async def test_second_review_reuses_the_stored_person_and_proposes_instead_of_overwriting(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", chat(FIRST))
    first = await story_repo(deps).result(
        scope, await review(deps, scope, BASE - timedelta(hours=1))
    )
    [zhang] = [e for e in first.entities if e.name == "张三"]
    await story_repo(deps).update_entity(
        scope,
        zhang.id,
        EntityEdit(description="发布经理（用户修正）"),
        seen_version=zhang.seq,
        by=Actor.user("u1"),
        now=utcnow(),
    )

    model_server.reset()
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", chat(FIRST + LATER), version="v2")
    two_batches = per_batch_for(chat(LATER), 2)
    second_id = await review(deps, scope, BASE + timedelta(minutes=10), per_batch=two_batches)

    leaves = leaf_requests(model_server)
    assert len(leaves) == 2  # both batches name 张三
    for sent in leaves:
        offered = {k["id"]: k for k in sent["known_entities"]}
        assert offered[zhang.id]["name"] == "张三"
        assert offered[zhang.id]["kind"] == "person"
    second = await story_repo(deps).result(scope, second_id)
    named = [m.mention.entity_id for m in second.mentions if m.mention.name == "张三"]
    assert named == [zhang.id]  # one 张三 in the result, the stored one
    settings = deps.settings
    assert await count(neo4j_driver, settings, CURRENT_NAMED, scope=scope, name="张三") == 1
    view = await story_repo(deps).entity(scope, zhang.id, as_of=utcnow())
    assert view.entity.description == "发布经理（用户修正）"  # the person's edit stays
    [proposal] = [s for s in view.pending_suggestions if s.field == "description"]
    assert proposal.current_value == "发布经理（用户修正）"
    assert "回归测试明天开始" in proposal.proposed_value
    assert "发布窗口定在周五" in proposal.proposed_value


async def seed_person(deps: Deps, scope: str, name: str) -> str:
    """A stored Main entity in `scope`, published as an earlier result would."""
    published = await story_repo(deps).publish_result(
        parse_input(
            PublishResultInput,
            {
                "scope": scope,
                "key": f"seeded-{name}",
                "entities": [{"ref": "p", "name": name, "kind": "person", "status": "main"}],
            },
        ),
        by=Actor.run("seed"),
        now=utcnow(),
    )
    [entity] = published.plan.entities
    return entity.id


async def test_only_the_reviewed_projects_known_entities_are_offered_and_reused(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    other = f"{scope}-other"
    try:
        elsewhere = await seed_person(deps, other, "张三")
        here = await seed_person(deps, scope, "张三")
        model_server.answer_with(review_answer)
        await push_conversation(deps, scope, "chat-1", chat(FIRST))
        result = await story_repo(deps).result(
            scope, await review(deps, scope, BASE - timedelta(hours=1))
        )
        [sent] = leaf_requests(model_server)
        assert [k["id"] for k in sent["known_entities"]] == [here]  # 李四 is not known
        assert elsewhere not in offered_ids(model_server)
        named = [m.mention.entity_id for m in result.mentions if m.mention.name == "张三"]
        assert named == [here]
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $scope}) DETACH DELETE n",
            scope=other,
            database_=deps.settings.neo4j_database,
        )


async def test_a_person_named_in_two_batches_of_one_review_is_one_entity(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    model_server.answer_with(review_answer)
    body = chat(FIRST + LATER)
    await push_conversation(deps, scope, "chat-1", body)
    result = await story_repo(deps).result(
        scope,
        await review(deps, scope, BASE - timedelta(hours=1), per_batch=per_batch_for(body, 3)),
    )
    leaves = leaf_requests(model_server)
    assert len(leaves) == 3
    assert leaves[0]["earlier_entities"] == []
    # the last batch names only 张三: only the 张三 an earlier batch found is offered
    assert [e["name"] for e in leaves[-1]["earlier_entities"]] == ["张三"]
    [zhang] = [e for e in result.entities if e.name == "张三"]
    assert "回归测试明天开始" in zhang.description and "v2.0 的接口今天联调" in zhang.description
    assert await count(neo4j_driver, deps.settings, CURRENT_NAMED, scope=scope, name="张三") == 1
