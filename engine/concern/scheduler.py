"""What the ConcernScheduler's scans select, and the stable job id (docs/rules/concerns.md).

The three scans partition the live concerns, so one due item is picked by exactly one scan:

| scan                | selects (never type schedule unless said)          | trigger         |
|---------------------|----------------------------------------------------|-----------------|
| scan_due_concerns() | pending / in_progress / escalated, next_action due | next_action_due |
| scan_timeouts()     | waiting_reply, next_action due (= reply deadline)  | timeout         |
| scan_schedules()    | type schedule, not closed, trigger.next_run_at due | schedule_due    |

"Due" means `<= now`.
v3.0: a timeout never sends a fixed reminder; it only enqueues the agent loop.
The event key of a time-driven trigger is the due time itself in UTC, so every worker that
sees the same due item derives the same job id and arq enqueues it once; whether a trigger
is stale compares instants, not texts.

The graph scans (`graph/concern/scans.py`) apply these rules in Cypher over indexes that
hold every property they read, and return each due item as its concern id and due instant:
no document is read, and a `ScheduledJob` derives its trigger and job id only when used.
`select` applies the same rules to documents or `DueFacts` (id, type, status, the two due
times: all the rules look at).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from engine.clock import epoch_us, from_epoch_us
from engine.concern.model import Concern, ConcernStatus, ConcernType
from engine.concern.states import is_terminal


class TriggerKind(StrEnum):
    """docs/rules/concerns.md."""

    NEXT_ACTION_DUE = "next_action_due"
    REPLY = "reply"
    TIMEOUT = "timeout"
    SCHEDULE_DUE = "schedule_due"
    RELATED_FACT = "related_fact"


class Trigger(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: TriggerKind
    event_key: str  # due time (iso), inbound message id, or the fact's id
    person_id: str | None = None  # reply: who replied
    detail: str = ""  # related_fact: what the cognitive hub reported

    def job_id(self, concern_id: str) -> str:
        return job_id(concern_id, self.kind, self.event_key)


def job_id(concern_id: str, trigger: TriggerKind | str, event_key: str) -> str:
    """Stable arq `_job_id` for one trigger of one concern; same inputs, same id."""
    digest = hashlib.sha256(event_key.encode()).hexdigest()[:16]
    return f"concern:{concern_id}:{trigger}:{digest}"


_DUE_STATUSES = frozenset(
    {ConcernStatus.PENDING, ConcernStatus.IN_PROGRESS, ConcernStatus.ESCALATED}
)


@dataclass(frozen=True)
class DueFacts:
    """What the time rules read of a concern: the properties the scans' indexes hold."""

    concern_id: str
    type: ConcernType
    status: ConcernStatus
    next_when: datetime | None  # next_action.when
    next_run_at: datetime | None  # a schedule's trigger.next_run_at

    @classmethod
    def of(cls, concern: Concern) -> DueFacts:
        trig = concern.trigger
        return cls(
            concern_id=concern.concern_id,
            type=concern.type,
            status=concern.status,
            next_when=_next_when(concern),
            next_run_at=trig.next_run_at if trig is not None else None,
        )


def _next_when(concern: Concern) -> datetime | None:
    return concern.next_action.when if concern.next_action is not None else None


def _facts(item: Concern | DueFacts) -> DueFacts:
    return item if isinstance(item, DueFacts) else DueFacts.of(item)


def _key(when: datetime) -> str:
    return when.astimezone(UTC).isoformat()


def is_due(concern: Concern | DueFacts, now: datetime) -> bool:
    f = _facts(concern)
    return (
        f.type != ConcernType.SCHEDULE
        and f.status in _DUE_STATUSES
        and f.next_when is not None
        and f.next_when <= now
    )


def is_timed_out(concern: Concern | DueFacts, now: datetime) -> bool:
    f = _facts(concern)
    return (
        f.type != ConcernType.SCHEDULE
        and f.status == ConcernStatus.WAITING_REPLY
        and f.next_when is not None
        and f.next_when <= now
    )


def is_schedule_due(concern: Concern | DueFacts, now: datetime) -> bool:
    f = _facts(concern)
    return (
        f.type == ConcernType.SCHEDULE
        and not is_terminal(f.status)
        and f.next_run_at is not None
        and f.next_run_at <= now
    )


def due_trigger(concern: Concern | DueFacts, now: datetime) -> Trigger | None:
    """The one time-driven trigger `concern` needs at `now`, if any."""
    f = _facts(concern)
    if is_schedule_due(f, now):
        assert f.next_run_at is not None
        return Trigger(kind=TriggerKind.SCHEDULE_DUE, event_key=_key(f.next_run_at))
    if f.next_when is None:
        return None
    if is_due(f, now):
        return Trigger(kind=TriggerKind.NEXT_ACTION_DUE, event_key=_key(f.next_when))
    if is_timed_out(f, now):
        return Trigger(kind=TriggerKind.TIMEOUT, event_key=_key(f.next_when))
    return None


def is_stale(concern: Concern, trigger: Trigger) -> bool:
    """A time trigger whose due time is no longer the concern's (another turn moved it).

    Jobs check this before calling the model; `loop.decide` treats a stale trigger as a no-op.
    Replies and related facts are never stale.
    """
    if trigger.kind in (TriggerKind.NEXT_ACTION_DUE, TriggerKind.TIMEOUT):
        return not _same_instant(_next_when(concern), trigger.event_key)
    if trigger.kind == TriggerKind.SCHEDULE_DUE:
        trig = concern.trigger
        return not _same_instant(trig.next_run_at if trig is not None else None, trigger.event_key)
    return False


def _same_instant(when: datetime | None, event_key: str) -> bool:
    """A due time and an event key written in any offset (keys before UTC keys too)."""
    if when is None:
        return False
    try:
        return datetime.fromisoformat(event_key) == when
    except ValueError:
        return False


class ScheduledJob(NamedTuple):
    """One due item: which concern, which time rule, the due instant (epoch µs, UTC).

    A scan returns thousands of these (a scan costs what an index count costs),
    so a job is a tuple and its trigger and stable job id are derived when it is enqueued.
    """

    concern_id: str
    kind: TriggerKind
    due_us: int

    @property
    def due_at(self) -> datetime:
        return from_epoch_us(self.due_us)

    @property
    def trigger(self) -> Trigger:
        return Trigger(kind=self.kind, event_key=_key(self.due_at))

    @property
    def job_id(self) -> str:
        return job_id(self.concern_id, self.kind, _key(self.due_at))


def select(
    concerns: Iterable[Concern | DueFacts],
    now: datetime,
    kinds: Iterable[TriggerKind],
    limit: int = 500,
) -> list[ScheduledJob]:
    """The due jobs of the given kinds, oldest first, at most `limit`."""
    wanted = frozenset(kinds)
    jobs: list[ScheduledJob] = []
    for concern in concerns:
        trig = due_trigger(concern, now)
        if trig is None or trig.kind not in wanted:
            continue
        due = epoch_us(datetime.fromisoformat(trig.event_key))
        jobs.append(ScheduledJob(_facts(concern).concern_id, trig.kind, due))
    jobs.sort(key=lambda j: (j.due_us, j.concern_id))
    return jobs[:limit]


def scan_due_concerns(
    concerns: Iterable[Concern | DueFacts], now: datetime, limit: int = 500
) -> list[ScheduledJob]:
    return select(concerns, now, [TriggerKind.NEXT_ACTION_DUE], limit)


def scan_timeouts(
    concerns: Iterable[Concern | DueFacts], now: datetime, limit: int = 500
) -> list[ScheduledJob]:
    return select(concerns, now, [TriggerKind.TIMEOUT], limit)


def scan_schedules(
    concerns: Iterable[Concern | DueFacts], now: datetime, limit: int = 500
) -> list[ScheduledJob]:
    return select(concerns, now, [TriggerKind.SCHEDULE_DUE], limit)
