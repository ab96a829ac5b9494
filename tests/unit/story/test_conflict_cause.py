"""A write that loses a uniqueness race is a CONFLICT that does not echo Neo4j's message
(labels, properties, internal node ids) to the client; the message is only logged."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from graphql import GraphQLError
from neo4j.exceptions import ConstraintError

from api.errors import shape_error
from engine.errors import Conflict
from graph.base import mapped_errors
from graph.story.repository import StoryRepository

RAW = "Node(4242) already exists with label `EventVersion` and property `seq` = 3"


class _Session:
    async def __aenter__(self) -> _Session:
        return self

    async def __aexit__(self, *_: object) -> None:
        return None

    async def execute_write(self, work: Any) -> Any:
        error = ConstraintError()
        error._message = RAW  # type: ignore[attr-defined]
        raise error


class _Driver:
    def session(self, **_: object) -> _Session:
        return _Session()


async def _work(_: object) -> None:
    return None


async def test_conflict_does_not_return_the_raw_neo4j_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="storygraph.graph.story")
    repo = StoryRepository(_Driver(), "neo4j")  # type: ignore[arg-type]
    with pytest.raises(Conflict) as lost:
        await repo._write(_work)
    assert RAW not in str(lost.value) and "cause" not in lost.value.details
    shaped = shape_error(GraphQLError("x", original_error=lost.value))
    assert shaped.extensions == {"code": "CONFLICT"}
    assert RAW not in shaped.message
    assert any(RAW in str(getattr(r, "fields", "")) for r in caplog.records)


def test_a_store_conflict_does_not_return_the_raw_neo4j_message() -> None:
    error = ConstraintError()
    error._message = RAW  # type: ignore[attr-defined]
    with pytest.raises(Conflict) as refused, mapped_errors():
        raise error
    shaped = shape_error(GraphQLError("x", original_error=refused.value))
    assert shaped.extensions == {"code": "CONFLICT"} and RAW not in shaped.message
