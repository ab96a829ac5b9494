"""Which Host a request may name (DNS-rebinding protection).

A web page on `attacker.example` can make the browser's DNS point that name at 127.0.0.1;
its requests then reach a local API with `Host: attacker.example:8000` and an Origin of the
same host, which looks same-origin. So the Host header itself is checked, before anything
else, on every HTTP request and websocket (GraphQL, SSE, `/mcp`, pages, `/metrics`):

- open mode (no API tokens): only loopback hosts (`127.0.0.1`, `localhost`, `[::1]`, any
  port);
- with tokens: loopback hosts and the names in `API_PUBLIC_HOSTS` (`name` allows any port,
  `name:port` that port only).

A request naming another host is answered 421 (Misdirected Request) with code
MISDIRECTED_REQUEST; a websocket is closed before it is accepted.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from api.auth import is_loopback
from api.limits import error_response
from engine.settings import Settings


def split_host(value: str) -> tuple[str, str | None]:
    """(host, port) of a Host header value; the host lower-cased, IPv6 without brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value, None
        rest = value[end + 1 :]
        return value[1:end], rest[1:] if rest.startswith(":") else None
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        return value, None
    return host, port


def host_allowed(settings: Settings, host_header: str | None) -> bool:
    if not host_header:
        return False
    host, port = split_host(host_header)
    if is_loopback(host):
        return True
    if not settings.api_tokens:
        return False
    for allowed in settings.api_public_hosts:
        name, allowed_port = split_host(allowed)
        if name == host and (allowed_port is None or allowed_port == port):
            return True
    return False


class HostGate:
    """Refuses a request whose Host the deployment does not answer to (module note)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if host_allowed(self.settings, Headers(scope=scope).get("host")):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await WebSocket(scope, receive, send).close(code=4421, reason="host not allowed")
            return
        refusal = error_response(
            "this API does not answer to the host this request names", "MISDIRECTED_REQUEST", 421
        )
        await refusal(scope, receive, send)
