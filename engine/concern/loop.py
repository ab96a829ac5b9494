"""The agent-loop decision (docs/rules/concerns.md).

`decide(concern, trigger, loop_output, now, policy, context)` is the whole turn after the
model (or the offline rule model) has answered. It returns the new concern and the typed
outbox items; the arq job persists both in one transaction and performs the outbox.

Order of rules:
1. A closed concern, a trigger whose job id this concern already handled, or a time trigger
   the concern has moved past (`scheduler.is_stale`) is a no-op: a job that runs twice never
   sends twice (and effect keys are stable anyway).
2. `pending` enters the loop (`in_progress`); a related fact is written to the timeline.
3. schedule_due on a schedule concern: the run does its mode's part (schedule.py: direct
   message, hand-off to the initiator's conversation, or the system's own run) and goes to
   `executions`; a one-shot (or finished) direct/system schedule then resolves without
   back-flow (docs/rules/concerns.md) — a system run whose goal was not met ends dropped with
   what it found, never resolved; a handed-off run waits for the initiator's answer, which
   completes it (and resolves a one-shot).
4. step=drop — cancelled by the initiator ("算了不用问了"): dropped, no back-flow.
5. goal_met (direct reply or indirect evidence such as a merge for "提测"): resolved, back-flow
   with the four fields, agenda ref removed and a recent decision written.
6. step=escalate: escalated, the initiator (or owner) is told why.
7. Otherwise the goal is not met (partial achievement → follow up on what is missing):
   messages go out under the interval/attitude rules (outreach.py); at the follow-up limit
   critical/high escalate and medium/low are dropped; the next_action is planned; mid-course
   reports (reports.py) are built — partial, contacted, timeout_retry, or the loop's own
   owner_update instead.
8. A decision that closes the concern supersedes its undelivered mid-course reports
   (`reports.supersede_reports`): the timeline says so, the outbox marks them superseded.
`resolve` without `goal_met` is refused (`InvalidInput`): only the goal decides.
"""

from __future__ import annotations

from datetime import datetime

from engine.concern.agenda import sync
from engine.concern.attitude import plan_next_followup
from engine.concern.backflow import backflow_target, compose_backflow, route
from engine.concern.context import LoopContext
from engine.concern.effects import (
    BackflowMessage,
    Decision,
    Effect,
    Escalate,
    ReportKind,
    effect_key,
)
from engine.concern.followup import LimitOutcome, final_wait, limit_outcome, max_followups
from engine.concern.loop_output import Attitude, LoopOutput, LoopStep, NextAction
from engine.concern.model import (
    Concern,
    ConcernStatus,
    ConcernType,
    PersonRef,
    TimelineType,
)
from engine.concern.outreach import Outreach, plan_drafts, send
from engine.concern.policy import ConcernPolicy
from engine.concern.reports import (
    acknowledges,
    build_report,
    contacted_text,
    join_sentences,
    partial_text,
    report_recipient,
    supersede_reports,
    timeout_retry_text,
)
from engine.concern.schedule import record_answer, run_due
from engine.concern.scheduler import Trigger, TriggerKind, is_stale
from engine.concern.states import add_timeline, ensure_status, is_terminal, transition
from engine.concern.wording import limit_notice, limit_reason, silence_notice, stuck_notice
from engine.errors import InvalidInput
from engine.llm.reading import ReplyOutcome

S = ConcernStatus


def decide(
    concern: Concern,
    trigger: Trigger,
    loop_output: LoopOutput,
    now: datetime,
    policy: ConcernPolicy,
    context: LoopContext | None = None,
) -> Decision:
    context = context or LoopContext()
    jid = trigger.job_id(concern.concern_id)
    if is_terminal(concern.status) or jid in concern.handled_triggers or is_stale(concern, trigger):
        return Decision(new_concern=concern, job_id=jid, noop=True)
    if loop_output.step == LoopStep.RESOLVE and not loop_output.goal_met:
        raise InvalidInput("resolve without goal_met", concern_id=concern.concern_id)

    turn = _Turn(concern, trigger, loop_output, now, policy, context, jid)
    turn.run()
    c = _with_reading(turn.c, loop_output, now)
    agenda = sync(concern, c, jid, turn.reason, now)
    effects = [*turn.effects, *([agenda] if agenda is not None else [])]
    if is_terminal(c.status):
        c, superseded = supersede_reports(c, context, now=now, job_id=jid, locale=policy.locale)
        if superseded is not None:
            effects.append(superseded)
    handled = [*c.handled_triggers, jid][-policy.handled_triggers_keep :]
    c = c.model_copy(
        update={"handled_triggers": handled, "revision": concern.revision + 1, "updated_at": now}
    )
    return Decision(new_concern=c, effects=tuple(effects), job_id=jid)


def _with_reading(c: Concern, out: LoopOutput, now: datetime) -> Concern:
    """Keep the loop's newest reading of a reply to the concern's subject (the story graph
    is written from it, never from the words again); a reply that moves the promise is one
    timeline entry, and the concern waits for the new time."""
    reading = out.reading
    if reading is None or reading == c.reading:
        return c
    c = c.model_copy(update={"reading": reading})
    if reading.outcome is ReplyOutcome.MOVED and reading.definite and reading.new_due:
        when = reading.due_text or reading.new_due.isoformat()
        c = add_timeline(c, now, TimelineType.DECISION, f"承诺改到{when}，届时再问")
    return c


class _Turn:
    """One loop turn's working state; `run` applies the rules in the module's order."""

    def __init__(
        self,
        concern: Concern,
        trigger: Trigger,
        out: LoopOutput,
        now: datetime,
        policy: ConcernPolicy,
        context: LoopContext,
        jid: str,
    ) -> None:
        self.c = concern
        self.trigger = trigger
        self.out = out
        self.now = now
        self.policy = policy
        self.context = context
        self.jid = jid
        self.effects: list[Effect] = []
        self.reason = out.summary

    def run(self) -> None:
        if self.trigger.kind == TriggerKind.RELATED_FACT:
            self.c = add_timeline(
                self.c, self.now, TimelineType.FACT, self.trigger.detail or "新的相关事实"
            )
        if self.c.status == S.PENDING:
            self.c = transition(self.c, S.IN_PROGRESS, self.now, "进入处理循环")
        self._mark_done()
        if self.out.step == LoopStep.ESCALATE and self._silence_only():
            # silence follows the table: chase (or hit the limit) instead
            self.out = self.out.model_copy(
                update={"step": LoopStep.FOLLOW_UP, "messages": [], "next_action": None}
            )
        if self.out.step == LoopStep.DROP:
            self._close(S.DROPPED, "发起人取消：" + (self.out.summary or "不再需要"))
        elif self.trigger.kind == TriggerKind.SCHEDULE_DUE and self.c.type == ConcernType.SCHEDULE:
            self._run_schedule()
        elif self._answers_handoff():
            self._answer_handoff()
        elif self.c.type == ConcernType.SCHEDULE and self.c.awaiting_run is not None:
            # a handed-off run waits for the initiator, whatever else arrives
            self.c = ensure_status(self.c, S.WAITING_REPLY, self.now, "仍在等待会话答复")
        elif self.out.goal_met:
            self._resolve()
        elif self.out.step == LoopStep.ESCALATE:
            self._escalate(
                self.out.summary or "需要更高层处理",
                self.out.owner_update.strip() or stuck_notice(self.c, self.policy.locale),
            )
        else:
            self._advance()

    def _answers_handoff(self) -> bool:
        return (
            self.c.type == ConcernType.SCHEDULE
            and self.c.awaiting_run is not None
            and self.trigger.kind == TriggerKind.REPLY
            and self.c.is_initiator(self.trigger.person_id or "")
        )

    def _silence_only(self) -> bool:
        """A time trigger with every pending counterpart silent: the silence table decides.

        docs/rules/concerns.md: silence runs the interval table up to the priority's maximum,
        then critical/high escalate and medium/low are dropped — whatever the model proposes
        (a model that escalates a silent low concern would skip the drop that rule requires).
        """
        if self.trigger.kind not in (TriggerKind.TIMEOUT, TriggerKind.NEXT_ACTION_DUE):
            return False
        pending = self.c.pending_counterparts
        return bool(pending) and all(
            p.last_outbound_at is not None and not p.replied_since_last_outbound for p in pending
        )

    # -- closing -------------------------------------------------------------------------

    def _close(self, status: ConcernStatus, reason: str) -> None:
        self.reason = reason
        self.c = transition(self.c, status, self.now, reason)

    def _resolve(self) -> None:
        self._close(S.RESOLVED, "目标达成：" + (self.out.conclusion or self.out.summary))
        target = backflow_target(self.c, self.context.owner)
        if target is None:
            return
        recipient = route(
            target,
            self.context.preferred_channels.get(target.person_id or ""),
            self.context.unreachable_channels,
        )
        text = compose_backflow(
            self.c,
            conclusion=self.out.conclusion or self.out.summary,
            key_information=self.out.key_information,
            now=self.now,
            locale=self.policy.locale,
            note=self.out.backflow_note,
        )
        self.effects.append(
            BackflowMessage(
                key=effect_key(self.jid, "backflow", recipient.person_id or recipient.name),
                concern_id=self.c.concern_id,
                recipient=recipient,
                text=text,
            )
        )
        self.c = add_timeline(self.c, self.now, TimelineType.BACKFLOW, f"已回流给{target.name}")

    def _escalate(self, reason: str, text: str) -> None:
        """`reason` is recorded (timeline, agenda); `text` is what the person reads."""
        self.reason = reason
        if self.c.status == S.ESCALATED:
            return
        self.c = transition(self.c, S.ESCALATED, self.now, "升级：" + reason)
        self.c = self.c.model_copy(update={"next_action": None})
        recipient = report_recipient(self.c, self.context) or self.context.owner
        self.effects.append(
            Escalate(
                key=effect_key(self.jid, "escalate", self.c.concern_id),
                concern_id=self.c.concern_id,
                reason=reason,
                recipient=recipient,
                text=text,
            )
        )
        self.c = add_timeline(self.c, self.now, TimelineType.ESCALATION, reason)

    def _run_schedule(self) -> None:
        """A due run does its mode's part (schedule.py); only then may the concern close."""
        run = run_due(self.c, self.out, now=self.now, policy=self.policy, job_id=self.jid)
        self.c = run.concern
        self.effects.extend(run.effects)
        if self.c.awaiting_run is not None:
            self.c = ensure_status(self.c, S.WAITING_REPLY, self.now, "已交给会话，等待答复")
        elif run.finished:
            last = self.c.executions[-1] if self.c.executions else None
            if last is not None and last.outcome == "not_met":
                # a system run that did not reach its goal ends by what it did: not resolved
                self._close(S.DROPPED, f"定时事项已执行，目标未达成：{last.detail}")
            else:
                self._close(S.RESOLVED, "定时事项已执行完毕")

    def _answer_handoff(self) -> None:
        """The initiator answered a handed-off run: the run is done, recorded with the answer."""
        self.c, finished = record_answer(self.c, self.trigger.person_id or "", self.now)
        if finished:
            self._close(S.RESOLVED, "定时事项已在会话中处理完毕")

    # -- not met: follow up, wait, investigate --------------------------------------------

    def _mark_done(self) -> None:
        counterpart_ids = {p.person_id for p in self.c.counterparts}
        fresh = [
            pid
            for pid in self.out.done_person_ids
            if pid in counterpart_ids and pid not in self.c.done_person_ids
        ]
        self.newly_done = fresh
        if fresh:
            self.c = self.c.model_copy(
                update={"done_person_ids": [*self.c.done_person_ids, *fresh]}
            )
        self._apply_attitude()

    def _apply_attitude(self) -> None:
        att = self.out.attitude
        if att == Attitude.NONE:
            return
        people: list[PersonRef] = []
        for p in self.c.people:
            hit = (
                p.person_id == self.trigger.person_id
                if self.trigger.kind == TriggerKind.REPLY
                else att == Attitude.SILENT and not p.replied_since_last_outbound
            )
            people.append(p.model_copy(update={"last_attitude": att}) if hit else p)
        self.c = self.c.model_copy(update={"people": people})

    def _advance(self) -> None:
        drafts = plan_drafts(self.c, self.trigger, self.out, self.policy.locale)
        reached = send(
            self.c,
            drafts,
            self.trigger,
            now=self.now,
            policy=self.policy,
            context=self.context,
            job_id=self.jid,
        )
        if reached.limit_hit:
            self._at_limit()
            return
        if reached.escalate_reason:
            n = self.policy.silent_followups_before_alternatives
            notice = silence_notice(self.c, reached.silent_names, n, self.policy.locale)
            self._escalate(reached.escalate_reason, notice)
            return
        self.c = reached.concern
        self.effects.extend(reached.sends)
        if reached.sends:
            if self.c.status == S.ESCALATED:
                self.c = transition(self.c, S.IN_PROGRESS, self.now, "重新跟进")
            self.c = ensure_status(self.c, S.WAITING_REPLY, self.now, "已联系，等待回复")
        self._plan_next(reached)
        self._report(reached)

    def _at_limit(self) -> None:
        """docs/rules/concerns.md: at the maximum critical/high escalate; medium/low are dropped
        (written to recent_decisions by the agenda sync) and the initiator is told in plain
        words."""
        c, locale = self.c, self.policy.locale
        n = max_followups(c.priority) or c.followup_count
        pending = c.pending_counterparts
        silent = [p.display_name for p in pending if not p.replied_since_last_outbound]
        names = silent or [p.display_name for p in pending]
        escalate = limit_outcome(c.priority) == LimitOutcome.ESCALATE
        notice = limit_notice(c, names, n, escalate=escalate, locale=locale)
        reason = limit_reason(n, escalate=escalate, locale=locale)
        if escalate:
            self._escalate(reason, notice)
            return
        self._close(S.DROPPED, reason)
        self.c, report = build_report(
            self.c,
            [ReportKind.DROPPED],
            notice,
            now=self.now,
            policy=self.policy,
            context=self.context,
            job_id=self.jid,
        )
        if report is not None:
            self.effects.append(report)

    def _focus(self, reached: Outreach) -> PersonRef | None:
        c = self.c
        if self.trigger.kind == TriggerKind.REPLY:
            replier = c.person(self.trigger.person_id or "")
            if replier is not None and replier in c.pending_counterparts:
                return replier
        for send_ in reached.sends:
            person = c.person(send_.person_id)
            if person is not None and not c.is_initiator(person.person_id):
                return person
        waiting = [p for p in c.pending_counterparts if not p.replied_since_last_outbound]
        candidates = waiting or c.pending_counterparts
        return candidates[0] if candidates else None

    def _plan_next(self, reached: Outreach) -> None:
        c, now, out = self.c, self.now, self.out
        focus = self._focus(reached)
        messaged = {s.person_id for s in reached.sends}
        fallback = now + final_wait(c.priority)
        plan_when = fallback
        if focus is not None:
            plan = plan_next_followup(
                focus.last_attitude,
                c.priority,
                c.followup_count,
                now,
                promised_at=out.promised_at,
                silent_followups=focus.silent_followups,
                silent_threshold=self.policy.silent_followups_before_alternatives,
            )
            plan_when = plan.when or fallback
            fresh_reply = (
                self.trigger.kind == TriggerKind.REPLY
                and self.trigger.person_id == focus.person_id
                and focus.person_id not in messaged
            )
            if fresh_reply:
                # the attitude of this reply sets when they may be chased next
                focus = focus.model_copy(update={"followup_not_before": plan_when})
                people = [focus if p.person_id == focus.person_id else p for p in c.people]
                c = c.model_copy(update={"people": people})
            elif focus.followup_not_before is not None and focus.followup_not_before > now:
                plan_when = focus.followup_not_before
        wanted = out.next_action.when if out.next_action is not None else None
        when = wanted if wanted is not None and wanted > now else plan_when
        if focus is not None and focus.followup_not_before is not None:
            when = max(when, focus.followup_not_before)
        if reached.blocked_until is not None:
            when = min(when, reached.blocked_until)
        name = focus.display_name if focus is not None else ""
        default_what = f"等待{name}回复" if c.status == S.WAITING_REPLY else f"跟进{name}"
        what = out.next_action.what if out.next_action is not None else default_what
        who = (out.next_action.who_person_id if out.next_action is not None else None) or (
            focus.person_id if focus is not None else None
        )
        self.c = c.model_copy(
            update={"next_action": NextAction(what=what, who_person_id=who, when=when)}
        )

    def _report(self, reached: Outreach) -> None:
        c, locale = self.c, self.policy.locale
        kinds: list[ReportKind] = []
        parts: list[str] = []
        if self.out.owner_update.strip():
            kinds, parts = [ReportKind.OWNER_UPDATE], [self.out.owner_update.strip()]
        else:
            if self.newly_done:
                done = [
                    (p.display_name, self.out.findings.get(p.person_id, ""))
                    for p in c.counterparts
                    if p.person_id in self.newly_done
                ]
                pending = [p.display_name for p in c.pending_counterparts]
                retrying = set(reached.retry_names) >= set(pending) and bool(pending)
                kinds.append(ReportKind.PARTIAL)
                parts.append(partial_text(done, pending, locale, pending_named_elsewhere=retrying))
            if reached.initial_names and acknowledges(c):
                kinds.append(ReportKind.CONTACTED)
                parts.append(contacted_text(reached.initial_names, locale))
            if reached.retry_names and acknowledges(c):
                kinds.append(ReportKind.TIMEOUT_RETRY)
                parts.append(timeout_retry_text(reached.retry_names, locale))
        self.c, report = build_report(
            c,
            kinds,
            join_sentences(parts, locale),
            now=self.now,
            policy=self.policy,
            context=self.context,
            job_id=self.jid,
        )
        if report is not None:
            self.effects.append(report)
