"""The offline rule model's agent-loop judgement: `LoopContext` -> `LoopOutput`.

Order of the rules (seed 002 §六 执行循环 / 部分达成判定 / 对方态度识别, §七 中途汇报):
1. The initiator cancelled ("算了不用问了") -> DROP, no back-flow, no owner update.
2. Every counterpart meets the goal (reply or indirect evidence) -> RESOLVE, with the
   back-flow fields: a one-sentence conclusion and the key reply (seed 002 回流内容).
3. A counterpart asked something only the initiator can decide ("能换下午吗？") -> WAIT on
   the initiator, owner_update carries the question (中途汇报: 需要发起人决定).
4. Otherwise, per the pending counterpart's attitude:
   COMMITTED -> WAIT until the promised time (不提前追问);
   RESISTANT_WORKING -> FOLLOW_UP, softer tone (the interval policy doubles the gap);
   VAGUE -> FOLLOW_UP (a time goal with a vague time: 追问具体日期; A and B with only A:
   追问 B 的进展); SILENT -> FOLLOW_UP, and ESCALATE after 3 unanswered messages
   (3 次后考虑换渠道或升级).
   New partial progress on a reply trigger produces owner_update ("李四确认了，张三还没回").

`next_action.when` is set only from the conversation (a promised time). Follow-up intervals
belong to the concern policy (engine/concern, seed 002 追问间隔策略), which reads `attitude`.
"""

from __future__ import annotations

from datetime import datetime

from engine.concern.loop_output import Attitude, LoopOutput, LoopStep, NextAction
from engine.model.offline.achievement import (
    GoalKind,
    PersonResult,
    analyse_goal,
    is_cancellation,
    judge_person,
)
from engine.model.offline.attitude import PersonAttitude, attitude_of, is_question
from engine.model.offline.when import localize
from engine.model.tasks import LogEntry, LoopContext, Person

SILENT_ESCALATE_AFTER = 3  # seed 002: 完全无回复 … 3 次后考虑换渠道或升级

_DECISION_ASK = ("能不能", "可不可以", "能否", "能换", "可以换", "改到", "换到", "推迟", "延期",
                 "can we", "could we", "is it ok", "move it", "postpone")

TEXT = {
    "zh": {
        "cancelled": "发起人取消了此事，不再追问。",
        "resolved": "{name}：{reply}",
        "resolved_evidence": "已有间接证据：{reason}",
        "decision": "{name}说：「{reply}」需要你决定。",
        "wait_promise": "等待{name}按承诺在 {at} 前回复",
        "ask_date": "追问{name}具体日期",
        "ask_part": "追问{name}{parts}的进展",
        "soft": "语气放缓，稍后再问{name}进展",
        "follow": "按正常间隔追问{name}",
        "escalate": "{name}已连续 {n} 次未回复，换渠道或升级",
        "partial": "{done}确认了，{pending}还没回。",
        "partial_parts": "{name}：{done}已完成，{missing}还没有进展。",
        "sep": "、",
    },
    "en": {
        "cancelled": "The initiator cancelled this; no more follow-ups.",
        "resolved": "{name}: {reply}",
        "resolved_evidence": "Indirect evidence: {reason}",
        "decision": "{name} said: \"{reply}\" — this needs your decision.",
        "wait_promise": "Wait for {name} until the promised time {at}",
        "ask_date": "Ask {name} for a specific date",
        "ask_part": "Ask {name} about {parts}",
        "soft": "Ask {name} again later, gently",
        "follow": "Follow up with {name} at the normal interval",
        "escalate": "{name} has not answered {n} messages; switch channel or escalate",
        "partial": "{done} confirmed; {pending} not yet.",
        "partial_parts": "{name}: {done} done, {missing} not yet.",
        "sep": ", ",
    },
}


def _name(person: Person, log: list[LogEntry]) -> str:
    if person.display_name:
        return person.display_name
    for entry in log:
        if entry.person_id == person.person_id and entry.person_name:
            return entry.person_name
    return person.person_id


def _replies(log: list[LogEntry], person_id: str) -> list[LogEntry]:
    return sorted((e for e in log if e.person_id == person_id and e.direction == "inbound"),
                  key=lambda e: e.ts)


def _cancelled(ctx: LoopContext) -> LogEntry | None:
    if ctx.initiator is None:
        return None
    lines = [e for e in ctx.conversation_log
             if e.person_id == ctx.initiator.person_id and e.direction == "inbound"]
    latest = max(lines, key=lambda e: e.ts, default=None)
    return latest if latest is not None and is_cancellation(latest.text) else None


def _needs_decision(attitude: PersonAttitude) -> LogEntry | None:
    for reply in reversed(attitude.replies):
        lowered = reply.text.lower()
        if is_question(reply.text) and any(k in lowered for k in _DECISION_ASK):
            return reply
    return None


def _fmt(at: datetime, tz: str) -> str:
    return localize(at, tz).strftime("%Y-%m-%d %H:%M")


def judge_loop(ctx: LoopContext) -> LoopOutput:
    t = TEXT.get(ctx.locale, TEXT["zh"])
    log = ctx.conversation_log
    cancel = _cancelled(ctx)
    if cancel is not None:
        return LoopOutput(goal_met=False, step=LoopStep.DROP, summary=t["cancelled"],
                          conclusion=t["cancelled"], key_information=cancel.text,
                          reasons=[f"initiator cancelled: {cancel.text}"])

    spec = analyse_goal(ctx.goal)
    people = ctx.counterparts or [
        Person(person_id=e.person_id, display_name=e.person_name)
        for e in log if e.person_id and (ctx.initiator is None
                                         or e.person_id != ctx.initiator.person_id)
    ][:1]
    results: list[tuple[Person, PersonResult, PersonAttitude]] = []
    for person in people:
        result = judge_person(spec, person.person_id, _replies(log, person.person_id),
                              ctx.signals, ctx.timezone, ctx.created_at)
        results.append((person, result, attitude_of(log, person.person_id, ctx.timezone)))
    reasons = [f"goal:{spec.kind}"] + [f"{p.person_id}: {r.reason}" for p, r, _ in results]

    if results and all(r.met for _, r, _ in results):
        lines = []
        for person, result, _ in results:
            if result.key_reply is not None and not result.reason.startswith("indirect"):
                lines.append(t["resolved"].format(name=_name(person, log),
                                                  reply=result.key_reply.text))
            else:
                lines.append(t["resolved_evidence"].format(reason=result.reason))
        promised = next((r.promised.at for _, r, _ in results
                         if r.promised is not None and r.promised.at), None)
        key = "；".join(r.key_reply.text for _, r, _ in results if r.key_reply)
        _, _, first_att = results[0]
        return LoopOutput(goal_met=True, step=LoopStep.RESOLVE, summary="；".join(lines),
                          conclusion=lines[0] if len(lines) == 1 else "；".join(lines),
                          key_information=key, attitude=first_att.reading.attitude,
                          promised_at=promised, reasons=reasons)

    pending = [(p, r, a) for p, r, a in results if not r.met]
    done = [(p, r, a) for p, r, a in results if r.met]
    owner_update = ""
    if done and ctx.trigger == "reply":
        owner_update = t["partial"].format(
            done=t["sep"].join(_name(p, log) for p, _, _ in done),
            pending=t["sep"].join(_name(p, log) for p, _, _ in pending))

    if not pending:  # no counterparts at all: nothing to judge yet
        return LoopOutput(goal_met=False, step=LoopStep.WAIT, summary="",
                          next_action=NextAction(what=t["follow"].format(name="-")),
                          reasons=reasons + ["no counterpart"])
    person, result, att = pending[0]
    name = _name(person, log)
    attitude = att.reading.attitude
    summary_bits = [result.reason] + att.reading.cues

    decision = _needs_decision(att)
    if decision is not None:
        who = ctx.initiator.person_id if ctx.initiator else None
        update = t["decision"].format(name=name, reply=decision.text)
        return LoopOutput(goal_met=False, step=LoopStep.WAIT, attitude=attitude,
                          next_action=NextAction(what=update, who_person_id=who),
                          owner_update=update, summary="; ".join(summary_bits),
                          key_information=decision.text, reasons=reasons + ["needs decision"])

    if spec.kind is GoalKind.ALL_OF and result.done_parts and ctx.trigger == "reply":
        owner_update = t["partial_parts"].format(
            name=name, done=t["sep"].join(result.done_parts),
            missing=t["sep"].join(result.missing_parts))

    step, when = LoopStep.FOLLOW_UP, None
    promised_at = att.reading.promised.at if att.reading.promised else None
    if spec.kind is GoalKind.SPECIFIC_TIME and att.replies:
        what = t["ask_date"].format(name=name)  # 大概这两天 / 下周: 追问具体日期
    elif attitude is Attitude.COMMITTED and promised_at is not None:
        step, when = LoopStep.WAIT, promised_at
        what = t["wait_promise"].format(name=name, at=_fmt(promised_at, ctx.timezone))
    elif spec.kind is GoalKind.ALL_OF and result.missing_parts and result.done_parts:
        what = t["ask_part"].format(name=name, parts=t["sep"].join(result.missing_parts))
    elif attitude is Attitude.RESISTANT_WORKING:
        what = t["soft"].format(name=name)
    elif attitude is Attitude.SILENT and att.unanswered >= SILENT_ESCALATE_AFTER:
        step = LoopStep.ESCALATE
        what = t["escalate"].format(name=name, n=att.unanswered)
    else:
        what = t["follow"].format(name=name)
    return LoopOutput(
        goal_met=False, step=step, attitude=attitude,
        next_action=NextAction(what=what, who_person_id=person.person_id, when=when),
        summary="; ".join(summary_bits), owner_update=owner_update,
        promised_at=promised_at,
        key_information=att.replies[-1].text if att.replies else "",
        reasons=reasons,
    )
