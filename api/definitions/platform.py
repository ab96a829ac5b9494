"""Platform fields: component health and the worker probe round-trip."""

from __future__ import annotations

import strawberry

from api.definitions.health import Health, resolve_health
from api.definitions.probe import (
    ProbeTicket,
    WorkerProbe,
    resolve_enqueue_probe,
    resolve_worker_probe,
)


@strawberry.type
class Query:
    health: Health = strawberry.field(resolver=resolve_health)
    worker_probe: WorkerProbe | None = strawberry.field(resolver=resolve_worker_probe)


@strawberry.type
class Mutation:
    enqueue_probe: ProbeTicket = strawberry.field(
        resolver=resolve_enqueue_probe,
        description="Enqueue a worker probe job; the worker writes it to Neo4j (see workerProbe).",
    )
