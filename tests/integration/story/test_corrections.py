"""Corrections in Neo4j (…; docs/rules/story-graph.md): people win, automation proposes."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from engine.errors import Conflict, InvalidInput
from engine.settings import Settings
from engine.story.corrections import RelationAction
from engine.story.inputs import EntityEdit
from engine.story.models import Confirmation, SuggestionKind, SuggestionStatus
from graph.story import StoryRepository
from tests.support.story import (
    ALICE,
    RUN,
    StepClock,
    cite,
    entity,
    publish,
    relation,
    scope_counts,
    source,
    two_people,
)


async def _seeded(clock: StepClock, repo: StoryRepository, scope: str) -> tuple[str, str, str, str]:
    await repo.upsert_source(source(scope), now=clock())
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    zs = next(e.id for e in out.plan.entities if e.name == "张三")
    ls = next(e.id for e in out.plan.entities if e.name == "李四")
    return zs, ls, out.plan.relations[0].id, out.result.id


async def test_automation_never_overwrites_a_persons_edit(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    zs, _, _, _ = await _seeded(clock, repo, scope)
    await repo.update_entity(
        scope, zs, EntityEdit(description="验收负责人"), seen_version=1, by=ALICE, now=clock()
    )
    out = await repo.publish_result(
        publish(scope, "k2", entities=[entity("z", "张三", id=zs, description="开发")]),
        by=RUN,
        now=clock(),
    )
    view = await repo.entity(scope, zs, as_of=clock())
    assert view.entity.description == "验收负责人" and view.entity.seq == 2
    (sugg,) = view.pending_suggestions
    assert sugg.id == out.plan.suggestions[0].id and sugg.proposed_value == "开发"
    accepted = await repo.resolve_suggestion(scope, sugg.id, accept=True, by=ALICE, now=clock())
    assert accepted.status is SuggestionStatus.ACCEPTED
    view = await repo.entity(scope, zs, as_of=clock())
    assert view.entity.description == "开发" and view.entity.by == ALICE
    assert view.pending_suggestions == []
    with pytest.raises(Conflict):
        await repo.resolve_suggestion(scope, sugg.id, accept=False, by=ALICE, now=clock())


async def test_dismissed_suggestion_leaves_the_entity(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    zs, _, _, _ = await _seeded(clock, repo, scope)
    await repo.update_entity(
        scope, zs, EntityEdit(confirm=["name"]), seen_version=1, by=ALICE, now=clock()
    )
    out = await repo.publish_result(
        publish(scope, "k2", entities=[entity("z", "张三丰", id=zs)]), by=RUN, now=clock()
    )
    await repo.resolve_suggestion(
        scope, out.plan.suggestions[0].id, accept=False, by=ALICE, now=clock()
    )
    assert (await repo.entity(scope, zs, as_of=clock())).entity.name == "张三"


async def test_stale_edit_is_conflict_and_writes_nothing(
    clock: StepClock,
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    zs, _, _, _ = await _seeded(clock, repo, scope)
    await repo.update_entity(
        scope, zs, EntityEdit(name="张三丰"), seen_version=1, by=ALICE, now=clock()
    )
    before = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    with pytest.raises(Conflict) as err:
        await repo.update_entity(
            scope, zs, EntityEdit(name="张3"), seen_version=1, by=ALICE, now=clock()
        )
    assert err.value.details["current"] == 2
    assert await scope_counts(neo4j_driver, settings.neo4j_database, scope) == before
    view = await repo.entity(scope, zs, as_of=clock())
    assert view.entity.name == "张三丰" and [v.seq for v in view.history] == [1, 2]


async def test_each_version_records_who_and_why(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    zs, _, _, rid = await _seeded(clock, repo, scope)
    await repo.update_entity(
        scope,
        zs,
        EntityEdit(kind="tester"),
        seen_version=1,
        by=ALICE,
        why="角色更准确",
        now=clock(),
    )
    history = (await repo.entity(scope, zs, as_of=clock())).history
    assert [(v.by, v.why) for v in history] == [(RUN, f"result {rid}"), (ALICE, "角色更准确")]
    assert history[0].retracted_at == history[1].recorded_at
    assert history[1].retracted_at is None and history[1].user_fields == ["kind"]


async def test_a_persons_edit_changes_only_the_results_they_chose(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    zs, _, _, r1 = await _seeded(clock, repo, scope)
    r2 = (
        await repo.publish_result(
            publish(scope, "k2", entities=[entity("z", "张三", id=zs, description="第二次描述")]),
            by=RUN,
            now=clock(),
        )
    ).result.id
    await repo.update_entity(
        scope,
        zs,
        EntityEdit(description="人工描述", results=[r1]),
        seen_version=2,
        by=ALICE,
        now=clock(),
    )
    first, second = await repo.result(scope, r1), await repo.result(scope, r2)
    m1 = next(m for m in first.mentions if m.mention.entity_id == zs)
    m2 = next(m for m in second.mentions if m.mention.entity_id == zs)
    assert m1.mention.description == "测试负责人" and m1.amended == {"description": "人工描述"}
    assert m2.mention.description == "第二次描述" and m2.amended == {}
    with pytest.raises(InvalidInput):
        await repo.update_entity(
            scope,
            zs,
            EntityEdit(description="x", results=["res_000000000000000000000000"]),
            seen_version=3,
            by=ALICE,
            now=clock(),
        )


async def test_contradicting_evidence_is_a_pending_difference(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    zs, ls, rel, _ = await _seeded(clock, repo, scope)
    confirmed = await repo.correct_relation(
        scope, rel, RelationAction.CONFIRM, by=ALICE, now=clock()
    )
    assert confirmed.confirmation is Confirmation.CONFIRMED
    out = await repo.publish_result(
        publish(
            scope,
            "k2",
            entities=[entity("z", "张三", id=zs), entity("l", "李四", id=ls)],
            relations=[
                relation(
                    "r",
                    "z",
                    "l",
                    "works_with",
                    stance="contradicts",
                    reason="李四已调走",
                    references=[cite()],
                )
            ],
        ),
        by=RUN,
        now=clock(),
    )
    graph = await repo.story_graph(scope, as_of=clock())
    (current,) = graph.relations
    assert current.id == rel and current.confirmation is Confirmation.CONFIRMED
    (diff,) = [s for s in graph.suggestions if s.target_id == rel]
    assert diff.kind is SuggestionKind.DIFFERENCE and diff.status is SuggestionStatus.PENDING
    assert diff.id == out.plan.suggestions[0].id
    assert any(r.owner_id == diff.id for r in graph.references)


async def test_remove_relation_is_undoable_and_keeps_references(
    clock: StepClock,
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    _, _, rel, _ = await _seeded(clock, repo, scope)
    counts = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    removed = await repo.correct_relation(
        scope, rel, RelationAction.REMOVE, by=ALICE, why="误判", now=clock()
    )
    assert removed.removed
    graph = await repo.story_graph(scope, as_of=clock())
    assert graph.relations == [] and all(r.owner_id != rel for r in graph.references)
    kept = await repo.story_graph(scope, include_removed=True, as_of=clock())
    assert [r.id for r in kept.relations] == [rel]
    assert any(r.owner_id == rel for r in kept.references)
    after = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    assert after["Reference"] == counts["Reference"] and after["SourceVersion"] == 1
    restored = await repo.correct_relation(
        scope, rel, RelationAction.RESTORE, by=ALICE, now=clock()
    )
    assert not restored.removed and restored.seq == 3
    assert [r.id for r in (await repo.story_graph(scope, as_of=clock())).relations] == [rel]


async def test_reject_relation_and_repeated_actions_are_no_ops(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    _, _, rel, _ = await _seeded(clock, repo, scope)
    rejected = await repo.correct_relation(scope, rel, RelationAction.REJECT, by=ALICE, now=clock())
    again = await repo.correct_relation(scope, rel, RelationAction.REJECT, by=ALICE, now=clock())
    assert rejected.confirmation is Confirmation.REJECTED and again.seq == rejected.seq == 2
    with pytest.raises(Conflict):
        await repo.correct_relation(
            scope, rel, RelationAction.CONFIRM, by=ALICE, seen_version=1, now=clock()
        )
