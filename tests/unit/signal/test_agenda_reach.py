"""The agenda's pure rules: when a promise's follow-up first writes (the promised
time moved into the sending window, kept on the promised day), how a binding is versioned
(same: nothing; changed: a new version), and whom a signal reaches (an explicit binding with
a channel, never an equal name)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from engine.concern.model import Priority
from engine.concern.policy import ConcernPolicy
from engine.concern.window import first_contact_time
from engine.signal.binding import (
    BindingKind,
    PersonBinding,
    SpeakerIn,
    SpeakersIn,
    next_version,
    speaker_binding_id,
    speaker_versions,
)
from engine.signal.derive import from_fact
from engine.signal.model import Passage
from engine.signal.reach import candidate_bindings, reachable_person
from engine.story.models import Actor

SH = ZoneInfo("Asia/Shanghai")
MONDAY = datetime(2035, 3, 19, 10, 0, tzinfo=SH)
POLICY = ConcernPolicy()


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2035, 3, day, hour, minute, tzinfo=SH)


@pytest.mark.parametrize(
    ("due", "first"),
    [
        (at(22, 18), at(23, 9)),  # 周四 = Thursday 18:00 -> never earlier: Friday's opening
        (at(22, 20), at(23, 9)),  # after hours on a working day: the next opening
        (at(22, 11), at(22, 11)),  # inside working hours: the promised time
        (at(22, 7), at(22, 9)),  # before the window: its opening that day
        (at(24, 12), at(26, 9)),  # Saturday: Monday morning
        (at(19, 9), at(19, 10)),  # already past: now
    ],
)
def test_a_promise_is_first_followed_up_at_or_after_its_time_inside_working_hours(
    due: datetime, first: datetime
) -> None:
    assert first_contact_time(due, MONDAY, Priority.MEDIUM, POLICY) == first


def test_no_due_time_is_now_in_the_window_and_critical_is_any_time() -> None:
    assert first_contact_time(None, at(19, 20), Priority.MEDIUM, POLICY) == at(20, 9)
    assert first_contact_time(at(24, 23), MONDAY, Priority.CRITICAL, POLICY) == at(24, 23)


def _speaker(person: str = "p_lisi", channel: str = "feishu") -> PersonBinding | None:
    return speaker_versions(
        {},
        [SpeakerIn(name="李四", person_id=person, channel=channel)],
        scope="p1",
        source_id="chat",
        by=Actor.user("app"),
        now=MONDAY,
    )[0]


def test_binding_again_the_same_writes_nothing_and_a_change_is_a_new_version() -> None:
    first = _speaker()
    assert first is not None and first.seq == 1
    assert first.id == speaker_binding_id("p1", "chat", "李四")
    same = speaker_versions(
        {first.id: first},
        [SpeakerIn(name="李四", person_id="p_lisi", channel="feishu")],
        scope="p1",
        source_id="chat",
        by=Actor.user("app"),
        now=at(20, 9),
    )
    assert same == []
    moved = next_version(
        first,
        scope="p1",
        kind=BindingKind.SPEAKER,
        person_id="p_lisi",
        display_name="李四",
        channel="wecom",
        by=Actor.user("app"),
        now=at(20, 9),
        why="x",
        source_id="chat",
        speaker="李四",
    )
    assert moved is not None and (moved.id, moved.seq, moved.channel) == (first.id, 2, "wecom")


def test_speakers_name_each_person_once_and_never_an_empty_person_id() -> None:
    with pytest.raises(ValueError):
        SpeakersIn.model_validate(
            {"speakers": [{"name": "李四", "person_id": "a"}, {"name": "李四", "person_id": "b"}]}
        )
    with pytest.raises(ValueError):
        SpeakerIn(name="李四", person_id="  ")


def test_a_signal_reaches_its_speaker_only_through_a_binding_of_its_own_source() -> None:
    draft = from_fact(
        "commitment",
        "李四：前端部分周四能提测",
        Passage(source_id="chat", source_version="v1", locator="chars:0-9"),
        MONDAY,
        "Asia/Shanghai",
    )
    assert draft is not None
    assert candidate_bindings("p1", draft) == [speaker_binding_id("p1", "chat", "李四")]
    assert candidate_bindings("p1", draft) != [speaker_binding_id("p1", "other", "李四")]
    bound = _speaker()
    assert bound is not None
    person = reachable_person(draft, [bound], [])
    assert person is not None and (person.person_id, person.channel) == ("p_lisi", "feishu")
    no_channel = _speaker(channel="")
    assert no_channel is not None
    assert reachable_person(draft, [no_channel], []) is None  # no channel: nobody reachable
    assert reachable_person(draft, [], []) is None
