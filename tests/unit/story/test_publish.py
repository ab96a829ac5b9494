"""publishResult decisions: whole or nothing, idempotent under the key, per-result descriptions."""

from __future__ import annotations

from datetime import datetime

import pytest

from engine.errors import Conflict, InvalidInput
from engine.story.inputs import PublishResultInput, parse_input
from engine.story.models import ObjectKind
from engine.story.publish import PublishContext, decide_publish
from tests.support.story import RUN, T0, at, cite, entity, publish, source, two_people
from tests.support.story_replay import StoryReplay


def test_reference_to_a_missing_source_version_rejects_the_whole_result() -> None:
    inp = two_people("p1", "k1")
    with pytest.raises(InvalidInput) as err:
        decide_publish(
            inp, PublishContext(source_versions={"conv-1": frozenset({"v2"})}), at(1), RUN
        )
    assert err.value.details["missing"] == ["conv-1@v1"]


def test_reference_to_another_scopes_source_rejects_the_result() -> None:
    world = StoryReplay()
    world.upsert_source(source("p2"), at(0))
    with pytest.raises(InvalidInput):
        world.publish(two_people("p1", "k1"), RUN, at(1))
    assert world.graph("p1", at(2)).entities == [] and world.results == {}


def test_same_key_same_payload_is_a_repeat_and_other_payload_a_conflict() -> None:
    world = StoryReplay()
    world.upsert_source(source("p1"), at(0))
    first = world.publish(two_people("p1", "k1"), RUN, at(1))
    again = world.publish(two_people("p1", "k1"), RUN, at(2))
    assert again.repeat and again.result.id == first.result.id
    assert again.result.recorded_at == at(1)
    with pytest.raises(Conflict):
        world.publish(two_people("p1", "k1", feedback="different"), RUN, at(3))


def test_every_piece_cites_the_same_result_id() -> None:
    world = StoryReplay()
    world.upsert_source(source("p1"), at(0))
    plan = world.publish(two_people("p1", "k1", decisions=["本周提测"]), RUN, at(1))
    rid = plan.result.id
    assert {e.via_result for e in plan.entities} == {rid}
    assert {c.result_id for c in plan.changes} == {rid}
    assert {r.result_id for r in plan.references} == {rid}
    assert {m.result_id for m in plan.mentions} == {rid}
    assert {r.owner_kind for r in plan.references} == {
        ObjectKind.EVENT,
        ObjectKind.CHANGE,
        ObjectKind.RELATION,
    }


def test_each_result_keeps_its_own_description() -> None:
    world = StoryReplay()
    world.upsert_source(source("p1"), at(0))
    first = world.publish(
        publish("p1", "k1", entities=[entity("a", "张三", description="测试", status="main")]),
        RUN,
        at(1),
    )
    zs = first.entities[0].id
    second = world.publish(
        publish("p1", "k2", entities=[entity("a", "张三", id=zs, description="开发")]), RUN, at(2)
    )
    assert first.mentions[0].description == "测试"
    assert second.mentions[0].description == "开发"


def test_story_id_of_another_scope_is_invalid_not_a_fallback() -> None:
    world = StoryReplay()
    world.upsert_source(source("p1"), at(0))
    world.upsert_source(source("p2"), at(0))
    plan = world.publish(
        publish("p1", "k", stories=[{"ref": "s", "name": "v2.0 提测"}]), RUN, at(1)
    )
    with pytest.raises(InvalidInput):
        world.publish(
            publish("p2", "k", stories=[{"ref": "s", "id": plan.stories[0].id, "name": "x"}]),
            RUN,
            at(2),
        )


@pytest.mark.parametrize(
    "bad",
    [
        {"events": [{"ref": "e", "title": "t", "at": datetime(2026, 1, 1)}]},  # naive time
        {"changes": [{"event": "nope", "entity": "nope", "kind": "proposed"}]},
        {"entities": [{"ref": "a", "name": "x"}, {"ref": "a", "name": "y"}]},
        {"entities": [{"ref": "a", "name": "x", "references": [cite(locator="bad locator")]}]},
        {
            "relations": [{"ref": "r", "from": "a", "to": "a", "type": "t"}],
            "entities": [{"ref": "a", "name": "x"}],
        },
        {"summaries": [{"ref": "s", "text": "t", "interval_start": at(2), "interval_end": at(1)}]},
        {
            "changes": [{"event": "e", "entity": "a", "kind": "merged"}],
            "events": [{"ref": "e", "title": "t", "at": T0}],
            "entities": [{"ref": "a", "name": "x"}],
        },
    ],
)
def test_malformed_input_is_invalid_at_the_edge(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        parse_input(PublishResultInput, {"scope": "p1", "key": "k", **bad})


def test_scope_must_be_a_project_id_or_global() -> None:
    with pytest.raises(InvalidInput):
        parse_input(PublishResultInput, {"scope": "../other", "key": "k"})
    assert parse_input(PublishResultInput, {"scope": "global", "key": "k"}).scope == "global"
