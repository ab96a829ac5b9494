"""Changing a concern's priority (docs/rules/concerns.md: "priority 变化 → 同步更新
Agenda.concern_refs").

`change_priority` is the whole decision of `changeConcernPriority`:

- the Agenda's `concern_refs` entry is updated (an UPSERT effect);
- the follow-up intervals follow the new priority (followup.py): every counterpart still
  waiting for our last message gets their next-chase gate recomputed from that message, and
  a `next_action` waiting on them moves to the earliest new gate (never into the past: a
  gate already passed makes the next look due now);
- messages held for a sending window (window.py) move to the new priority's window — a
  medium message held for Monday 09:00 goes at once when the concern becomes critical;
- one timeline entry says what changed.

The same priority is a no-op; a closed concern cannot change (`Conflict`).
"""

from __future__ import annotations

from datetime import datetime

from engine.concern.agenda import register
from engine.concern.attitude import adjusted_interval
from engine.concern.context import PendingMessage
from engine.concern.effects import Decision, Effect, RescheduleMessages, effect_key
from engine.concern.followup import final_wait
from engine.concern.model import (
    Concern,
    ConcernStatus,
    Direction,
    PersonRef,
    Priority,
    TimelineType,
)
from engine.concern.policy import ConcernPolicy
from engine.concern.states import add_timeline, is_terminal
from engine.concern.window import next_send_time, when_text, window_label
from engine.errors import Conflict


def _waiting(concern: Concern, person: PersonRef) -> bool:
    """A counterpart whose answer to our last message is still out."""
    return (
        not concern.is_initiator(person.person_id)
        and person.last_outbound_at is not None
        and not person.replied_since_last_outbound
    )


def _retime(concern: Concern, retimed: dict[tuple[str, datetime], datetime]) -> Concern:
    """Held messages that now go at another time: the person's last outbound and the
    conversation_log entry move with them (the follow-up clock starts when they go)."""
    people = []
    for p in concern.people:
        new = retimed.get((p.person_id, p.last_outbound_at)) if p.last_outbound_at else None
        people.append(p if new is None else p.model_copy(update={"last_outbound_at": new}))
    log = []
    for e in concern.conversation_log:
        new = retimed.get((e.person_id, e.ts)) if e.direction == Direction.OUTBOUND else None
        log.append(e if new is None else e.model_copy(update={"ts": new}))
    log.sort(key=lambda e: e.ts)
    return concern.model_copy(update={"people": people, "conversation_log": log})


def _regated(concern: Concern, person: PersonRef, priority: Priority) -> PersonRef:
    if not _waiting(concern, person) or person.last_outbound_at is None:
        return person
    interval = adjusted_interval(person.last_attitude, priority, concern.followup_count)
    gate = person.last_outbound_at + (interval or final_wait(priority))
    return person.model_copy(update={"followup_not_before": gate})


def change_priority(
    concern: Concern,
    priority: Priority,
    *,
    now: datetime,
    job_id: str,
    policy: ConcernPolicy,
    pending: tuple[PendingMessage, ...] = (),
) -> Decision:
    if is_terminal(concern.status):
        raise Conflict(
            f"concern {concern.concern_id} is {concern.status}; its priority cannot change",
            concern_id=concern.concern_id,
            status=str(concern.status),
        )
    if priority == concern.priority:
        return Decision(new_concern=concern, job_id=job_id, noop=True)
    before = concern.priority
    moves: list[tuple[str, datetime]] = []
    retimed: dict[tuple[str, datetime], datetime] = {}  # (person, old time) -> new time
    for m in pending:
        if m.kind != "send_message" or m.deliver_at <= now:
            continue
        goes = next_send_time(now, priority, policy)
        if goes != m.deliver_at:
            moves.append((m.key, goes))
            retimed[(m.recipient_person_id or "", m.deliver_at)] = goes
    c = _retime(concern, retimed) if retimed else concern
    people = [_regated(c, p, priority) for p in c.people]
    c = c.model_copy(update={"priority": priority, "people": people, "revision": c.revision + 1})
    notes: list[str] = []
    waiting_gates = [
        p.followup_not_before
        for p in people
        if p.followup_not_before is not None and _waiting(c, p)
    ]
    nxt = c.next_action
    if nxt is not None and waiting_gates and c.status == ConcernStatus.WAITING_REPLY:
        when = max(min(waiting_gates), now)
        if when != nxt.when:
            c = c.model_copy(update={"next_action": nxt.model_copy(update={"when": when})})
            notes.append(f"下次跟进 {when_text(when, policy)}")
    if moves:
        at = when_text(min(t for _, t in moves), policy)
        notes.append(f"{len(moves)} 条待发消息改按{window_label(priority)}发送（{at} 发出）")
    detail = f"优先级 {before} → {priority}" + ("；" + "；".join(notes) if notes else "")
    c = add_timeline(c, now, TimelineType.PRIORITY_CHANGED, detail)
    effects: list[Effect] = [register(c, job_id)]
    if moves:
        effects.append(
            RescheduleMessages(
                key=effect_key(job_id, "reschedule", c.concern_id),
                concern_id=c.concern_id,
                moves=tuple(moves),
            )
        )
    return Decision(new_concern=c, effects=tuple(effects), job_id=job_id)
