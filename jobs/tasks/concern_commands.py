"""The conversation-side commands of seed 002 §九, as the API performs them.

- `raise_new_concern` (raise_concern): only callers holding the agenda role reach it (the
  cognitive hub, checked by the API); the engine builds the pending concern, the agenda
  registration and the `created` report; they are saved in one transaction and the report
  is handed to a worker for delivery. The first contact is the agent loop's first turn
  (next_action due at once, picked up by `scan_due_concerns`).
- `record_reply` (advance_concern): records the inbound message in conversation_log and
  enqueues the agent loop with the reply trigger; it never resolves. The same channel
  message twice records once and enqueues one job (same trigger, same job id).
- `report_fact`: a related fact from the cognitive hub (e.g. a GitLab merge) re-enters the
  loop as a `related_fact` trigger carrying the signal for the model.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.admission import raise_concern
from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.model import Concern, RaiseConcernInput
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import Trigger, TriggerKind
from engine.errors import Conflict
from graph.concern.persons import (
    load_loop_inputs,
    load_raise_inputs,
    loop_context_for,
)
from graph.concern.repository import create_concern, load_concern, save_concern
from jobs.tasks.concern_enqueue import enqueue_advance, enqueue_delivery

RECORD_ATTEMPTS = 5


def new_concern_id(now: datetime) -> str:
    return f"con_{now:%Y%m%d}_{uuid.uuid4().hex[:10]}"


@dataclass(frozen=True)
class Advanced:
    concern: Concern
    job_id: str
    enqueued: bool


async def raise_new_concern(
    driver: AsyncDriver, database: str, pool: ArqRedis, queue_name: str, data: RaiseConcernInput,
    *, scope: str, now: datetime, policy: ConcernPolicy, concern_id: str | None = None,
) -> Concern:
    cid = concern_id or new_concern_id(now)
    probe = raise_concern(data, concern_id=cid, now=now, policy=policy)
    # the daily report cap needs the initiator's reports of today (a person slice read)
    inputs = await load_raise_inputs(driver, database, probe.new_concern, scope)
    context = await loop_context_for(driver, database, inputs, now=now, policy=policy)
    decision = raise_concern(data, concern_id=cid, now=now, policy=policy, context=context)
    concern = await create_concern(driver, database, decision, scope=scope, now=now)
    if any(e.kind == "report" for e in decision.effects):
        await enqueue_delivery(pool, queue_name, concern_id=cid, key=decision.job_id, now=now)
    return concern


async def record_reply(
    driver: AsyncDriver, database: str, pool: ArqRedis, queue_name: str, *, concern_id: str,
    message: InboundMessage, now: datetime,
) -> Advanced:
    for _ in range(RECORD_ATTEMPTS):
        stored = await load_concern(driver, database, concern_id)
        updated, trigger = record_inbound(stored.concern, message, now)
        if updated is not stored.concern:
            try:
                await save_concern(driver, database, updated, scope=stored.scope,
                                   expected_revision=stored.concern.revision, now=now)
            except Conflict:
                continue
        enqueued = await enqueue_advance(pool, queue_name, concern_id=concern_id,
                                         trigger=trigger, now=now)
        return Advanced(updated, trigger.job_id(concern_id), enqueued)
    raise Conflict(f"concern {concern_id} kept changing; try again", concern_id=concern_id)


async def report_fact(
    driver: AsyncDriver, database: str, pool: ArqRedis, queue_name: str, *, concern_id: str,
    fact_id: str, signal: dict[str, Any], now: datetime,
) -> Advanced:
    inputs = await load_loop_inputs(driver, database, concern_id)
    detail = f"{signal.get('source') or ''} {signal['kind']}: {signal.get('detail') or ''}"
    trigger = Trigger(kind=TriggerKind.RELATED_FACT, event_key=fact_id, detail=detail.strip())
    enqueued = await enqueue_advance(pool, queue_name, concern_id=concern_id, trigger=trigger,
                                     now=now, signal=signal)
    return Advanced(inputs.concern, trigger.job_id(concern_id), enqueued)
