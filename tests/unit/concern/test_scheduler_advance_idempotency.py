"""docs/rules/concerns.md scans, advance_concern, and idempotency of jobs and effects."""

from __future__ import annotations

from datetime import UTC

import pytest

from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import ConcernStatus, Direction
from engine.concern.scheduler import (
    DueFacts,
    Trigger,
    TriggerKind,
    is_stale,
    job_id,
    scan_due_concerns,
    scan_schedules,
    scan_timeouts,
)
from engine.errors import Conflict, InvalidInput
from tests.support.concern import POLICY, at, out, raised


def contacted():  # type: ignore[no-untyped-def]
    c = raised()
    (job,) = scan_due_concerns([c], at(0))
    return decide(c, job.trigger, out(LoopStep.FOLLOW_UP), at(0), POLICY).new_concern


def test_job_id_is_stable_and_distinguishes_inputs() -> None:
    assert job_id("c1", "timeout", "2026") == job_id("c1", TriggerKind.TIMEOUT, "2026")
    ids = {job_id(c, t, k) for c in ("c1", "c2") for t in TriggerKind for k in ("a", "b")}
    assert len(ids) == 2 * len(TriggerKind) * 2


def test_scans_partition_due_items_and_respect_now() -> None:
    pending = raised(concern_id="p")
    waiting = contacted()
    assert [j.concern_id for j in scan_due_concerns([pending, waiting], at(0))] == ["p"]
    assert scan_timeouts([pending, waiting], at(4 * 60 - 1)) == []
    (t,) = scan_timeouts([pending, waiting], at(4 * 60))
    assert (t.concern_id, t.trigger.kind) == ("con_1", TriggerKind.TIMEOUT)
    assert scan_schedules([pending, waiting], at(10_000)) == []
    # two workers scanning the same state derive the same job ids
    assert scan_timeouts([waiting], at(300)) == scan_timeouts([waiting], at(301))


def test_the_indexed_facts_alone_give_the_same_jobs_as_the_whole_concern() -> None:
    # what the scans read from Neo4j: the same instants, in UTC, and no document
    pending, waiting = raised(concern_id="p"), contacted()
    for c, now in ((pending, at(0)), (waiting, at(4 * 60))):
        facts = DueFacts.of(c)
        stored = DueFacts(
            concern_id=facts.concern_id,
            type=facts.type,
            status=facts.status,
            next_when=facts.next_when.astimezone(UTC) if facts.next_when else None,
            next_run_at=None,
        )
        scans = (scan_due_concerns, scan_timeouts)
        assert [scan([stored], now) for scan in scans] == [scan([c], now) for scan in scans]
    (job,) = scan_due_concerns([DueFacts.of(pending)], at(0))
    assert job.trigger.event_key.endswith("+00:00")  # a key is the due time in UTC
    assert not is_stale(pending, job.trigger)
    # a trigger queued before keys were UTC (the concern's own offset) is not stale either
    local = Trigger(kind=TriggerKind.NEXT_ACTION_DUE, event_key=at(0).isoformat())
    assert "+08:00" in local.event_key and not is_stale(pending, local)


def test_a_time_trigger_the_concern_moved_past_is_stale_and_a_noop() -> None:
    c = contacted()
    old = Trigger(kind=TriggerKind.NEXT_ACTION_DUE, event_key=at(0).isoformat())
    assert is_stale(c, old)
    d = decide(c, old, out(LoopStep.FOLLOW_UP), at(5), POLICY)
    assert d.noop and d.effects == () and d.new_concern is c


def test_advance_records_the_reply_and_never_resolves() -> None:
    c = contacted()
    msg = InboundMessage(person_id="p_zhangsan", text="好的", ts=at(30), message_id="m1")
    after, trig = record_inbound(c, msg, at(31))
    assert after.status == ConcernStatus.IN_PROGRESS
    assert (after.conversation_log[-1].direction, after.conversation_log[-1].text) == (
        Direction.INBOUND,
        "好的",
    )
    assert trig.kind == TriggerKind.REPLY and trig.person_id == "p_zhangsan"
    again, trig2 = record_inbound(after, msg, at(32))
    assert again is after and trig2 == trig


def test_advance_on_closed_concern_or_stranger_is_refused() -> None:
    c = contacted()
    msg = InboundMessage(person_id="p_nobody", text="hi", ts=at(30))
    with pytest.raises(InvalidInput):
        record_inbound(c, msg, at(30))
    closed = c.model_copy(update={"status": ConcernStatus.RESOLVED})
    with pytest.raises(Conflict):
        record_inbound(closed, msg.model_copy(update={"person_id": "p_zhangsan"}), at(30))


def test_conversation_log_stays_in_time_order() -> None:
    c = contacted()
    late = InboundMessage(person_id="p_zhangsan", text="second", ts=at(40), message_id="b")
    early = InboundMessage(person_id="p_zhangsan", text="first", ts=at(20), message_id="a")
    c, _ = record_inbound(c, late, at(41))
    c, _ = record_inbound(c, early, at(42))
    assert [e.ts for e in c.conversation_log] == sorted(e.ts for e in c.conversation_log)


def test_effect_keys_are_stable_under_rerun_at_another_time() -> None:
    c = raised()
    (job,) = scan_due_concerns([c], at(0))
    first = decide(c, job.trigger, out(LoopStep.FOLLOW_UP), at(0), POLICY)
    second = decide(c, job.trigger, out(LoopStep.FOLLOW_UP), at(7), POLICY)
    assert [e.key for e in first.effects] == [e.key for e in second.effects]
    assert all(e.key.startswith(job.job_id) for e in first.effects)
    assert len({e.key for e in first.effects}) == len(first.effects)
    # once persisted, the same trigger decides nothing
    assert decide(first.new_concern, job.trigger, out(LoopStep.FOLLOW_UP), at(8), POLICY).noop
