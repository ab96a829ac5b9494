import logging

from graphql.error import GraphQLError
from pydantic import BaseModel, ValidationError, model_validator

from api.errors import shape_error
from api.schema import build_schema
from engine.errors import Busy, Conflict


def test_expected_errors_keep_message_code_and_details() -> None:
    shaped = shape_error(
        GraphQLError("x", original_error=Conflict("stale edit", seen=3, current=4))
    )
    assert shaped.message == "stale edit"
    assert shaped.extensions == {"seen": 3, "current": 4, "code": "CONFLICT"}
    assert shape_error(
        GraphQLError("x", original_error=Busy("a review is running"))
    ).extensions == {"code": "BUSY"}


def test_unexpected_errors_are_masked_and_logged(caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.ERROR):
        shaped = shape_error(
            GraphQLError("boom", original_error=RuntimeError("secret path /etc/x"))
        )
    assert "secret" not in shaped.message
    assert shaped.extensions is not None and shaped.extensions["code"] == "INTERNAL"
    request_id = shaped.extensions["requestId"]
    assert request_id in shaped.message
    assert any("secret path" in (r.exc_text or "") or r.exc_info for r in caplog.records)


def test_pydantic_validation_errors_are_invalid_input_naming_the_field() -> None:
    class M(BaseModel):
        goal: str

    try:
        M.model_validate({})
    except ValidationError as exc:
        shaped = shape_error(GraphQLError("x", original_error=exc))
    assert shaped.extensions == {"code": "INVALID_INPUT"}
    assert "goal" in shaped.message


def test_a_rule_of_the_whole_input_reads_as_the_rule_itself() -> None:
    class M(BaseModel):
        kind: str = "delegation"

        @model_validator(mode="after")
        def needs_initiator(self) -> "M":
            raise ValueError("a delegation needs an initiator")

    try:
        M.model_validate({})
    except ValidationError as exc:
        shaped = shape_error(GraphQLError("x", original_error=exc))
    assert shaped.message == "invalid input: a delegation needs an initiator"


async def test_an_expected_error_is_logged_as_an_answer_and_a_fault_once_with_its_traceback(
    caplog,  # type: ignore[no-untyped-def]
) -> None:
    schema = build_schema()
    with caplog.at_level(logging.INFO):
        refused = await schema.execute("{ nope }")
    assert refused.errors and refused.errors[0].extensions["code"] == "INVALID_INPUT"  # type: ignore[index]
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert caplog.records[0].fields["code"] == "INVALID_INPUT"  # type: ignore[attr-defined]
    caplog.clear()
    with caplog.at_level(logging.INFO):
        broken = await schema.execute("{ settings { heartbeatEnabled } }", context_value=None)
    assert broken.errors and broken.errors[0].extensions["code"] == "INTERNAL"  # type: ignore[index]
    faults = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(faults) == 1 and faults[0].exc_info  # one line, with the traceback
