"""Bearer API tokens, each bound to the scopes and roles it may use.

The Principal itself lives in `engine.principal` (every layer holds one; nothing imports
`api`).

With no tokens configured the API is open only when bound to loopback (it says so at start);
bound to any other address with no tokens it refuses to start.
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import Scope

from engine.principal import OPEN_PRINCIPAL, Principal
from engine.settings import ApiToken, Settings


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class InsecureBinding(RuntimeError):
    pass


def check_binding(settings: Settings) -> str:
    """The start-up verdict on auth, or InsecureBinding when the API must not start."""
    if settings.api_tokens:
        hosts = ", ".join(["loopback", *settings.api_public_hosts])
        return (
            f"API authentication: {len(settings.api_tokens)} bearer token(s) configured; "
            f"answering Host names: {hosts} (others: 421; set API_PUBLIC_HOSTS)."
        )
    if is_loopback(settings.api_host):
        return "API is OPEN: no API_TOKENS configured and bound to loopback only."
    raise InsecureBinding(
        f"Refusing to serve on {settings.api_host} without API tokens: "
        "set API_TOKENS or bind to 127.0.0.1."
    )


def authenticate(settings: Settings, authorization: str | None) -> Principal | None:
    """The principal for an Authorization header; None when it does not match a token."""
    if not settings.api_tokens:
        return OPEN_PRINCIPAL
    if not authorization or not authorization.lower().startswith("bearer "):
        return None
    presented = authorization[7:].strip().encode()
    for token in settings.api_tokens:
        if _matches(token, presented):
            return Principal(token.name, frozenset(token.scopes), frozenset(token.roles))
    return None


def _matches(token: ApiToken, presented: bytes) -> bool:
    return hmac.compare_digest(token.token.get_secret_value().encode(), presented)


def origin_ok(settings: Settings, origin: str, host: str | None) -> bool:
    """A browser's Origin must be the API's own, a loopback page, or one of
    `settings.api_allowed_origins`."""
    if origin in settings.api_allowed_origins:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False  # "null" (sandboxed frames, files) and anything odd
    if is_loopback(parts.hostname):
        return True
    return host is not None and parts.netloc == host


def origin_allowed(settings: Settings, scope: Scope) -> bool:
    """No Origin (not a browser) passes; otherwise `origin_ok`."""
    headers = Headers(scope=scope)
    origin = headers.get("origin")
    return origin is None or origin_ok(settings, origin, headers.get("host"))
