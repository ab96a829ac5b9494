"""Worker probes over GraphQL: enqueue a job, then read what the worker wrote."""

from __future__ import annotations

import uuid
from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from engine.errors import InvalidInput
from graph.probes import Probe, read_probe
from jobs.queue import enqueue_probe


@strawberry.type(description="What a worker wrote to Neo4j for one probe job.")
class WorkerProbe:
    id: strawberry.ID
    note: str
    worker_id: str
    written_at: datetime
    runs: int

    @classmethod
    def from_model(cls, p: Probe) -> WorkerProbe:
        return cls(
            id=strawberry.ID(p.id),
            note=p.note,
            worker_id=p.worker_id,
            written_at=p.written_at,
            runs=p.runs,
        )


@strawberry.type
class ProbeTicket:
    id: strawberry.ID
    enqueued: bool


async def resolve_worker_probe(info: Info[Context, None], id: strawberry.ID) -> WorkerProbe | None:
    info.context.require("reader")
    found = await read_probe(info.context.driver, info.context.database, str(id))
    return WorkerProbe.from_model(found) if found else None


async def resolve_enqueue_probe(
    info: Info[Context, None], note: str = "", id: strawberry.ID | None = None
) -> ProbeTicket:
    ctx = info.context
    ctx.require("operator")
    if len(note) > 500:
        raise InvalidInput("note must be at most 500 characters", field="note")
    probe_id = str(id) if id else uuid.uuid4().hex
    enqueued = await enqueue_probe(ctx.pool, ctx.settings, probe_id=probe_id, note=note)
    return ProbeTicket(id=strawberry.ID(probe_id), enqueued=enqueued)
