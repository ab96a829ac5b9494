"""docs/rules/concerns.md Agenda registration and raise_concern admission."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.concern.admission import raise_concern
from engine.concern.agenda import Agenda, apply_update
from engine.concern.effects import AgendaOp, AgendaUpdate, ReportToOwner
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import ConcernStatus, ConcernType, Priority, RaiseConcernInput
from engine.concern.priority import change_priority
from engine.concern.scheduler import Trigger, TriggerKind
from tests.support.concern import BOSS, POLICY, at, out, person


def data(**kw: object) -> RaiseConcernInput:
    base: dict[str, object] = {
        "title": "问张三",
        "goal": "拿到时间",
        "initiator": BOSS,
        "people": [person("p_zhangsan", "张三")],
    }
    return RaiseConcernInput.model_validate({**base, **kw})


@pytest.mark.parametrize("goal", ["", "   "])
def test_goal_is_required(goal: str) -> None:
    with pytest.raises(ValidationError):
        data(goal=goal)


def test_delegation_needs_initiator_and_schedule_needs_trigger() -> None:
    with pytest.raises(ValidationError):
        data(initiator=None)
    with pytest.raises(ValidationError):
        data(type=ConcernType.SCHEDULE)


def test_raise_registers_in_agenda_and_acknowledges() -> None:
    d = raise_concern(data(priority=Priority.HIGH), concern_id="c1", now=at(0), policy=POLICY)
    c = d.new_concern
    assert c.status == ConcernStatus.PENDING and c.timeline[0].detail == "Concern 创建"
    assert c.next_action is not None and c.next_action.when == at(0)
    assert [p.role_in_concern for p in c.people] == ["发起者", "当事人"]
    report, update = d.effects
    assert isinstance(report, ReportToOwner) and report.text.startswith("好的，我来联系张三")
    assert isinstance(update, AgendaUpdate) and update.op == AgendaOp.UPSERT
    ref = apply_update(Agenda(), update).concern_refs[0]
    assert (ref.concern_id, ref.priority, ref.status, ref.agenda_role) == (
        "c1",
        Priority.HIGH,
        ConcernStatus.PENDING,
        "tracking",
    )


def test_priority_change_updates_the_ref_and_same_priority_is_noop() -> None:
    raised_ = raise_concern(data(), concern_id="c1", now=at(0), policy=POLICY)
    c = raised_.new_concern
    (registered,) = [e for e in raised_.effects if isinstance(e, AgendaUpdate)]
    agenda = apply_update(Agenda(), registered)
    d = change_priority(c, Priority.CRITICAL, now=at(5), job_id="job-p", policy=POLICY)
    (update,) = d.effects
    agenda = apply_update(agenda, update)  # type: ignore[arg-type]
    assert [r.priority for r in agenda.concern_refs] == [Priority.CRITICAL]
    assert d.new_concern.timeline[-1].type == "priority_changed"
    assert change_priority(
        d.new_concern, Priority.CRITICAL, now=at(6), job_id="job-q", policy=POLICY
    ).noop


def test_resolve_removes_the_ref_and_writes_recent_decisions_once() -> None:
    d0 = raise_concern(data(), concern_id="c1", now=at(0), policy=POLICY)
    agenda = apply_update(Agenda(), d0.effects[1])  # type: ignore[arg-type]
    fact = Trigger(kind=TriggerKind.RELATED_FACT, event_key="x")
    d = decide(
        d0.new_concern, fact, out(LoopStep.RESOLVE, goal_met=True, conclusion="ok"), at(9), POLICY
    )
    (update,) = [e for e in d.effects if isinstance(e, AgendaUpdate)]
    assert update.op == AgendaOp.REMOVE
    once = apply_update(agenda, update)
    twice = apply_update(once, update)
    assert once == twice and once.concern_refs == ()
    (rec,) = once.recent_decisions
    assert (rec.concern_id, rec.outcome, rec.reason) == ("c1", "resolved", "目标达成：ok")
