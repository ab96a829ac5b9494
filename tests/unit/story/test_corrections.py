"""docs/rules/story-graph.md and 规则冲突时…: people win, automation proposes, differences stay pending."""

from __future__ import annotations

import pytest

from engine.errors import Conflict, InvalidInput
from engine.story.corrections import TICK, RelationAction, act_time
from engine.story.inputs import EntityEdit
from engine.story.models import Confirmation, SuggestionKind, SuggestionStatus
from tests.support.story import (
    ALICE,
    RUN,
    at,
    cite,
    entity,
    publish,
    relation,
    source,
    two_people,
)
from tests.support.story_replay import StoryReplay


@pytest.fixture
def world() -> StoryReplay:
    w = StoryReplay()
    w.upsert_source(source("p1"), at(0))
    w.publish(two_people("p1", "k1"), RUN, at(1))
    return w


def _ids(world: StoryReplay) -> tuple[str, str, str]:
    g = world.graph("p1", at(100))
    zs = next(e.id for e in g.entities if e.name == "张三")
    ls = next(e.id for e in g.entities if e.name == "李四")
    return zs, ls, g.relations[0].id


def test_automatic_change_to_a_user_edited_field_becomes_a_suggestion(world: StoryReplay) -> None:
    zs, _, _ = _ids(world)
    world.update_entity("p1", zs, EntityEdit(description="测试与验收负责人"), 1, ALICE, at(2))
    plan = world.publish(
        publish("p1", "k2", entities=[entity("z", "张三", id=zs, description="开发")]), RUN, at(3)
    )
    assert world.entities[zs].description == "测试与验收负责人"
    assert plan.entities == []
    (sugg,) = plan.suggestions
    assert (sugg.field, sugg.current_value, sugg.proposed_value) == (
        "description",
        "测试与验收负责人",
        "开发",
    )


def test_automatic_change_to_a_free_field_records_a_new_version(world: StoryReplay) -> None:
    zs, _, _ = _ids(world)
    plan = world.publish(
        publish("p1", "k2", entities=[entity("z", "张三", id=zs, description="开发")]), RUN, at(3)
    )
    assert plan.suggestions == []
    assert world.entities[zs].description == "开发" and world.entities[zs].seq == 2
    assert world.entities[zs].by == RUN


def test_confirmed_field_is_locked_even_without_an_edit(world: StoryReplay) -> None:
    zs, _, _ = _ids(world)
    world.update_entity("p1", zs, EntityEdit(confirm=["kind"]), 1, ALICE, at(2))
    plan = world.publish(
        publish("p1", "k2", entities=[entity("z", "张三", id=zs, kind="team")]), RUN, at(3)
    )
    assert world.entities[zs].kind == "person"
    assert [s.field for s in plan.suggestions] == ["kind"]


def test_stale_edit_is_conflict(world: StoryReplay) -> None:
    zs, _, _ = _ids(world)
    world.update_entity("p1", zs, EntityEdit(name="张三丰"), 1, ALICE, at(2))
    with pytest.raises(Conflict):
        world.update_entity("p1", zs, EntityEdit(name="张3"), 1, ALICE, at(3))
    assert world.entities[zs].name == "张三丰"


def test_empty_edit_is_invalid(world: StoryReplay) -> None:
    zs, _, _ = _ids(world)
    with pytest.raises(InvalidInput):
        world.update_entity("p1", zs, EntityEdit(), 1, ALICE, at(2))


def test_contradicting_evidence_leaves_a_confirmed_relation_valid(world: StoryReplay) -> None:
    zs, ls, rel = _ids(world)
    world.act_on_relation("p1", rel, RelationAction.CONFIRM, ALICE, at(2))
    plan = world.publish(
        publish(
            "p1",
            "k2",
            entities=[entity("z", "张三", id=zs), entity("l", "李四", id=ls)],
            relations=[
                relation(
                    "r",
                    "z",
                    "l",
                    "works_with",
                    stance="contradicts",
                    reason="李四已转岗",
                    references=[cite()],
                )
            ],
        ),
        RUN,
        at(3),
    )
    assert world.relations[rel].confirmation is Confirmation.CONFIRMED
    (diff,) = plan.suggestions
    assert diff.kind is SuggestionKind.DIFFERENCE and diff.status is SuggestionStatus.PENDING
    assert plan.references[0].owner_id == diff.id


def test_supporting_evidence_for_a_removed_relation_does_not_restore_it(world: StoryReplay) -> None:
    zs, ls, rel = _ids(world)
    world.act_on_relation("p1", rel, RelationAction.REMOVE, ALICE, at(2))
    plan = world.publish(
        publish(
            "p1",
            "k2",
            entities=[entity("z", "张三", id=zs), entity("l", "李四", id=ls)],
            relations=[relation("r", "z", "l", "works_with", reason="again")],
        ),
        RUN,
        at(3),
    )
    assert world.relations[rel].removed is True
    assert [s.field for s in plan.suggestions] == ["removed"]


def test_remove_then_restore_is_an_undo(world: StoryReplay) -> None:
    _, _, rel = _ids(world)
    world.act_on_relation("p1", rel, RelationAction.REMOVE, ALICE, at(2))
    assert world.graph("p1", at(2)).relations == []
    world.act_on_relation("p1", rel, RelationAction.RESTORE, ALICE, at(3))
    g = world.graph("p1", at(3))
    assert [r.id for r in g.relations] == [rel]
    assert any(r.owner_id == rel for r in g.references)


def test_accepting_a_suggestion_makes_the_value_a_persons(world: StoryReplay) -> None:
    zs, _, _ = _ids(world)
    world.update_entity("p1", zs, EntityEdit(description="mine"), 1, ALICE, at(2))
    plan = world.publish(
        publish("p1", "k2", entities=[entity("z", "张三", id=zs, description="theirs")]), RUN, at(3)
    )
    sugg = plan.suggestions[0]
    world.resolve_suggestion("p1", sugg.id, True, ALICE, at(4))
    assert world.entities[zs].description == "theirs"
    assert world.entities[zs].by == ALICE
    with pytest.raises(Conflict):
        world.resolve_suggestion("p1", sugg.id, False, ALICE, at(5))


def test_dismissing_a_suggestion_changes_nothing_else(world: StoryReplay) -> None:
    zs, _, _ = _ids(world)
    world.update_entity("p1", zs, EntityEdit(description="mine"), 1, ALICE, at(2))
    plan = world.publish(
        publish("p1", "k2", entities=[entity("z", "张三", id=zs, description="theirs")]), RUN, at(3)
    )
    resolved = world.resolve_suggestion("p1", plan.suggestions[0].id, False, ALICE, at(4))
    assert resolved.status is SuggestionStatus.DISMISSED
    assert world.entities[zs].description == "mine"


def test_record_time_before_the_current_version_is_refused(world: StoryReplay) -> None:
    zs, _, _ = _ids(world)
    with pytest.raises(InvalidInput):
        world.update_entity("p1", zs, EntityEdit(name="x"), 1, ALICE, at(0))


def test_a_person_resolves_after_a_suggestion_automation_recorded_ahead_of_now(
    world: StoryReplay,
) -> None:
    """A suggestion automation recorded at a moment ahead (a clock moved on) does not refuse a
    person's accept: the act is recorded just after it, the suggestion and its target at the
    same moment; a person's own later version still refuses an earlier record time."""
    zs, _, _ = _ids(world)
    world.update_entity("p1", zs, EntityEdit(description="mine"), 1, ALICE, at(2))
    plan = world.publish(
        publish("p1", "k2", entities=[entity("z", "张三", id=zs, description="theirs")]),
        RUN,
        at(50),  # automation's clock, ahead of the person's
    )
    accepted = world.resolve_suggestion("p1", plan.suggestions[0].id, True, ALICE, at(4))
    assert accepted.recorded_at == at(50) + TICK and accepted.by == ALICE
    assert world.entities[zs].recorded_at == accepted.recorded_at
    assert world.entities[zs].description == "theirs"
    assert act_time(at(4), ALICE, world.entities[zs]) == at(4)  # a person's version: no move
    with pytest.raises(InvalidInput):
        world.update_entity("p1", zs, EntityEdit(description="again"), 3, ALICE, at(4))
