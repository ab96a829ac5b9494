"""The concern state machine (docs/rules/concerns.md).

```
pending ──> in_progress ──> waiting_reply ──> escalated | resolved | dropped
```

Allowed moves, and why each exists:

| from          | to            | when                                                        |
|---------------|---------------|-------------------------------------------------------------|
| pending       | in_progress   | the agent loop picks the concern up for the first time      |
| pending       | dropped       | cancelled before anything was done ("算了不用问了")           |
| in_progress   | waiting_reply | a message went out and the loop waits for the answer        |
| in_progress   | escalated     | follow-up limit (critical/high) or the loop escalates       |
| in_progress   | resolved      | goal met (only the agent loop resolves)                     |
| in_progress   | dropped       | cancelled, or the follow-up limit of medium/low             |
| waiting_reply | in_progress   | a reply arrived (advance_concern) and re-enters the loop    |
| waiting_reply | escalated     | limit reached / silence after the alternatives              |
| waiting_reply | resolved      | indirect evidence met the goal (e.g. a merge for "提测")     |
| waiting_reply | dropped       | cancelled, or the follow-up limit of medium/low             |
| escalated     | in_progress   | a reply or the owner's instruction re-engages the concern   |
| escalated     | resolved      | the goal was met after escalation                           |
| escalated     | dropped       | the owner decided to stop                                   |

`resolved` and `dropped` are final. A move to the same status is not a transition.
Anything else raises `Conflict` and the caller's concern is left untouched (every function
here returns a new object).
"""

from __future__ import annotations

from datetime import datetime

from engine.concern.model import (
    TERMINAL_STATUSES,
    Concern,
    ConcernStatus,
    TimelineEntry,
    TimelineType,
)
from engine.errors import Conflict

S = ConcernStatus

ALLOWED_TRANSITIONS: dict[ConcernStatus, frozenset[ConcernStatus]] = {
    S.PENDING: frozenset({S.IN_PROGRESS, S.DROPPED}),
    S.IN_PROGRESS: frozenset({S.WAITING_REPLY, S.ESCALATED, S.RESOLVED, S.DROPPED}),
    S.WAITING_REPLY: frozenset({S.IN_PROGRESS, S.ESCALATED, S.RESOLVED, S.DROPPED}),
    S.ESCALATED: frozenset({S.IN_PROGRESS, S.RESOLVED, S.DROPPED}),
    S.RESOLVED: frozenset(),
    S.DROPPED: frozenset(),
}


def can_transition(current: ConcernStatus, target: ConcernStatus) -> bool:
    return target in ALLOWED_TRANSITIONS[current]


def is_terminal(status: ConcernStatus) -> bool:
    return status in TERMINAL_STATUSES


def transition(concern: Concern, target: ConcernStatus, now: datetime, detail: str) -> Concern:
    """Move `concern` to `target`, writing one timeline entry; `Conflict` if not allowed."""
    current = concern.status
    if not can_transition(current, target):
        raise Conflict(
            f"concern {concern.concern_id} cannot move from {current} to {target}",
            concern_id=concern.concern_id,
            status=str(current),
            target=str(target),
        )
    entry = TimelineEntry(
        ts=now, type=TimelineType.STATUS, detail=detail, from_status=current, to_status=target
    )
    update: dict[str, object] = {
        "status": target,
        "timeline": [*concern.timeline, entry],
        "updated_at": now,
    }
    if is_terminal(target):
        update["closed_at"] = now
        update["next_action"] = None
    return concern.model_copy(update=update)


def ensure_status(concern: Concern, target: ConcernStatus, now: datetime, detail: str) -> Concern:
    """Transition only when the status differs (used when a decision may already be there)."""
    if concern.status == target:
        return concern
    return transition(concern, target, now, detail)


def add_timeline(concern: Concern, now: datetime, type_: TimelineType, detail: str) -> Concern:
    entry = TimelineEntry(ts=now, type=type_, detail=detail)
    return concern.model_copy(update={"timeline": [*concern.timeline, entry], "updated_at": now})
