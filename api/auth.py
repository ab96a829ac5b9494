"""Bearer API tokens, each bound to the scopes and roles it may use.

With no tokens configured the API is open only when bound to loopback (it says so at start);
bound to any other address with no tokens it refuses to start.
"""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass

from engine.errors import Forbidden, StorygraphError
from engine.settings import ROLES, ApiToken, Settings

__all__ = [
    "GLOBAL_SCOPE",
    "ROLES",
    "SCOPE_REFUSED",
    "InsecureBinding",
    "Principal",
    "authenticate",
    "check_binding",
    "is_loopback",
]
GLOBAL_SCOPE = "global"


# The one answer to a scope argument the token cannot use: it names no scope, so a caller
# learns nothing about which scopes exist.
SCOPE_REFUSED = "this token may not use the requested scope"


@dataclass(frozen=True)
class Principal:
    """Who is calling: a token's name, the scopes it may use and its roles (DESIGN).

    An object of a scope the principal cannot use reads as NOT_FOUND, exactly like a missing
    one (`visible`); a scope argument it cannot use is FORBIDDEN without naming the scope
    (`require`); all-scope operations need `admin`.
    """

    name: str
    scopes: frozenset[str]
    roles: frozenset[str]

    @property
    def all_scopes(self) -> bool:
        return "*" in self.scopes

    def can_scope(self, scope: str) -> bool:
        return self.all_scopes or scope in self.scopes

    def visible_scopes(self) -> list[str] | None:
        """The scopes list reads are limited to; None when the token may use every scope."""
        return None if self.all_scopes else sorted(self.scopes)

    def has_role(self, role: str) -> bool:
        return "admin" in self.roles or role in self.roles

    def require(self, role: str, scope: str | None = None) -> None:
        if not self.has_role(role):
            raise Forbidden(f"this token lacks the {role!r} role", role=role)
        if scope is not None and not self.can_scope(scope):
            raise Forbidden(SCOPE_REFUSED)

    def visible(self, role: str, scope: str | None, missing: StorygraphError) -> None:
        """A stored object of `scope`: `missing` (the same error an unknown id gets) unless
        the principal may use that scope. A scope-less object is visible to all-scope tokens
        only."""
        if not self.has_role(role):
            raise Forbidden(f"this token lacks the {role!r} role", role=role)
        if scope is None and not self.all_scopes:
            raise missing
        if scope is not None and not self.can_scope(scope):
            raise missing

    def actor_id(self, user_id: str | None) -> str:
        """The person a write is recorded as: the token's name, or `user_id` when an admin
        token acts for a user (recorded with the token's name as `user_id via token`)."""
        if user_id is None or user_id == self.name:
            return self.name
        if "admin" not in self.roles:
            raise Forbidden("only an admin token may act for another user", role="admin")
        if self is OPEN_PRINCIPAL:
            return user_id  # no tokens configured: there is no token name to record
        return f"{user_id} via {self.name}"


OPEN_PRINCIPAL = Principal("open-loopback", frozenset({"*"}), frozenset({"admin"}))


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
        return f"API authentication: {len(settings.api_tokens)} bearer token(s) configured."
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
