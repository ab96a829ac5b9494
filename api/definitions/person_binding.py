"""Person bindings over GraphQL (docs/rules/story-graph.md): `bindPerson` /
`unbindPerson` (operator) tie a person entity to a concern person, versioned;
`personBindings(scope, asOf)` reads them as of any time, paged in the database. Speakers
bound by `upsertSource(speakers:)` are read here too."""

from __future__ import annotations

from datetime import datetime
from typing import TypeAlias

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import versioned
from api.definitions.pagination import Connection, connection, page_size, wants_total
from api.definitions.versioned import Versioned
from api.paging import BINDINGS, read_after
from engine.signal import binding as b
from jobs.signal import bindings as use

strawberry.enum(b.BindingKind)
BindingKind: TypeAlias = b.BindingKind


@strawberry.type(
    description="One version of a person binding: a speaker of a source, or a person entity, "
    "bound to a concern person (never by an equal name)."
)
class PersonBinding(Versioned):
    kind: BindingKind
    source_id: str
    speaker: str
    entity_id: str
    person_id: str
    display_name: str
    channel: str


def binding_type(v: b.PersonBinding) -> PersonBinding:
    return versioned(PersonBinding, v)


@strawberry.type
class Query:
    @strawberry.field(
        description="Person bindings believed at asOf (default now) in id order, paged in the "
        "database."
    )
    async def person_bindings(
        self,
        info: Info[Context, None],
        scope: str,
        as_of: datetime | None = None,
        first: int | None = 50,
        after: str | None = None,
    ) -> Connection[PersonBinding]:
        page = await read_after(
            BINDINGS,
            after,
            lambda key: use.person_bindings(
                info.context.deps,
                info.context.caller(),
                scope,
                page_size(first, info.context.settings.page_max_first),
                as_of=as_of,
                after=key,
                with_total=wants_total(info),
            ),
        )
        return connection(page, binding_type)


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description="Bind a person entity to a concern person (operator): a new version when "
        "it changes what was bound, nothing when it is the same. Unknown entity: NOT_FOUND; "
        "not a person, or an empty personId: INVALID_INPUT."
    )
    async def bind_person(
        self,
        info: Info[Context, None],
        scope: str,
        entity_id: str,
        person_id: str,
        display_name: str = "",
        channel: str = "",
    ) -> PersonBinding:
        stored = await use.bind_person(
            info.context.deps,
            info.context.caller(),
            scope,
            entity_id,
            person_id=person_id,
            display_name=display_name,
            channel=channel,
        )
        return binding_type(stored)

    @strawberry.mutation(
        description="Unbind a person entity (operator): its current binding is retracted, "
        "its history stays. Not bound: NOT_FOUND."
    )
    async def unbind_person(
        self, info: Info[Context, None], scope: str, entity_id: str
    ) -> PersonBinding:
        stored = await use.unbind_person(info.context.deps, info.context.caller(), scope, entity_id)
        return binding_type(stored)
