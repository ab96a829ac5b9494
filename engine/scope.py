"""Scopes: each project and "global" are separate (docs/concepts.md; docs/rules/reviews.md).

The one place for a scope's name rule, the name of the Global scope, and the check every
domain's use cases make before they read or write a scope: the name is well formed
(INVALID_INPUT) and the caller may use it with the role (FORBIDDEN, naming no scope).
No read falls back to another scope.
"""

from __future__ import annotations

import re

from engine.errors import InvalidInput
from engine.principal import Principal

GLOBAL = "global"  # the Global scope: what belongs to no project
SCOPE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$")
SCOPE_FORM = (
    "a scope is a project id (a letter or digit, then letters, digits, _ . : or -, "
    "at most 100 characters) or 'global'"
)


def check_scope(scope: str) -> str:
    """`scope` when it is a well-formed project id or "global" (else INVALID_INPUT)."""
    if not SCOPE_PATTERN.match(scope):
        raise InvalidInput(
            f'argument scope: "{scope[:120]}" is not a scope; {SCOPE_FORM}', scope=scope
        )
    return scope


def require_scope(principal: Principal, role: str, scope: str) -> str:
    """`scope` when well formed and `principal` may use it with `role` (else FORBIDDEN)."""
    checked = check_scope(scope)
    principal.require(role, checked)
    return checked
