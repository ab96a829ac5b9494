"""Concern fields (seed 002 §九 对话侧能力, §十一 Agenda; issue 5 §10).

Mutations: `raiseConcern` (the cognitive hub — `agenda` role — is the only way a concern
comes to exist; goal required), `advanceConcern` (records a reply and enqueues the agent
loop; it never resolves), `reportConcernFact` (a related fact re-enters the loop),
`upsertPerson` (person master data), `runConcernScheduler` (operator: run the scans now, or
at a given clock). Queries: `concerns` (Relay; status / priority / person filters),
`concern(id)`, `agenda(scope)`, `conversationContext(scope, personId)`, and
`concernMessages(scope, personId)` — every message addressed to a person, in order.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.definitions.concern_inputs import (
    AdvanceConcernInput,
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
from api.definitions.pagination import (
    MAX_PAGE,
    Connection,
    Edge,
    PageInfo,
    decode_cursor,
    encode_cursor,
    paginate,
)
from engine.concern.advance import InboundMessage
from engine.concern.policy import ConcernPolicy
from engine.concern.tools import tool_definitions
from engine.errors import InvalidInput, NotFound
from graph.concern.agenda import load_agenda
from graph.concern.listing import list_concerns
from graph.concern.outbox import rows_for_recipient
from graph.concern.persons import upsert_person
from graph.concern.repository import StoredConcern, find_concern
from jobs.concern_context import conversation_context
from jobs.tasks.concern_commands import raise_new_concern, record_reply, report_fact
from jobs.tasks.concern_enqueue import enqueue_scheduler_run


def _now(at: datetime | None) -> datetime:
    if at is None:
        return datetime.now(UTC)
    if at.tzinfo is None:
        raise InvalidInput("times must carry a timezone offset", at=at.isoformat())
    return at


async def visible_concern(ctx: Context, concern_id: str) -> StoredConcern:
    """A concern the caller may act on; another scope's reads as NOT_FOUND like a missing one."""
    ctx.require("agenda")
    stored = await find_concern(ctx.driver, ctx.database, concern_id)
    missing = NotFound(f"no concern {concern_id}", concern_id=concern_id)
    if stored is None:
        raise missing
    ctx.visible("agenda", stored.scope, missing)
    return stored


@strawberry.type
class Query:
    @strawberry.field(
        description="seed 002 §九 raise_concern / advance_concern / check_concerns as "
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
        ctx.require("reader", scope)
        if first is not None and not 0 <= first <= MAX_PAGE:
            raise InvalidInput(f"first must be between 0 and {MAX_PAGE}", first=first)
        start = decode_cursor(after) + 1 if after else 0
        size = MAX_PAGE if first is None else first
        page = await list_concerns(
            ctx.driver,
            ctx.database,
            scope=scope,
            statuses=[str(s) for s in status] if status else None,
            priorities=[str(p) for p in priority] if priority else None,
            person_id=person_id,
            skip=start,
            limit=size,
        )
        edges = [
            Edge(cursor=encode_cursor(start + i), node=Concern.from_model(c))
            for i, c in enumerate(page.concerns)
        ]
        return Connection(
            edges=edges,
            total_count=page.total,
            page_info=PageInfo(
                has_next_page=start + len(edges) < page.total,
                has_previous_page=start > 0,
                start_cursor=edges[0].cursor if edges else None,
                end_cursor=edges[-1].cursor if edges else None,
            ),
        )

    @strawberry.field
    async def concern(self, info: Info[Context, None], id: strawberry.ID) -> Concern | None:
        ctx = info.context
        principal = ctx.require("reader")
        stored = await find_concern(ctx.driver, ctx.database, str(id))
        if stored is None or not principal.can_scope(stored.scope):
            return None  # another scope's concern reads like a missing one
        return Concern.from_model(stored.concern)

    @strawberry.field
    async def agenda(self, info: Info[Context, None], scope: str) -> Agenda:
        ctx = info.context
        ctx.require("reader", scope)
        return Agenda.from_model(scope, await load_agenda(ctx.driver, ctx.database, scope))

    @strawberry.field(
        description="seed 002 §九: concern summaries, concerns awaiting this "
        "person's reply (advanceConcern candidates) and their person slice."
    )
    async def conversation_context(
        self, info: Info[Context, None], scope: str, person_id: str
    ) -> ConversationContext:
        ctx = info.context
        ctx.require("reader", scope)
        got = await conversation_context(ctx.driver, ctx.database, scope, person_id)
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
        ctx.require("reader", scope)
        rows = await rows_for_recipient(
            ctx.driver, ctx.database, scope=scope, person_id=person_id, statuses=status
        )
        return paginate([ConcernMessage.from_row(r) for r in rows], first, after)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="seed 002 §九 raise_concern (agenda role only).")
    async def raise_concern(self, info: Info[Context, None], input: RaiseConcernInput) -> Concern:
        ctx = info.context
        ctx.require("agenda", input.scope)
        concern = await raise_new_concern(
            ctx.driver,
            ctx.database,
            ctx.pool,
            ctx.settings.queue_name,
            input.to_model(),
            scope=input.scope,
            now=_now(input.at),
            policy=ConcernPolicy.from_settings(ctx.settings),
        )
        return Concern.from_model(concern)

    @strawberry.mutation(
        description="seed 002 §九 advance_concern: record a reply and run "
        "the agent loop; never resolves by itself."
    )
    async def advance_concern(
        self, info: Info[Context, None], input: AdvanceConcernInput
    ) -> AdvanceTicket:
        ctx = info.context
        stored = await visible_concern(ctx, str(input.concern_id))
        when = _now(input.at)
        message = InboundMessage(
            person_id=input.person_id,
            text=input.text,
            ts=when,
            channel=input.channel,
            message_id=input.message_id,
        )
        done = await record_reply(
            ctx.driver,
            ctx.database,
            ctx.pool,
            ctx.settings.queue_name,
            concern_id=stored.concern.concern_id,
            message=message,
            now=when,
        )
        return AdvanceTicket(
            concern=Concern.from_model(done.concern), job_id=done.job_id, enqueued=done.enqueued
        )

    @strawberry.mutation(description="A related fact (e.g. a merge) re-enters the agent loop.")
    async def report_concern_fact(
        self, info: Info[Context, None], input: ConcernFactInput
    ) -> AdvanceTicket:
        ctx = info.context
        stored = await visible_concern(ctx, str(input.concern_id))
        when = _now(input.at)
        signal = {
            "kind": input.kind,
            "source": input.source,
            "at": when.isoformat(),
            "person_id": input.person_id,
            "detail": input.detail,
        }
        done = await report_fact(
            ctx.driver,
            ctx.database,
            ctx.pool,
            ctx.settings.queue_name,
            concern_id=stored.concern.concern_id,
            fact_id=input.fact_id,
            signal=signal,
            now=when,
        )
        return AdvanceTicket(
            concern=Concern.from_model(done.concern), job_id=done.job_id, enqueued=done.enqueued
        )

    @strawberry.mutation(description="Person master data read by resolve_person_context.")
    async def upsert_person(self, info: Info[Context, None], input: PersonInput) -> PersonProfile:
        ctx = info.context
        ctx.require("agenda", input.scope)
        person = await upsert_person(
            ctx.driver,
            ctx.database,
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

    @strawberry.mutation(description="Run the concern scheduler's scans now (or at `now`).")
    async def run_concern_scheduler(
        self, info: Info[Context, None], now: datetime | None = None, scope: str | None = None
    ) -> bool:
        ctx = info.context
        # a run over every scope is an all-scope operation: admin only
        ctx.require("operator", scope) if scope is not None else ctx.require("admin")
        return await enqueue_scheduler_run(
            ctx.pool, ctx.settings.queue_name, now=_now(now), scope=scope
        )
