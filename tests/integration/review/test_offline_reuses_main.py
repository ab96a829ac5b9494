"""A later review reuses the scope's Main entity for the same person instead of creating
another (docs/rules/story-graph.md#identity; README: what MAIN means), with the default
offline model; another scope's entity of the same name is never reused (同名不构成身份).
Real Neo4j, Redis and workers."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.clock import utcnow
from engine.principal import OPEN_PRINCIPAL
from engine.review.types import Scope
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, open_run
from jobs.story.common import story_repo
from jobs.story.writes import upsert_source
from tests.support.review_jobs import count, run_worker

V1 = "张三: 支付模块昨天联调完了\n"
V2 = V1 + "张三: 回归测试明天交给测试组\n"
CURRENT = (
    "MATCH (v:EntityVersion) WHERE v.scope = $scope AND v.name = '张三' "
    "AND v.retracted_at > datetime() RETURN count(DISTINCT v.id)"
)


async def push(deps: Deps, scope: str, text: str, version: str) -> None:
    data = {"scope": scope, "id": "chat-1", "kind": "conversation", "version": version}
    await upsert_source(deps, OPEN_PRINCIPAL, {**data, "text": text})


async def review(deps: Deps, scope: str) -> str:
    now = utcnow()
    got = await open_run(
        deps, Scope.projects(scope), interval=(now - timedelta(hours=1), now + timedelta(hours=1))
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    run = (await runs_of(deps).get(got.run.run_id)).run
    assert run.result_id, run
    return run.result_id


@pytest.mark.timeout(300)
async def test_a_later_review_reuses_the_main_person_and_never_another_scopes(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    other = f"{scope}-other"
    try:
        await push(deps, other, V1, "v1")
        await review(deps, other)  # 张三 of another scope: same name, not the same person
        [elsewhere] = [
            e.id
            for e in (await story_repo(deps).story_graph(other, as_of=utcnow())).entities
            if e.name == "张三"
        ]
        await push(deps, scope, V1, "v1")
        first = await story_repo(deps).result(scope, await review(deps, scope))
        [zhang] = [e for e in first.entities if e.name == "张三"]
        assert str(zhang.status) == "main" and zhang.id != elsewhere

        await push(deps, scope, V2, "v2")
        second = await story_repo(deps).result(scope, await review(deps, scope))
        named = {m.mention.entity_id for m in second.mentions if m.mention.name == "张三"}
        assert named == {zhang.id}  # the stored Main 张三, not a second one
        assert await count(deps.driver, deps.settings, CURRENT, scope=scope) == 1
        graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
        assert [e.id for e in graph.entities if e.name == "张三"] == [zhang.id]
    finally:
        await deps.driver.execute_query(
            "MATCH (n {scope: $scope}) DETACH DELETE n",
            scope=other,
            database_=deps.settings.neo4j_database,
        )
