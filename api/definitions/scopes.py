"""scopes (the scopes a token may read, with what each holds) and deleteScope (admin)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from jobs import scopes


@strawberry.type(description="A scope the token may read and what it holds now.")
class ScopeSummary:
    scope: str
    events: int = strawberry.field(description="Current events.")
    entities: int = strawberry.field(description="Current entities.")
    relations: int = strawberry.field(description="Current relations, removed ones left out.")
    sources: int
    concerns: int
    watches: int


@strawberry.type(description="A deleted scope: how many nodes went, who deleted it and when.")
class ScopeDeletion:
    id: str
    scope: str
    deleted_nodes: int
    by: str
    at: datetime


@strawberry.type
class Query:
    @strawberry.field(
        description="The scopes this token may read, each with counts (a limited token: "
        "exactly its own scopes; an all-scope token: every scope that holds data)."
    )
    async def scopes(self, info: Info[Context, None]) -> list[ScopeSummary]:
        found = await scopes.list_scopes(info.context.deps, info.context.caller())
        return [
            ScopeSummary(
                scope=c.scope,
                events=c.events,
                entities=c.entities,
                relations=c.relations,
                sources=c.sources,
                concerns=c.concerns,
                watches=c.watches,
            )
            for c in found
        ]


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description="Delete every node of a scope (batched, in transactions) and record who "
        "did it. Admin only; there is no undo."
    )
    async def delete_scope(self, info: Info[Context, None], scope: str) -> ScopeDeletion:
        done = await scopes.delete_scope(info.context.deps, info.context.caller(), scope)
        return ScopeDeletion(
            id=done.id,
            scope=done.scope,
            deleted_nodes=done.deleted_nodes,
            by=done.by,
            at=done.at,
        )
