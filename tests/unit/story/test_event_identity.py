"""A result may name a stored event by id (docs/rules/reviews.md: a manual re-review
re-reads messages that already have an event). Reused only when it is a current event of
the same scope; a new version only if something changed; its references gain the new source
version; a change it already records is not recorded twice."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import InvalidInput
from engine.story.inputs import PublishResultInput, parse_input
from tests.support.story import RUN, T0, at, cite, entity, publish, source
from tests.support.story_replay import StoryReplay


def _world(*scopes: str) -> StoryReplay:
    world = StoryReplay()
    for sc in scopes:
        world.upsert_source(source(sc), at(0))
        world.upsert_source(
            source(sc, version="v2", text="conv-1 v2: 张三说支付回调明天联调；新"), at(0)
        )
    return world


def event(ref: str, title: str = "张三：支付回调明天联调", **kw: Any) -> dict[str, Any]:
    return {"ref": ref, "title": title, "at": T0, "references": [cite()], **kw}


def first_result(world: StoryReplay, scope: str = "p1") -> tuple[str, str]:
    plan = world.publish(
        publish(
            scope,
            "k1",
            events=[event("e1")],
            entities=[entity("zs", "张三", status="main")],
            changes=[{"event": "e1", "entity": "zs", "kind": "proposed"}],
        ),
        RUN,
        at(1),
    )
    return plan.events[0].id, plan.entities[0].id


def test_an_unchanged_stored_event_is_reused_without_a_new_version_and_gains_references() -> None:
    world = _world("p1")
    stored, zhang = first_result(world)
    plan = world.publish(
        publish(
            "p1",
            "k2",
            events=[event("x", id=stored, references=[cite(version="v2")])],
            entities=[entity("p", "张三", id=zhang)],
            changes=[{"event": "x", "entity": "p", "kind": "proposed"}],
        ),
        RUN,
        at(2),
    )
    assert plan.events == []  # nothing changed: no second version
    assert [e.id for e in world.graph("p1", at(3)).events] == [stored]
    [ref] = [r for r in plan.references if r.owner_id == stored]
    assert (ref.source_version, ref.result_id) == ("v2", plan.result.id)
    assert plan.changes == []  # the stored event already records 张三 proposed
    assert len(world.graph("p1", at(3)).changes) == 1
    assert plan.result.warnings == []


def test_a_stored_event_described_otherwise_gets_a_new_version() -> None:
    world = _world("p1")
    stored, _ = first_result(world)
    plan = world.publish(
        publish("p1", "k2", events=[event("x", title="张三：支付回调改到后天", id=stored)]),
        RUN,
        at(2),
    )
    [version] = plan.events
    assert (version.id, version.seq, version.title) == (stored, 2, "张三：支付回调改到后天")
    assert version.via_result == plan.result.id
    assert [e.title for e in world.graph("p1", at(3)).events] == ["张三：支付回调改到后天"]


def test_a_new_change_on_a_reused_event_is_recorded() -> None:
    world = _world("p1")
    stored, _ = first_result(world)
    plan = world.publish(
        publish(
            "p1",
            "k2",
            events=[event("x", id=stored)],
            entities=[entity("ls", "李四", status="main")],
            changes=[{"event": "x", "entity": "ls", "kind": "supplemented"}],
        ),
        RUN,
        at(2),
    )
    [change] = plan.changes
    assert change.event_id == stored
    assert len(world.graph("p1", at(3)).changes) == 2


@pytest.mark.parametrize("bad", ["evt_123", "ent_" + "0" * 24, "not-an-id"])
def test_a_malformed_event_id_records_a_new_event(bad: str) -> None:
    world = _world("p1")
    stored, _ = first_result(world)
    plan = world.publish(publish("p1", "k2", events=[event("x", id=bad)]), RUN, at(2))
    assert plan.events[0].id != stored and plan.events[0].seq == 1
    assert "malformed" in plan.result.warnings[0]


def test_an_event_of_another_scope_is_never_reused() -> None:
    world = _world("p1", "p2")
    stored, _ = first_result(world, "p1")
    plan = world.publish(publish("p2", "k2", events=[event("x", id=stored)]), RUN, at(2))
    assert plan.events[0].id != stored and plan.events[0].scope == "p2"
    assert "not an event of this scope" in plan.result.warnings[0]
    assert [e.title for e in world.graph("p1", at(3)).events] == ["张三：支付回调明天联调"]


def test_two_event_refs_naming_one_stored_event_are_invalid() -> None:
    stored = "evt_" + "a" * 24
    with pytest.raises(InvalidInput):
        parse_input(
            PublishResultInput,
            {"scope": "p1", "key": "k", "events": [event("a", id=stored), event("b", id=stored)]},
        )


def test_two_results_stating_one_passage_are_one_event_at_its_first_time() -> None:
    world = _world("p1")
    first = world.publish(publish("p1", "k1", events=[event("e1", passage="abc")]), RUN, at(1))
    [stored] = first.events
    later = event("e9", passage="abc", at=at(5), references=[cite(version="v2")])
    second = world.publish(publish("p1", "k2", events=[later]), RUN, at(2))
    assert second.events == []  # the same passage: no second event, no new version
    [only] = world.graph("p1", at(3)).events
    assert only.id == stored.id and only.at == stored.at  # said when first read
    other = world.publish(publish("p1", "k3", events=[event("e1", passage="xyz")]), RUN, at(3))
    assert [e.id for e in other.events] != [stored.id]  # another passage, another event


def test_one_result_stating_one_passage_twice_is_invalid() -> None:
    with pytest.raises((InvalidInput, ValueError), match="same passage"):
        data = publish("p1", "k1", events=[event("a", passage="p"), event("b", passage="p")])
        parse_input(PublishResultInput, data)
