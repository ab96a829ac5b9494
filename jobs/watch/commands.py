"""What a person asks of a watch, and the reads of watches (docs/rules/watches.md).

Every function takes the `Deps` and the caller's `Principal` first, checks the role and the
scope before it reads anything (a scope the caller cannot use is FORBIDDEN, naming no scope),
then loads through `graph.watch`, lets `engine.watch` decide inside one write transaction
(a rejected change writes nothing), and performs its effects (enqueued jobs) only after the
write committed. Ids come from `deps.ids`, `now` from `deps.clock`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.errors import InvalidInput, NotFound
from engine.page import Page
from engine.principal import Principal
from engine.scope import require_scope
from engine.watch.bindings import BINDING_ID_LENGTH, BindingRequest, bind
from engine.watch.checkpoint import record_checkpoint as decide_checkpoint
from engine.watch.model import Checkpoint, OutcomeStatus, SourceBinding, Watch
from graph.watch.catalogue import LibraryEntry, SourceCatalogue
from graph.watch.records import WatchRecords
from graph.watch.repository import WatchRepository, WatchState
from jobs.deps import Deps
from jobs.watch.effects import enqueue_check, enqueue_sync

MAX_REQUEST_ID = 100


@dataclass(frozen=True)
class WatchDraft:
    scope: str
    session_id: str
    bindings: Sequence[BindingRequest]
    title: str = ""
    execution_enabled: bool = False
    record_location: str | None = None
    tag_limits: frozenset[str] = frozenset()
    mounted_libraries: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class CheckTicket:
    watch_id: str
    run_id: str
    enqueued: bool


def _repo(deps: Deps) -> WatchRepository:
    return WatchRepository(deps.driver, deps.database)


def _bindings(
    deps: Deps,
    principal: Principal,
    requests: Sequence[BindingRequest],
    scope: str,
    now: datetime,
    existing: Sequence[SourceBinding] = (),
) -> tuple[SourceBinding, ...]:
    """Every bound source's project must be one of the caller's scopes: the checker reads
    what a binding names, so a binding is as good as a read of that project."""
    bindings = bind(
        requests, scope, now, existing=existing, new_id=lambda: deps.ids("b", BINDING_ID_LENGTH)
    )
    for b in bindings:
        principal.require("editor", b.project)
    return bindings


# --- reads --------------------------------------------------------------------------------


async def list_watches(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    first: int,
    after: tuple[datetime, str] | None,
    with_total: bool,
) -> Page[WatchState]:
    scope = require_scope(principal, "reader", scope)
    return await _repo(deps).page(scope, after=after, first=first, with_total=with_total)


async def find_watch(
    deps: Deps, principal: Principal, scope: str, watch_id: str
) -> WatchState | None:
    scope = require_scope(principal, "reader", scope)
    try:
        return await _repo(deps).get(scope, watch_id)
    except NotFound:
        return None


# --- changes ------------------------------------------------------------------------------


async def create_watch(deps: Deps, principal: Principal, draft: WatchDraft) -> WatchState:
    scope = require_scope(principal, "editor", draft.scope)
    now = deps.clock()
    try:
        watch = Watch(
            watch_id=deps.ids("w"),
            scope=scope,
            session_id=draft.session_id,
            title=draft.title,
            bindings=_bindings(deps, principal, draft.bindings, scope, now),
            tag_limits=draft.tag_limits,
            execution_enabled=draft.execution_enabled,
            record_location=draft.record_location,
            created_at=now,
        )
    except ValueError as exc:
        raise InvalidInput(f"invalid watch: {exc}", field="input") from exc
    return await _repo(deps).create(watch, draft.mounted_libraries)


async def stop_watch(deps: Deps, principal: Principal, scope: str, watch_id: str) -> WatchState:
    """Stop a watch; its document grants are revoked."""
    scope = require_scope(principal, "editor", scope)
    return await _repo(deps).stop(scope, watch_id, now=deps.clock())


async def resume_watch(deps: Deps, principal: Principal, scope: str, watch_id: str) -> WatchState:
    """Enable a stopped watch; grants come from the current bindings, never recovered."""
    scope = require_scope(principal, "editor", scope)
    return await _repo(deps).resume(scope, watch_id, now=deps.clock())


async def delete_watch(deps: Deps, principal: Principal, scope: str, watch_id: str) -> WatchState:
    scope = require_scope(principal, "editor", scope)
    return await _repo(deps).delete(scope, watch_id, now=deps.clock())


async def rebind_watch(
    deps: Deps,
    principal: Principal,
    scope: str,
    watch_id: str,
    requests: Sequence[BindingRequest],
) -> WatchState:
    """Replace a watch's sources; a binding kept unchanged keeps its grant."""
    scope = require_scope(principal, "editor", scope)
    repo = _repo(deps)
    current = await repo.get(scope, watch_id)
    now = deps.clock()
    bindings = _bindings(deps, principal, requests, scope, now, existing=current.watch.bindings)
    return await repo.rebind(scope, watch_id, bindings, now=now)


async def record_step_evidence(
    deps: Deps,
    principal: Principal,
    scope: str,
    watch_id: str,
    updates: Sequence[Mapping[str, Any]],
) -> WatchState:
    """A batch against the persisted step list, all or nothing, recorded as the caller's."""
    scope = require_scope(principal, "editor", scope)
    return await _repo(deps).record_step_evidence(
        scope, watch_id, updates, recorded_by=principal.name, now=deps.clock()
    )


async def record_checkpoint(
    deps: Deps,
    principal: Principal,
    scope: str,
    watch_id: str,
    *,
    data: Any,
    instructions: Any,
    location: str | None,
) -> Checkpoint:
    """Save a check artefact against the watch's latest run; its record sync is its own
    job, enqueued once the checkpoint is stored."""
    scope = require_scope(principal, "editor", scope)
    records = WatchRecords(deps.driver, deps.database)
    watches: dict[str, Watch] = {}
    run_id, complete = "", False
    state = await find_watch(deps, principal, scope, watch_id)
    if state is not None:
        watches[state.watch.watch_id] = state.watch
        latest = await records.observations(scope, state.watch.watch_id, 1)
        if latest:
            last = latest[0].observation
            run_id = last.run_id
            complete = last.outcome is not None and last.outcome.status is OutcomeStatus.SUCCESS
    checkpoint = decide_checkpoint(
        {"watchId": watch_id, "location": location, "data": data, "instructions": instructions},
        watches=watches,
        verification_complete=complete,
        run_id=run_id or "-",
        checkpoint_id=deps.ids("cp"),
        now=deps.clock(),
    )
    saved = await records.save_checkpoint(scope, checkpoint)
    if deps.pool is not None:
        await enqueue_sync(deps.pool, deps.settings, scope=scope, checkpoint_id=saved.checkpoint_id)
    return saved


async def run_watch_now(
    deps: Deps, principal: Principal, scope: str, watch_id: str, request_id: str | None
) -> CheckTicket:
    """Enqueue a check of an active watch; a repeated request id runs once."""
    scope = require_scope(principal, "operator", scope)
    state = await _repo(deps).get(scope, watch_id)
    if not state.watch.is_active:
        raise InvalidInput(f"watch {watch_id} is {state.watch.status}", field="id")
    if request_id is not None and not (0 < len(request_id) <= MAX_REQUEST_ID):
        raise InvalidInput("requestId must be 1 to 100 characters", field="requestId")
    run_id = request_id or deps.ids("", 32)
    enqueued = False
    if deps.pool is not None:
        await WatchRecords(deps.driver, deps.database).record_queued(
            scope, {run_id: watch_id}, deployment=deps.settings.queue_name, now=deps.clock()
        )
        enqueued = await enqueue_check(
            deps.pool, deps.settings, scope=scope, watch_id=watch_id, request_id=run_id
        )
    return CheckTicket(watch_id=watch_id, run_id=run_id, enqueued=enqueued)


async def place_knowledge_document(
    deps: Deps,
    principal: Principal,
    scope: str,
    library_id: str,
    document_id: str,
    tags: Sequence[str] = (),
) -> None:
    """Put a document of `scope` into a library with its tags (entries are keyed by scope)."""
    scope = require_scope(principal, "editor", scope)
    for name, value in (("libraryId", library_id), ("documentId", document_id)):
        if not value or any(c in value for c in "/: \t\n"):
            raise InvalidInput(f"{name} must be a plain id", field=name)
    await SourceCatalogue(deps.driver, deps.database).place(
        LibraryEntry(library_id, document_id, scope, frozenset(tags))
    )
