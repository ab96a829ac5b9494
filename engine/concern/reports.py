"""Mid-course reports (docs/rules/concerns.md).

Nodes and templates (no model call for these):

| node                 | kind           | zh template                                   |
|----------------------|----------------|-----------------------------------------------|
| 创建 → pending        | created        | 好的，我来联系{target_name}，有进展及时同步给你。 |
| pending → 已发出      | contacted      | 已经联系{target_name}了，等{pronoun}回复。       |
| 等待中 → 超时未回     | timeout_retry  | {target_name}还没回复，我再跟一下。             |
| 收到部分结果          | partial        | {done_names}确认了，{pending_names}还没回。      |
| 复杂回复 / 需要决定    | owner_update   | the agent loop's own `owner_update`, verbatim  |

A partial report names what each settled person said when the loop gave a finding
("李四说前端部分周四能提测。"); when the same decision also retries the pending people, the
timeout_retry sentence names them instead of repeating "还没回". A non-empty `owner_update`
replaces the templates of that decision (the complex case); an empty one disturbs nobody.

Not reported: drafts, internal reasoning, tool-call retries (none of them is a node: they
produce no report kind), and silent concerns — low priority with no initiator.

Rate limits (汇报频率约束), applied by `schedule_report`:
- at least `report_min_gap` (30 min) between two mid-course reports of one concern — a
  report inside the gap is deferred to the end of it;
- at most `daily_report_cap` a day per recipient — beyond it a template report is skipped
  (a later report or the back-flow supersedes it; the timeline records the skip) while an
  `owner_update` is deferred to the next working period;
- outside working hours (policy timezone, work_start–work_end on workdays) deferred to the
  next working period, whatever the priority: the rule names no exemption (priority governs
  when follow-ups to counterparts may go out, not mid-course reports to the initiator).
The same limits hold for every report to the owner, the agenda's reports of a blocker or
risk included (`jobs/concern/agenda.py`).
The back-flow is the final result, not a mid-course report: none of these limits apply.

When a concern closes (resolved or dropped) its mid-course reports still waiting in the
outbox (deferred by the limits above) are superseded (`supersede_reports`): never sent after
the back-flow, and the timeline says how many and which. The outbox's due query also never
returns a mid-course report of a closed concern.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from engine.concern.backflow import route
from engine.concern.context import LoopContext
from engine.concern.effects import (
    Recipient,
    ReportKind,
    ReportToOwner,
    SupersedeReports,
    effect_key,
)
from engine.concern.model import Concern, Priority, TimelineEntry, TimelineType
from engine.concern.policy import ConcernPolicy
from engine.concern.window import next_open

TEMPLATES: dict[str, dict[str, str]] = {
    "zh": {
        "created": "好的，我来联系{target_name}，有进展及时同步给你。",
        "contacted": "已经联系{target_name}了，等{pronoun}回复。",
        "timeout_retry": "{target_name}还没回复，我再跟一下。",
        "partial": "{done_names}确认了，{pending_names}还没回。",
        "partial_done": "{done_names}确认了。",
        "finding": "{name}说{finding}。",
    },
    "en": {
        "created": "OK, I'll contact {target_name} and keep you posted.",
        "contacted": "I've contacted {target_name} and am waiting for {pronoun} reply.",
        "timeout_retry": "{target_name} hasn't replied yet; I'll follow up again.",
        "partial": "{done_names} confirmed; {pending_names} hasn't replied yet.",
        "partial_done": "{done_names} confirmed.",
        "finding": "{name} says {finding}.",
    },
}


def _t(locale: str) -> dict[str, str]:
    return TEMPLATES.get(locale, TEMPLATES["zh"])


def join_names(names: Sequence[str], locale: str = "zh") -> str:
    names = list(names)
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    if locale == "en":
        return ", ".join(names[:-1]) + " and " + names[-1]
    return "、".join(names[:-1]) + "和" + names[-1]


def pronoun(count: int, locale: str = "zh") -> str:
    if locale == "en":
        return "their"
    return "他们" if count > 1 else "他"


def acknowledges(concern: Concern) -> bool:
    """Whether the initiator is sent acknowledgements (created, contacted, still chasing):
    only for what they asked for. A follow-up the agenda raised on its own (a signal's) tells
    the owner its result and what needs them, never "好的，我来联系李四"."""
    return concern.agenda_role != "signal"


def created_text(targets: Sequence[str], locale: str = "zh") -> str:
    return _t(locale)["created"].format(target_name=join_names(targets, locale))


def contacted_text(targets: Sequence[str], locale: str = "zh") -> str:
    return _t(locale)["contacted"].format(
        target_name=join_names(targets, locale), pronoun=pronoun(len(targets), locale)
    )


def timeout_retry_text(targets: Sequence[str], locale: str = "zh") -> str:
    return _t(locale)["timeout_retry"].format(target_name=join_names(targets, locale))


def partial_text(
    done: Sequence[tuple[str, str]],
    pending: Sequence[str],
    locale: str = "zh",
    *,
    pending_named_elsewhere: bool = False,
) -> str:
    """`done` is (name, finding) pairs; an empty finding means "confirmed" only."""
    t = _t(locale)
    with_finding = [t["finding"].format(name=n, finding=f) for n, f in done if f]
    plain = [n for n, f in done if not f]
    if not with_finding and pending and not pending_named_elsewhere:
        return t["partial"].format(
            done_names=join_names(plain, locale), pending_names=join_names(pending, locale)
        )
    parts = list(with_finding)
    if plain:
        parts.append(t["partial_done"].format(done_names=join_names(plain, locale)))
    text = ("" if locale != "en" else " ").join(parts)
    if pending and not pending_named_elsewhere:
        tail = {"zh": "{p}还没回。", "en": "{p} hasn't replied yet."}[
            "en" if locale == "en" else "zh"
        ]
        text = join_sentences([text, tail.format(p=join_names(pending, locale))], locale)
    return text


def join_sentences(parts: Sequence[str], locale: str = "zh") -> str:
    parts = [p for p in parts if p]
    return (" " if locale == "en" else "").join(parts)


def is_silent(concern: Concern) -> bool:
    """docs/rules/concerns.md: 静默级 concern（low 优先级且无发起人）— never reported."""
    return concern.priority == Priority.LOW and concern.initiator is None


def report_recipient(concern: Concern, context: LoopContext) -> Recipient | None:
    """The initiator, else the owner; None for silent concerns."""
    if is_silent(concern):
        return None
    ini = concern.initiator
    if ini is not None:
        return Recipient(
            name=ini.name,
            channel=ini.channel,
            channel_user_id=ini.channel_user_id,
            person_id=ini.person_id,
        )
    return context.owner


class ReportSlot(BaseModel):
    model_config = ConfigDict(frozen=True)

    deliver_at: datetime | None  # None: skipped
    reason: str


def next_working_time(t: datetime, policy: ConcernPolicy) -> datetime:
    """`t` itself inside working hours, else the start of the next working period."""
    return next_open(t, policy.work_start, policy.work_end, policy.workdays, policy)


def schedule_report(
    kinds: Sequence[ReportKind],
    *,
    now: datetime,
    last_report_at: datetime | None,
    reports_today: int,
    priority: Priority,
    policy: ConcernPolicy,
) -> ReportSlot:
    """When a mid-course report of these kinds may be delivered, or None when skipped."""
    needs_decision = ReportKind.OWNER_UPDATE in kinds
    t = now
    reason = "now"
    if reports_today >= policy.daily_report_cap:
        if not needs_decision:
            return ReportSlot(deliver_at=None, reason="daily cap reached")
        local_day = now.astimezone(policy.tz).date() + timedelta(days=1)
        t = datetime.combine(local_day, policy.work_start, tzinfo=policy.tz)
        reason = "daily cap reached: next working period"
    if last_report_at is not None and t < last_report_at + policy.report_min_gap:
        t = last_report_at + policy.report_min_gap
        reason = "min gap"
    moved = next_working_time(t, policy)
    if moved != t:
        t, reason = moved, f"outside working hours ({priority.value} too)"
    return ReportSlot(deliver_at=t, reason=reason)


def build_report(
    concern: Concern,
    kinds: Sequence[ReportKind],
    text: str,
    *,
    now: datetime,
    policy: ConcernPolicy,
    context: LoopContext,
    job_id: str,
) -> tuple[Concern, ReportToOwner | None]:
    """A rate-limited report effect and the concern with its report bookkeeping updated."""
    recipient = report_recipient(concern, context)
    if recipient is None or not text.strip() or not kinds:
        return concern, None
    slot = schedule_report(
        kinds,
        now=now,
        last_report_at=concern.last_report_at,
        reports_today=context.reports_today,
        priority=concern.priority,
        policy=policy,
    )
    if slot.deliver_at is None:
        # skipped, not silent: the timeline says which report the daily cap withheld
        skipped = TimelineEntry(
            ts=now,
            type=TimelineType.REPORT,
            detail=f"汇报（{'+'.join(kinds)}）：{slot.reason}，未发送",
        )
        return concern.model_copy(update={"timeline": [*concern.timeline, skipped]}), None
    routed = route(
        recipient,
        context.preferred_channels.get(recipient.person_id or ""),
        context.unreachable_channels,
    )
    effect = ReportToOwner(
        key=effect_key(job_id, "report", "owner"),
        concern_id=concern.concern_id,
        recipient=routed,
        text=text,
        report_kinds=tuple(kinds),
        deliver_at=slot.deliver_at,
    )
    entry = TimelineEntry(
        ts=now,
        type=TimelineType.REPORT,
        detail=f"汇报（{'+'.join(kinds)}）：{slot.reason}",
    )
    updated = concern.model_copy(
        update={"last_report_at": slot.deliver_at, "timeline": [*concern.timeline, entry]}
    )
    return updated, effect


def supersede_reports(
    concern: Concern, context: LoopContext, *, now: datetime, job_id: str, locale: str = "zh"
) -> tuple[Concern, SupersedeReports | None]:
    """A concern that just closed: its undelivered mid-course reports are superseded — the
    back-flow (or the closing notice) is the last word, and nothing of before goes out after
    it. The timeline names what was withdrawn."""
    stale = [m for m in context.pending_messages if m.is_progress_report]
    if not stale:
        return concern, None
    kinds = sorted({k for m in stale for k in m.report_kinds})
    joined = "、".join(kinds) if locale != "en" else ", ".join(kinds)
    detail = (
        f"{len(stale)} superseded progress report(s) never sent ({joined}): the concern closed"
        if locale == "en"
        else f"{len(stale)} 条未发送的中途汇报已作废（{joined}）：事项已关闭，不再发送"
    )
    entry = TimelineEntry(ts=now, type=TimelineType.REPORT, detail=detail)
    effect = SupersedeReports(
        key=effect_key(job_id, "supersede", concern.concern_id),
        concern_id=concern.concern_id,
        keys=tuple(m.key for m in stale),
    )
    return concern.model_copy(update={"timeline": [*concern.timeline, entry]}), effect
