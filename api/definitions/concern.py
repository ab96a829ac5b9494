"""Concern fields (Agenda; docs/rules/concerns.md).

Mutations: `raiseConcern` (the cognitive hub — `agenda` role — is the only way a concern
comes to exist; goal required), `advanceConcern` (records a reply and enqueues the agent
loop; it never resolves), `changeConcernPriority` (agenda role: Agenda ref, follow-up
intervals and sending window follow), `reportConcernFact` (a related fact re-enters the loop),
`upsertPerson` (person master data), `runConcernScheduler` (operator: run the scans now;
over every scope or at a given clock, admin). Queries: `concerns` (Relay, keyset-paged;
status / priority / person filters),
`concern(id)`, `agenda(scope)`, `conversationContext(scope, personId)`, and
`concernMessages(scope, personId)` — every message addressed to a person, in order.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.definitions.concern_inputs import (
    AdvanceConcernInput,
    ChangeConcernPriorityInput,
    ConcernFactInput,
    PersonInput,
    RaiseConcernInput,
)
from api.definitions.concern_types import (
    AdvanceTicket,
    Agenda,
    Concern,
    ConcernMessage,
    ConcernPriority,
    ConcernStatus,
    ConversationContext,
    PersonProfile,
)
from api.definitions.pagination import Connection, connection, page_size, wants_total
from api.paging import CONCERNS, MESSAGES, read_after
from engine.concern.advance import InboundMessage
from engine.concern.tools import tool_definitions
from jobs.concern import commands
from jobs.concern.context import conversation_context


@strawberry.type
class Query:
    @strawberry.field(
        description="docs/rules/concerns.md raise_concern / advance_concern / check_concerns as "
        "JSON-schema function definitions for agent frameworks."
    )
    def concern_tools(self) -> JSON:
        return cast(JSON, tool_definitions())

    @strawberry.field(description="One scope's concerns, newest first (Relay connection).")
    async def concerns(
        self,
        info: Info[Context, None],
        scope: str,
        status: list[ConcernStatus] | None = None,  # type: ignore[valid-type]
        priority: list[ConcernPriority] | None = None,  # type: ignore[valid-type]
        person_id: str | None = None,
        first: int | None = 50,
        after: str | None = None,
    ) -> Connection[Concern]:
        ctx = info.context
        page = await read_after(
            CONCERNS,
            after,
            lambda key: commands.list_concerns(
                ctx.deps,
                ctx.caller(),
                scope,
                statuses=[str(s) for s in status] if status else None,
                priorities=[str(p) for p in priority] if priority else None,
                person_id=person_id,
                first=page_size(first, ctx.settings.page_max_first),
                after=key,
                with_total=wants_total(info),
            ),
        )
        return connection(page, Concern.from_model)

    @strawberry.field
    async def concern(self, info: Info[Context, None], id: strawberry.ID) -> Concern | None:
        ctx = info.context
        found = await commands.find(ctx.deps, ctx.caller(), str(id))
        return Concern.from_model(found) if found is not None else None

    @strawberry.field
    async def agenda(self, info: Info[Context, None], scope: str) -> Agenda:
        ctx = info.context
        return Agenda.from_model(scope, await commands.agenda(ctx.deps, ctx.caller(), scope))

    @strawberry.field(
        description="docs/rules/concerns.md: concern summaries, concerns awaiting this "
        "person's reply (advanceConcern candidates) and their person slice."
    )
    async def conversation_context(
        self, info: Info[Context, None], scope: str, person_id: str
    ) -> ConversationContext:
        ctx = info.context
        got = await conversation_context(ctx.deps, ctx.caller(), scope, person_id)
        return ConversationContext(
            person=PersonProfile.from_model(got.person),
            concerns=[Concern.from_model(c) for c in got.concerns],
            awaiting_reply=[Concern.from_model(c) for c in got.awaiting_reply],
        )

    @strawberry.field(description="Every concern message addressed to a person, in order.")
    async def concern_messages(
        self,
        info: Info[Context, None],
        scope: str,
        person_id: str,
        status: list[str] | None = None,
        first: int | None = None,
        after: str | None = None,
    ) -> Connection[ConcernMessage]:
        ctx = info.context
        page = await read_after(
            MESSAGES,
            after,
            lambda key: commands.concern_messages(
                ctx.deps,
                ctx.caller(),
                scope,
                person_id,
                statuses=status,
                first=page_size(first, ctx.settings.page_max_first),
                after=key,
                with_total=wants_total(info),
            ),
        )
        return connection(page, ConcernMessage.from_model)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="docs/rules/concerns.md raise_concern (agenda role only).")
    async def raise_concern(self, info: Info[Context, None], input: RaiseConcernInput) -> Concern:
        ctx = info.context
        concern = await commands.raise_concern(
            ctx.deps, ctx.caller(), input.to_model, scope=input.scope, at=input.at
        )
        return Concern.from_model(concern)

    @strawberry.mutation(
        description="docs/rules/concerns.md advance_concern: record a reply and run "
        "the agent loop; never resolves by itself."
    )
    async def advance_concern(
        self, info: Info[Context, None], input: AdvanceConcernInput
    ) -> AdvanceTicket:
        ctx = info.context
        deps = ctx.deps
        message = InboundMessage(
            person_id=input.person_id,
            text=input.text,
            ts=commands.event_time(deps, input.at),
            channel=input.channel,
            message_id=input.message_id,
        )
        done = await commands.advance_concern(deps, ctx.caller(), str(input.concern_id), message)
        return AdvanceTicket(
            concern=Concern.from_model(done.concern), job_id=done.job_id, enqueued=done.enqueued
        )

    @strawberry.mutation(
        description="docs/rules/concerns.md: change a concern's priority (agenda role) — Agenda "
        "concern_refs, follow-up intervals and the sending window of held messages follow; "
        "recorded in the timeline. A closed concern is CONFLICT."
    )
    async def change_concern_priority(
        self, info: Info[Context, None], input: ChangeConcernPriorityInput
    ) -> Concern:
        ctx = info.context
        concern = await commands.change_priority(
            ctx.deps, ctx.caller(), str(input.concern_id), input.priority, at=input.at
        )
        return Concern.from_model(concern)

    @strawberry.mutation(description="A related fact (e.g. a merge) re-enters the agent loop.")
    async def report_concern_fact(
        self, info: Info[Context, None], input: ConcernFactInput
    ) -> AdvanceTicket:
        ctx = info.context
        fact = commands.Fact(
            fact_id=input.fact_id,
            kind=input.kind,
            source=input.source,
            person_id=input.person_id,
            detail=input.detail,
            at=input.at,
        )
        done = await commands.report_fact(ctx.deps, ctx.caller(), str(input.concern_id), fact)
        return AdvanceTicket(
            concern=Concern.from_model(done.concern), job_id=done.job_id, enqueued=done.enqueued
        )

    @strawberry.mutation(description="Person master data read by resolve_person_context.")
    async def upsert_person(self, info: Info[Context, None], input: PersonInput) -> PersonProfile:
        ctx = info.context
        person = await commands.upsert_person(
            ctx.deps,
            ctx.caller(),
            input.scope,
            {
                "person_id": input.person_id,
                "display_name": input.display_name,
                "preferred_channel": input.preferred_channel,
                "channels": list(input.channels),
                "is_owner": input.is_owner,
            },
        )
        return PersonProfile.from_model(person)

    # operator of the scope; over every scope, or at a moved clock `now`, admin only
    @strawberry.mutation(description="Run the concern scheduler's scans now (or at `now`).")
    async def run_concern_scheduler(
        self, info: Info[Context, None], now: datetime | None = None, scope: str | None = None
    ) -> bool:
        ctx = info.context
        return await commands.request_scheduler_run(ctx.deps, ctx.caller(), now=now, scope=scope)
