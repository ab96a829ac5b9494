"""Person bindings read and edited (docs/rules/story-graph.md): an operator binds a
person entity of the story graph to a concern person (id, name, channel), rebinds it (a new
version) or unbinds it (the current version retracted); anyone with `reader` reads the
bindings believed at asOf, paged in the database. Another scope's entity is NOT_FOUND; an
entity that is not a person, an empty person id or a time without a zone INVALID_INPUT;
a rejected change writes nothing."""

from __future__ import annotations

from datetime import datetime

from engine.errors import InvalidInput
from engine.page import Page
from engine.principal import Principal
from engine.scope import require_scope
from engine.signal.binding import BindingKind, PersonBinding, next_version
from engine.story.models import Actor
from graph.signal.bindings import PersonBindings
from jobs.deps import Deps, as_of_now


def bindings(deps: Deps) -> PersonBindings:
    return PersonBindings(deps.driver, deps.database)


async def bind_person(
    deps: Deps,
    principal: Principal,
    scope: str,
    entity_id: str,
    *,
    person_id: str,
    display_name: str = "",
    channel: str = "",
) -> PersonBinding:
    scope = require_scope(principal, "operator", scope)
    person_id, display_name, channel = person_id.strip(), display_name.strip(), channel.strip()
    if not person_id:
        raise InvalidInput("personId must not be empty", argument="personId")
    if len(person_id) > 200 or len(display_name) > 200 or len(channel) > 200:
        raise InvalidInput("personId, displayName and channel take at most 200 characters")
    now = deps.clock()
    by = Actor.user(principal.actor_id(None))

    def decide(current: PersonBinding | None, entity_name: str) -> PersonBinding | None:
        return next_version(
            current,
            scope=scope,
            kind=BindingKind.ENTITY,
            person_id=person_id,
            display_name=display_name or entity_name,
            channel=channel,
            by=by,
            now=now,
            why="bindPerson",
            entity_id=entity_id,
        )

    return await bindings(deps).bind_entity(scope, entity_id, decide, now=now)


async def unbind_person(
    deps: Deps, principal: Principal, scope: str, entity_id: str
) -> PersonBinding:
    scope = require_scope(principal, "operator", scope)
    return await bindings(deps).unbind_entity(scope, entity_id, now=deps.clock(), by=principal.name)


async def person_bindings(
    deps: Deps,
    principal: Principal,
    scope: str,
    first: int,
    *,
    as_of: datetime | None = None,
    after: str | None = None,
    with_total: bool = False,
) -> Page[PersonBinding]:
    scope = require_scope(principal, "reader", scope)
    return await bindings(deps).page(
        scope, as_of=as_of_now(deps, as_of), first=first, after_id=after, with_total=with_total
    )
