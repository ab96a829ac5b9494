"""The offline rule model's agent-loop judgement: `LoopContext` -> `LoopOutput`.

Order of the rules (/ 部分达成判定 / 对方态度识别; docs/rules/concerns.md):
1. The initiator cancelled ("算了不用问了") -> DROP, no back-flow, no owner update.
2. Every counterpart meets the goal (reply or indirect evidence) -> RESOLVE, with the
   back-flow fields: a one-sentence conclusion and the key replies (docs/rules/concerns.md).
   A signal's follow-up or question (the agenda's goals) is met only by an answer that
   says something definite (`engine/offline/signal_goals.py`): "嗯"/"对" alone is not.
3. The counterpart whose reply triggered this turn asked something only the initiator can
   decide ("能换下午吗？"), or reported a blocker with a proposal ("卡在第三方回调…临时方案…")
   -> WAIT on the initiator, owner_update carries it (中途汇报: 需要发起人决定).
4. The initiator answered (not a cancellation) -> relay it to the pending counterparts.
5. Otherwise the goal is not met; per the pending counterpart:
   - their own reply triggered the turn:
     a time goal answered with a vague time ("大概这两天") -> FOLLOW_UP now, asking for a date;
     "A 和 B" with only A -> FOLLOW_UP now, asking about B;
     COMMITTED -> WAIT until the promised time (不提前追问);
     RESISTANT_WORKING -> WAIT (the interval policy doubles the gap, 语气变柔 next time);
     VAGUE ("我看看"/"嗯") -> WAIT (the normal interval, not at once);
   - anything else (a timeout, another person's reply) -> FOLLOW_UP: the concern policy's
     gates decide whether it is time, and silence follows the interval table up to the
     priority's maximum (no escalation decided here).
Settled counterparts go to `done_person_ids` with what they said in `findings`, so the
engine's templates write the partial report
("李四说前端部分周四能提测。张三还没回复，我再跟一下。").

`next_action.when` is set only from the conversation (a promised time). Follow-up intervals
belong to the concern policy (engine/concern; docs/rules/concerns.md), which reads `attitude`.
Messages to people read as a person would write them; internal cues stay in `reasons`.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import partial
from typing import Any

from engine.concern.loop_output import Attitude, LoopOutput, LoopStep, NextAction, OutboundDraft
from engine.concern.wording import ask_from, spaced
from engine.concern.wording import is_question as ask_is_question
from engine.language.when import localize
from engine.llm.reading import ReplyOutcome
from engine.llm.tasks import LogEntry, LoopContext, Person
from engine.offline.achievement import (
    GoalKind,
    GoalSpec,
    PersonResult,
    analyse_goal,
    is_cancellation,
    judge_person,
)
from engine.offline.attitude import PersonAttitude, attitude_of, is_question
from engine.offline.signal_goals import judge_signal_answer, read_subject_reply, signal_goal

_DECISION_ASK = (
    "能不能",
    "可不可以",
    "能否",
    "能换",
    "可以换",
    "改到",
    "换到",
    "推迟",
    "延期",
    "can we",
    "could we",
    "is it ok",
    "move it",
    "postpone",
)
_BLOCKER = re.compile(r"卡在|卡住|阻塞|被.{0,6}卡|blocked|stuck on", re.IGNORECASE)
_PROPOSAL = re.compile(r"方案|建议|先用|workaround|propos|suggest", re.IGNORECASE)
_TAIL = re.compile(r"[\s。.!！~～]+$")

TEXT = {
    "zh": {
        "cancelled": "发起人取消了此事，不再追问。",
        "met_time": "拿到了{names}的具体时间",
        "met_confirm": "{names}确认了",
        "met_parts": "{names}都完成了",
        "met_done": "{names}已完成",
        "met_said": "{name}答复：{reply}",
        "met_evidence": "{source}出现 {kind} 事件，视为已达成",
        "key": "{name}：{reply}",
        "decision": "{name}说：「{reply}」需要你决定。",
        "proposal": "{name}回复了：{reply}。{pron}提了个方案，需要你决定：接受这个方案，"
        "还是等卡点解决了再推进？",
        "relay": "{initiator}回复了：{reply}。{ask_line}",
        "relay_ask_q": "那{ask}？",  # ask already spaced
        "relay_ask_topic": "{ask}这边有准信了告诉我一声。",
        "ask_date": "好的，能给个具体日期吗？比如周几或几号。",
        "ask_part": "收到，{done}已经好了。{missing}现在进展怎么样？",
        "wait_promise": "等待{name}按承诺在 {at} 前回复",
        "wait_reply": "等待{name}进一步回复",
        "wait_owner": "等待{initiator}决定",
        "ask_date_what": "追问{name}具体日期",
        "ask_part_what": "追问{name}{parts}的进展",
        "soft": "语气放缓，稍后再问{name}进展",
        "follow": "按正常间隔追问{name}",
        "partial_parts": "{name}：{done}已完成，{missing}还没有进展。",
        "he": "他",
        "sep": "、",
        "and": "和",
        "key_sep": "；",
    },
    "en": {
        "cancelled": "The initiator cancelled this; no more follow-ups.",
        "met_time": "Got a specific time from {names}",
        "met_confirm": "{names} confirmed",
        "met_parts": "{names} finished every part",
        "met_done": "{names} reported it done",
        "met_said": "{name} answered: {reply}",
        "met_evidence": "A {kind} event in {source} counts as done",
        "key": "{name}: {reply}",
        "decision": '{name} said: "{reply}" — this needs your decision.',
        "proposal": "{name} replied: {reply}. {pron} proposed a workaround; please decide: "
        "accept it, or wait until the blocker is solved?",
        "relay": "{initiator} replied: {reply}. {ask_line}",
        "relay_ask_q": "So, {ask}?",
        "relay_ask_topic": "Let me know about {ask} when you can.",
        "ask_date": "Thanks — could you give me a specific date, e.g. which day?",
        "ask_part": "Thanks, {done} is done. How is {missing} going?",
        "wait_promise": "Wait for {name} until the promised time {at}",
        "wait_reply": "Wait for {name} to reply further",
        "wait_owner": "Wait for {initiator} to decide",
        "ask_date_what": "Ask {name} for a specific date",
        "ask_part_what": "Ask {name} about {parts}",
        "soft": "Ask {name} again later, gently",
        "follow": "Follow up with {name} at the normal interval",
        "partial_parts": "{name}: {done} done, {missing} not yet.",
        "he": "They",
        "sep": ", ",
        "and": " and ",
        "key_sep": "; ",
    },
}


def _name(person: Person, log: list[LogEntry]) -> str:
    if person.display_name:
        return person.display_name
    for entry in log:
        if entry.person_id == person.person_id and entry.person_name:
            return entry.person_name
    return person.person_id


def _names(names: list[str], t: dict[str, str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return t["sep"].join(names[:-1]) + t["and"] + names[-1]


def _plain(text: str) -> str:
    return _TAIL.sub("", text.strip())


def _replies(log: list[LogEntry], person_id: str) -> list[LogEntry]:
    return sorted(
        (e for e in log if e.person_id == person_id and e.direction == "inbound"),
        key=lambda e: e.ts,
    )


def _initiator_lines(ctx: LoopContext) -> list[LogEntry]:
    if ctx.initiator is None:
        return []
    return sorted(
        (
            e
            for e in ctx.conversation_log
            if e.person_id == ctx.initiator.person_id and e.direction == "inbound"
        ),
        key=lambda e: e.ts,
    )


def _cancelled(ctx: LoopContext) -> LogEntry | None:
    lines = _initiator_lines(ctx)
    latest = lines[-1] if lines else None
    return latest if latest is not None and is_cancellation(latest.text) else None


def _needs_decision(attitude: PersonAttitude) -> tuple[LogEntry, bool] | None:
    """(reply, is_proposal) when the reply needs the initiator to decide."""
    for reply in reversed(attitude.replies):
        lowered = reply.text.lower()
        if is_question(reply.text) and any(k in lowered for k in _DECISION_ASK):
            return reply, False
        if _BLOCKER.search(reply.text) and _PROPOSAL.search(reply.text):
            return reply, True
    return None


def _latest_sender(ctx: LoopContext) -> str | None:
    """Who sent the newest inbound line, when the context does not say who replied."""
    if ctx.trigger != "reply":
        return None
    inbound = [e for e in ctx.conversation_log if e.direction == "inbound"]
    return max(inbound, key=lambda e: e.ts).person_id if inbound else None


def _fmt(at: datetime, tz: str) -> str:
    return localize(at, tz).strftime("%Y-%m-%d %H:%M")


def _conclusion(
    spec: GoalSpec, met: list[tuple[Person, PersonResult]], log: list[LogEntry], t: dict[str, str]
) -> str:
    evidence = next((r for _, r in met if r.evidence is not None), None)
    if evidence is not None and evidence.evidence is not None:
        sig = evidence.evidence
        return t["met_evidence"].format(source=sig.source or "signal", kind=sig.kind)
    names = _names([_name(p, log) for p, _ in met], t)
    key = {
        GoalKind.SPECIFIC_TIME: "met_time",
        GoalKind.CONFIRMATION: "met_confirm",
        GoalKind.ALL_OF: "met_parts",
    }.get(spec.kind, "met_done")
    return t[key].format(names=names)


def judge_loop(ctx: LoopContext) -> LoopOutput:
    """One turn's judgement, with the reading of the newest reply to the concern's subject
    (`LoopOutput.reading`); a reply that moves the promise keeps the same concern waiting
    until the new time (按承诺时间设 next_action)."""
    reading = read_subject_reply(ctx)
    if reading is not None and ctx.replied_by is not None:
        replied = ctx.conversation_log[reading.line - 1] if reading.line else None
        mine = replied is not None and replied.person_id == ctx.replied_by
        if mine and reading.outcome is ReplyOutcome.MOVED and reading.new_due is not None:
            t = TEXT.get(ctx.locale, TEXT["zh"])
            assert replied is not None
            name = replied.person_name
            at = localize(reading.new_due, ctx.timezone).strftime("%m-%d %H:%M")
            return LoopOutput(
                goal_met=False,
                step=LoopStep.WAIT,
                attitude=Attitude.COMMITTED,
                promised_at=reading.new_due,
                next_action=NextAction(
                    what=t["wait_promise"].format(name=name, at=at),
                    who_person_id=replied.person_id,
                    when=reading.new_due,
                ),
                summary=f"moved to {reading.due_text}: {replied.text}",
                reading=reading,
                reasons=[f"moved: {replied.text}"],
            )
    out = _judge(ctx)
    if reading is None:
        return out
    update: dict[str, Any] = {"reading": reading}
    if out.goal_met and reading.line:
        # the back-flow states the answer's substance, not only that someone answered
        said = ctx.conversation_log[reading.line - 1]
        t = TEXT.get(ctx.locale, TEXT["zh"])
        update["conclusion"] = t["met_said"].format(name=said.person_name, reply=_plain(said.text))
    return out.model_copy(update=update)


def _judge(ctx: LoopContext) -> LoopOutput:
    t = TEXT.get(ctx.locale, TEXT["zh"])
    log = ctx.conversation_log
    cancel = _cancelled(ctx)
    if cancel is not None:
        return LoopOutput(
            goal_met=False,
            step=LoopStep.DROP,
            summary=t["cancelled"],
            conclusion=t["cancelled"],
            key_information=cancel.text,
            reasons=[f"initiator cancelled: {cancel.text}"],
        )

    spec = analyse_goal(ctx.goal)
    asked = signal_goal(ctx.goal)  # a signal's follow-up or question: read the answer itself
    people = (
        ctx.counterparts
        or [
            Person(person_id=e.person_id, display_name=e.person_name)
            for e in log
            if e.person_id and (ctx.initiator is None or e.person_id != ctx.initiator.person_id)
        ][:1]
    )
    results: list[tuple[Person, PersonResult, PersonAttitude]] = []
    for person in people:
        judge = judge_person if asked is None else partial(judge_signal_answer, asked)
        result = judge(
            spec,
            person.person_id,
            _replies(log, person.person_id),
            ctx.signals,
            ctx.timezone,
            ctx.created_at,
        )
        results.append((person, result, attitude_of(log, person.person_id, ctx.timezone)))
    reasons = [f"goal:{spec.kind}"] + [f"{p.person_id}: {r.reason}" for p, r, _ in results]
    done = [(p, r) for p, r, _ in results if r.met]
    done_ids = [p.person_id for p, _ in done]
    findings = {
        p.person_id: _plain(r.key_reply.text)
        for p, r in done
        if r.key_reply is not None and r.evidence is None
    }

    if results and len(done) == len(results):
        key = t["key_sep"].join(
            t["key"].format(name=_name(p, log), reply=_plain(r.key_reply.text))
            for p, r in done
            if r.key_reply is not None
        )
        conclusion = _conclusion(spec, done, log, t)
        promised = next(
            (r.promised.at for _, r in done if r.promised is not None and r.promised.at), None
        )
        _, _, first_att = results[0]
        return LoopOutput(
            goal_met=True,
            step=LoopStep.RESOLVE,
            summary=conclusion,
            conclusion=conclusion,
            key_information=key or conclusion,
            attitude=first_att.reading.attitude,
            promised_at=promised,
            done_person_ids=done_ids,
            findings=findings,
            reasons=reasons,
        )

    pending = [(p, r, a) for p, r, a in results if not r.met]
    if not pending:  # no counterparts at all: nothing to judge yet
        return LoopOutput(
            goal_met=False,
            step=LoopStep.WAIT,
            summary="",
            next_action=NextAction(what=t["follow"].format(name="-")),
            reasons=reasons + ["no counterpart"],
        )
    base: dict[str, Any] = {
        "goal_met": False,
        "done_person_ids": done_ids,
        "findings": findings,
        "reasons": reasons,
    }
    replied_by = ctx.replied_by or _latest_sender(ctx)
    replier = next(((p, r, a) for p, r, a in pending if p.person_id == replied_by), None)
    initiator_id = ctx.initiator.person_id if ctx.initiator else None
    ini_name = ctx.initiator.display_name if ctx.initiator else ""

    if replier is not None:
        person, result, att = replier
        name = _name(person, log)
        decision = _needs_decision(att)
        if decision is not None:
            reply, proposal = decision
            update = (
                t["proposal"].format(name=name, reply=_plain(reply.text), pron=t["he"])
                if proposal
                else t["decision"].format(name=name, reply=reply.text)
            )
            return LoopOutput(
                **base,
                step=LoopStep.WAIT,
                attitude=att.reading.attitude,
                next_action=NextAction(
                    what=t["wait_owner"].format(initiator=ini_name), who_person_id=initiator_id
                ),
                owner_update=update,
                summary=result.reason,
                key_information=reply.text,
            )

    if ctx.trigger == "reply" and initiator_id and replied_by == initiator_id:
        said = _initiator_lines(ctx)
        if said:
            ask = ask_from(ctx.request, ctx.title, [_name(p, log) for p in people])
            ask_line = t["relay_ask_q" if ask_is_question(ask) else "relay_ask_topic"].format(
                ask=spaced(ask) if ctx.locale != "en" else ask
            )
            text = t["relay"].format(
                initiator=ini_name or "-", reply=_plain(said[-1].text), ask_line=ask_line
            )
            return LoopOutput(
                **base,
                step=LoopStep.FOLLOW_UP,
                summary="relay initiator",
                messages=[OutboundDraft(person_id=p.person_id, text=text) for p, _, _ in pending],
                key_information=said[-1].text,
            )

    person, result, att = replier or pending[0]
    name = _name(person, log)
    attitude = att.reading.attitude
    summary = "; ".join([result.reason, *att.reading.cues])
    promised_at = att.reading.promised.at if att.reading.promised else None
    owner_update = ""
    messages: list[OutboundDraft] = []
    step, when = LoopStep.FOLLOW_UP, None
    if replier is not None:
        vague_time = att.reading.promised is not None and not att.reading.promised.specific
        if spec.kind is GoalKind.SPECIFIC_TIME and vague_time:
            what = t["ask_date_what"].format(name=name)  # 大概这两天 / 下周: 追问具体日期
            messages = [OutboundDraft(person_id=person.person_id, text=t["ask_date"])]
        elif spec.kind is GoalKind.ALL_OF and result.done_parts and result.missing_parts:
            what = t["ask_part_what"].format(name=name, parts=t["sep"].join(result.missing_parts))
            messages = [
                OutboundDraft(
                    person_id=person.person_id,
                    text=t["ask_part"].format(
                        done=t["sep"].join(result.done_parts),
                        missing=t["sep"].join(result.missing_parts),
                    ),
                )
            ]
            owner_update = t["partial_parts"].format(
                name=name,
                done=t["sep"].join(result.done_parts),
                missing=t["sep"].join(result.missing_parts),
            )
        elif attitude is Attitude.COMMITTED and promised_at is not None:
            step, when = LoopStep.WAIT, promised_at
            what = t["wait_promise"].format(name=name, at=_fmt(promised_at, ctx.timezone))
        elif attitude is Attitude.RESISTANT_WORKING:
            step, what = LoopStep.WAIT, t["soft"].format(name=name)
        else:
            step, what = LoopStep.WAIT, t["follow"].format(name=name)
    elif (
        attitude is Attitude.COMMITTED
        and promised_at is not None
        and promised_at > localize(ctx.now, ctx.timezone)
    ):
        step, when = LoopStep.WAIT, promised_at
        what = t["wait_promise"].format(name=name, at=_fmt(promised_at, ctx.timezone))
    elif attitude is Attitude.RESISTANT_WORKING:
        what = t["soft"].format(name=name)
    else:
        what = t["follow"].format(name=name)
    return LoopOutput(
        **base,
        step=step,
        attitude=attitude,
        next_action=NextAction(what=what, who_person_id=person.person_id, when=when),
        summary=summary,
        owner_update=owner_update,
        promised_at=promised_at,
        key_information=att.replies[-1].text if att.replies else "",
        messages=messages,
    )
