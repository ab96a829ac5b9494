"""Heartbeat watches over GraphQL (docs/rules/watches.md).

Queries: `watches(scope, first, after)` (Relay connection, keyset-paged in Cypher),
`watch(scope, id)`. Mutations: `createWatch`, `stopWatch`, `resumeWatch`, `deleteWatch`,
`rebindWatch`, `recordStepEvidence`, `recordCheckpoint`, `runWatchNow` (enqueue a check under
a stable job id), `placeKnowledgeDocument` (a document's library and tags, which reads check).

Each resolver parses its arguments, calls one use case of `jobs.watch.commands` with the
caller's Principal, and shapes the answer. Every expected failure is an engine error and
becomes a GraphQL error with `extensions.code`.
"""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import Connection, connection, page_size, wants_total
from api.definitions.watch_types import CheckpointType, WatchCheckTicket, WatchType
from api.paging import WATCHES, read_after
from engine.watch.bindings import BindingRequest
from jobs.watch import commands


@strawberry.input
class BindingInput:
    kind: str = strawberry.field(description="note | knowledge_document | knowledge_library")
    project: str | None = None
    title: str = ""
    note_id: str | None = None
    library_id: str | None = None
    document_id: str | None = None
    binding_id: str | None = strawberry.field(
        default=None, description="Keep an existing binding (and its grant) unchanged."
    )


@strawberry.input
class CreateWatchInput:
    scope: str
    session_id: str
    title: str = ""
    bindings: list[BindingInput]
    execution_enabled: bool = False
    record_location: str | None = None
    tag_limits: list[str] = strawberry.field(default_factory=list)
    mounted_libraries: list[str] = strawberry.field(default_factory=list)


@strawberry.input
class StepEvidenceInput:
    step_id: str
    status: str
    evidence: str


def _requests(items: list[BindingInput]) -> list[BindingRequest]:
    return [
        BindingRequest(
            kind=b.kind,
            project=b.project,
            title=b.title,
            note_id=b.note_id,
            library_id=b.library_id,
            document_id=b.document_id,
            binding_id=b.binding_id,
        )
        for b in items
    ]


# --- queries ------------------------------------------------------------------------------


async def resolve_watches(
    info: Info[Context, None], scope: str, first: int = 20, after: str | None = None
) -> Connection[WatchType]:
    ctx = info.context
    page = await read_after(
        WATCHES,
        after,
        lambda key: commands.list_watches(
            ctx.deps,
            ctx.caller(),
            scope,
            first=page_size(first, ctx.settings.page_max_first),
            after=key,
            with_total=wants_total(info),
        ),
    )
    return connection(page, WatchType.from_model)


async def resolve_watch(
    info: Info[Context, None], scope: str, id: strawberry.ID
) -> WatchType | None:
    ctx = info.context
    state = await commands.find_watch(ctx.deps, ctx.caller(), scope, str(id))
    return WatchType.from_model(state) if state is not None else None


async def resolve_run_watch_now(
    info: Info[Context, None], scope: str, id: strawberry.ID, request_id: str | None = None
) -> WatchCheckTicket:
    ctx = info.context
    ticket = await commands.run_watch_now(ctx.deps, ctx.caller(), scope, str(id), request_id)
    return WatchCheckTicket(
        watch_id=strawberry.ID(ticket.watch_id), run_id=ticket.run_id, enqueued=ticket.enqueued
    )


@strawberry.type
class Query:
    watches: Connection[WatchType] = strawberry.field(
        resolver=resolve_watches, description="A project's heartbeat watches (持续关注)."
    )
    watch: WatchType | None = strawberry.field(resolver=resolve_watch)


# --- mutations ----------------------------------------------------------------------------


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Create a watch over bound sources; it creates no board.")
    async def create_watch(self, info: Info[Context, None], input: CreateWatchInput) -> WatchType:
        ctx = info.context
        draft = commands.WatchDraft(
            scope=input.scope,
            session_id=input.session_id,
            title=input.title,
            bindings=_requests(input.bindings),
            execution_enabled=input.execution_enabled,
            record_location=input.record_location,
            tag_limits=frozenset(input.tag_limits),
            mounted_libraries=frozenset(input.mounted_libraries),
        )
        return WatchType.from_model(await commands.create_watch(ctx.deps, ctx.caller(), draft))

    @strawberry.mutation(description="Stop a watch; its document grants are revoked.")
    async def stop_watch(
        self, info: Info[Context, None], scope: str, id: strawberry.ID
    ) -> WatchType:
        ctx = info.context
        return WatchType.from_model(
            await commands.stop_watch(ctx.deps, ctx.caller(), scope, str(id))
        )

    @strawberry.mutation(description="Enable a stopped watch; grants come from current bindings.")
    async def resume_watch(
        self, info: Info[Context, None], scope: str, id: strawberry.ID
    ) -> WatchType:
        ctx = info.context
        return WatchType.from_model(
            await commands.resume_watch(ctx.deps, ctx.caller(), scope, str(id))
        )

    @strawberry.mutation(description="Delete a watch; its document grants are revoked.")
    async def delete_watch(
        self, info: Info[Context, None], scope: str, id: strawberry.ID
    ) -> WatchType:
        ctx = info.context
        return WatchType.from_model(
            await commands.delete_watch(ctx.deps, ctx.caller(), scope, str(id))
        )

    @strawberry.mutation(description="Replace a watch's sources; changed bindings lose grants.")
    async def rebind_watch(
        self, info: Info[Context, None], scope: str, id: strawberry.ID, bindings: list[BindingInput]
    ) -> WatchType:
        ctx = info.context
        return WatchType.from_model(
            await commands.rebind_watch(ctx.deps, ctx.caller(), scope, str(id), _requests(bindings))
        )

    @strawberry.mutation(
        description="Step status and evidence as one all-or-nothing batch, "
        "recorded as the calling person's (evidenceBy), never as a run's."
    )
    async def record_step_evidence(
        self,
        info: Info[Context, None],
        scope: str,
        watch_id: strawberry.ID,
        updates: list[StepEvidenceInput],
    ) -> WatchType:
        ctx = info.context
        raw = [{"stepId": u.step_id, "status": u.status, "evidence": u.evidence} for u in updates]
        return WatchType.from_model(
            await commands.record_step_evidence(ctx.deps, ctx.caller(), scope, str(watch_id), raw)
        )

    @strawberry.mutation(description="Save a check artefact; its record sync is its own job.")
    async def record_checkpoint(
        self,
        info: Info[Context, None],
        scope: str,
        watch_id: strawberry.ID,
        data: JSON,
        instructions: JSON,
        location: str | None = None,
    ) -> CheckpointType:
        ctx = info.context
        saved = await commands.record_checkpoint(
            ctx.deps,
            ctx.caller(),
            scope,
            str(watch_id),
            data=data,
            instructions=instructions,
            location=location,
        )
        return CheckpointType.from_model(saved)

    run_watch_now: WatchCheckTicket = strawberry.mutation(
        resolver=resolve_run_watch_now,
        description="Enqueue a check now (a retest starts from the existing watch); a repeated "
        "requestId runs once.",
    )
    run_watch_check: WatchCheckTicket = strawberry.mutation(
        resolver=resolve_run_watch_now, deprecation_reason="Use runWatchNow."
    )

    @strawberry.mutation(description="Place a knowledge document in a library, with its tags.")
    async def place_knowledge_document(
        self,
        info: Info[Context, None],
        scope: str,
        library_id: str,
        document_id: str,
        tags: list[str] | None = None,
    ) -> bool:
        ctx = info.context
        await commands.place_knowledge_document(
            ctx.deps, ctx.caller(), scope, library_id, document_id, tags or ()
        )
        return True
