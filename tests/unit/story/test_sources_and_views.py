"""Sources (docs/rules/story-graph.md) and the read filters and graph view (docs/rules/story-graph.md#time, #views-knowledge-and-discussion)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from engine.clock import instant, utc
from engine.errors import Conflict, InvalidInput, NotFound
from engine.story.sources import cut, excerpt
from engine.story.views import build_graph_view
from tests.support.story import RUN, T0, at, entity, publish, source
from tests.support.story_replay import StoryReplay


def test_unrecoverable_old_version_warns_and_never_shows_current_text() -> None:
    world = StoryReplay()
    world.upsert_source(
        source("p1", version="v3", text="today", previous=[{"version": "v1"}]), at(0)
    )
    stored = world.versions[("p1", "conv-1")]
    old = excerpt("conv-1", "v1", "chars:0-5", stored["v1"])
    assert not old.available and old.text is None and "不可恢复" in (old.warning or "")
    english = excerpt("conv-1", "v1", "chars:0-5", stored["v1"], "en")
    assert "not recoverable" in (english.warning or "")
    assert excerpt("conv-1", "v3", "chars:0-5", stored["v3"]).text == "today"


def test_a_withdrawn_version_loses_its_text_and_warns_in_the_callers_language() -> None:
    world = StoryReplay()
    world.upsert_source(source("p1", version="v1", text="张三的原话"), at(0))
    gone = world.withdraw_source("p1", "conv-1", "v1", "用户删除", RUN, at(1))
    assert gone.text is None and gone.withdrawn_at == at(1) and gone.withdrawn_by == RUN.label()
    zh = excerpt("conv-1", "v1", "msg:1", gone)
    assert not zh.available and zh.text is None and zh.withdrawn_at == at(1)
    assert "撤回" in (zh.warning or "") and "不以其他版本的原文代替" in (zh.warning or "")
    assert "withdrawn" in (excerpt("conv-1", "v1", "msg:1", gone, "en").warning or "")
    again = world.withdraw_source("p1", "conv-1", "v1", "again", RUN, at(2))
    assert again.withdrawn_at == at(1) and again.withdrawal_reason == "用户删除"


def test_withdrawing_an_unknown_version_is_not_found_and_a_withdrawn_one_cannot_return() -> None:
    world = StoryReplay()
    world.upsert_source(source("p1", version="v1", text="原话"), at(0))
    with pytest.raises(NotFound):
        world.withdraw_source("p1", "conv-1", "v2", "", RUN, at(1))
    world.withdraw_source("p1", "conv-1", "v1", "", RUN, at(1))
    with pytest.raises(Conflict):
        world.upsert_source(source("p1", version="v1", text="原话"), at(2))
    with pytest.raises(InvalidInput):
        world.withdraw_source("p1", "conv-1", "v1", "x" * 501, RUN, at(3))


def test_times_with_any_offset_are_held_as_utc_and_a_time_without_a_zone_is_refused() -> None:
    beijing = datetime(2026, 9, 23, 10, 10, tzinfo=timezone(timedelta(hours=8)))
    assert utc(beijing) == beijing and utc(beijing).utcoffset() == timedelta(0)
    assert instant(beijing, "asOf") == datetime(2026, 9, 23, 2, 10, tzinfo=UTC)
    assert instant(None, "asOf") is None
    with pytest.raises(InvalidInput, match="asOf"):
        instant(datetime(2026, 9, 23, 10, 10), "asOf")
    inp = publish("p1", "k", events=[{"ref": "e", "title": "t", "at": beijing}])
    assert inp.events[0].at.tzinfo is UTC


def test_old_version_supplied_by_the_app_stays_readable() -> None:
    world = StoryReplay()
    world.upsert_source(source("p1", version="v1", text="old text"), at(0))
    world.upsert_source(source("p1", version="v2", text="new text"), at(1))
    stored = world.versions[("p1", "conv-1")]
    assert excerpt("conv-1", "v1", "chars:0-8", stored["v1"]).text == "old text"
    assert world.sources[("p1", "conv-1")].current_version == "v2"


def test_a_source_version_is_immutable() -> None:
    world = StoryReplay()
    world.upsert_source(source("p1", text="a"), at(0))
    world.upsert_source(source("p1", text="a"), at(1))  # a repeat is fine
    with pytest.raises(Conflict):
        world.upsert_source(source("p1", text="b"), at(2))


def test_locators_cut_characters_or_lines() -> None:
    assert cut("abcdef", "chars:1-3") == "bc"
    assert cut("l1\nl2\nl3", "lines:2-3") == "l2\nl3"
    assert cut("whole", "msg:17") == "whole"


def _timeline_world() -> StoryReplay:
    world = StoryReplay()
    world.upsert_source(source("p1"), at(0))
    world.publish(
        publish(
            "p1",
            "k1",
            stories=[{"ref": "s", "name": "v2.0 提测"}, {"ref": "t", "name": "其他"}],
            events=[
                {"ref": "e1", "story": "s", "title": "提测", "at": T0},
                {"ref": "e2", "story": "s", "title": "回调阻塞", "at": at(2)},
                {"ref": "e3", "story": "t", "title": "别的", "at": at(48)},
            ],
            entities=[entity("a", "张三", valid_from=at(-1), valid_to=at(24)), entity("b", "李四")],
            changes=[
                {"event": "e1", "entity": "a", "kind": "proposed"},
                {"event": "e3", "entity": "b", "kind": "verified"},
            ],
            relations=[{"ref": "r", "from": "a", "to": "b", "type": "works_with"}],
            summaries=[
                {
                    "ref": "m",
                    "story": "s",
                    "text": "第一阶段",
                    "interval_start": T0,
                    "interval_end": at(10),
                }
            ],
        ),
        RUN,
        at(100),
    )
    return world


def test_from_to_bounds_events_by_at_and_summaries_by_overlap() -> None:
    g = _timeline_world().graph("p1", at(100), from_=at(1), to=at(30))
    assert [e.title for e in g.events] == ["回调阻塞"]
    assert [s.text for s in g.summaries] == ["第一阶段"]
    assert g.changes == []


def test_valid_at_shows_what_held_in_the_world() -> None:
    world = _timeline_world()
    assert {e.name for e in world.graph("p1", at(100), valid_at=at(1)).entities} == {"张三", "李四"}
    late = world.graph("p1", at(100), valid_at=at(30))
    assert {e.name for e in late.entities} == {"李四"}
    assert late.relations == []


def test_story_filter_keeps_that_storys_events_and_their_entities() -> None:
    world = _timeline_world()
    sid = next(s.id for s in world.stories.values() if s.name == "v2.0 提测")
    g = world.graph("p1", at(100), story_id=sid)
    assert {e.title for e in g.events} == {"提测", "回调阻塞"}
    assert {e.name for e in g.entities} == {"张三"}


def test_graph_view_groups_same_day_events_without_new_entities() -> None:
    g = _timeline_world().graph("p1", at(100))
    view = build_graph_view(g)
    assert [len(d.event_ids) for d in view.days] == [2, 1]
    assert {n.label for n in view.nodes} == {"张三", "李四"}
    assert {e.kind for e in view.edges} == {"relation", "change"}
    assert [s.text for s in view.stages] == ["第一阶段"]


def test_a_from_to_window_holds_only_the_entities_its_events_touch() -> None:
    window = _timeline_world().graph("p1", at(100), from_=at(40), to=at(60))
    assert [e.title for e in window.events] == ["别的"]
    assert {e.name for e in window.entities} == {"李四"}
    assert window.relations == []  # 张三 is outside the window, so is the relation
