"""The concern's place in the Agenda (Agenda 层的关系; docs/rules/concerns.md).

| event                          | Agenda operation                                        |
|--------------------------------|---------------------------------------------------------|
| raise_concern() succeeds       | add a `concern_refs` entry (id, priority, status, role)  |
| resolve / drop (closing)       | remove from `concern_refs`, write `recent_decisions`     |
| priority or status changes     | update the matching `concern_refs` entry (priority.py)   |

The engine emits `AgendaUpdate` effects; `apply_update` is the pure reducer the graph layer
(or a test) uses to fold them into an `Agenda`. Applying the same update twice leaves the
agenda as applying it once. Global ordering (focus_queue) belongs to the cognitive hub, not
here: the concern engine never reorders the agenda.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from engine.concern.effects import (
    AgendaOp,
    AgendaRef,
    AgendaUpdate,
    RecentDecision,
    effect_key,
)
from engine.concern.model import Concern
from engine.concern.states import is_terminal


class Agenda(BaseModel):
    model_config = ConfigDict(frozen=True)

    concern_refs: tuple[AgendaRef, ...] = ()
    recent_decisions: tuple[RecentDecision, ...] = Field(default=())


def agenda_ref(concern: Concern) -> AgendaRef:
    return AgendaRef(
        concern_id=concern.concern_id,
        priority=concern.priority,
        status=concern.status,
        agenda_role=concern.agenda_role,
    )


def register(concern: Concern, job_id: str) -> AgendaUpdate:
    return AgendaUpdate(
        key=effect_key(job_id, "agenda", AgendaOp.UPSERT),
        concern_id=concern.concern_id,
        op=AgendaOp.UPSERT,
        ref=agenda_ref(concern),
    )


def remove(concern: Concern, job_id: str, reason: str, now: datetime) -> AgendaUpdate:
    decision = RecentDecision(
        concern_id=concern.concern_id,
        title=concern.title,
        outcome=str(concern.status),
        reason=reason,
        priority=concern.priority,
        ts=now,
    )
    return AgendaUpdate(
        key=effect_key(job_id, "agenda", AgendaOp.REMOVE),
        concern_id=concern.concern_id,
        op=AgendaOp.REMOVE,
        ref=agenda_ref(concern),
        decision=decision,
    )


def sync(
    before: Concern, after: Concern, job_id: str, reason: str, now: datetime
) -> AgendaUpdate | None:
    """The one agenda update a decision needs, if any."""
    if is_terminal(after.status) and not is_terminal(before.status):
        return remove(after, job_id, reason, now)
    if agenda_ref(before) != agenda_ref(after) and not is_terminal(after.status):
        return register(after, job_id)
    return None


def apply_update(agenda: Agenda, update: AgendaUpdate, *, keep: int = 50) -> Agenda:
    refs = tuple(r for r in agenda.concern_refs if r.concern_id != update.concern_id)
    if update.op == AgendaOp.UPSERT:
        return agenda.model_copy(update={"concern_refs": (*refs, update.ref)})
    decisions = agenda.recent_decisions
    if update.decision is not None and update.decision not in decisions:
        decisions = (*decisions, update.decision)[-keep:]
    return agenda.model_copy(update={"concern_refs": refs, "recent_decisions": decisions})
