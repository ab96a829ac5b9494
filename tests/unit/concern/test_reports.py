"""docs/rules/concerns.md: templates zh/en, when not to report, and the rate limits."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest

from engine.concern.context import LoopContext
from engine.concern.effects import Recipient, ReportKind, ReportToOwner
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import Priority, RaiseConcernInput
from engine.concern.policy import ConcernPolicy
from engine.concern.reports import (
    contacted_text,
    created_text,
    next_working_time,
    partial_text,
    schedule_report,
    timeout_retry_text,
)
from engine.concern.scheduler import Trigger, TriggerKind, due_trigger
from tests.support.concern import POLICY, TZ, at, out, person, raised

R = [ReportKind.TIMEOUT_RETRY]
UPDATE = [ReportKind.OWNER_UPDATE]


def test_zh_templates() -> None:
    assert created_text(["张三"]) == "好的，我来联系张三，有进展及时同步给你。"
    assert contacted_text(["张三"]) == "已经联系张三了，等他回复。"
    assert contacted_text(["张三", "李四", "王五"]) == "已经联系张三、李四和王五了，等他们回复。"
    assert timeout_retry_text(["张三"]) == "张三还没回复，我再跟一下。"
    assert partial_text([("李四", "")], ["张三", "王五"]) == "李四确认了，张三和王五还没回。"


def test_en_templates() -> None:
    assert created_text(["Zhang"], "en") == "OK, I'll contact Zhang and keep you posted."
    assert (
        contacted_text(["A", "B"], "en") == "I've contacted A and B and am waiting for their reply."
    )
    assert timeout_retry_text(["Zhang"], "en") == "Zhang hasn't replied yet; I'll follow up again."
    assert partial_text([("Li", "")], ["Zhang"], "en") == "Li confirmed; Zhang hasn't replied yet."
    assert partial_text([("Li", "Thursday")], ["Zhang"], "en") == (
        "Li says Thursday. Zhang hasn't replied yet."
    )


def test_raise_and_contact_in_english_when_configured() -> None:
    en = ConcernPolicy(locale="en")
    c = raised(policy=en, people=[person("p_zs", "Zhang")])
    d = decide(c, due_trigger(c, at(0)), out(LoopStep.FOLLOW_UP), at(30), en)  # type: ignore[arg-type]
    (r,) = [e for e in d.effects if isinstance(e, ReportToOwner)]
    assert r.text == "I've contacted Zhang and am waiting for their reply."


def test_silent_low_priority_without_initiator_never_reports() -> None:
    owner = Recipient(name="老板", channel="wechat", person_id="p_boss")
    ctx = LoopContext(owner=owner)
    for priority, reported in [(Priority.LOW, False), (Priority.MEDIUM, True)]:
        c = raised(priority=priority, initiator=None, type_="followup")  # type: ignore[arg-type]
        d = decide(c, due_trigger(c, at(0)), out(LoopStep.FOLLOW_UP), at(0), POLICY, ctx)  # type: ignore[arg-type]
        reports = [e for e in d.effects if isinstance(e, ReportToOwner)]
        assert bool(reports) == reported
        if reports:
            assert reports[0].recipient == owner


def test_internal_steps_and_tool_retries_are_not_reported() -> None:
    c = raised()
    c = decide(c, due_trigger(c, at(0)), out(LoopStep.FOLLOW_UP), at(0), POLICY).new_concern  # type: ignore[arg-type]
    fact = Trigger(kind=TriggerKind.RELATED_FACT, event_key="f1", detail="查到周会纪要")
    investigate = decide(
        c, fact, out(LoopStep.INVESTIGATE, summary="查一下 GitLab"), at(60), POLICY
    )
    assert not [e for e in investigate.effects if isinstance(e, ReportToOwner)]
    rerun = decide(investigate.new_concern, fact, out(LoopStep.INVESTIGATE), at(61), POLICY)
    assert rerun.noop and rerun.effects == ()


def test_owner_update_passes_through_verbatim_and_replaces_templates() -> None:
    c = raised(people=[person("p_zhangsan", "张三"), person("p_lisi", "李四")])
    c = decide(c, due_trigger(c, at(0)), out(LoopStep.FOLLOW_UP), at(0), POLICY).new_concern  # type: ignore[arg-type]
    fact = Trigger(kind=TriggerKind.RELATED_FACT, event_key="f2")
    d = decide(
        c,
        fact,
        out(done_person_ids=["p_lisi"], owner_update="  需要你决定：A 还是 B？ "),
        at(60),
        POLICY,
    )
    (r,) = [e for e in d.effects if isinstance(e, ReportToOwner)]
    assert (r.text, r.report_kinds) == ("需要你决定：A 还是 B？", (ReportKind.OWNER_UPDATE,))
    empty = decide(c, Trigger(kind=TriggerKind.RELATED_FACT, event_key="f3"), out(), at(60), POLICY)
    assert not [e for e in empty.effects if isinstance(e, ReportToOwner)]


def slot(
    kinds: list[ReportKind],
    now: datetime,
    last: datetime | None = None,
    today: int = 0,
    priority: Priority = Priority.MEDIUM,
    policy: ConcernPolicy = POLICY,
) -> datetime | None:
    return schedule_report(
        kinds, now=now, last_report_at=last, reports_today=today, priority=priority, policy=policy
    ).deliver_at


def test_at_least_30_minutes_between_reports_of_one_concern() -> None:
    assert slot(R, at(60), last=at(30)) == at(60)
    assert slot(R, at(40), last=at(30)) == at(60)
    assert slot(
        R, at(40), last=at(30), policy=ConcernPolicy(report_min_gap=timedelta(hours=1))
    ) == at(90)


def test_daily_cap_skips_templates_and_defers_owner_update() -> None:
    assert slot(R, at(0), today=19) == at(0)
    assert slot(R, at(0), today=20) is None
    # T0 is Monday 10:00; the owner_update waits for Tuesday 09:00
    assert slot(UPDATE, at(0), today=20) == datetime(2026, 3, 17, 9, 0, tzinfo=TZ)
    assert slot(R, at(0), today=3, policy=ConcernPolicy(daily_report_cap=3)) is None


def test_a_report_the_daily_cap_skips_is_named_on_the_timeline() -> None:
    from engine.concern.admission import raise_concern as decide_raise
    from tests.support.concern import BOSS

    c = raised()
    data = RaiseConcernInput(
        type=c.type,
        priority=c.priority,
        title=c.title,
        goal=c.goal,
        source_detail="帮我问问张三提测什么时候能给",
        initiator=BOSS,
        people=[person("p_zhangsan", "张三")],
    )
    full = LoopContext(reports_today=POLICY.daily_report_cap)
    capped = decide_raise(data, concern_id="con_2", now=at(0), policy=POLICY, context=full)
    assert not [e for e in capped.effects if isinstance(e, ReportToOwner)]
    assert [t.detail for t in capped.new_concern.timeline if t.type == "report"] == [
        "汇报（created）：daily cap reached，未发送"
    ]


@pytest.mark.parametrize(
    ("local", "expected"),
    [
        (datetime(2026, 3, 16, 8, 30), datetime(2026, 3, 16, 9, 0)),  # Monday before work
        (datetime(2026, 3, 16, 12, 0), datetime(2026, 3, 16, 12, 0)),  # inside
        (datetime(2026, 3, 16, 18, 0), datetime(2026, 3, 17, 9, 0)),  # end is exclusive
        (datetime(2026, 3, 20, 22, 0), datetime(2026, 3, 23, 9, 0)),  # Friday night → Monday
        (datetime(2026, 3, 21, 11, 0), datetime(2026, 3, 23, 9, 0)),  # Saturday
    ],
)
def test_outside_working_hours_deferred_to_next_working_time(
    local: datetime, expected: datetime
) -> None:
    assert slot(R, local.replace(tzinfo=TZ)) == expected.replace(tzinfo=TZ)


def test_working_hours_use_the_configured_timezone() -> None:
    utc_policy = ConcernPolicy(timezone="UTC", work_start=time(9), work_end=time(17))
    # 10:00 in Shanghai is 02:00 UTC: outside UTC working hours → 09:00 UTC
    assert slot(R, at(0), policy=utc_policy) == at(7 * 60)
    assert next_working_time(at(0), POLICY) == at(0)


def test_critical_reports_are_held_for_working_hours_too() -> None:
    night = datetime(2026, 3, 16, 23, 0, tzinfo=TZ)
    morning = datetime(2026, 3, 17, 9, 0, tzinfo=TZ)
    assert slot(R, night, priority=Priority.CRITICAL) == morning
    assert slot(R, night, last=night, priority=Priority.CRITICAL) == morning


def test_a_deferred_report_moves_the_gap_for_the_next_one() -> None:
    c = raised()  # created report at T0
    assert c.last_report_at == at(0)
    d = decide(c, due_trigger(c, at(0)), out(LoopStep.FOLLOW_UP), at(5), POLICY)  # type: ignore[arg-type]
    (r,) = [e for e in d.effects if isinstance(e, ReportToOwner)]
    assert r.deliver_at == at(30) and d.new_concern.last_report_at == at(30)
