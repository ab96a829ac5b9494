"""Who may use a review scope, and how another scope's run or plan reads (issue 11).

A review scope is a set of story scopes (project ids, or global); a caller may use it only
when it may use every one of them. A stored run or plan of a scope the caller cannot use
reads as NOT_FOUND, the same answer as a missing one.
"""

from __future__ import annotations

from engine.errors import NotFound, StorygraphError
from engine.principal import Principal
from engine.review.types import Scope
from engine.scope import GLOBAL
from engine.scope import require_scope as require_story_scope


def story_scopes(scope: Scope) -> list[str]:
    """The story scopes (project ids, or global) a review scope reads and writes."""
    return [GLOBAL] if scope.is_global else list(scope.project_ids)


def require_scope(principal: Principal, role: str, scope: Scope) -> Scope:
    """FORBIDDEN (naming no scope) unless the caller may use all of `scope` with `role`."""
    principal.require(role)
    for s in story_scopes(scope):
        require_story_scope(principal, role, s)
    return scope


def require_seen(
    principal: Principal, role: str, scope: Scope | None, missing: StorygraphError
) -> None:
    """A stored run or plan of `scope` reads as `missing` unless the caller may use it."""
    for s in story_scopes(scope) if scope is not None else [None]:
        principal.visible(role, s, missing)


def no_run(run_id: str) -> NotFound:
    return NotFound("no such supervision run", id=run_id)


def no_plan(config_id: str) -> NotFound:
    return NotFound("no plan with this config id", config_id=config_id)
