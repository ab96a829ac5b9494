"""Sending windows (docs/rules/concerns.md#follow-up-intervals: a priority "影响发送时段", so
people are not disturbed out of hours).

A message to a counterpart goes out inside its priority's window; one decided outside it is
recorded at once (outbox, conversation_log, timeline) and delivered when the window opens:

| priority | window          | default (policy timezone)                          |
|----------|-----------------|----------------------------------------------------|
| critical | any time        | —                                                  |
| high     | extended hours  | 08:00–22:00, every day                             |
| medium   | working hours   | 09:00–18:00, Monday to Friday                      |
| low      | working hours   | 09:00–18:00, Monday to Friday                      |

Hours and days come from `ConcernPolicy` (env CONCERN_WORK_START / _END / _WORKDAYS and
CONCERN_EXTENDED_START / _END / _DAYS, README). Reports to the initiator keep their own rule
(working hours, critical exempt: reports.py); the back-flow is never held.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from enum import StrEnum

from engine.concern.model import Priority
from engine.concern.policy import ConcernPolicy


class SendWindow(StrEnum):
    ANY_TIME = "any_time"
    EXTENDED_HOURS = "extended_hours"
    WORKING_HOURS = "working_hours"


WINDOWS: dict[Priority, SendWindow] = {
    Priority.CRITICAL: SendWindow.ANY_TIME,
    Priority.HIGH: SendWindow.EXTENDED_HOURS,
    Priority.MEDIUM: SendWindow.WORKING_HOURS,
    Priority.LOW: SendWindow.WORKING_HOURS,
}

_LABELS = {
    "zh": {
        SendWindow.ANY_TIME: "任何时间",
        SendWindow.EXTENDED_HOURS: "延长时段",
        SendWindow.WORKING_HOURS: "工作时间",
    },
    "en": {
        SendWindow.ANY_TIME: "any time",
        SendWindow.EXTENDED_HOURS: "extended hours",
        SendWindow.WORKING_HOURS: "working hours",
    },
}


def window_of(priority: Priority) -> SendWindow:
    return WINDOWS[priority]


def window_label(priority: Priority, locale: str = "zh") -> str:
    return _LABELS.get(locale, _LABELS["zh"])[window_of(priority)]


def next_open(
    t: datetime, start: time, end: time, days: frozenset[int], policy: ConcernPolicy
) -> datetime:
    """`t` itself inside [start, end) on one of `days` (policy timezone), else the next start."""
    local = t.astimezone(policy.tz)
    if local.weekday() in days and start <= local.time() < end:
        return t
    day = local.date()
    if not (local.weekday() in days and local.time() < start):
        day += timedelta(days=1)
    for _ in range(8):
        if day.weekday() in days:
            return datetime.combine(day, start, tzinfo=policy.tz)
        day += timedelta(days=1)
    raise ValueError("a sending window has no day")


def next_send_time(t: datetime, priority: Priority, policy: ConcernPolicy) -> datetime:
    """The earliest instant from `t` on at which a message of `priority` may go out."""
    window = window_of(priority)
    if window == SendWindow.ANY_TIME:
        return t
    if window == SendWindow.EXTENDED_HOURS:
        return next_open(
            t, policy.extended_start, policy.extended_end, policy.extended_days, policy
        )
    return next_open(t, policy.work_start, policy.work_end, policy.workdays, policy)


def when_text(at: datetime, policy: ConcernPolicy) -> str:
    """A delivery time as the reader's calendar shows it (policy timezone)."""
    return at.astimezone(policy.tz).strftime("%Y-%m-%d %H:%M")


def first_contact_time(
    due: datetime | None, now: datetime, priority: Priority, policy: ConcernPolicy
) -> datetime:
    """When a follow-up raised for a promise first contacts the person: at the promised time,
    or when the priority's sending window next opens after it — never before it (按承诺时间设
    next_action，不提前追问: a promise due Thursday 18:00 is not asked about at 17:00), and
    never before `now`.

    | promised time                          | first contact                          |
    |----------------------------------------|----------------------------------------|
    | inside the window                      | the promised time                      |
    | outside it (after hours, a rest day)   | the window's next opening after it     |
    | already past, or none                  | now, moved into the window             |
    """
    if due is None or due <= now:
        return next_send_time(now, priority, policy)
    window = window_of(priority)
    if window == SendWindow.ANY_TIME:
        return due
    if window == SendWindow.EXTENDED_HOURS:
        start, end, days = policy.extended_start, policy.extended_end, policy.extended_days
    else:
        start, end, days = policy.work_start, policy.work_end, policy.workdays
    return next_open(due, start, end, days, policy)
