"""Entity identity across results (identity paragraph; docs/rules/reviews.md).

- Equal names never merge: nothing here ever looks at a name.
- A later result may reuse an entity only by its stored id, only in the same scope, and
  only if it is Main (跨 run 仅允许引用同 scope 的 Main 候选实体).
- A model's local ref is not an identity (模型局部 ID…不构成身份): new entities get ids
  derived from scope + result key + ref, so the same ref in another result is another entity.
- A malformed identity field only produces a new entity; nothing is guessed
  (格式错误的旧模型身份字段只产生新实体，不猜测合并对象).

Events follow the same rule: a result may name a stored event by id (a manual re-review
re-reads messages that already have an event, docs/rules/reviews.md), and it is
reused only if it is a current event of the same scope; anything else is a new event.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from engine.story.inputs import EntityIn, EventIn
from engine.story.models import Entity, EntityStatus, Event, make_id


@dataclass(frozen=True)
class IdentityDecision:
    object_id: str  # the stored id reused, or the new object's id
    reused: bool
    note: str | None = None
    by_passage: bool = False  # an event reused because it states the same passage


def new_entity_id(scope: str, key: str, ref: str) -> str:
    return make_id("ent", scope, key, ref)


def resolve_entity(
    scope: str, key: str, item: EntityIn, stored: Mapping[str, Entity]
) -> IdentityDecision:
    """Decide whether `item` is a stored entity or a new one.

    `stored` holds the current versions of this scope's entities whose ids the input named;
    an id from another scope is simply absent from it, so it can never be reused.
    """
    fresh = new_entity_id(scope, key, item.ref)
    if item.id is None:
        return IdentityDecision(fresh, reused=False)
    wanted = item.well_formed_id
    if wanted is None:
        return IdentityDecision(
            fresh, False, f"entity {item.ref!r}: malformed identity field, recorded as new entity"
        )
    current = stored.get(wanted)
    if current is None or current.scope != scope:
        return IdentityDecision(
            fresh, False, f"entity {item.ref!r}: {wanted} is not an entity of this scope"
        )
    if current.status is not EntityStatus.MAIN:
        return IdentityDecision(
            fresh, False, f"entity {item.ref!r}: {wanted} is a candidate, only Main is reused"
        )
    return IdentityDecision(wanted, reused=True)


def new_event_id(scope: str, key: str, ref: str) -> str:
    return make_id("evt", scope, key, ref)


def passage_event_id(scope: str, passage: str) -> str:
    """The one event of a passage in a scope, whichever result states it."""
    return make_id("evt", scope, "passage", passage)


def resolve_event(
    scope: str,
    key: str,
    item: EventIn,
    stored: Mapping[str, Event],
    taken: Collection[str] = (),
) -> IdentityDecision:
    """Decide whether `item` is a stored event or a new one. `stored` holds the current
    versions of this scope's events whose ids the input named (another scope's id is absent),
    and of the events its passages name; `taken`: ids of those that exist in any state.

    An event stating a passage (`passage`) is that passage's event: the stored one when it
    is current, else a new one with the passage's id. A passage whose event is no longer
    current (a person removed it) gets a result-keyed event: nothing brings a removed one back
    under its old id."""
    fresh = new_event_id(scope, key, item.ref)
    if item.id is None and item.passage:
        own = passage_event_id(scope, item.passage)
        if own in stored:
            return IdentityDecision(own, reused=True, by_passage=True)
        return IdentityDecision(fresh if own in taken else own, reused=False)
    if item.id is None:
        return IdentityDecision(fresh, reused=False)
    wanted = item.well_formed_id
    if wanted is None:
        return IdentityDecision(
            fresh, False, f"event {item.ref!r}: malformed identity field, recorded as new event"
        )
    current = stored.get(wanted)
    if current is None or current.scope != scope:
        return IdentityDecision(
            fresh, False, f"event {item.ref!r}: {wanted} is not an event of this scope"
        )
    return IdentityDecision(wanted, reused=True)
