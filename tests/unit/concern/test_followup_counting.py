"""docs/rules/concerns.md as the engine applies it, whatever the model says:
only scheduled follow-ups count toward the priority's maximum, a reply/last-message tie is
not "replied since", and silence runs the table to its per-priority end (critical/high
escalate, medium/low are dropped), with readable notices to the initiator."""

from __future__ import annotations

from engine.concern.effects import Escalate, ReportKind, ReportToOwner, SendMessage
from engine.concern.loop import decide
from engine.concern.loop_output import Attitude, LoopStep, OutboundDraft
from engine.concern.model import ConcernStatus, PersonRef, Priority
from engine.concern.scheduler import TriggerKind, due_trigger
from tests.support.concern import (
    POLICY,
    T0,
    at,
    contacted_concern,
    offline_turn,
    out,
    reply_from,
)

ASK_DATE = OutboundDraft(person_id="p_zhangsan", text="好的，能给个具体日期吗？")


def test_answers_to_replies_never_count_so_a_person_who_keeps_answering_is_not_dropped() -> None:
    c = contacted_concern(Priority.MEDIUM)  # medium: at most 3 follow-ups
    for i, minute in enumerate((60, 120, 180, 240, 300, 360)):
        c, trig = reply_from(c, "大概这两天" if i % 2 else "这两天吧", minute)
        d = decide(
            c,
            trig,
            out(LoopStep.FOLLOW_UP, messages=[ASK_DATE], attitude="vague"),
            at(minute),
            POLICY,
        )
        assert [e.text for e in d.effects if isinstance(e, SendMessage)] == [ASK_DATE.text]
        c = d.new_concern
    assert c.status == ConcernStatus.WAITING_REPLY
    assert c.followup_count == 0


def test_a_scheduled_follow_up_counts_toward_the_maximum() -> None:
    c = contacted_concern(Priority.MEDIUM)
    assert c.next_action is not None and c.next_action.when == at(4 * 60)
    trig = due_trigger(c, at(4 * 60))
    assert trig is not None and trig.kind == TriggerKind.TIMEOUT
    d = decide(c, trig, out(LoopStep.FOLLOW_UP), at(4 * 60), POLICY)
    assert d.new_concern.followup_count == 1


def test_a_reply_and_a_message_with_the_same_timestamp_is_not_replied_since() -> None:
    p = PersonRef(person_id="p", display_name="张三", last_outbound_at=T0, last_inbound_at=T0)
    assert not p.replied_since_last_outbound
    later = p.model_copy(update={"last_inbound_at": at(1)})
    assert later.replied_since_last_outbound


def test_silence_after_our_answer_to_a_reply_reaches_the_initiator_as_timeout_retry() -> None:
    c = contacted_concern(Priority.MEDIUM)
    c, trig = reply_from(c, "大概这两天", 60)
    c = decide(
        c, trig, out(LoopStep.FOLLOW_UP, messages=[ASK_DATE], attitude="vague"), at(60), POLICY
    ).new_concern
    assert c.next_action is not None and c.next_action.when == at(60 + 4 * 60)
    timeout = due_trigger(c, c.next_action.when)
    assert timeout is not None and timeout.kind == TriggerKind.TIMEOUT
    d = decide(c, timeout, out(LoopStep.FOLLOW_UP), c.next_action.when, POLICY)
    reports = [e for e in d.effects if isinstance(e, ReportToOwner)]
    assert [(r.report_kinds, r.text) for r in reports] == [
        ((ReportKind.TIMEOUT_RETRY,), "张三还没回复，我再跟一下。")
    ]


def _silent_until_closed(priority: Priority, model_step: LoopStep) -> list:  # type: ignore[type-arg]
    c = contacted_concern(priority)
    decisions = []
    for _ in range(12):
        assert c.next_action is not None and c.next_action.when is not None
        now = c.next_action.when
        trig = due_trigger(c, now)
        assert trig is not None
        d = decide(
            c,
            trig,
            out(model_step, attitude=Attitude.SILENT, summary="no reply; unanswered:3"),
            now,
            POLICY,
        )
        decisions.append(d)
        c = d.new_concern
        if c.status in (ConcernStatus.DROPPED, ConcernStatus.ESCALATED):
            break
    return decisions


def test_a_silent_low_concern_is_dropped_not_escalated_even_when_the_model_escalates() -> None:
    decisions = _silent_until_closed(Priority.LOW, LoopStep.ESCALATE)
    last = decisions[-1]
    assert last.new_concern.status == ConcernStatus.DROPPED
    assert [len([e for e in d.effects if isinstance(e, SendMessage)]) for d in decisions] == [
        1,
        1,
        0,
    ]  # two follow-ups (the low maximum), then the drop
    assert not [e for e in last.effects if isinstance(e, Escalate)]
    (notice,) = [e for e in last.effects if isinstance(e, ReportToOwner)]
    assert notice.recipient.person_id == "p_owner"
    assert (
        notice.text == "追问了张三2次都没回复，「联系张三确认提测时间」我先不跟了，有需要再叫我。"
    )


def test_a_silent_medium_concern_is_dropped_after_three_follow_ups() -> None:
    decisions = _silent_until_closed(Priority.MEDIUM, LoopStep.ESCALATE)
    assert decisions[-1].new_concern.status == ConcernStatus.DROPPED
    assert decisions[-1].new_concern.followup_count == 3


def test_a_silent_high_concern_escalates_with_a_readable_message() -> None:
    decisions = _silent_until_closed(Priority.HIGH, LoopStep.FOLLOW_UP)
    last = decisions[-1]
    assert last.new_concern.status == ConcernStatus.ESCALATED
    (esc,) = [e for e in last.effects if isinstance(e, Escalate)]
    assert esc.text == (
        "张三连续3次没回复，也没有别的渠道能联系上，「联系张三确认提测时间」需要你出面处理一下。"
    )


def test_a_model_escalation_on_a_reply_tells_the_initiator_in_words_not_cues() -> None:
    c = contacted_concern(Priority.HIGH)
    c, trig = reply_from(c, "这个不归我管，你问王五吧", 30)
    d = decide(c, trig, out(LoopStep.ESCALATE, summary="not owner; cue:x"), at(30), POLICY)
    (esc,) = [e for e in d.effects if isinstance(e, Escalate)]
    assert esc.text == "「联系张三确认提测时间」我这边推进不下去了，需要你出面处理一下。"
    with_update = decide(
        c,
        trig,
        out(
            LoopStep.ESCALATE, summary="cue", owner_update="张三说这事归王五管，要不要我去问王五？"
        ),
        at(30),
        POLICY,
    )
    (esc,) = [e for e in with_update.effects if isinstance(e, Escalate)]
    assert esc.text == "张三说这事归王五管，要不要我去问王五？"


# --- the offline rule model through the engine (the default `make run` model) ----------


def test_offline_vague_reply_waits_the_normal_interval_before_the_next_follow_up() -> None:
    c = contacted_concern(Priority.MEDIUM)
    c, trig = reply_from(c, "我看看", 60)
    d = offline_turn(c, trig, at(60))
    assert not [e for e in d.effects if isinstance(e, SendMessage)]
    c = d.new_concern
    assert c.next_action is not None and c.next_action.when == at(60 + 4 * 60)
    due = due_trigger(c, at(60 + 4 * 60))
    assert due is not None
    chase = offline_turn(c, due, at(60 + 4 * 60))
    (msg,) = [e for e in chase.effects if isinstance(e, SendMessage)]
    assert msg.text == "再跟你确认一下，提测什么时候能给？方便的时候回我一下。"
    assert chase.new_concern.followup_count == 1


def test_offline_resistant_reply_doubles_the_interval_and_the_chase_is_soft() -> None:
    c = contacted_concern(Priority.MEDIUM)
    c, trig = reply_from(c, "别催了，已经在做了", 60)
    d = offline_turn(c, trig, at(60))
    assert not [e for e in d.effects if isinstance(e, SendMessage)]
    c = d.new_concern
    assert c.next_action is not None and c.next_action.when == at(60 + 8 * 60)
    due = due_trigger(c, at(60 + 8 * 60))
    assert due is not None
    (msg,) = [
        e for e in offline_turn(c, due, at(60 + 8 * 60)).effects if isinstance(e, SendMessage)
    ]
    assert msg.text == "不着急，你忙完了告诉我一声就行：提测什么时候能给？"


def test_offline_vague_time_keeps_asking_for_a_date_and_is_never_dropped_meanwhile() -> None:
    c = contacted_concern(Priority.LOW)  # low: at most 2 follow-ups
    for minute in (60, 120, 180, 240, 300):
        c, trig = reply_from(c, "大概这两天", minute)
        d = offline_turn(c, trig, at(minute))
        assert [e.text for e in d.effects if isinstance(e, SendMessage)] == [
            "好的，能给个具体日期吗？比如周几或几号。"
        ]
        c = d.new_concern
    assert c.status == ConcernStatus.WAITING_REPLY and c.followup_count == 0
