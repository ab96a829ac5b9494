"""What the model reads for one agent-loop turn (docs/rules/concerns.md).

"加载 concern 本体（含 goal + conversation_log）→ 补充人物切片、业务上下文" — the model (HTTP
or the offline rule model) gets the goal, what the initiator asked, the whole conversation
log, who triggered the turn, and each person's context slice. Pure: the shell reads the
person slices and passes them in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engine.concern.model import Concern, PersonRef
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import Trigger, TriggerKind
from engine.llm.tasks import LogEntry, LoopContext, Person, Signal

MODEL_TRIGGER: dict[TriggerKind, str] = {
    TriggerKind.REPLY: "reply",
    TriggerKind.TIMEOUT: "timeout",
    TriggerKind.NEXT_ACTION_DUE: "due",
    TriggerKind.SCHEDULE_DUE: "due",
    TriggerKind.RELATED_FACT: "signal",
}


def person_slice(ref: PersonRef, slice_: Mapping[str, Any] | None) -> Person:
    """The concern's minimal reference plus the person context's slice of them."""
    data = dict(slice_ or {})
    return Person(
        person_id=ref.person_id,
        display_name=ref.display_name,
        role_in_concern=ref.role_in_concern,
        comm_status=str(ref.comm_status),
        last_channel=ref.last_channel,
        preferred_channel=str(data.pop("preferred_channel", "") or ""),
        channels=[str(c) for c in data.pop("channels", None) or []],
        context={k: v for k, v in data.items() if k not in ("person_id", "display_name")},
    )


def loop_input(
    concern: Concern,
    trigger: Trigger,
    now: datetime,
    policy: ConcernPolicy,
    *,
    persons: Mapping[str, Mapping[str, Any]] | None = None,
    signals: Sequence[Signal] = (),
) -> LoopContext:
    persons = persons or {}
    ini = concern.initiator
    initiator = None
    if ini is not None:
        ref = concern.person(ini.person_id or "")
        initiator = (
            person_slice(ref, persons.get(ref.person_id))
            if ref is not None
            else Person(person_id=ini.person_id or "", display_name=ini.name)
        )
    return LoopContext(
        concern_id=concern.concern_id,
        title=concern.title,
        goal=concern.goal,
        request=concern.source.detail,
        priority=str(concern.priority),
        initiator=initiator,
        counterparts=[person_slice(p, persons.get(p.person_id)) for p in concern.counterparts],
        conversation_log=[
            LogEntry(
                person_id=e.person_id,
                person_name=e.person_name,
                direction=e.direction.value,
                text=e.text,
                channel=e.channel,
                ts=e.ts,
            )
            for e in concern.conversation_log
        ],
        signals=list(signals),
        created_at=concern.created_at,
        now=now,
        timezone=policy.timezone,
        locale=policy.locale,
        trigger=MODEL_TRIGGER[trigger.kind],
        replied_by=trigger.person_id if trigger.kind == TriggerKind.REPLY else None,
    )
