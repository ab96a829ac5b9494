"""Worker probes over GraphQL: enqueue a job, then read what the worker wrote."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import build
from graph.probes import Probe
from jobs.probes import read_worker_probe, start_probe


@strawberry.type(description="What a worker wrote to Neo4j for one probe job.")
class WorkerProbe:
    id: strawberry.ID
    note: str
    worker_id: str
    written_at: datetime
    runs: int

    @classmethod
    def from_model(cls, p: Probe) -> WorkerProbe:
        return build(cls, p, id=strawberry.ID(p.id))


@strawberry.type
class ProbeTicket:
    id: strawberry.ID
    enqueued: bool


async def resolve_worker_probe(info: Info[Context, None], id: strawberry.ID) -> WorkerProbe | None:
    ctx = info.context
    found = await read_worker_probe(ctx.deps, ctx.caller(), str(id))
    return WorkerProbe.from_model(found) if found else None


async def resolve_enqueue_probe(
    info: Info[Context, None], note: str = "", id: strawberry.ID | None = None
) -> ProbeTicket:
    ctx = info.context
    ticket = await start_probe(ctx.deps, ctx.caller(), note=note, probe_id=str(id) if id else None)
    return ProbeTicket(id=strawberry.ID(ticket.id), enqueued=ticket.enqueued)
