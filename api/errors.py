"""Error shaping: every GraphQL error carries `extensions.code`; no stack trace leaves.

Expected failures (engine.errors.StorygraphError) keep their message and details;
validation, parse and variable errors (`api/request_errors.py`) are INVALID_INPUT naming
the argument; anything else is masked as INTERNAL with a
request id, and logged with its stack trace under that id.
"""

from __future__ import annotations

import logging
import uuid

from graphql import GraphQLEnumType
from graphql.error import GraphQLError
from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from redis.exceptions import RedisError
from strawberry.extensions import MaskErrors

from api.request_errors import EnumValues, describe, is_request_error
from engine.errors import ErrorCode, StorygraphError
from jobs.redis_client import NotReplicated

log = logging.getLogger("storygraph.api.errors")


def _always(_: GraphQLError) -> bool:
    return True


def _validation_problem(error: ErrorDetails) -> str:
    """One pydantic problem as a client reads it: the field it is about, if any, and the
    rule's own words (a model-level rule has no field, and pydantic prefixes the message
    of a rule that raised ValueError with "Value error, ")."""
    msg = error["msg"].removeprefix("Value error, ")
    where = ".".join(str(p) for p in error["loc"])
    return f"{where}: {msg}" if where else msg


def shape_error(
    error: GraphQLError, query: str | None = None, enum_values: EnumValues | None = None
) -> GraphQLError:
    original = error.original_error
    code: str
    message = error.message
    extra: dict[str, object] = {}
    if isinstance(original, StorygraphError):
        code = original.code.value
        message = original.message
        extra = {k: v for k, v in original.details.items() if _jsonable(v)}
    elif isinstance(original, ValidationError):
        code = ErrorCode.INVALID_INPUT.value
        message = "invalid input: " + "; ".join(map(_validation_problem, original.errors()))
    elif isinstance(original, (RedisError, ServiceUnavailable, SessionExpired)):
        code = ErrorCode.UNAVAILABLE.value
        message = "a backing service (Neo4j or Redis) is unavailable; try again shortly"
        if "NOREPLICAS" in str(original) or isinstance(original, NotReplicated):
            message = (
                "Redis has no replica to hold this write, so it is not acknowledged; "
                "try again shortly"
            )
        log.warning("backing service unavailable", extra={"fields": {"error": str(original)}})
    elif isinstance(original, Neo4jError) and "TransactionTimedOut" in (original.code or ""):
        code = ErrorCode.TIMEOUT.value
        message = "the request ran longer than the transaction timeout and was stopped; narrow it"
        log.warning("transaction timed out", extra={"fields": {"error": original.code}})
    elif is_request_error(error):
        # the document or a variable (wrong type, missing, a DateTime without a zone): the
        # client's to fix, reported before any resolver ran
        code = (error.extensions or {}).get("code") or ErrorCode.INVALID_INPUT.value  # type: ignore[assignment]
        message, extra = describe(error, query, enum_values)
        extra = {**{k: v for k, v in (error.extensions or {}).items() if k != "code"}, **extra}
    elif original is None:
        code = (error.extensions or {}).get("code") or ErrorCode.INVALID_INPUT.value  # type: ignore[assignment]
    else:
        request_id = uuid.uuid4().hex[:12]
        log.error(
            "unexpected error in resolver",
            exc_info=original,
            extra={"fields": {"request_id": request_id, "path": error.path}},
        )
        code = ErrorCode.INTERNAL.value
        message = f"internal error (request id {request_id})"
        extra = {"requestId": request_id}
    return GraphQLError(
        message=message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions={**extra, "code": code},
    )


def _jsonable(v: object) -> bool:
    return isinstance(v, (str, int, float, bool, type(None), list, dict))


class ShapeErrors(MaskErrors):
    def __init__(self) -> None:
        super().__init__(should_mask_error=_always)

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        schema = self.execution_context.schema._schema

        def enum_values(name: str) -> list[str] | None:
            found = schema.get_type(name)
            return list(found.values) if isinstance(found, GraphQLEnumType) else None

        return shape_error(error, self.execution_context.query, enum_values)


def log_answered(errors: list[GraphQLError]) -> None:
    """What strawberry's schema would log at ERROR for every error of a result. An expected
    error (FORBIDDEN, NOT_FOUND, DISABLED, a refused document…) is an answer, not a fault:
    one info line with its code and path, no traceback. A fault is logged once, with its
    traceback and request id, by `shape_error` (masked as INTERNAL)."""
    for error in errors:
        shaped = _expected_code(error)
        if shaped is not None:
            log.info(
                "answered with an error",
                extra={"fields": {"code": shaped, "path": error.path, "error": error.message}},
            )


def _expected_code(error: GraphQLError) -> str | None:
    original = error.original_error
    if isinstance(original, StorygraphError):
        return original.code.value
    if isinstance(original, ValidationError) or original is None:
        return (error.extensions or {}).get("code") or ErrorCode.INVALID_INPUT.value  # type: ignore[no-any-return]
    return None
