"""The conversation-side tools of docs/rules/concerns.md as JSON-schema function definitions.

Agent frameworks (OpenAI-style tool calling) can offer `raise_concern`, `advance_concern`
and `check_concerns` to a conversation. The parameter schemas are derived from the same
pydantic models the API validates with, so a tool call that passes the schema is the input
the API accepts. `resolve_concern` is deliberately absent: it is internal to the agent loop.
"""

from __future__ import annotations

from typing import Any

from engine.concern.advance import InboundMessage
from engine.concern.model import RaiseConcernInput

SCOPE = {"type": "string", "description": "project id or 'global'"}


def _function(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def _with(schema: dict[str, Any], **extra: dict[str, Any]) -> dict[str, Any]:
    """Add top-level properties (all required) to a model's schema."""
    out = dict(schema)
    out["properties"] = {**extra, **schema.get("properties", {})}
    out["required"] = [*extra, *schema.get("required", [])]
    return out


def tool_definitions() -> list[dict[str, Any]]:
    raise_schema = _with(RaiseConcernInput.model_json_schema(), scope=SCOPE)
    advance_schema = _with(
        InboundMessage.model_json_schema(),
        scope=SCOPE,
        concern_id={"type": "string", "description": "the concern the reply belongs to"},
    )
    check_schema = {
        "type": "object",
        "properties": {
            "scope": SCOPE,
            "person_id": {"type": "string", "description": "only concerns involving this person"},
            "status": {
                "type": "string",
                "enum": [
                    "pending",
                    "in_progress",
                    "waiting_reply",
                    "escalated",
                    "resolved",
                    "dropped",
                ],
            },
        },
        "required": ["scope"],
    }
    return [
        _function(
            "raise_concern",
            "Create a follow-up item with a goal (what counts as done). Only for items "
            "the cognitive hub has admitted to the agenda.",
            raise_schema,
        ),
        _function(
            "advance_concern",
            "Record a counterpart's reply; the agent loop then judges the goal. Never "
            "resolves directly.",
            advance_schema,
        ),
        _function(
            "check_concerns", "List the active concerns (optionally of one person).", check_schema
        ),
    ]
