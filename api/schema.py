"""Assembles Query / Mutation (/ Subscription) from the per-type modules in definitions/."""

from __future__ import annotations

import strawberry
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter

from api.definitions.health import Health, resolve_health
from api.definitions.probe import ProbeTicket, WorkerProbe, resolve_enqueue_probe, resolve_worker_probe
from api.errors import ShapeErrors
from engine.settings import Settings


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


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    max_depth = settings.graphql_max_depth if settings else 12
    max_tokens = settings.graphql_max_tokens if settings else 4000
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        extensions=[
            lambda: QueryDepthLimiter(max_depth=max_depth),
            lambda: MaxTokensLimiter(max_token_count=max_tokens),
            lambda: MaxAliasesLimiter(max_alias_count=30),
            ShapeErrors,
        ],
    )


def sdl() -> str:
    """The schema as SDL; `schema.graphql` at the repository root must equal this."""
    return build_schema().as_str() + "\n"
