"""The conversation-side commands of docs/rules/concerns.md and the reads of concerns.

Every function takes the `Deps` and the caller's `Principal` first and checks the role and
the scope before it reads anything: a scope argument the caller cannot use is FORBIDDEN
(naming no scope); a concern found by id in another scope is NOT_FOUND, exactly like a
missing one. `now` comes from `deps.clock` unless the caller gives an event time; ids from
`deps.ids`; jobs are enqueued (`jobs.concern.effects`) only after the write committed.

- `raise_concern`: only callers holding the agenda role reach it (the cognitive hub); the
  engine builds the pending concern, the agenda registration and the `created` report; they
  are saved in one transaction and the report is handed to a worker for delivery. The first
  contact is the agent loop's first turn (next_action due at once): enqueued right after the
  write under the stable job id the scheduler's scan derives for the same due item, so the
  initial message is in conversation_log without waiting for a tick, and a scan that sees
  it too enqueues nothing more (a schedule whose first run is due now is enqueued alike).
- `advance_concern`: records the inbound message in conversation_log and enqueues the agent
  loop with the reply trigger; it never resolves. The same channel message twice records
  once and enqueues one job (same trigger, same job id).
- `change_priority`: `changeConcernPriority` (agenda role): Agenda ref, follow-up gates and
  held messages' sending window follow the new priority; recorded in the timeline.
- `report_fact`: a related fact from the cognitive hub (e.g. a GitLab merge) re-enters the
  loop as a `related_fact` trigger carrying the signal for the model.
- `request_scheduler_run`: enqueue a scheduler run; over every scope (no scope) it needs
  admin, and only an admin may run it at a moved clock (`now`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.concern.actor import signed
from engine.concern.admission import raise_concern as decide_raise
from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.agenda import Agenda
from engine.concern.effects import RescheduleMessages
from engine.concern.model import Concern, Priority, RaiseConcernInput
from engine.concern.policy import ConcernPolicy
from engine.concern.priority import change_priority as decide_priority
from engine.concern.recipients import check_recipients, person_ids, recipients_of
from engine.concern.scheduler import Trigger, TriggerKind, due_trigger
from engine.errors import Conflict, InvalidInput, NotFound
from engine.page import Page
from engine.principal import Principal
from engine.scope import require_scope
from graph.concern.agenda import AgendaStore
from graph.concern.listing import ConcernListing
from graph.concern.outbox import Outbox, OutboxRow
from graph.concern.persons import PersonContext, PersonStore
from graph.concern.repository import ConcernRepository, StoredConcern
from jobs import quota
from jobs.concern.effects import (
    enqueue_advance,
    enqueue_delivery,
    enqueue_scheduler_run,
    first_turn_job_id,
)
from jobs.deps import Deps

RECORD_ATTEMPTS = 5
CONCERN_ID_DIGITS = 10


@dataclass(frozen=True)
class Advanced:
    concern: Concern
    job_id: str
    enqueued: bool


@dataclass(frozen=True)
class Fact:
    """A related fact reported by the cognitive hub (e.g. a merge)."""

    fact_id: str
    kind: str
    source: str | None = None
    person_id: str | None = None
    detail: str | None = None
    at: datetime | None = None


def _concerns(deps: Deps) -> ConcernRepository:
    return ConcernRepository(deps.driver, deps.database)


def _persons(deps: Deps) -> PersonStore:
    return PersonStore(deps.driver, deps.database)


def policy_of(deps: Deps) -> ConcernPolicy:
    return ConcernPolicy.from_settings(deps.settings)


def event_time(deps: Deps, at: datetime | None) -> datetime:
    """When something happened: the caller's time (it must carry an offset), else now."""
    if at is None:
        return deps.clock()
    if at.tzinfo is None:
        raise InvalidInput("times must carry a timezone offset", at=at.isoformat())
    return at


def new_concern_id(deps: Deps, now: datetime) -> str:
    return f"con_{now:%Y%m%d}_{deps.ids('', CONCERN_ID_DIGITS)}"


async def visible_concern(
    deps: Deps, principal: Principal, role: str, concern_id: str, *, scope: str | None = None
) -> StoredConcern:
    """A concern the caller may see with `role`; another scope's (or, when `scope` is given,
    one outside it) reads as NOT_FOUND like a missing one."""
    principal.require(role)
    stored = await _concerns(deps).find(concern_id)
    missing = NotFound(f"no concern {concern_id}", concern_id=concern_id)
    if stored is None or (scope is not None and stored.scope != scope):
        raise missing
    principal.visible(role, stored.scope, missing)
    return stored


# --- reads --------------------------------------------------------------------------------


async def find(deps: Deps, principal: Principal, concern_id: str) -> Concern | None:
    """A concern by id; None when missing or of a scope the caller cannot use."""
    principal.require("reader")
    stored = await _concerns(deps).find(concern_id)
    if stored is None or not principal.can_scope(stored.scope):
        return None
    return stored.concern


async def list_concerns(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    statuses: list[str] | None = None,
    priorities: list[str] | None = None,
    person_id: str | None = None,
    first: int,
    after: tuple[datetime, str] | None = None,
    with_total: bool = False,
) -> Page[Concern]:
    """One scope's concerns, newest first, filtered, keyset-paged after (created_at, id)."""
    scope = require_scope(principal, "reader", scope)
    return await ConcernListing(deps.driver, deps.database).page(
        scope=scope,
        statuses=statuses,
        priorities=priorities,
        person_id=person_id,
        after=after,
        first=first,
        with_total=with_total,
    )


async def agenda(deps: Deps, principal: Principal, scope: str) -> Agenda:
    scope = require_scope(principal, "reader", scope)
    return await AgendaStore(deps.driver, deps.database).load(scope)


async def concern_messages(
    deps: Deps,
    principal: Principal,
    scope: str,
    person_id: str,
    *,
    statuses: list[str] | None = None,
    first: int,
    after: tuple[datetime, int, str] | None = None,
    with_total: bool = False,
) -> Page[OutboxRow]:
    """Every message addressed to a person, in delivery order, keyset-paged."""
    scope = require_scope(principal, "reader", scope)
    return await Outbox(deps.driver, deps.database).for_recipient(
        scope=scope,
        person_id=person_id,
        statuses=statuses,
        after=after,
        first=first,
        with_total=with_total,
    )


# --- changes ------------------------------------------------------------------------------


async def raise_concern(
    deps: Deps,
    principal: Principal,
    data: RaiseConcernInput | Callable[[], RaiseConcernInput],
    *,
    scope: str,
    at: datetime | None = None,
    concern_id: str | None = None,
    first_at: datetime | None = None,
) -> Concern:
    """`data` may be given as the function that validates it, so a caller without the role
    or the scope is refused before its input is judged. The agenda names the concern it
    raises for a signal (`concern_id`, a second create of it is CONFLICT, nothing written)
    and when its first contact is due (`first_at`; default at once)."""
    scope = require_scope(principal, "agenda", scope)
    if callable(data):
        data = data()
    now = event_time(deps, at)
    await admit_recipients(deps, scope, data, deps.clock())
    policy = policy_of(deps)
    cid = concern_id or new_concern_id(deps, now)
    probe = decide_raise(data, concern_id=cid, now=now, policy=policy, first_at=first_at)
    # the daily report cap needs the initiator's reports of today (a person slice read)
    persons = _persons(deps)
    inputs = await persons.raise_inputs(probe.new_concern, scope)
    context = await persons.loop_context(inputs, now=now, policy=policy)
    decision = decide_raise(
        data, concern_id=cid, now=now, policy=policy, context=context, first_at=first_at
    )
    by = principal.name
    decision = decision.model_copy(update={"new_concern": signed(None, decision.new_concern, by)})
    concern = await _concerns(deps).create(decision, scope=scope, now=now)
    if deps.pool is not None:
        if any(e.kind == "report" for e in decision.effects):
            await enqueue_delivery(
                deps.pool, deps.settings.queue_name, concern_id=cid, key=decision.job_id, now=now
            )
        first = due_trigger(concern, now)
        if first is not None:
            # the first loop turn at once (docs/rules/concerns.md: the initial message is written to
            # conversation_log on raising), under its own job id (jobs/concern/effects.py)
            await enqueue_advance(
                deps.pool,
                deps.settings.queue_name,
                concern_id=cid,
                trigger=first,
                now=now,
                job_id=first_turn_job_id(cid),
            )
    return concern


async def admit_recipients(deps: Deps, scope: str, data: RaiseConcernInput, now: datetime) -> None:
    """Only people the scope knows, on allowed channels (engine/concern/recipients.py), and
    within the scope's hourly allowance of recipients (RATE_LIMITED past it)."""
    if deps.settings.concern_known_people_only:
        known = await _persons(deps).known(scope, person_ids(data), now)
        check_recipients(data, known, deps.settings.concern_channels)
    if deps.pool is not None:
        await quota.take(
            deps.pool,
            "concern-recipients",
            scope,
            deps.settings.concern_recipients_per_hour,
            3600,
            "people this scope's new concerns may message",
            amount=recipients_of(data),
        )


async def advance_concern(
    deps: Deps,
    principal: Principal,
    concern_id: str,
    message: InboundMessage,
    *,
    now: datetime | None = None,
    scope: str | None = None,
) -> Advanced:
    """Record a reply (at `now`, default the message's time) and enqueue the loop."""
    stored = await visible_concern(deps, principal, "agenda", concern_id, scope=scope)
    moment = now or message.ts
    for _ in range(RECORD_ATTEMPTS):
        updated, trigger = record_inbound(stored.concern, message, moment)
        if updated is not stored.concern:
            updated = signed(stored.concern, updated, principal.name)
            try:
                await _concerns(deps).save(
                    updated,
                    scope=stored.scope,
                    expected_revision=stored.concern.revision,
                    now=moment,
                )
            except Conflict:
                stored = await visible_concern(deps, principal, "agenda", concern_id)
                continue
        enqueued = False
        if deps.pool is not None:
            enqueued = await enqueue_advance(
                deps.pool,
                deps.settings.queue_name,
                concern_id=concern_id,
                trigger=trigger,
                now=moment,
            )
        return Advanced(updated, trigger.job_id(concern_id), enqueued)
    raise Conflict(f"concern {concern_id} kept changing; try again", concern_id=concern_id)


async def change_priority(
    deps: Deps,
    principal: Principal,
    concern_id: str,
    priority: Priority,
    *,
    scope: str | None = None,
    at: datetime | None = None,
) -> Concern:
    """`changeConcernPriority` (agenda role): the Agenda ref, the follow-up gates and the
    sending window of held messages follow the new priority, in one transaction with a
    timeline entry (engine/concern/priority.py). A held message whose new window is open
    is handed to a worker for delivery at once."""
    stored = await visible_concern(deps, principal, "agenda", concern_id, scope=scope)
    now = event_time(deps, at)
    policy = policy_of(deps)
    outbox = Outbox(deps.driver, deps.database)
    for _ in range(RECORD_ATTEMPTS):
        pending = tuple(await outbox.pending_of(concern_id))
        decision = decide_priority(
            stored.concern,
            priority,
            now=now,
            job_id=f"priority:{concern_id}:{stored.concern.revision}",
            policy=policy,
            pending=pending,
        )
        if decision.noop:
            return stored.concern
        signed_concern = signed(stored.concern, decision.new_concern, principal.name)
        decision = decision.model_copy(update={"new_concern": signed_concern})
        try:
            await _concerns(deps).save_decision(
                decision, scope=stored.scope, expected_revision=stored.concern.revision, now=now
            )
        except Conflict:
            stored = await visible_concern(deps, principal, "agenda", concern_id)
            continue
        moved = [e for e in decision.effects if isinstance(e, RescheduleMessages)]
        if deps.pool is not None and any(at_ <= now for e in moved for _, at_ in e.moves):
            await enqueue_delivery(
                deps.pool,
                deps.settings.queue_name,
                concern_id=concern_id,
                key=decision.job_id,
                now=now,
            )
        return decision.new_concern
    raise Conflict(f"concern {concern_id} kept changing; try again", concern_id=concern_id)


async def report_fact(deps: Deps, principal: Principal, concern_id: str, fact: Fact) -> Advanced:
    await visible_concern(deps, principal, "agenda", concern_id)
    when = event_time(deps, fact.at)
    signal: dict[str, Any] = {
        "kind": fact.kind,
        "source": fact.source,
        "at": when.isoformat(),
        "person_id": fact.person_id,
        "detail": fact.detail,
    }
    inputs = await _persons(deps).loop_inputs(concern_id)
    detail = f"{signal.get('source') or ''} {signal['kind']}: {signal.get('detail') or ''}"
    trigger = Trigger(kind=TriggerKind.RELATED_FACT, event_key=fact.fact_id, detail=detail.strip())
    enqueued = False
    if deps.pool is not None:
        enqueued = await enqueue_advance(
            deps.pool,
            deps.settings.queue_name,
            concern_id=concern_id,
            trigger=trigger,
            now=when,
            signal=signal,
        )
    return Advanced(inputs.concern, trigger.job_id(concern_id), enqueued)


async def upsert_person(
    deps: Deps, principal: Principal, scope: str, person: dict[str, Any]
) -> PersonContext:
    """Person master data read by resolve_person_context (docs/rules/concerns.md)."""
    scope = require_scope(principal, "agenda", scope)
    return await _persons(deps).upsert(scope, person)


async def request_scheduler_run(
    deps: Deps, principal: Principal, *, now: datetime | None = None, scope: str | None = None
) -> bool:
    """Enqueue a scheduler run. Every scope (no `scope`) is an all-scope operation, and a
    moved clock (`now`) fires follow-ups and timeouts early: both need admin."""
    if scope is None:
        principal.require("admin")
    else:
        scope = require_scope(principal, "operator", scope)
    if now is not None:
        principal.require("admin")
    moment = event_time(deps, now)
    if deps.pool is None:
        return False
    return await enqueue_scheduler_run(deps.pool, deps.settings.queue_name, now=moment, scope=scope)
