"""Heartbeat watches over GraphQL (seed 000 持续关注, issue 7 §12).

Queries: `watches(scope, first, after)` (Relay connection), `watch(scope, id)`.
Mutations: `createWatch`, `stopWatch`, `resumeWatch`, `deleteWatch`, `rebindWatch`,
`recordStepEvidence`, `recordCheckpoint`, `runWatchNow` (enqueue a check under a stable job
id), `placeKnowledgeDocument` (a document's library and tags, which reads check).

Every expected failure is an engine error and becomes a GraphQL error with
`extensions.code`; the engine decides inside the write transaction, so a rejected mutation
writes nothing.
"""

from __future__ import annotations

import base64
import uuid
from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import MAX_PAGE, Connection, Edge, PageInfo
from api.definitions.watch_types import CheckpointType, WatchCheckTicket, WatchType
from engine.errors import InvalidInput, NotFound
from engine.story.inputs import check_scope
from engine.watch.checkpoint import record_checkpoint
from engine.watch.model import OutcomeStatus, SourceBinding, SourceKind, Watch
from graph.watch.catalogue import LibraryEntry, SourceCatalogue
from graph.watch.records import WatchRecords
from graph.watch.repository import WatchRepository, utcnow
from jobs.tasks.watch_check import enqueue_check, enqueue_sync


@strawberry.input
class BindingInput:
    kind: str = strawberry.field(description="note | knowledge_document | knowledge_library")
    project: str | None = None
    title: str = ""
    note_id: str | None = None
    library_id: str | None = None
    document_id: str | None = None
    binding_id: str | None = strawberry.field(
        default=None, description="Keep an existing binding (and its grant) unchanged.")


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


def _repo(ctx: Context) -> WatchRepository:
    return WatchRepository(ctx.driver, ctx.database)


def _binding(
    b: BindingInput, scope: str, now: datetime, existing: dict[str, SourceBinding]
) -> SourceBinding:
    if b.kind not in {k.value for k in SourceKind}:
        raise InvalidInput(f"binding kind {b.kind!r} is not one of note, knowledge_document, "
                           "knowledge_library", field="bindings.kind")
    try:
        binding = SourceBinding(
            binding_id=b.binding_id or f"b-{uuid.uuid4().hex[:12]}", kind=SourceKind(b.kind),
            project=b.project or scope, title=b.title, note_id=b.note_id,
            library_id=b.library_id, document_id=b.document_id, bound_at=now,
        )
    except ValueError as exc:
        raise InvalidInput(f"invalid binding: {exc}", field="bindings") from exc
    old = existing.get(binding.binding_id)
    if old is not None and old.model_copy(update={"bound_at": now}) == binding:
        return old
    if old is not None:
        binding = binding.model_copy(update={"binding_id": f"b-{uuid.uuid4().hex[:12]}"})
    if binding.kind is SourceKind.NOTE and binding.project != scope:
        raise InvalidInput("a note binding uses the session's own project", field="bindings")
    return binding


def _bindings(items: list[BindingInput], scope: str, now: datetime,
              existing: dict[str, SourceBinding] | None = None) -> tuple[SourceBinding, ...]:
    if not items:
        raise InvalidInput("a watch needs at least one bound source", field="bindings")
    return tuple(_binding(b, scope, now, existing or {}) for b in items)


def _usable(ctx: Context, bindings: tuple[SourceBinding, ...]) -> tuple[SourceBinding, ...]:
    """Every bound source's project must be one of the caller's scopes: the checker reads
    what a binding names, so a binding is as good as a read of that project (issue 11)."""
    for b in bindings:
        ctx.require("editor", b.project)
    return bindings


def _encode(created_at: datetime, watch_id: str) -> str:
    return base64.urlsafe_b64encode(f"w:{created_at.isoformat()}|{watch_id}".encode()).decode()


def _decode(cursor: str) -> tuple[datetime, str]:
    try:
        kind, _, rest = base64.urlsafe_b64decode(cursor.encode()).decode().partition(":")
        stamp, _, watch_id = rest.partition("|")
        if kind != "w" or not watch_id:
            raise ValueError(kind)
        return datetime.fromisoformat(stamp), watch_id
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput("after is not a cursor this API issued", field="after") from exc


# --- queries ------------------------------------------------------------------------------


async def resolve_watches(info: Info[Context, None], scope: str, first: int = 20,
                          after: str | None = None) -> Connection[WatchType]:
    ctx = info.context
    ctx.require("reader", check_scope(scope))
    if not 0 <= first <= MAX_PAGE:
        raise InvalidInput(f"first must be between 0 and {MAX_PAGE}", field="first")
    states, total, more = await _repo(ctx).page(
        scope, after=_decode(after) if after else None, first=first)
    edges = [Edge(cursor=_encode(s.watch.created_at, s.watch.watch_id),
                  node=WatchType.from_model(s)) for s in states]
    return Connection(
        edges=edges, total_count=total,
        page_info=PageInfo(
            has_next_page=more, has_previous_page=after is not None,
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
        ),
    )


async def resolve_watch(info: Info[Context, None], scope: str, id: strawberry.ID
                        ) -> WatchType | None:
    ctx = info.context
    ctx.require("reader", check_scope(scope))
    try:
        return WatchType.from_model(await _repo(ctx).get(scope, str(id)))
    except NotFound:
        return None


async def resolve_run_watch_now(info: Info[Context, None], scope: str, id: strawberry.ID,
                                request_id: str | None = None) -> WatchCheckTicket:
    ctx = info.context
    ctx.require("operator", check_scope(scope))
    state = await _repo(ctx).get(scope, str(id))
    if not state.watch.is_active:
        raise InvalidInput(f"watch {id} is {state.watch.status}", field="id")
    if request_id is not None and not (0 < len(request_id) <= 100):
        raise InvalidInput("requestId must be 1 to 100 characters", field="requestId")
    run_id = request_id or uuid.uuid4().hex
    enqueued = await enqueue_check(ctx.pool, ctx.settings, scope=scope, watch_id=str(id),
                                   request_id=run_id)
    return WatchCheckTicket(watch_id=id, run_id=run_id, enqueued=enqueued)


@strawberry.type
class Query:
    watches: Connection[WatchType] = strawberry.field(
        resolver=resolve_watches, description="A project's heartbeat watches (持续关注).")
    watch: WatchType | None = strawberry.field(resolver=resolve_watch)


# --- mutations ----------------------------------------------------------------------------


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Create a watch over bound sources; it creates no board.")
    async def create_watch(self, info: Info[Context, None], input: CreateWatchInput
                           ) -> WatchType:
        ctx = info.context
        scope = check_scope(input.scope)
        ctx.require("editor", scope)
        now = utcnow()
        try:
            watch = Watch(
                watch_id=f"w-{uuid.uuid4().hex[:16]}", scope=scope, session_id=input.session_id,
                title=input.title, bindings=_usable(ctx, _bindings(input.bindings, scope, now)),
                tag_limits=frozenset(input.tag_limits), execution_enabled=input.execution_enabled,
                record_location=input.record_location, created_at=now,
            )
        except ValueError as exc:
            raise InvalidInput(f"invalid watch: {exc}", field="input") from exc
        state = await _repo(ctx).create(watch, frozenset(input.mounted_libraries))
        return WatchType.from_model(state)

    @strawberry.mutation(description="Stop a watch; its document grants are revoked.")
    async def stop_watch(self, info: Info[Context, None], scope: str, id: strawberry.ID
                         ) -> WatchType:
        info.context.require("editor", check_scope(scope))
        return WatchType.from_model(await _repo(info.context).stop(scope, str(id)))

    @strawberry.mutation(description="Enable a stopped watch; grants come from current bindings.")
    async def resume_watch(self, info: Info[Context, None], scope: str, id: strawberry.ID
                           ) -> WatchType:
        info.context.require("editor", check_scope(scope))
        return WatchType.from_model(await _repo(info.context).resume(scope, str(id)))

    @strawberry.mutation(description="Delete a watch; its document grants are revoked.")
    async def delete_watch(self, info: Info[Context, None], scope: str, id: strawberry.ID
                           ) -> WatchType:
        info.context.require("editor", check_scope(scope))
        return WatchType.from_model(await _repo(info.context).delete(scope, str(id)))

    @strawberry.mutation(description="Replace a watch's sources; changed bindings lose grants.")
    async def rebind_watch(self, info: Info[Context, None], scope: str, id: strawberry.ID,
                           bindings: list[BindingInput]) -> WatchType:
        ctx = info.context
        ctx.require("editor", check_scope(scope))
        repo = _repo(ctx)
        current = await repo.get(scope, str(id))
        existing = {b.binding_id: b for b in current.watch.bindings}
        new = _usable(ctx, _bindings(bindings, scope, repo.clock(), existing))
        return WatchType.from_model(await repo.rebind(scope, str(id), new))

    @strawberry.mutation(description="Step status and evidence as one all-or-nothing batch, "
                         "recorded as the calling person's (evidenceBy), never as a run's.")
    async def record_step_evidence(self, info: Info[Context, None], scope: str,
                                   watch_id: strawberry.ID, updates: list[StepEvidenceInput]
                                   ) -> WatchType:
        ctx = info.context
        principal = ctx.require("editor", check_scope(scope))
        raw = [{"stepId": u.step_id, "status": u.status, "evidence": u.evidence}
               for u in updates]
        return WatchType.from_model(await _repo(ctx).record_step_evidence(
            scope, str(watch_id), raw, recorded_by=principal.name))

    @strawberry.mutation(description="Save a check artefact; its record sync is its own job.")
    async def record_checkpoint(self, info: Info[Context, None], scope: str,
                                watch_id: strawberry.ID, data: JSON, instructions: JSON,
                                location: str | None = None) -> CheckpointType:
        ctx = info.context
        ctx.require("editor", check_scope(scope))
        records = WatchRecords(ctx.driver, ctx.database)
        watches: dict[str, Watch] = {}
        run_id, complete = "", False
        try:
            state = await _repo(ctx).get(scope, str(watch_id))
        except NotFound:
            state = None
        if state is not None:
            watches[state.watch.watch_id] = state.watch
            latest = await records.observations(scope, state.watch.watch_id, 1)
            if latest:
                last = latest[0].observation
                run_id = last.run_id
                complete = (last.outcome is not None
                            and last.outcome.status is OutcomeStatus.SUCCESS)
        checkpoint = record_checkpoint(
            {"watchId": str(watch_id), "location": location, "data": data,
             "instructions": instructions},
            watches=watches, verification_complete=complete, run_id=run_id or "-",
            checkpoint_id=f"cp-{uuid.uuid4().hex[:16]}", now=utcnow(),
        )
        saved = await records.save_checkpoint(scope, checkpoint)
        await enqueue_sync(ctx.pool, ctx.settings, scope=scope, checkpoint_id=saved.checkpoint_id)
        return CheckpointType.from_model(saved)

    run_watch_now: WatchCheckTicket = strawberry.mutation(
        resolver=resolve_run_watch_now,
        description="Enqueue a check now (a retest starts from the existing watch); a repeated "
        "requestId runs once.")
    run_watch_check: WatchCheckTicket = strawberry.mutation(
        resolver=resolve_run_watch_now, deprecation_reason="Use runWatchNow.")

    @strawberry.mutation(description="Place a knowledge document in a library, with its tags.")
    async def place_knowledge_document(self, info: Info[Context, None], scope: str,
                                       library_id: str, document_id: str,
                                       tags: list[str] | None = None) -> bool:
        ctx = info.context
        ctx.require("editor", check_scope(scope))
        for name, value in (("libraryId", library_id), ("documentId", document_id)):
            if not value or any(c in value for c in "/: \t\n"):
                raise InvalidInput(f"{name} must be a plain id", field=name)
        await SourceCatalogue(ctx.driver, ctx.database).place(
            LibraryEntry(library_id, document_id, scope, frozenset(tags or ())))
        return True
