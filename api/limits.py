"""HTTP request limits and the JSON shape of refusals at the HTTP layer.

`BodyLimit` refuses a body larger than `Settings.api_max_body_bytes` with 413 before the
GraphQL layer reads it: by its Content-Length when it sends one, otherwise while the chunks
arrive (a chunked upload cannot stream past the limit into memory).
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def error_response(
    message: str, code: str, status: int, media_type: str = "application/json"
) -> JSONResponse:
    """The GraphQL error envelope for a refusal that happens before GraphQL runs: a request
    error, so no `data` entry (GraphQL spec, "Response")."""
    return JSONResponse(
        {"errors": [{"message": message, "extensions": {"code": code}}]},
        status_code=status,
        media_type=media_type,
    )


def too_large(limit: int) -> JSONResponse:
    return error_response(
        f"the request body is larger than {limit} bytes", "PAYLOAD_TOO_LARGE", 413
    )


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await too_large(self.max_bytes)(scope, receive, send)
                    return
        # Read the body up to the limit, then hand it on; past the limit, answer 413.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await too_large(self.max_bytes)(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
