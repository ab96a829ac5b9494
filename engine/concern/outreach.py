"""Sending messages to the people of a concern and planning the next look.

This is where the interval table and the attitude policy bind the agent loop (/ 对方态度识别;
docs/rules/concerns.md):

- the first message to a person is the initial contact, not a follow-up;
- a later message to a counterpart is a scheduled follow-up (追问): it counts one round per
  decision towards the priority's limit, and a person's next follow-up may not go out before
  their `followup_not_before` gate (interval after our last message, doubled for resistant
  people, or the promised time of a commitment);
- an answer to a fresh reply is not a follow-up: in the turn a person's reply triggered, a
  message to that person ("大概这两天" → ask for the date) goes out at once, and in the turn
  the initiator's reply triggered, the initiator's instruction may be relayed to anyone
  ("接受临时方案" → tell 张三). Neither passes the gate nor counts towards the maximum, so a
  person who keeps answering is never dropped for it;
- messages are worded by `wording.py` (the ask, never the goal sentence);
- at the limit nothing is sent and the caller applies `followup.limit_outcome`;
- a person who left `silent_followups_before_alternatives` (3) follow-ups unanswered is tried
  on another reachable channel; with none left the concern escalates.
Every message is also written to `conversation_log` (outbound) and the timeline. A message
decided outside its priority's sending window (window.py) is held in the outbox until the
window opens; the timeline says when it goes, and the person's follow-up clock (last
outbound, next gate) starts then.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from engine.concern.attitude import adjusted_interval, tone_for
from engine.concern.context import LoopContext
from engine.concern.effects import SendMessage, effect_key
from engine.concern.followup import at_limit, final_wait
from engine.concern.loop_output import LoopOutput, LoopStep, OutboundDraft
from engine.concern.model import (
    CommStatus,
    Concern,
    ConversationEntry,
    Direction,
    PersonRef,
    Priority,
    TimelineEntry,
    TimelineType,
)
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import Trigger, TriggerKind
from engine.concern.window import next_send_time, when_text, window_label
from engine.concern.wording import counterpart_message, silence_reason
from engine.errors import InvalidInput


def message_text(concern: Concern, person: PersonRef, locale: str) -> str:
    """The template message to `person`: initial contact, else a follow-up in their tone."""
    kind = "initial" if person.last_outbound_at is None else tone_for(person.last_attitude).value
    return counterpart_message(concern, kind, locale)


def plan_drafts(
    concern: Concern, trigger: Trigger, output: LoopOutput, locale: str
) -> list[OutboundDraft]:
    """The messages of a follow_up step: the loop's own, else templates to whom it concerns."""
    if output.step != LoopStep.FOLLOW_UP:
        return []
    if output.messages:
        return list(output.messages)
    pending = concern.pending_counterparts
    replier = next((p for p in pending if p.person_id == trigger.person_id), None)
    # a reply is answered to its sender; otherwise everyone still pending (the gates in
    # `send` hold back whoever may not be chased yet)
    targets = [replier] if trigger.kind == TriggerKind.REPLY and replier is not None else pending
    return [
        OutboundDraft(person_id=p.person_id, text=message_text(concern, p, locale)) for p in targets
    ]


def send_detail(
    name: str,
    channel: str,
    priority: Priority,
    goes_at: datetime,
    now: datetime,
    policy: ConcernPolicy,
) -> str:
    """The timeline line of one message: sent, or held for its window and when it goes."""
    en = policy.locale == "en"
    via = (f" ({channel})" if en else f"（{channel}）") if channel else ""
    if goes_at <= now:
        return f"sent to {name}{via}" if en else f"已发送给{name}{via}"
    label, when = window_label(priority, policy.locale), when_text(goes_at, policy)
    if en:
        return f"queued for {name}{via}: outside the {priority} window ({label}), goes at {when}"
    return f"已安排发送给{name}{via}：{priority} 优先级只在{label}发送，将于 {when} 发出"


class Outreach(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    concern: Concern
    sends: tuple[SendMessage, ...] = ()
    initial_names: tuple[str, ...] = ()
    retry_names: tuple[str, ...] = ()  # follow-ups to people who had not answered
    blocked_until: datetime | None = None
    limit_hit: bool = False
    escalate_reason: str = ""
    silent_names: tuple[str, ...] = ()  # who left the follow-ups unanswered (escalation)


def alternative_channel(person: PersonRef, context: LoopContext) -> str | None:
    for channel in context.person_channels.get(person.person_id, []):
        if channel != person.last_channel and channel not in context.unreachable_channels:
            return channel
    return None


def send(
    concern: Concern,
    drafts: list[OutboundDraft],
    trigger: Trigger,
    *,
    now: datetime,
    policy: ConcernPolicy,
    context: LoopContext,
    job_id: str,
) -> Outreach:
    ready: list[tuple[OutboundDraft, PersonRef]] = []
    answers: set[str] = set()  # answered in the turn their (or the initiator's) reply triggered
    blocked: list[datetime] = []
    for draft in drafts:
        person = concern.person(draft.person_id)
        if person is None:
            raise InvalidInput(
                f"the loop addressed {draft.person_id}, who takes no part in the concern",
                concern_id=concern.concern_id,
            )
        gate = person.followup_not_before
        exempt = trigger.kind == TriggerKind.REPLY and (
            trigger.person_id == person.person_id or concern.is_initiator(trigger.person_id or "")
        )
        if person.last_outbound_at is not None and gate is not None and now < gate and not exempt:
            blocked.append(gate)
            continue
        if exempt:
            answers.add(person.person_id)
        ready.append((draft, person))
    blocked_until = min(blocked) if blocked else None
    # only scheduled follow-ups count towards the priority's maximum: an answer to a fresh
    # reply ("大概这两天" → "能给个具体日期吗？") is part of a conversation, not a chase
    counted = [
        (d, p)
        for d, p in ready
        if p.last_outbound_at is not None
        and not concern.is_initiator(p.person_id)
        and p.person_id not in answers
    ]
    if counted and at_limit(concern.priority, concern.followup_count):
        return Outreach(concern=concern, limit_hit=True, blocked_until=blocked_until)

    threshold = policy.silent_followups_before_alternatives
    channels: dict[str, str] = {}
    for draft, person in ready:
        channels[person.person_id] = draft.channel or person.last_channel
        if person.last_outbound_at is None or person.replied_since_last_outbound:
            continue
        if person.silent_followups == threshold:
            alt = alternative_channel(person, context)
            if alt is None:
                return Outreach(
                    concern=concern,
                    escalate_reason=silence_reason([person.display_name], threshold, policy.locale),
                    silent_names=(person.display_name,),
                )
            channels[person.person_id] = alt

    new_count = concern.followup_count + (1 if counted else 0)
    # the priority's sending window (window.py): a message decided outside it is recorded
    # now and goes when the window opens; the person's clock starts then
    goes_at = next_send_time(now, concern.priority, policy)
    delayed = goes_at > now
    people = {p.person_id: p for p in concern.people}
    log = list(concern.conversation_log)
    timeline = list(concern.timeline)
    sends: list[SendMessage] = []
    initial: list[str] = []
    retry: list[str] = []
    for draft, person in ready:
        channel = channels[person.person_id]
        chase = person.last_outbound_at is not None and not person.replied_since_last_outbound
        if person.last_outbound_at is None:
            initial.append(person.display_name)
        elif chase:
            retry.append(person.display_name)
        interval = adjusted_interval(person.last_attitude, concern.priority, new_count)
        people[person.person_id] = person.model_copy(
            update={
                "comm_status": CommStatus.WAITING_REPLY,
                "last_channel": channel,
                "last_outbound_at": goes_at,
                "silent_followups": person.silent_followups + (1 if chase else 0),
                "followup_not_before": goes_at + (interval or final_wait(concern.priority)),
            }
        )
        tone = tone_for(person.last_attitude)
        sends.append(
            SendMessage(
                key=effect_key(job_id, "send_message", person.person_id),
                concern_id=concern.concern_id,
                person_id=person.person_id,
                person_name=person.display_name,
                channel=channel,
                text=draft.text,
                tone=tone,
                deliver_at=goes_at if delayed else None,
            )
        )
        log.append(
            ConversationEntry(
                person_name=person.display_name,
                person_id=person.person_id,
                direction=Direction.OUTBOUND,
                text=draft.text,
                channel=channel,
                ts=goes_at,
            )
        )
        timeline.append(
            TimelineEntry(
                ts=now,
                type=TimelineType.ACTION_SEND,
                detail=send_detail(
                    person.display_name, channel, concern.priority, goes_at, now, policy
                ),
            )
        )
    updated = concern.model_copy(
        update={
            "people": [people[p.person_id] for p in concern.people],
            "conversation_log": log,
            "timeline": timeline,
            "followup_count": new_count,
        }
    )
    return Outreach(
        concern=updated,
        sends=tuple(sends),
        initial_names=tuple(initial),
        retry_names=tuple(retry),
        blocked_until=blocked_until,
    )
