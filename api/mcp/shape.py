"""Compact JSON of story graph and concern objects for a model's context.

Every story object says where it stands, so an agent never states a suggestion as fact:
- an entity: `standing` is `user-edited` (a person edited fields), `confirmed` (a person
  confirmed fields) or `suggested` (written by an automatic run, nobody confirmed it), with
  the field lists and its pending suggestions;
- a relation: `standing` is `confirmed`, `suggested`, `rejected` or `removed`;
- an event: who recorded it (a run's reading of a source, or a person);
- a suggestion: `suggested` (pending a person's decision), never applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from api.paging import offset_page
from engine.concern import model as cm
from engine.errors import InvalidInput
from engine.story import models as m
from engine.story.views import Excerpt

DEFAULT_PAGE = 20
MAX_PAGE = 50
TIMELINE_TAIL = 5
T = TypeVar("T")

STANDING_NOTE = (
    "Every object carries `standing`: only `confirmed`, `user-edited` and "
    "`answered-via-concern` (recorded by the person who answered) are a person's word; "
    "`read-from-answer` is the loop's reading of a reply through `via_concern` and, like "
    "`suggested` and `recorded-by-run`, an automatic reading nobody confirmed (say so, never "
    "state it as fact); `removed`/`rejected` objects were withdrawn by a person."
)


def page_size(first: int | None) -> int:
    """A tool's page size: the default, or 1..MAX_PAGE (else INVALID_INPUT)."""
    size = DEFAULT_PAGE if first is None else first
    if not 1 <= size <= MAX_PAGE:
        raise InvalidInput(f"first must be between 1 and {MAX_PAGE}", first=first)
    return size


def page(items: Sequence[T], first: int | None, after: str | None) -> tuple[list[T], str | None]:
    """One page of a list already read and the cursor of the next (None at the end)."""
    got = offset_page(items, page_size(first), after)
    return got.page.items, got.next


def _by(a: m.Actor) -> str:
    return a.label()


def entity_standing(e: m.Entity) -> str:
    if e.user_fields:
        return "user-edited"
    if e.confirmed_fields:
        return "confirmed"
    return "suggested"


def entity(e: m.Entity, pending: Sequence[m.Suggestion] = ()) -> dict[str, Any]:
    return {
        "id": e.id,
        "name": e.name,
        "kind": e.kind,
        "description": e.description,
        "standing": entity_standing(e),
        "status": e.status.value,
        "user_edited_fields": list(e.user_fields),
        "confirmed_fields": list(e.confirmed_fields),
        "pending_suggestions": [suggestion(s) for s in pending],
        "valid_from": e.valid_from,
        "valid_to": e.valid_to,
        "version": e.seq,
        "recorded_at": e.recorded_at,
        "recorded_by": _by(e.by),
    }


def relation_standing(r: m.Relation) -> str:
    return "removed" if r.removed else r.confirmation.value


def relation(r: m.Relation, names: dict[str, str] | None = None) -> dict[str, Any]:
    names = names or {}
    return {
        "id": r.id,
        "from_id": r.from_id,
        "from_name": names.get(r.from_id),
        "type": r.type,
        "to_id": r.to_id,
        "to_name": names.get(r.to_id),
        "reason": r.reason,
        "standing": relation_standing(r),
        "user_edited_fields": list(r.user_fields),
        "valid_from": r.valid_from,
        "valid_to": r.valid_to,
        "version": r.seq,
        "recorded_by": _by(r.by),
    }


EVENT_STANDING = {
    m.ActorKind.USER: "user-edited",
    m.ActorKind.RUN: "recorded-by-run",
    m.ActorKind.PERSON: "answered-via-concern",  # by the person who answered
}


def event_standing(e: m.Event) -> str:
    """A run's reading of a concern answer is automation citing the person, not their word."""
    if e.via_concern and e.by.kind is m.ActorKind.RUN:
        return "read-from-answer"
    return EVENT_STANDING[e.by.kind]


def event(e: m.Event) -> dict[str, Any]:
    return {
        "id": e.id,
        "at": e.at,
        "title": e.title,
        "description": e.description,
        "story_id": e.story_id,
        "result_id": e.result_id,
        "standing": event_standing(e),
        "recorded_by": _by(e.by),
        "via_concern": e.via_concern,
    }


def suggestion(s: m.Suggestion) -> dict[str, Any]:
    return {
        "id": s.id,
        "standing": "suggested" if s.status is m.SuggestionStatus.PENDING else s.status.value,
        "kind": s.kind.value,
        "target": f"{s.target_kind.value}:{s.target_id}",
        "field": s.field,
        "current_value": s.current_value,
        "proposed_value": s.proposed_value,
        "reason": s.reason,
    }


def summary(s: m.Summary) -> dict[str, Any]:
    return {
        "id": s.id,
        "text": s.text,
        "interval": [s.interval_start, s.interval_end],
        "story_id": s.story_id,
        "result_id": s.result_id,
    }


def reference(r: m.Reference, x: Excerpt) -> dict[str, Any]:
    """The cited text of exactly that source version, or `unavailable` and why
    (docs/rules/story-graph.md)."""
    return {
        "id": r.id,
        "cites": f"{r.owner_kind.value}:{r.owner_id}",
        "source_id": r.source_id,
        "source_version": r.source_version,
        "locator": r.locator,
        "excerpt": x.text if x.available else None,
        "availability": "available" if x.available else "unavailable",
        "warning": x.warning,
    }


def concern(c: cm.Concern) -> dict[str, Any]:
    """A concern summary: where it stands, with whom, what happens next."""
    nxt = c.next_action
    return {
        "concern_id": c.concern_id,
        "title": c.title,
        "goal": c.goal,
        "type": c.type.value,
        "status": c.status.value,
        "priority": c.priority.value,
        "people": [
            {
                "person_id": p.person_id,
                "display_name": p.display_name,
                "role_in_concern": p.role_in_concern,
                "comm_status": p.comm_status.value,
            }
            for p in c.people
        ],
        "done_person_ids": list(c.done_person_ids),
        "next_action": nxt.model_dump(mode="json") if nxt else None,
        "followup_count": c.followup_count,
        "recent_timeline": [
            {"ts": t.ts, "type": t.type.value, "detail": t.detail}
            for t in c.timeline[-TIMELINE_TAIL:]
        ],
        "conversation_count": len(c.conversation_log),
        "revision": c.revision,
        "updated_at": c.updated_at,
        "closed_at": c.closed_at,
    }
