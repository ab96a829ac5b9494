"""Assembles Query / Mutation / Subscription from the per-domain modules in definitions/.

Each domain module exposes `Query` and/or `Mutation` (and `Subscription`) classes; this file
merges them, so adding a domain is one line in each tuple below.
"""

from __future__ import annotations

import strawberry
from graphql.error import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    QueryDepthLimiter,
)
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from api.definitions import (
    concern,
    cost,
    graph_replay,
    inbox,
    knowledge,
    person_binding,
    platform,
    review,
    scopes,
    search,
    signal,
    story,
    story_diff,
    watch,
    watch_delivery,
)
from api.document_cache import CachedValidation, ValidDocuments
from api.documents import Documents, ParseWithin
from api.errors import ShapeErrors, log_answered
from api.guards import InputLimits, TokenLimiter, guard_arguments
from api.plain_lists import PlainListExecutionContext
from api.scalars import SCALAR_OVERRIDES
from engine.settings import Settings

QUERIES: tuple[type, ...] = (
    platform.Query,
    story.Query,
    story_diff.Query,
    inbox.Query,
    cost.Query,
    graph_replay.Query,
    watch.Query,
    watch_delivery.Query,
    review.Query,
    concern.Query,
    knowledge.Query,
    scopes.Query,
    search.Query,
    signal.Query,
    signal.PolicyQuery,
    person_binding.Query,
)
MUTATIONS: tuple[type, ...] = (
    platform.Mutation,
    story.Mutation,
    watch.Mutation,
    watch_delivery.Mutation,
    review.Mutation,
    concern.Mutation,
    knowledge.Mutation,
    scopes.Mutation,
    signal.Mutation,
    person_binding.Mutation,
)
SUBSCRIPTIONS: tuple[type, ...] = (
    story.Subscription,
    review.Subscription,
    watch_delivery.Subscription,
)

Query = merge_types("Query", QUERIES)
Mutation = merge_types("Mutation", MUTATIONS)
Subscription = merge_types("Subscription", SUBSCRIPTIONS) if SUBSCRIPTIONS else None


class StorygraphSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Expected errors are logged as answers (info, no traceback); faults by ShapeErrors."""
        log_answered(errors)


def build_schema(
    settings: Settings | None = None, documents: Documents | None = None
) -> strawberry.Schema:
    """The schema; `documents` is the process's parse cache (its own one when not given)."""
    s = settings or Settings.model_construct()  # defaults, not the environment
    parsed = documents or Documents.of(s)
    limits = InputLimits.of(s)
    # the limit rules are built once, so a document's validity is a property of its text
    rules = [
        *QueryDepthLimiter(max_depth=s.graphql_max_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=s.graphql_max_aliases).validation_rules,
    ]
    known = ValidDocuments()
    schema = StorygraphSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        scalar_overrides=SCALAR_OVERRIDES,  # type: ignore[arg-type]
        execution_context_class=PlainListExecutionContext,
        extensions=[
            lambda: AddValidationRules(rules),
            lambda: TokenLimiter(
                max_token_count=s.graphql_max_tokens,
                max_variable_tokens=s.graphql_max_variable_tokens,
            ),
            lambda: ParseWithin(parsed),
            lambda: CachedValidation(known),
            ShapeErrors,
        ],
    )
    guard_arguments(schema._schema, limits)
    return schema


def sdl() -> str:
    """The schema as SDL; `schema.graphql` at the repository root must equal this."""
    return build_schema().as_str() + "\n"
