"""Corrections: people win, automation proposes (and 规则冲突时…; docs/rules/story-graph.md).

- An automatic result never rewrites a confirmed or user-edited field; it records a
  Suggestion instead (自动更新不得改写已确认字段…不静默覆盖用户内容).
- New evidence against a confirmed (or rejected, or removed) relation is a pending
  difference; the relation stays as it is (新增证据与已确认结论冲突时显示待核对差异，
  不能自动断言旧观点失效).
- Another holder stated for a single-holder relation (`responsible_for`: "支付模块改由李四
  负责" against a confirmed "张三负责支付模块") is a change of the relation's `from_id`: against
  a confirmed or person-edited relation a pending difference (current 张三, proposed 李四),
  never a second parallel relation nor an automatic retraction; against one only a run
  recorded, a new version from the new holder, as a review revises its own findings.
  Accepting the difference is the person's edit: a new version whose `from_id` is the new
  holder (as of before: 张三; after: 李四); dismissing it keeps 张三.
- A person's edit needs the version they saw; a stale one is CONFLICT and writes nothing.
- A person's word is never refused for a machine's clock: automation may record at a moment
  ahead of the wall clock (a scheduler's `now` moved ahead records the loop's reading of a
  reply at that moment), and a person resolving a suggestion after it is recorded just after
  that version (`act_time`), the whole act at one moment. Only a person's own later version
  makes an earlier record time INVALID_INPUT.
- Removing a relation is undoable and never deletes sources or references
  (移除关系可撤销且不删除来源).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import TypeVar

from engine.errors import Conflict, InvalidInput
from engine.story.inputs import EntityEdit, EntityIn, RelationIn, Stance
from engine.story.models import (
    Actor,
    ActorKind,
    Confirmation,
    Entity,
    ObjectKind,
    Relation,
    Suggestion,
    SuggestionKind,
    SuggestionStatus,
    Version,
    make_id,
)

V = TypeVar("V", bound=Version)


TICK = timedelta(microseconds=1)  # the least step of a record time


def act_time(now: datetime, by: Actor, *current: Version) -> datetime:
    """When a person's act on the `current` versions is recorded: `now`, or just after the
    latest of them that automation recorded later than `now` (a clock moved ahead). Anyone
    else's act, and an act after a person's later version, keeps `now` (`next_version`
    refuses it)."""
    if not by.is_user:
        return now
    ahead = [v.recorded_at for v in current if v.by.kind is ActorKind.RUN and v.recorded_at > now]
    return max(ahead) + TICK if ahead else now


def next_version(current: V, now: datetime, by: Actor, why: str, **changes: object) -> V:
    """A new version of `current`; the caller retracts `current` at `now` (nothing in place)."""
    if now < current.recorded_at:
        raise InvalidInput(
            "record time is earlier than the current version",
            id=current.id,
            recorded_at=current.recorded_at.isoformat(),
        )
    data = current.model_dump()
    data.update(
        seq=current.seq + 1, recorded_at=now, retracted_at=None, by=by, why=why, via_result=None
    )
    data.update(changes)
    return type(current).model_validate(data)


def _suggestion(
    current: Version,
    target_kind: ObjectKind,
    kind: SuggestionKind,
    field: str,
    current_value: str,
    proposed: str,
    reason: str,
    result_id: str,
    now: datetime,
    by: Actor,
) -> Suggestion:
    return Suggestion(
        id=make_id("sug", current.scope, result_id, current.id, field),
        scope=current.scope,
        seq=1,
        recorded_at=now,
        by=by,
        why=f"result {result_id}",
        via_result=result_id,
        result_id=result_id,
        kind=kind,
        target_kind=target_kind,
        target_id=current.id,
        field=field,
        current_value=current_value,
        proposed_value=proposed,
        reason=reason,
    )


def entity_update_from_result(
    current: Entity, item: EntityIn, result_id: str, now: datetime, by: Actor
) -> tuple[Entity | None, list[Suggestion]]:
    """What an automatic result may do to a reused entity: update free fields, propose the rest."""
    proposed: dict[str, str] = {"name": item.name}
    if item.kind is not None:
        proposed["kind"] = item.kind
    if item.description is not None:
        proposed["description"] = item.description
    if item.status is not None:
        proposed["status"] = item.status.value
    free: dict[str, object] = {}
    suggestions: list[Suggestion] = []
    for field, value in proposed.items():
        have = str(getattr(current, field))
        if value == have:
            continue
        if field in current.locked_fields:
            suggestions.append(
                _suggestion(
                    current,
                    ObjectKind.ENTITY,
                    SuggestionKind.FIELD,
                    field,
                    have,
                    value,
                    f"result {result_id} proposes a different {field}",
                    result_id,
                    now,
                    by,
                )
            )
        else:
            free[field] = value
    if item.valid_from is not None and item.valid_from != current.valid_from:
        free["valid_from"] = item.valid_from
    if item.valid_to is not None and item.valid_to != current.valid_to:
        free["valid_to"] = item.valid_to
    if not free:
        return None, suggestions
    return (
        next_version(current, now, by, f"result {result_id}", via_result=result_id, **free),
        suggestions,
    )


def relation_evidence(
    current: Relation, item: RelationIn, result_id: str, now: datetime, by: Actor
) -> tuple[Relation | None, Suggestion | None]:
    """New evidence about an existing relation (same endpoints and type)."""
    if item.stance is Stance.CONTRADICTS:
        if current.confirmation is Confirmation.REJECTED or current.removed:
            return None, None  # the evidence agrees with what the person decided
        return None, _suggestion(
            current,
            ObjectKind.RELATION,
            SuggestionKind.DIFFERENCE,
            "confirmation",
            current.confirmation.value,
            Confirmation.REJECTED.value,
            item.reason or "new evidence contradicts this relation",
            result_id,
            now,
            by,
        )
    if current.confirmation is Confirmation.REJECTED:
        return None, _suggestion(
            current,
            ObjectKind.RELATION,
            SuggestionKind.DIFFERENCE,
            "confirmation",
            Confirmation.REJECTED.value,
            Confirmation.SUGGESTED.value,
            item.reason or "new evidence supports this rejected relation",
            result_id,
            now,
            by,
        )
    if current.removed:
        return None, _suggestion(
            current,
            ObjectKind.RELATION,
            SuggestionKind.DIFFERENCE,
            "removed",
            "true",
            "false",
            item.reason or "new evidence supports this removed relation",
            result_id,
            now,
            by,
        )
    if not item.reason or item.reason == current.reason:
        return None, None
    if current.settled_by_person:
        return None, _suggestion(
            current,
            ObjectKind.RELATION,
            SuggestionKind.FIELD,
            "reason",
            current.reason,
            item.reason,
            f"result {result_id} gives another reason",
            result_id,
            now,
            by,
        )
    return (
        next_version(
            current, now, by, f"result {result_id}", via_result=result_id, reason=item.reason
        ),
        None,
    )


def holder_change(
    current: Relation,
    new_from_id: str,
    labels: tuple[str, str],
    result_id: str,
    now: datetime,
    by: Actor,
    thing: str = "",
) -> tuple[Relation | None, Suggestion | None]:
    """Another holder (`new_from_id`) stated for the thing `current` gives a holder;
    `labels`: the current and the new holder's names, as a person reads them; `thing`: the
    held thing's name."""
    if not current.settled_by_person:
        return (
            next_version(
                current, now, by, f"result {result_id}", via_result=result_id, from_id=new_from_id
            ),
            None,
        )
    suggestion = _suggestion(
        current,
        ObjectKind.RELATION,
        SuggestionKind.DIFFERENCE,
        "from_id",
        current.from_id,
        new_from_id,
        f"new evidence names {labels[1]} instead of {labels[0]} ({current.type})",
        result_id,
        now,
        by,
    )
    return None, suggestion.model_copy(
        update={"current_label": labels[0], "proposed_label": labels[1], "subject_label": thing}
    )


def edit_entity(
    current: Entity, edit: EntityEdit, seen_seq: int, now: datetime, by: Actor, why: str
) -> Entity:
    """A person's edit of an entity; the fields they touch become theirs (user_fields)."""
    if seen_seq != current.seq:
        raise Conflict(
            "the entity changed since you saw it", id=current.id, seen=seen_seq, current=current.seq
        )
    changed = edit.changed()
    if not changed and not edit.confirm:
        raise InvalidInput("nothing to change", id=current.id)
    user_fields = sorted(set(current.user_fields) | set(changed))
    confirmed = sorted(set(current.confirmed_fields) | set(edit.confirm))
    return next_version(
        current,
        now,
        by,
        why or "edited by a person",
        **changed,
        user_fields=user_fields,
        confirmed_fields=confirmed,
    )


class RelationAction(StrEnum):
    CONFIRM = "confirm"
    REJECT = "reject"
    REMOVE = "remove"
    RESTORE = "restore"


def act_on_relation(
    current: Relation,
    action: RelationAction,
    now: datetime,
    by: Actor,
    why: str,
    seen_seq: int | None = None,
) -> Relation | None:
    """A person's decision on a relation; None when it is already in that state (a repeat)."""
    if seen_seq is not None and seen_seq != current.seq:
        raise Conflict(
            "the relation changed since you saw it",
            id=current.id,
            seen=seen_seq,
            current=current.seq,
        )
    change: dict[str, object]
    if action is RelationAction.CONFIRM:
        if current.confirmation is Confirmation.CONFIRMED:
            return None
        change = {"confirmation": Confirmation.CONFIRMED}
    elif action is RelationAction.REJECT:
        if current.confirmation is Confirmation.REJECTED:
            return None
        change = {"confirmation": Confirmation.REJECTED}
    elif action is RelationAction.REMOVE:
        if current.removed:
            return None
        change = {"removed": True}
    else:
        if not current.removed:
            return None
        change = {"removed": False}
    fields = sorted(
        set(current.user_fields) | {"confirmation" if "confirmation" in change else "removed"}
    )
    return next_version(
        current, now, by, why or f"{action.value} by a person", user_fields=fields, **change
    )


def resolve_suggestion(
    suggestion: Suggestion,
    target: Entity | Relation,
    accept: bool,
    now: datetime,
    by: Actor,
    why: str,
    seen_version: int | None = None,
    value: str | None = None,
) -> tuple[Suggestion, Entity | Relation | None]:
    """Accept (the proposal becomes a person's edit of the target) or dismiss a suggestion.
    `seen_version` is the target's version the person saw (stale: CONFLICT); `value` is the
    person's edit of the proposal ("edit and then accept"), accepted in its place. Both new
    versions are recorded at the act's one moment (`act_time`)."""
    if suggestion.status is not SuggestionStatus.PENDING:
        raise Conflict(
            "the suggestion is already resolved", id=suggestion.id, status=suggestion.status
        )
    if seen_version is not None and seen_version != target.seq:
        raise Conflict(
            "the target changed since it was seen",
            id=target.id,
            seen_version=seen_version,
            current_version=target.seq,
        )
    if value is not None and not accept:
        raise InvalidInput("only an accepted suggestion takes an edited value", id=suggestion.id)
    if value is not None and suggestion.field in ("from_id", "to_id"):
        raise InvalidInput("a relation's end is accepted as proposed, not edited", id=suggestion.id)
    status = SuggestionStatus.ACCEPTED if accept else SuggestionStatus.DISMISSED
    now = act_time(now, by, suggestion, target)
    resolved = next_version(
        suggestion, now, by, why or f"{status.value} by a person", status=status
    )
    if not accept:
        return resolved, None
    field = suggestion.field
    value = suggestion.proposed_value if value is None else value
    updated: Entity | Relation
    if isinstance(target, Entity):
        updated = next_version(
            target,
            now,
            by,
            why or f"accepted suggestion {suggestion.id}",
            **{field: value},
            user_fields=sorted(set(target.user_fields) | {field}),
        )
    else:
        parsed: object = value == "true" if field == "removed" else value
        if field == "confirmation":
            parsed = Confirmation(value)
        updated = next_version(
            target,
            now,
            by,
            why or f"accepted suggestion {suggestion.id}",
            **{field: parsed},
            user_fields=sorted(set(target.user_fields) | {field}),
        )
    return resolved, updated
