"""Identity (同名不构成身份; docs/rules/reviews.md) and scope isolation
(历史选择不能回退到其他项目的最新图谱)."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from engine.errors import NotFound
from engine.settings import Settings
from graph.story import StoryRepository
from tests.support.story import RUN, StepClock, entity, publish, source, two_people


async def test_equal_names_never_merge(clock: StepClock, repo: StoryRepository, scope: str) -> None:
    await repo.publish_result(
        publish(scope, "k1", entities=[entity("a", "张三", status="main")]), by=RUN, now=clock()
    )
    await repo.publish_result(
        publish(scope, "k2", entities=[entity("a", "张三", status="main")]), by=RUN, now=clock()
    )
    graph = await repo.story_graph(scope, as_of=clock())
    assert [e.name for e in graph.entities] == ["张三", "张三"]
    assert len({e.id for e in graph.entities}) == 2


async def test_reuse_by_stored_id_only_for_a_main_entity(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    first = await repo.publish_result(
        publish(scope, "k1", entities=[entity("a", "张三", status="main"), entity("b", "王五")]),
        by=RUN,
        now=clock(),
    )
    zs = next(e.id for e in first.plan.entities if e.name == "张三")
    ww = next(e.id for e in first.plan.entities if e.name == "王五")
    second = await repo.publish_result(
        publish(
            scope,
            "k2",
            entities=[
                entity("x", "张三", id=zs, description="测试负责人"),
                entity("y", "王五", id=ww),
                entity("z", "李四", id="not-an-id"),
            ],
        ),
        by=RUN,
        now=clock(),
    )
    graph = await repo.story_graph(scope, as_of=clock())
    assert sorted(e.name for e in graph.entities) == ["张三", "李四", "王五", "王五"]
    assert next(e for e in graph.entities if e.id == zs).description == "测试负责人"
    assert len(second.result.warnings) == 2


async def test_an_id_from_another_scope_is_neither_reused_nor_readable(
    clock: StepClock,
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    other = f"{scope}-b"
    try:
        await repo.upsert_source(source(scope), now=clock())
        a = await repo.publish_result(two_people(scope, "k"), by=RUN, now=clock())
        zs = next(e.id for e in a.plan.entities if e.name == "张三")
        b = await repo.publish_result(
            publish(other, "k", entities=[entity("x", "张三", id=zs)]), by=RUN, now=clock()
        )
        assert b.plan.entities[0].id != zs
        with pytest.raises(NotFound):
            await repo.entity(other, zs, as_of=clock())
        with pytest.raises(NotFound):
            await repo.result(other, a.result.id)
        with pytest.raises(NotFound):
            await repo.reference_excerpt(other, a.plan.references[0].id)
        assert [e.name for e in (await repo.story_graph(other, as_of=clock())).entities] == ["张三"]
        assert (await repo.story_graph(f"{scope}-empty", as_of=clock())).entities == []
        assert all(
            e.scope == "global" for e in (await repo.story_graph("global", as_of=clock())).entities
        )
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n", s=other, database_=settings.neo4j_database
        )


async def test_a_pinned_id_that_no_longer_resolves_at_a_time_is_not_found(
    repo: StoryRepository, scope: str, clock: StepClock
) -> None:
    before = clock()
    out = await repo.publish_result(
        publish(scope, "k", entities=[entity("a", "张三")]), by=RUN, now=clock()
    )
    with pytest.raises(NotFound):
        await repo.entity(scope, out.plan.entities[0].id, as_of=before)
