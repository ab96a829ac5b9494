"""GraphQL over HTTP (the GraphQL-over-HTTP spec): which media type a client accepts, what a
request error looks like, which status it carries.

- `application/graphql-response+json` (the spec's own type) and `application/json` are both
  answered; the first one the client's Accept names wins, `*/*` or no Accept means
  `application/json`. A client that accepts neither (nor an event stream, nor the multipart
  subscription type, nor the IDE's HTML) is answered 406.
- A request error (the document does not parse or validate, a variable does not coerce: no
  field started resolving) carries no `data` entry, as the GraphQL spec says; with
  `application/graphql-response+json` it is answered 400, with `application/json` 200.
- Every error carries `extensions.code`: one strawberry reports before the error extension
  runs (a syntax error) is shaped here with the same rules (`api.errors.shape_error`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from graphql import GraphQLError, OperationType, get_operation_ast
from starlette.responses import JSONResponse
from starlette.types import Scope
from strawberry.types import ExecutionResult

from api.documents import Documents
from api.errors import shape_error
from api.limits import error_response

GRAPHQL_RESPONSE_JSON = "application/graphql-response+json"
JSON = "application/json"
# Accept values another part of the view answers (event streams, multipart subscriptions,
# the GraphiQL page): never 406 for these.
_OTHERS = ("multipart/mixed", "text/html")
EVENT_STREAM = "text/event-stream"
MEDIA_KEY = "graphql_media"


def negotiate(accept: str | None) -> str | None:
    """The media type to answer with, or None when the client accepts nothing we speak."""
    if not accept or not accept.strip():
        return JSON
    for part in accept.split(","):
        media = part.split(";", 1)[0].strip().lower()
        if media == GRAPHQL_RESPONSE_JSON:
            return GRAPHQL_RESPONSE_JSON
        if media == EVENT_STREAM:
            return EVENT_STREAM
        if media in (JSON, "*/*", "application/*") or media in _OTHERS:
            return JSON
    return None


def media_of(scope: Scope) -> str:
    state = scope.get("state") or {}
    return str(state.get(MEDIA_KEY, JSON))


def remember_media(scope: Scope, media: str) -> None:
    scope.setdefault("state", {})[MEDIA_KEY] = media


def is_request_failure(result: ExecutionResult) -> bool:
    """No field started: the document or the variables were refused before execution."""
    return (
        result.data is None
        and bool(result.errors)
        and all(error.path is None for error in result.errors or ())
    )


def _coded(error: GraphQLError, query: str | None) -> dict[str, Any]:
    if (error.extensions or {}).get("code"):
        return dict(error.formatted)
    return dict(shape_error(error, query).formatted)


def response_body(result: ExecutionResult, query: str | None = None) -> tuple[dict[str, Any], bool]:
    """The response's JSON and whether it is a request error (no `data` entry)."""
    failed = is_request_failure(result)
    body: dict[str, Any] = {} if failed else {"data": result.data}
    if result.errors:
        body["errors"] = [_coded(error, query) for error in result.errors]
    if result.extensions:
        body["extensions"] = result.extensions
    return body, failed


def failure_status(media: str) -> int:
    """A request error's status: 200 under legacy JSON, 400 under the spec's media type and
    for an event-stream client (graphql-sse: a refused subscription is a 400 JSON answer)."""
    return 200 if media == JSON else 400


def content_type(media: str) -> str:
    return GRAPHQL_RESPONSE_JSON if media == GRAPHQL_RESPONSE_JSON else JSON


SUBSCRIPTION_NEEDS_STREAM = (
    "a subscription is answered over a stream: a websocket (graphql-transport-ws) or "
    "Server-Sent Events (POST with Accept: text/event-stream), not a plain request"
)


def is_subscription(query: str | None, operation_name: str | None, documents: Documents) -> bool:
    """True when the operation the request would run is a subscription (False for a
    document that does not parse or is over the limits: the executor reports that one)."""
    if not query or "subscription" not in query:
        return False
    document = documents.try_parse(query)
    if document is None:
        return False
    operation = get_operation_ast(document, operation_name)
    return operation is not None and operation.operation == OperationType.SUBSCRIPTION


def not_acceptable() -> JSONResponse:
    return error_response(
        "this endpoint answers application/graphql-response+json or application/json "
        "(or text/event-stream for a subscription); the Accept header names none of them",
        "NOT_ACCEPTABLE",
        406,
    )


def syntax_error(query: str, documents: Documents) -> GraphQLError | None:
    """Why the text does not parse (within the limits), or None."""
    try:
        documents.parse(query)
    except GraphQLError as error:
        return error
    return None


async def single_result(result: ExecutionResult) -> AsyncIterator[ExecutionResult]:
    """A stream of one result (an error reported inside an event stream)."""
    yield result
