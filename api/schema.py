"""Assembles Query / Mutation / Subscription from the per-domain modules in definitions/.

Each domain module exposes `Query` and/or `Mutation` (and `Subscription`) classes; this file
merges them, so adding a domain is one line in each tuple below.
"""

from __future__ import annotations

import strawberry
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.tools import merge_types

from api.definitions import concern, knowledge, platform, review, story, watch, watch_delivery
from api.errors import ShapeErrors
from engine.settings import Settings

QUERIES: tuple[type, ...] = (platform.Query, story.Query, watch.Query, watch_delivery.Query, review.Query, concern.Query, knowledge.Query,)
MUTATIONS: tuple[type, ...] = (platform.Mutation, story.Mutation, watch.Mutation, watch_delivery.Mutation, review.Mutation, concern.Mutation, knowledge.Mutation,)
SUBSCRIPTIONS: tuple[type, ...] = (story.Subscription, review.Subscription,)

Query = merge_types("Query", QUERIES)
Mutation = merge_types("Mutation", MUTATIONS)
Subscription = merge_types("Subscription", SUBSCRIPTIONS) if SUBSCRIPTIONS else None


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    max_depth = settings.graphql_max_depth if settings else 12
    max_tokens = settings.graphql_max_tokens if settings else 4000
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
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
