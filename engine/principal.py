"""Who is calling: the Principal every use case receives (docs/architecture/index.md).

Built once at the edge (`api/auth.py` from a bearer token; `WORKER` for jobs the worker runs
on its own schedule) and passed down; the use cases in `jobs/` check it. It lives in the
engine so that every layer can hold one without importing `api`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import Forbidden, StorygraphError

# The one answer to a scope argument the token cannot use: it names no scope, so a caller
# learns nothing about which scopes exist.
SCOPE_REFUSED = "this token may not use the requested scope"


@dataclass(frozen=True)
class Principal:
    """Who is calling: a token's name, the scopes it may use and its roles
    (docs/architecture/index.md).

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

# The worker acting on its own schedule (crons, rounds, the checks they enqueue): every
# scope, as an admin. A job a person asked for was checked against that person when it was
# enqueued.
WORKER = Principal("worker", frozenset({"*"}), frozenset({"admin"}))
