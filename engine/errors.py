"""Errors a client can act on, each with the code it carries to GraphQL `extensions.code`.

They live in the engine so that decisions can raise them; the API maps them 1:1 onto
GraphQL errors and never shows a stack trace.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    NOT_FOUND = "NOT_FOUND"
    CONFLICT = "CONFLICT"
    INVALID_INPUT = "INVALID_INPUT"
    FORBIDDEN = "FORBIDDEN"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    BUSY = "BUSY"
    DISABLED = "DISABLED"
    RATE_LIMITED = "RATE_LIMITED"
    UNAVAILABLE = "UNAVAILABLE"
    TIMEOUT = "TIMEOUT"
    INTERNAL = "INTERNAL"


class StorygraphError(Exception):
    """An expected failure; `code` tells the client what to do about it."""

    code: ErrorCode = ErrorCode.INTERNAL

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class NotFound(StorygraphError):
    code = ErrorCode.NOT_FOUND


class Conflict(StorygraphError):
    code = ErrorCode.CONFLICT


class InvalidInput(StorygraphError):
    code = ErrorCode.INVALID_INPUT


class Forbidden(StorygraphError):
    code = ErrorCode.FORBIDDEN


class Unauthenticated(StorygraphError):
    code = ErrorCode.UNAUTHENTICATED


class Busy(StorygraphError):
    code = ErrorCode.BUSY


class Disabled(StorygraphError):
    code = ErrorCode.DISABLED


class Unavailable(StorygraphError):
    code = ErrorCode.UNAVAILABLE


class RateLimited(StorygraphError):
    """A caller's quota for this kind of request is spent; `retry_after_s` says when it
    refills."""

    code = ErrorCode.RATE_LIMITED
