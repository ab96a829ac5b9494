"""The two clocks in Neo4j (docs/rules/story-graph.md#time) and source versions (docs/rules/story-graph.md)."""

from __future__ import annotations

from engine.story.inputs import EntityEdit
from graph.story import StoryRepository
from tests.support.story import (
    ALICE,
    RUN,
    T0,
    StepClock,
    at,
    cite,
    entity,
    publish,
    source,
    two_people,
)


async def test_as_of_shows_corrections_only_after_they_were_made(
    repo: StoryRepository, scope: str, clock: StepClock
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    zs = next(e.id for e in out.plan.entities if e.name == "张三")
    before_edit = clock()
    await repo.update_entity(
        scope, zs, EntityEdit(name="张三丰"), seen_version=1, by=ALICE, now=clock()
    )
    after_edit = clock()
    old = await repo.story_graph(scope, as_of=before_edit)
    new = await repo.story_graph(scope, as_of=after_edit)
    assert {e.name for e in old.entities} == {"张三", "李四"}
    assert {e.name for e in new.entities} == {"张三丰", "李四"}
    assert (await repo.entity(scope, zs, as_of=before_edit)).entity.name == "张三"
    assert [v.seq for v in (await repo.entity(scope, zs, as_of=before_edit)).history] == [1]
    assert (await repo.story_graph(scope, as_of=T0)).entities == []


async def test_valid_at_and_from_to_filter_in_neo4j(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.publish_result(
        publish(
            scope,
            "k1",
            events=[
                {"ref": "e1", "title": "提测", "at": T0},
                {"ref": "e2", "title": "上线", "at": at(72)},
            ],
            entities=[
                entity("m", "临时 mock 方案", valid_from=T0, valid_to=at(48)),
                entity("p", "支付模块"),
            ],
        ),
        by=RUN,
        now=clock(),
    )
    mid = await repo.story_graph(scope, valid_at=at(24), as_of=clock())
    assert {e.name for e in mid.entities} == {"临时 mock 方案", "支付模块"}
    assert [e.title for e in mid.events] == ["提测"]
    late = await repo.story_graph(scope, valid_at=at(96), as_of=clock())
    assert {e.name for e in late.entities} == {"支付模块"}
    window = await repo.story_graph(scope, from_=at(48), to=at(96), as_of=clock())
    assert [e.title for e in window.events] == ["上线"]
    view = await repo.graph_view(scope, from_=at(48), to=at(96), as_of=clock())
    assert [t.title for t in view.timeline] == ["上线"]


async def test_old_version_supplied_by_the_app_stays_readable(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.upsert_source(source(scope, version="v1", text="旧：周五提测"), now=clock())
    await repo.upsert_source(source(scope, version="v2", text="新：下周一提测"), now=clock())
    old = await repo.source_excerpt(scope, "conv-1", "v1", "chars:0-6")
    assert old.available and old.text == "旧：周五提测"


async def test_unrecoverable_old_version_warns_instead_of_showing_todays_text(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.upsert_source(
        source(scope, version="v2", text="今天的正文", previous=[{"version": "v1"}]), now=clock()
    )
    out = await repo.publish_result(
        publish(
            scope,
            "k1",
            events=[{"ref": "e", "title": "旧讨论", "at": T0, "references": [cite(version="v1")]}],
        ),
        by=RUN,
        now=clock(),
    )
    ex = await repo.reference_excerpt(scope, out.plan.references[0].id)
    assert not ex.available and ex.text is None and ex.version == "v1"
    assert ex.warning and "不可恢复" in ex.warning and "不以当前原文冒充旧版" in ex.warning
    current = await repo.source_excerpt(scope, "conv-1", "v2")
    assert current.text == "今天的正文"
