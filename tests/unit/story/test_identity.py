"""docs/rules/reviews.md identity: equal names never merge; reuse only by stored id, same scope, Main."""

from __future__ import annotations

from engine.story.models import EntityStatus
from tests.support.story import RUN, at, entity, publish, source
from tests.support.story_replay import StoryReplay


def _world(*scopes: str) -> StoryReplay:
    world = StoryReplay()
    for sc in scopes:
        world.upsert_source(source(sc), at(0))
    return world


def test_equal_names_never_merge() -> None:
    world = _world("p1")
    world.publish(publish("p1", "k1", entities=[entity("a", "张三", status="main")]), RUN, at(1))
    world.publish(publish("p1", "k2", entities=[entity("a", "张三", status="main")]), RUN, at(2))
    names = [e.name for e in world.graph("p1", at(3)).entities]
    assert names == ["张三", "张三"]


def test_reuse_by_stored_id_of_a_main_entity_in_the_same_scope() -> None:
    world = _world("p1")
    first = world.publish(
        publish("p1", "k1", entities=[entity("a", "张三", status="main")]), RUN, at(1)
    )
    stored = first.entities[0].id
    second = world.publish(
        publish("p1", "k2", entities=[entity("x", "张三", id=stored, description="负责提测")]),
        RUN,
        at(2),
    )
    assert [e.id for e in world.graph("p1", at(3)).entities] == [stored]
    assert second.entities[0].seq == 2 and second.entities[0].description == "负责提测"


def test_candidate_entity_is_not_reused() -> None:
    world = _world("p1")
    first = world.publish(publish("p1", "k1", entities=[entity("a", "王五")]), RUN, at(1))
    assert first.entities[0].status is EntityStatus.CANDIDATE
    second = world.publish(
        publish("p1", "k2", entities=[entity("a", "王五", id=first.entities[0].id)]), RUN, at(2)
    )
    assert second.entities[0].id != first.entities[0].id
    assert "candidate" in second.result.warnings[0]


def test_id_from_another_scope_creates_a_new_entity() -> None:
    world = _world("p1", "p2")
    first = world.publish(
        publish("p1", "k", entities=[entity("a", "张三", status="main")]), RUN, at(1)
    )
    other = world.publish(
        publish("p2", "k", entities=[entity("a", "张三", id=first.entities[0].id)]), RUN, at(2)
    )
    assert other.entities[0].id != first.entities[0].id
    assert other.entities[0].scope == "p2"
    assert world.entities[first.entities[0].id].seq == 1


def test_malformed_identity_field_creates_a_new_entity_without_guessing() -> None:
    world = _world("p1")
    first = world.publish(
        publish("p1", "k1", entities=[entity("a", "张三", status="main")]), RUN, at(1)
    )
    broken = first.entities[0].id.upper()
    second = world.publish(
        publish("p1", "k2", entities=[entity("a", "张三", id=broken)]), RUN, at(2)
    )
    assert second.entities[0].id not in {first.entities[0].id, broken}
    assert "malformed" in second.result.warnings[0]


def test_model_local_id_is_not_an_identity() -> None:
    world = _world("p1")
    a = world.publish(publish("p1", "k1", entities=[entity("e1", "支付模块")]), RUN, at(1))
    b = world.publish(publish("p1", "k2", entities=[entity("e1", "支付模块")]), RUN, at(2))
    assert a.entities[0].id != b.entities[0].id
