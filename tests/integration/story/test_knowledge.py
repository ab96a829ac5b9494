"""Save to knowledge (docs/rules/reviews.md): preview writes nothing; confirm creates or
supplements local knowledge entries exactly as previewed; external sources stay read-only."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from engine.errors import Conflict, Forbidden, NotFound
from engine.settings import Settings
from engine.story.knowledge import EntryAction, entry_id
from engine.story.models import ObjectKind
from engine.story.previews import ObjectRef, PreviewKind, PreviewRequest, decode
from graph.story import StoryRepository
from graph.story.knowledge import KnowledgeRepository
from tests.support.story import (
    ALICE,
    RUN,
    StepClock,
    cite,
    entity,
    publish,
    scope_counts,
    source,
    two_people,
)


@pytest.fixture
def kn(neo4j_driver: AsyncDriver, settings: Settings, clock: StepClock) -> KnowledgeRepository:
    return KnowledgeRepository(neo4j_driver, settings.neo4j_database)


def ask(scope: str, *objects: ObjectRef, result_id: str | None = None) -> PreviewRequest:
    return PreviewRequest(
        kind=PreviewKind.KNOWLEDGE, scope=scope, objects=list(objects), result_id=result_id
    )


async def _world(clock: StepClock, repo: StoryRepository, scope: str) -> dict[str, str]:
    await repo.upsert_source(source(scope), now=clock())
    await repo.upsert_source(
        source(scope, "wiki-pay", kind="knowledge", text="# 支付模块\n\n已有的说明。"), now=clock()
    )
    await repo.upsert_source(source(scope, "web-1", kind="external", text="外部文章"), now=clock())
    out = await repo.publish_result(
        publish(
            scope,
            "k1",
            entities=[
                entity(
                    "zs",
                    "张三",
                    kind="person",
                    description="测试负责人",
                    status="main",
                    references=[cite(), cite("web-1")],
                ),
                entity("pay", "支付模块", status="main", references=[cite("wiki-pay")]),
            ],
            relations=[{"ref": "r", "from": "zs", "to": "pay", "type": "owns"}],
        ),
        by=RUN,
        now=clock(),
    )
    ids = {e.name: e.id for e in out.plan.entities}
    ids["rel"] = out.plan.relations[0].id
    ids["result"] = out.result.id
    return ids


async def test_preview_lists_new_and_supplemented_entries_and_writes_nothing(
    clock: StepClock,
    repo: StoryRepository,
    kn: KnowledgeRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    ids = await _world(clock, repo, scope)
    before = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    preview_id, plan = await kn.preview_save(
        ask(
            scope,
            ObjectRef(kind=ObjectKind.ENTITY, id=ids["张三"]),
            ObjectRef(kind=ObjectKind.ENTITY, id=ids["支付模块"]),
        ),
        now=clock(),
    )
    assert await scope_counts(neo4j_driver, settings.neo4j_database, scope) == before
    by_id = {e.source_id: e for e in plan.entries}
    new = by_id[entry_id(scope, ObjectRef(kind=ObjectKind.ENTITY, id=ids["张三"]))]
    assert new.action is EntryAction.CREATE and new.link is None
    assert "测试负责人" in new.text and "conv-1@v1 chars:0-8" in new.text
    wiki = by_id["wiki-pay"]  # the local entry the entity already cites is supplemented
    assert wiki.action is EntryAction.SUPPLEMENT and wiki.base_version == "v1"
    assert wiki.link is not None and (wiki.link.source_id, wiki.link.version) == ("wiki-pay", "v1")
    assert wiki.text.startswith("# 支付模块\n\n已有的说明。")
    assert [(r.source_id, r.owner_id) for r in plan.read_only] == [("web-1", ids["张三"])]
    assert decode(preview_id, clock()).fingerprint


async def test_confirm_writes_new_versions_and_keeps_the_old_one_readable(
    clock: StepClock, repo: StoryRepository, kn: KnowledgeRepository, scope: str
) -> None:
    ids = await _world(clock, repo, scope)
    preview_id, plan = await kn.preview_save(ask(scope, result_id=ids["result"]), now=clock())
    token = decode(preview_id, clock())
    outcome = await kn.confirm_save(token, by=ALICE, now=clock())
    assert not outcome.repeat
    written = {s.id: s for s in outcome.entries}
    wiki_plan = next(e for e in plan.entries if e.source_id == "wiki-pay")
    assert written["wiki-pay"].current_version == wiki_plan.version
    new_text = await repo.source_excerpt(scope, "wiki-pay", wiki_plan.version or "", "lines:1-3")
    assert new_text.text == "# 支付模块\n\n已有的说明。"
    old = await repo.source_excerpt(scope, "wiki-pay", "v1", "chars:0-100")
    assert old.text == "# 支付模块\n\n已有的说明。"
    _, entry_version = await kn.entry(scope, "wiki-pay")
    assert entry_version is not None and entry_version.text == wiki_plan.text
    assert {s.kind.value for s in outcome.entries} == {"knowledge"}
    assert "web-1" not in written  # the external source is never written
    # A retried confirm is a repeat; saving again supplements nothing.
    assert (await kn.confirm_save(token, by=ALICE, now=clock())).repeat
    _, again = await kn.preview_save(ask(scope, result_id=ids["result"]), now=clock())
    assert {e.action for e in again.entries} == {EntryAction.UNCHANGED}


async def test_naming_an_external_source_as_entry_is_forbidden(
    clock: StepClock, repo: StoryRepository, kn: KnowledgeRepository, scope: str
) -> None:
    ids = await _world(clock, repo, scope)
    for entry in ("web-1", "conv-1"):
        with pytest.raises(Forbidden):
            await kn.preview_save(
                ask(scope, ObjectRef(kind=ObjectKind.ENTITY, id=ids["张三"], entry=entry)),
                now=clock(),
            )
    with pytest.raises(NotFound):
        await kn.preview_save(
            ask(scope, ObjectRef(kind=ObjectKind.ENTITY, id=ids["张三"], entry="nope")), now=clock()
        )


async def test_a_preview_whose_graph_changed_is_conflict_and_writes_nothing(
    clock: StepClock,
    repo: StoryRepository,
    kn: KnowledgeRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    ids = await _world(clock, repo, scope)
    preview_id, _ = await kn.preview_save(
        ask(scope, ObjectRef(kind=ObjectKind.ENTITY, id=ids["支付模块"])), now=clock()
    )
    await repo.upsert_source(
        source(scope, "wiki-pay", kind="knowledge", version="v2", text="# 支付模块\n\n改过了。"),
        now=clock(),
    )
    before = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    with pytest.raises(Conflict):
        await kn.confirm_save(decode(preview_id, clock()), by=ALICE, now=clock())
    assert await scope_counts(neo4j_driver, settings.neo4j_database, scope) == before


async def test_an_object_of_another_scope_is_not_found(
    clock: StepClock, repo: StoryRepository, kn: KnowledgeRepository, scope: str
) -> None:
    ids = await _world(clock, repo, scope)
    with pytest.raises(NotFound):
        await kn.preview_save(
            ask(f"{scope}-other", ObjectRef(kind=ObjectKind.ENTITY, id=ids["张三"])), now=clock()
        )
    other = await repo.publish_result(two_people(scope, "k2"), by=RUN, now=clock())
    assert other.plan.entities  # the same scope still resolves
