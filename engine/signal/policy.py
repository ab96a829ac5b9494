"""The agenda policy: what the cognitive hub does with each signal (docs/rules/loop.md).

"事实 / 信号经认知中枢抬升 … 经议程判断，再创建或补充 concern"; "任何原始对话、事件、扫描结果都
不能绕过认知中枢直接进入 Concern". A signal reaches people only through `decide`, which is
pure: the signal, the scope's policy (versioned, edited by an operator) and what the graph
knows (open concerns, the person the signal is about and how to reach them) in; one decision
and at most one effect out. Deciding costs no model call.

Defaults (`AgendaPolicy()`):
| signal                                   | decision                                          |
|------------------------------------------|---------------------------------------------------|
| commitment with a due time               | raise a follow-up concern to the person who       |
|                                          | committed, first contact at the due time, goal    |
|                                          | "确认<what>是否已完成", initiator the scope owner |
| commitment without a due time            | ignored: no due time (a date is never guessed)    |
| difference on a confirmed/person field   | raise a concern to the person responsible, goal   |
|                                          | "确认<field>是<current>还是<proposed>"            |
| blocker or risk                          | reported to the owner; a concern only when high   |
| question                                 | ignored: questions are not followed up            |
| anything an open concern already covers  | supplemented <that concern> (its fact report)     |
| nobody reachable (no bound person id)    | ignored: no reachable person                      |
| the loop switched off for the scope      | no decision: the signal stays undecided           |

One signal never raises two concerns: `decide` is only asked for a signal without a decision,
and the graph layer records the decision in the same transaction that claims the signal.
"""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from engine.concern.model import (
    ConcernType,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.signal.derive import promise_parts, time_phrase
from engine.signal.model import DecisionKind, SignalDecision, SignalDraft, SignalKind

_HIGH = re.compile(
    r"紧急|严重|无法上线|上不了线|阻塞上线|影响上线|线上故障|事故|P0|P1|"
    r"\burgent\b|\bcritical\b|\bsevere\b|\boutage\b|\bblocks? (?:the )?release\b",
    re.IGNORECASE,
)


class KindRule(BaseModel):
    model_config = ConfigDict(frozen=True)

    act: bool = True  # False: signals of this kind are recorded and ignored
    priority: Priority = Priority.MEDIUM  # the priority of a concern it raises


class AgendaPolicy(BaseModel):
    """One version of a scope's agenda policy."""

    model_config = ConfigDict(frozen=True)

    version: int = Field(default=1, ge=1)
    loop_enabled: bool = True
    owner_person_id: str | None = None  # the initiator of concerns the agenda raises
    owner_name: str = ""
    owner_channel: str = ""
    commitment: KindRule = KindRule()
    difference: KindRule = KindRule()
    blocker: KindRule = KindRule(priority=Priority.HIGH)
    risk: KindRule = KindRule(priority=Priority.HIGH)
    question: KindRule = KindRule(act=False)

    def rule(self, kind: SignalKind) -> KindRule:
        return getattr(self, str(kind))  # type: ignore[no-any-return]


class Reachable(BaseModel):
    """A person the agenda may contact: an explicit binding, never an equal name."""

    model_config = ConfigDict(frozen=True)

    person_id: str
    display_name: str
    channel: str = ""


class DecideContext(BaseModel):
    model_config = ConfigDict(frozen=True)

    signal_id: str
    person: Reachable | None = None  # committer / responsible person, when bound
    covering_concern_id: str | None = None  # an open concern about the same subject
    new_concern_id: str = ""  # the id a raised concern takes (derived from the signal id)


class RaiseFromSignal(BaseModel):
    model_config = ConfigDict(frozen=True)

    concern_id: str
    request: RaiseConcernInput
    first_contact_at: datetime | None  # None: at once


class SupplementConcern(BaseModel):
    model_config = ConfigDict(frozen=True)

    concern_id: str
    fact: str  # the fact report the concern's loop receives


class ReportToOwner(BaseModel):
    model_config = ConfigDict(frozen=True)

    person_id: str
    text: str
    name: str = ""  # the owner as the policy names them
    channel: str = ""


Effect = RaiseFromSignal | SupplementConcern | ReportToOwner


class Decided(BaseModel):
    model_config = ConfigDict(frozen=True)

    decision: SignalDecision
    effect: Effect | None = None


def is_high(signal: SignalDraft) -> bool:
    return bool(_HIGH.search(signal.text))


def goal_of(signal: SignalDraft) -> str:
    """The concern's completion condition: a difference's value chosen, a blocker or risk
    resolved, a promise kept (`docs/rules/reply-reading.md`)."""
    if signal.kind is SignalKind.DIFFERENCE:
        return f"确认{signal.field}是{signal.confirmed_value}还是{signal.proposed_value}"
    if signal.kind in (SignalKind.BLOCKER, SignalKind.RISK):
        return f"确认{_first_clause(signal.text)}是否已解决"
    return f"确认{signal.what or signal.text}是否已完成"


_SPEAKER = re.compile(r"^[^：:]{1,20}[：:]\s*")


def asked_about(signal: SignalDraft) -> str:
    """The question the concern's messages ask, naming the thing (without its final question
    mark, which the message adds): "前端部分周四提测了吗", "「支付模块改由李四负责」，负责人现在是
    张三还是李四", "「支付模块卡在第三方回调接口」解决了吗". The signal itself is linked by
    `signal_id`, never spelled into a message."""
    said = _SPEAKER.sub("", signal.text, count=1) or signal.text
    if signal.kind is SignalKind.DIFFERENCE:
        said = signal.text  # a difference's text has no speaker ("支付模块 负责人：张三 → 李四")
        either = f"{signal.confirmed_value}还是{signal.proposed_value}"
        if "→" not in said and "->" not in said:  # the words that raised it name the thing
            return f"「{said}」，{signal.field}现在是{either}"
        thing = re.split(r"[：:]", said, maxsplit=1)[0].removesuffix(signal.field).strip()
        if not thing:
            return f"{signal.field}现在是{either}"
        if signal.field == "负责人":
            return f"{thing}现在由谁负责：{either}"
        return f"{thing}的{signal.field}现在是{either}"
    if signal.kind in (SignalKind.BLOCKER, SignalKind.RISK):
        return f"「{_first_clause(signal.text)}」解决了吗"
    if said.isascii():
        return f"is this done: {said}"
    subject, predicate = promise_parts(said)
    if not predicate:
        return f"「{said}」完成了吗"
    return f"{subject}{time_phrase(said)}{predicate}了吗"


def _first_clause(text: str) -> str:
    """The sentence without its speaker, up to its first clause break."""
    said = _SPEAKER.sub("", text, count=1) or text
    return re.split(r"[，,。；;！!]", said, maxsplit=1)[0].strip() or said


def _ignored(policy: AgendaPolicy, reason: str) -> Decided:
    return Decided(
        decision=SignalDecision(
            kind=DecisionKind.IGNORED, policy_version=policy.version, reason=reason
        )
    )


def _raise(
    signal: SignalDraft, policy: AgendaPolicy, ctx: DecideContext, priority: Priority
) -> Decided:
    assert ctx.person is not None
    initiator = None
    if policy.owner_person_id:
        initiator = Initiator(
            name=policy.owner_name or policy.owner_person_id,
            channel=policy.owner_channel or "agenda",
            person_id=policy.owner_person_id,
        )
    goal = goal_of(signal)
    request = RaiseConcernInput(
        type=ConcernType.FOLLOWUP,
        priority=priority,
        title=goal,
        goal=goal,
        source_detail=asked_about(signal),
        initiator=initiator,
        people=[
            PersonRef(
                person_id=ctx.person.person_id,
                display_name=ctx.person.display_name,
                last_channel=ctx.person.channel,
            )
        ],
        agenda_role="signal",
        signal_id=ctx.signal_id,
    )
    first = signal.due if signal.kind is SignalKind.COMMITMENT else None
    return Decided(
        decision=SignalDecision(
            kind=DecisionKind.RAISED,
            policy_version=policy.version,
            concern_id=ctx.new_concern_id,
            reason=f"default rule for {signal.kind}",
        ),
        effect=RaiseFromSignal(
            concern_id=ctx.new_concern_id, request=request, first_contact_at=first
        ),
    )


def decide(signal: SignalDraft, policy: AgendaPolicy, ctx: DecideContext) -> Decided | None:
    """The agenda's decision for one signal; None when the loop is off for the scope."""
    if not policy.loop_enabled:
        return None
    rule = policy.rule(signal.kind)
    if not rule.act:
        return _ignored(policy, f"{signal.kind} signals are not followed up by this policy")
    if ctx.covering_concern_id:
        return Decided(
            decision=SignalDecision(
                kind=DecisionKind.SUPPLEMENTED,
                policy_version=policy.version,
                concern_id=ctx.covering_concern_id,
                reason="an open concern already covers it",
            ),
            effect=SupplementConcern(concern_id=ctx.covering_concern_id, fact=signal.text),
        )
    if signal.kind is SignalKind.COMMITMENT and signal.due is None:
        return _ignored(policy, "no due time")
    if signal.kind in (SignalKind.BLOCKER, SignalKind.RISK) and not is_high(signal):
        if not policy.owner_person_id:
            return _ignored(policy, "no owner to report to")
        return Decided(
            decision=SignalDecision(
                kind=DecisionKind.REPORTED,
                policy_version=policy.version,
                reason=f"{signal.kind} reported to the owner",
            ),
            effect=ReportToOwner(
                person_id=policy.owner_person_id,
                text=signal.what or signal.text,
                name=policy.owner_name or policy.owner_person_id,
                channel=policy.owner_channel or "agenda",
            ),
        )
    if ctx.person is None:
        return _ignored(policy, "no reachable person")
    priority = (
        rule.priority
        if signal.kind not in (SignalKind.BLOCKER, SignalKind.RISK)
        else (Priority.HIGH)
    )
    return _raise(signal, policy, ctx, priority)
