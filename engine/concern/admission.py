"""Raising a concern (raise_concern; docs/rules/loop.md).

Only the cognitive hub raises concerns (the API checks the caller's role); the engine's part
is to turn a validated `RaiseConcernInput` into a pending concern, register it in the Agenda
and acknowledge the initiator with the `created` template (创建 → pending; docs/rules/concerns.md).
The initial contact itself is the agent loop's first step: `next_action` is due at once.
"""

from __future__ import annotations

from datetime import datetime

from engine.concern.agenda import register
from engine.concern.context import LoopContext
from engine.concern.effects import Decision, Effect, ReportKind
from engine.concern.loop_output import NextAction
from engine.concern.model import (
    CommStatus,
    Concern,
    ConcernType,
    PersonRef,
    RaiseConcernInput,
    Source,
    TimelineEntry,
    TimelineType,
)
from engine.concern.policy import ConcernPolicy
from engine.concern.reports import acknowledges, build_report, created_text, join_names
from engine.concern.scheduler import job_id
from engine.errors import InvalidInput


def check_repeat(data: RaiseConcernInput, policy: ConcernPolicy) -> None:
    """A repeating schedule runs an agent loop per period: no faster than `policy.min_every`."""
    every = data.trigger.every if data.trigger is not None else None
    if every is not None and every < policy.min_every:
        floor = int(policy.min_every.total_seconds())
        raise InvalidInput(
            f"trigger.everySeconds must be at least {floor} (got {every.total_seconds():g})",
            argument="trigger.everySeconds",
            minimum=floor,
        )


def raise_job_id(concern_id: str) -> str:
    return job_id(concern_id, "raise", concern_id)


def raise_concern(
    data: RaiseConcernInput,
    *,
    concern_id: str,
    now: datetime,
    policy: ConcernPolicy,
    context: LoopContext | None = None,
    first_at: datetime | None = None,
) -> Decision:
    """`first_at`: when the first contact is due (a follow-up the agenda raises for a
    promise waits for the promised time, `engine.concern.window.first_contact_time`);
    None: at once."""
    context = context or LoopContext()
    check_repeat(data, policy)
    jid = raise_job_id(concern_id)
    people = list(data.people)
    ini = data.initiator
    if ini is not None and ini.person_id and all(p.person_id != ini.person_id for p in people):
        people.insert(
            0,
            PersonRef(
                person_id=ini.person_id,
                display_name=ini.name,
                role_in_concern="发起者",
                comm_status=CommStatus.NOT_NEEDED,
                last_channel=ini.channel,
            ),
        )
    concern = Concern(
        concern_id=concern_id,
        type=data.type,
        priority=data.priority,
        title=data.title,
        goal=data.goal,
        source=Source(
            type=str(data.type),
            detail=data.source_detail,
            initiator=ini,
            signal_id=data.signal_id,
        ),
        people=people,
        timeline=[TimelineEntry(ts=now, type=TimelineType.DISCOVERED, detail="Concern 创建")],
        delegation=data.delegation,
        trigger=data.trigger,
        agenda_role=data.agenda_role,
        created_at=now,
        updated_at=now,
        handled_triggers=[jid],
    )
    targets = [p.display_name for p in concern.counterparts]
    if data.type != ConcernType.SCHEDULE:
        first = concern.counterparts[0].person_id if concern.counterparts else None
        what = data.first_action or (f"联系{join_names(targets)}" if targets else "首次处理")
        concern = concern.model_copy(
            update={"next_action": NextAction(what=what, who_person_id=first, when=first_at or now)}
        )
    effects: list[Effect] = [register(concern, jid)]
    if targets and acknowledges(concern):
        concern, report = build_report(
            concern,
            [ReportKind.CREATED],
            created_text(targets, policy.locale),
            now=now,
            policy=policy,
            context=context,
            job_id=jid,
        )
        if report is not None:
            effects.insert(0, report)
    return Decision(new_concern=concern, effects=tuple(effects), job_id=jid)
