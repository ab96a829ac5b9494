"""The GraphQL endpoint: strawberry's ASGI view over HTTP (the GraphQL-over-HTTP spec,
`api/http_protocol.py`; cached past answers, `api/past_cache.py`), Server-Sent Events and
websockets; the context carries process resources and the caller."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from cross_web import AsyncHTTPRequestAdapter, HTTPException
from graphql import GraphQLError
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.subscriptions import (
    GRAPHQL_SSE_PROTOCOL,
    GRAPHQL_TRANSPORT_WS_PROTOCOL,
    MULTIPART_SUBSCRIPTION_PROTOCOL,
)
from strawberry.types import ExecutionResult
from strawberry.types.unset import UnsetType

from api import persisted_queries
from api.auth import authenticate, origin_ok
from api.context import Context
from api.documents import Documents
from api.http_protocol import (
    JSON,
    SUBSCRIPTION_NEEDS_STREAM,
    content_type,
    failure_status,
    is_request_failure,
    is_subscription,
    media_of,
    negotiate,
    not_acceptable,
    remember_media,
    response_body,
    single_result,
    syntax_error,
)
from api.limits import error_response
from api.past_cache import (
    NotModified,
    PastCache,
    check_if_none_match,
    etag,
    if_none_match,
    may_read,
    past_read,
)
from api.schema import build_schema
from engine.clock import utcnow
from engine.errors import InvalidInput, StorygraphError
from engine.settings import PROJECT_ROOT, Settings

log = logging.getLogger("storygraph.api")
WEB_DIR = PROJECT_ROOT / "web"


class StorygraphGraphQL(GraphQL):
    """GraphQL over HTTP and websockets; the context carries process resources and the caller."""

    def __init__(self, settings: Settings) -> None:
        # every parse of this process's request texts, and its one cache of parsed documents
        documents = Documents.of(settings)
        super().__init__(
            build_schema(settings, documents),
            graphql_ide="graphiql",
            # websockets, and GraphQL over Server-Sent Events (graphql-sse's distinct
            # connections mode: a POST with `Accept: text/event-stream` per subscription)
            # and multipart HTTP (Apollo Client: `Accept: multipart/mixed;subscriptionSpec=1.0`)
            subscription_protocols=(
                GRAPHQL_TRANSPORT_WS_PROTOCOL,
                GRAPHQL_SSE_PROTOCOL,
                MULTIPART_SUBSCRIPTION_PROTOCOL,
            ),
            # in flight on one websocket, queries and mutations included
            max_subscriptions_per_connection=settings.ws_max_operations,
        )
        self.settings = settings
        self.documents = documents
        self.past = PastCache(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """strawberry answers an unreadable HTTP request (a body that is not JSON, no query)
        in plain text; a GraphQL client gets the error envelope with a code instead."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        media = negotiate(Headers(scope=scope).get("accept"))
        if media is None:
            await not_acceptable()(scope, receive, send)
            return
        remember_media(scope, media)
        try:
            check_if_none_match(Headers(scope=scope))
            response = await self.run(Request(scope=scope, receive=receive))
        except NotModified as exc:
            response = Response(status_code=304, headers=exc.headers)
        except HTTPException as exc:
            code = "NOT_ALLOWED" if exc.status_code == 405 else "BAD_REQUEST"
            response = error_response(exc.reason, code, exc.status_code, content_type(media))
        await response(scope, receive, send)

    async def get_sub_response(self, request: Request | WebSocket) -> Response:
        """The response strawberry fills in; kept on the request so `process_result` can set
        a request error's status, with the negotiated media type."""
        sub = await super().get_sub_response(request)
        sub.media_type = content_type(media_of(request.scope))
        request.scope.setdefault("state", {})["sub_response"] = sub
        return sub

    async def process_result(  # type: ignore[override]
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        """Per the GraphQL-over-HTTP spec: a request error has no `data` entry and, under
        `application/graphql-response+json`, status 400; every error carries a code."""
        body, failed = response_body(result)
        sub = (request.scope.get("state") or {}).get("sub_response")
        if failed and isinstance(sub, Response) and not sub.status_code:
            sub.status_code = failure_status(media_of(request.scope))
        return body  # type: ignore[return-value]

    def create_response(  # type: ignore[override]
        self, response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse], sub_response: Response
    ) -> Response:
        response = super().create_response(response_data, sub_response)
        response.headers["content-type"] = f"{sub_response.media_type or JSON}; charset=utf-8"
        return response

    async def execute_operation(  # type: ignore[override]
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        request_data: GraphQLRequestData | list[GraphQLRequestData],
        context: Context,
        root_value: object,
        sub_response: Response,
    ) -> Any:
        """Before strawberry runs it: a persisted query's text is kept or looked up
        (`api/persisted_queries.py`); a request without a query is a 400, a stream's too (not
        a fault inside the stream); a stream's syntax error is reported inside the stream."""
        if isinstance(request_data, GraphQLRequestData):
            if request_data.query:
                try:
                    self.documents.check_size(request_data.query)
                except GraphQLError as too_long:
                    return ExecutionResult(data=None, errors=[too_long])
            try:
                request_data, to_keep = await persisted_queries.resolve(
                    request.app.state.pool, request_data, context.principal, self.settings
                )
            except StorygraphError as refused:
                return ExecutionResult(
                    data=None,
                    errors=[GraphQLError(refused.message, extensions={"code": refused.code})],
                )
            except persisted_queries.PersistedQueryNotFound:
                unknown = GraphQLError(
                    persisted_queries.NOT_FOUND,
                    extensions={"code": "PERSISTED_QUERY_NOT_FOUND"},
                )
                return ExecutionResult(data=None, errors=[unknown])
            if not request_data.query:
                raise HTTPException(400, "No GraphQL query found in the request")
            if request_data.protocol != "http" and (
                error := syntax_error(request_data.query, self.documents)
            ):
                # strawberry's stream raises a syntax error out of the stream; graphql-sse's
                # protocol reports it inside, as a `next` event like a validation error
                return single_result(ExecutionResult(data=None, errors=[error]))
        else:
            to_keep = None
        result = await super().execute_operation(
            request=request,
            request_adapter=request_adapter,
            request_data=request_data,
            context=context,  # type: ignore[arg-type]
            root_value=root_value,  # type: ignore[arg-type]
            sub_response=sub_response,
        )
        if to_keep is not None and _within_limits(result):
            await persisted_queries.keep(request.app.state.pool, to_keep)
        return result

    async def execute_single(  # type: ignore[override]
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: object,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        """A subscription needs a stream (websockets, or Server-Sent Events with `Accept:
        text/event-stream`); sent as a plain request it is refused with a clear 400."""
        if request_data.protocol == "http" and is_subscription(
            request_data.query, request_data.operation_name, self.documents
        ):
            raise HTTPException(400, SUBSCRIPTION_NEEDS_STREAM)

        async def fresh() -> ExecutionResult:
            return await super(StorygraphGraphQL, self).execute_single(
                request=request,
                request_adapter=request_adapter,
                sub_response=sub_response,
                context=context,  # type: ignore[arg-type]
                root_value=root_value,  # type: ignore[arg-type]
                request_data=request_data,
            )

        return await self.past_answer(request, sub_response, context, request_data, fresh)

    async def past_answer(
        self,
        request: Request,
        sub_response: Response,
        context: Context,
        request_data: GraphQLRequestData,
        fresh: Callable[[], Awaitable[ExecutionResult]],
    ) -> ExecutionResult:
        """A read as of a settled past moment is answered from the past cache (computed
        once per scope counter, `api/past_cache.py`) for a caller that may read its scopes,
        with its ETag; a GET whose If-None-Match holds that ETag is answered 304."""
        read = (
            past_read(
                request_data.query,
                request_data.operation_name,
                request_data.variables,
                utcnow(),
                self.past.settle,
                self.documents,
            )
            if self.past.enabled
            else None
        )
        if read is None or not may_read(context.principal, read):
            return await fresh()
        pool = request.app.state.pool
        key = await self.past.key(pool, read)
        if key is None:
            return await fresh()
        tag = etag(key)
        cache_headers = {"etag": tag, "cache-control": "private, no-cache", "vary": "Authorization"}
        if request.method == "GET" and tag in if_none_match(request.headers):
            raise NotModified(cache_headers)
        held = await self.past.get(pool, key)
        if held is not None:
            sub_response.headers.update({**cache_headers, "x-past-cache": "hit"})
            return ExecutionResult(data=orjson.loads(held), errors=None)
        result = await fresh()
        if not result.errors and result.data is not None:
            await self.past.put(pool, key, orjson.dumps(result.data))
            sub_response.headers.update({**cache_headers, "x-past-cache": "miss"})
        return result

    def encode_json(self, data: object) -> str:
        """Answers and websocket messages as compact JSON by orjson (json.dumps was ~1.5 ms of
        a 500-object storyGraph answer), non-ASCII characters unescaped. Text, not bytes:
        strawberry sends bytes on a websocket as a binary frame, which graphql-transport-ws
        clients do not read."""
        return orjson.dumps(data).decode()

    def is_websocket_origin_allowed(self, request: WebSocket, origin: str) -> bool:  # type: ignore[override]
        """strawberry's own cross-origin websocket check follows the same rule as HTTP."""
        return origin_ok(self.settings, origin, request.headers.get("host"))

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:  # type: ignore[override]
        """A websocket is authenticated like HTTP: the token comes from `connection_init`'s
        payload (`{"Authorization": "Bearer <token>"}`, which browsers can send) or from the
        upgrade request's header; with tokens configured, a connection without a valid one
        is closed (4403) before any operation runs."""
        params = context.connection_params or {}
        presented = params.get("Authorization") or params.get("authorization")
        if isinstance(presented, str) and presented:
            context.principal = authenticate(self.settings, presented)
        if context.principal is None:
            raise ConnectionRejectionError(
                {"message": "a valid bearer token is required", "code": "UNAUTHENTICATED"}
            )
        return None

    def should_render_graphql_ide(self, request: Any) -> bool:
        """A GET carrying a persisted query's hash (no query text) is a read, not the IDE."""
        if request.query_params.get("extensions"):
            return False
        return super().should_render_graphql_ide(request)

    async def render_graphql_ide(self, request: Request) -> Response:  # type: ignore[override]
        """Our GraphiQL page: its scripts come from `/static/graphiql/` (vendor/graphiql), so it
        loads on a machine without internet; it opens on an example query of this API."""
        return HTMLResponse((WEB_DIR / "graphiql.html").read_text(encoding="utf-8"))

    async def get_context(self, request: Request | WebSocket, response: Any = None) -> Context:  # type: ignore[override]
        state = request.app.state
        header = request.headers.get("authorization")
        return Context(
            request=request,  # type: ignore[arg-type]
            settings=self.settings,
            driver=state.driver,
            pool=state.pool,
            principal=authenticate(self.settings, header),
            embedder=getattr(state, "embedder", None),
        )


def _within_limits(result: object) -> bool:
    """The document parsed and validated, and no argument broke a limit (INVALID_INPUT)."""
    if not isinstance(result, ExecutionResult) or is_request_failure(result):
        return False
    return not any(
        (error.extensions or {}).get("code") == "INVALID_INPUT"
        or isinstance(error.original_error, InvalidInput)
        for error in result.errors or ()
    )
