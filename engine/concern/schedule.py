"""Scheduled concerns doing their part (docs/rules/concerns.md#schedules-and-the-agenda:
"到点执行的计划事项，需要直发、借会话处理 或系统独立处理"; the concern's `trigger` and
`executions`).

When a schedule concern's run is due (`schedule_due`), its mode decides what happens:

- direct: a message to each counterpart (none: to the initiator), inside its priority's
  sending window (window.py); execution outcome `sent`.
- via_conversation: a hand-off to the initiator's conversation — an outbox row of kind
  `handoff` (delivered by the webhook like every message), and the initiator marked
  `waiting_reply`, so the MCP conversation-context resource lists it under awaiting_reply.
  The run waits there for the initiator's answer (advance_concern from the initiator):
  outcome `handed_off`, then `answered` with the answer.
- system: the system's own action — the agent loop's turn judged the goal itself; its
  conclusion is recorded: outcome `done` or `not_met` with the finding.

A run that has not done its part never closes the concern: a one-shot direct or system run
resolves after its message or its recorded outcome; a via-conversation run only once the
answer came. A repeating schedule moves `next_run_at` on (`next_run_after`); schedules
never flow back (the result is in `executions`; docs/rules/concerns.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from engine.concern.effects import Effect, HandOff, Recipient, SendMessage, effect_key
from engine.concern.loop_output import LoopOutput
from engine.concern.model import (
    CommStatus,
    Concern,
    ConversationEntry,
    Direction,
    Execution,
    PersonRef,
    ScheduleMode,
    TimelineEntry,
    TimelineType,
)
from engine.concern.policy import ConcernPolicy
from engine.concern.window import next_send_time

TEXTS = {
    "zh": {
        "direct": "定时提醒：{title}。",
        "handoff": "定时事项到点了：{title}（完成条件：{goal}）。"
        "请在对话里处理，处理完回复我一声。",
        "handed": "已交给{name}的会话处理，等待答复",
        "sent": "已发送给{names}",
        "done": "系统已执行：{finding}",
    },
    "en": {
        "direct": "Scheduled reminder: {title}.",
        "handoff": "A scheduled item is due: {title} (done when: {goal}). Please handle it "
        "in our conversation and tell me when it is done.",
        "handed": "handed to {name}'s conversation, waiting for the answer",
        "sent": "sent to {names}",
        "done": "the system ran it: {finding}",
    },
}


def _t(locale: str) -> dict[str, str]:
    return TEXTS.get(locale, TEXTS["zh"])


def _initiator_ref(concern: Concern) -> PersonRef | None:
    ini = concern.initiator
    if ini is None:
        return None
    pid = ini.person_id or ini.name
    return concern.person(pid) or PersonRef(
        person_id=pid,
        display_name=ini.name,
        role_in_concern="发起者",
        comm_status=CommStatus.NOT_NEEDED,
        last_channel=ini.channel,
    )


def _message(
    concern: Concern,
    person: PersonRef,
    text: str,
    *,
    kind: str,
    now: datetime,
    goes_at: datetime,
    job_id: str,
    awaits: bool,
) -> tuple[Concern, SendMessage]:
    """One outbound message recorded in conversation_log (and the person's contact state)."""
    channel = person.last_channel
    effect = SendMessage(
        key=effect_key(job_id, kind, person.person_id),
        concern_id=concern.concern_id,
        person_id=person.person_id,
        person_name=person.display_name,
        channel=channel,
        text=text,
        deliver_at=goes_at if goes_at > now else None,
    )
    entry = ConversationEntry(
        person_name=person.display_name,
        person_id=person.person_id,
        direction=Direction.OUTBOUND,
        text=text,
        channel=channel,
        ts=goes_at,
    )
    status = CommStatus.WAITING_REPLY if awaits else person.comm_status
    moved = person.model_copy(update={"comm_status": status, "last_outbound_at": goes_at})
    people = [moved if p.person_id == person.person_id else p for p in concern.people]
    if concern.person(person.person_id) is None:
        people.append(moved)
    log = sorted([*concern.conversation_log, entry], key=lambda e: e.ts)
    return concern.model_copy(update={"people": people, "conversation_log": log}), effect


def run_direct(
    concern: Concern, out: LoopOutput, *, now: datetime, policy: ConcernPolicy, job_id: str
) -> tuple[Concern, list[SendMessage], str]:
    """The direct run: the loop's own messages, else the reminder to each counterpart (or
    the initiator when there is none). Returns the concern, the messages and the detail."""
    targets = concern.counterparts or [p for p in [_initiator_ref(concern)] if p is not None]
    own = {m.person_id: m.text for m in out.messages}
    default = _t(policy.locale)["direct"].format(title=concern.title)
    goes_at = next_send_time(now, concern.priority, policy)
    sends: list[SendMessage] = []
    c = concern
    for person in targets:
        c, effect = _message(
            c,
            person,
            own.get(person.person_id, default),
            kind="send_message",
            now=now,
            goes_at=goes_at,
            job_id=job_id,
            awaits=False,
        )
        sends.append(effect)
    names = "、".join(p.display_name for p in targets)
    return c, sends, _t(policy.locale)["sent"].format(names=names)


def hand_off(
    concern: Concern, *, now: datetime, policy: ConcernPolicy, job_id: str
) -> tuple[Concern, HandOff | None, str]:
    """The via-conversation run: the item goes to the initiator's conversation and waits."""
    ini, person = concern.initiator, _initiator_ref(concern)
    if ini is None or person is None:
        return concern, None, ""
    text = _t(policy.locale)["handoff"].format(title=concern.title, goal=concern.goal)
    c, _ = _message(
        concern, person, text, kind="handoff", now=now, goes_at=now, job_id=job_id, awaits=True
    )
    effect = HandOff(
        key=effect_key(job_id, "handoff", person.person_id),
        concern_id=concern.concern_id,
        recipient=Recipient(
            name=ini.name,
            channel=ini.channel,
            channel_user_id=ini.channel_user_id,
            person_id=ini.person_id,
        ),
        text=text,
    )
    return c, effect, _t(policy.locale)["handed"].format(name=person.display_name)


def system_outcome(concern: Concern, out: LoopOutput, locale: str) -> tuple[str, str]:
    """The system run's outcome and what it found (the loop's own conclusion; a loop that
    concluded nothing ran the item itself, named by its title)."""
    finding = out.conclusion or out.key_information or concern.title
    return ("done" if out.goal_met else "not_met"), _t(locale)["done"].format(finding=finding)


def answer_of(concern: Concern, person_id: str) -> str:
    """The initiator's newest words: the answer to a hand-off."""
    said = [
        e.text
        for e in concern.conversation_log
        if e.person_id == person_id and e.direction == Direction.INBOUND
    ]
    return said[-1] if said else ""


def execution(scheduled: datetime, now: datetime, outcome: str, detail: str) -> Execution:
    return Execution(scheduled_for=scheduled, ran_at=now, outcome=outcome, detail=detail)


def timeline(now: datetime, detail: str) -> TimelineEntry:
    return TimelineEntry(ts=now, type=TimelineType.EXECUTION, detail=detail)


@dataclass(frozen=True)
class ScheduleRun:
    concern: Concern
    effects: tuple[Effect, ...]
    finished: bool  # no further run and nothing awaited: the concern may resolve


def run_due(
    concern: Concern, out: LoopOutput, *, now: datetime, policy: ConcernPolicy, job_id: str
) -> ScheduleRun:
    """The due run of `concern` in its mode, recorded in `executions` and the timeline, with
    `next_run_at` moved on (a handed-off run sets `awaiting_run`)."""
    trig = concern.trigger
    assert trig is not None and trig.next_run_at is not None
    scheduled = trig.next_run_at
    nxt = next_run_after(scheduled, trig.every, now)
    if nxt is not None and trig.until is not None and nxt > trig.until:
        nxt = None
    c, awaiting = concern, concern.awaiting_run
    effects: list[Effect] = []
    if trig.mode == ScheduleMode.DIRECT:
        c, sends, detail = run_direct(c, out, now=now, policy=policy, job_id=job_id)
        effects.extend(sends)
        outcome = "sent"
    elif trig.mode == ScheduleMode.VIA_CONVERSATION:
        c, handoff, detail = hand_off(c, now=now, policy=policy, job_id=job_id)
        effects.extend([handoff] if handoff is not None else [])
        outcome, awaiting = "handed_off", scheduled
    else:
        outcome, detail = system_outcome(c, out, policy.locale)
    c = c.model_copy(
        update={
            "executions": [*c.executions, execution(scheduled, now, outcome, detail)],
            "trigger": trig.model_copy(update={"next_run_at": nxt}),
            "awaiting_run": awaiting,
            "timeline": [*c.timeline, timeline(now, f"定时执行（{trig.mode}）：{detail}")],
        }
    )
    return ScheduleRun(c, tuple(effects), finished=nxt is None and awaiting is None)


def record_answer(concern: Concern, person_id: str, now: datetime) -> tuple[Concern, bool]:
    """The initiator answered the handed-off run: recorded with the answer; True when no
    further run is planned (the concern may resolve)."""
    assert concern.awaiting_run is not None
    answer = answer_of(concern, person_id)
    c = concern.model_copy(
        update={
            "executions": [
                *concern.executions,
                execution(concern.awaiting_run, now, "answered", answer),
            ],
            "awaiting_run": None,
            "timeline": [*concern.timeline, timeline(now, f"会话已答复：{answer}")],
        }
    )
    trig = c.trigger
    return c, trig is None or trig.next_run_at is None


def next_run_after(scheduled: datetime, every: timedelta | None, now: datetime) -> datetime | None:
    """The first `scheduled + k * every` (k >= 1) later than `now`, in one step: a run that
    missed many periods (a year-1 anchor every second) skips them arithmetically instead of
    looping once per missed period on the worker's event loop."""
    if every is None or every <= timedelta(0):
        return None
    missed = max(0, (now - scheduled) // every)
    try:
        return scheduled + (missed + 1) * every
    except OverflowError:  # past the last representable instant: no further run
        return None
