"""Structured output: the model's answer parsed into a pydantic model.

An answer that does not validate is `ModelOutputInvalid` carrying the raw text, so the run
record keeps exactly what the model said (docs/rules/reviews.md#stages-and-records). It is not
retried: the retry policy covers transport failures only
(docs/rules/watches.md#model-connection-errors), and a model that answered wrongly once is
the job's decision to ask again.

Endpoints differ in how they constrain output, hence `StructuredMode`:
- JSON_SCHEMA: `response_format={"type": "json_schema", ...}` (OpenAI, vLLM, llama.cpp).
- JSON_OBJECT: `response_format={"type": "json_object"}` (older servers, Ollama).
- PROMPT: no response_format; the schema is only described in a system message.
All three also put the schema in a system message, so a server that ignores response_format
still gets told what to produce.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.llm.errors import ModelOutputInvalid
from engine.llm.messages import ChatMessage, ChatRequest, ChatResult

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


class StructuredMode(StrEnum):
    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"
    PROMPT = "prompt"


def response_format_for(model: type[BaseModel], mode: StructuredMode) -> dict[str, Any] | None:
    if mode is StructuredMode.JSON_SCHEMA:
        return {
            "type": "json_schema",
            "json_schema": {"name": model.__name__, "schema": model.model_json_schema()},
        }
    if mode is StructuredMode.JSON_OBJECT:
        return {"type": "json_object"}
    return None


def schema_instruction(model: type[BaseModel]) -> str:
    schema = json.dumps(model.model_json_schema(), ensure_ascii=False)
    return (
        "Answer with one JSON object only, no prose and no code fence. "
        f"It must validate against this JSON schema:\n{schema}"
    )


def structured_request(
    request: ChatRequest, model: type[BaseModel], mode: StructuredMode
) -> ChatRequest:
    """The same request, asking for `model` as its answer."""
    messages = [*request.messages, ChatMessage.system(schema_instruction(model))]
    return request.model_copy(
        update={"messages": messages, "response_format": response_format_for(model, mode)}
    )


def extract_json_text(text: str) -> str:
    """The JSON object inside an answer: fenced block, or outermost braces, else the text."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    if fenced:
        return fenced.group(1).strip()
    if stripped.startswith("{"):
        return stripped
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        return stripped[start : end + 1]
    return stripped


def parse_structured(text: str, model: type[M]) -> M:
    """Validate an answer into `model`, or raise ModelOutputInvalid with the raw text."""
    candidate = extract_json_text(text)
    try:
        return model.model_validate_json(candidate)
    except ValidationError as exc:
        errors = [
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()
        ]
        raise ModelOutputInvalid(
            f"model answer does not validate as {model.__name__}", raw_text=text, errors=errors
        ) from exc


def parse_result(result: ChatResult, model: type[M]) -> M:
    """Parse a chat result; a lone tool call's arguments count as the answer when no text."""
    text = result.text
    if not text.strip() and len(result.tool_calls) == 1:
        text = result.tool_calls[0].arguments
    try:
        return parse_structured(text, model)
    except ModelOutputInvalid as exc:
        exc.with_stats(result.stats.model_copy(update={"outcome": "invalid_output"}))
        raise
