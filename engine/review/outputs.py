"""The contracts for model output of the leaf and navigation stages (seed 004 活动记录).

- A leaf output must carry a `facts` array (it may be empty: a batch with nothing worth
  keeping says so explicitly). A leaf output without one fails.
- A navigation (merge) output may omit `facts`; it summarises and links leaf results. It
  must never emit a non-empty `facts` array, which would replace the leaves' facts.
- Model output is validated against the schema; an invalid one fails the stage with
  `InvalidModelOutput`, which keeps the raw text so it can be inspected and the run retried.

Extra keys (events, entities, relations for the story graph) pass through untouched; their
own contract belongs to the story-graph publish path.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.errors import InvalidInput
from engine.review.types import Segment, StageName

MAX_RAW_KEPT = 200_000


class InvalidModelOutput(InvalidInput):
    """Model output that does not meet the stage's contract; `raw_output` is kept verbatim."""

    def __init__(self, message: str, *, stage: StageName, raw_output: str, problems: list[str]):
        super().__init__(message, stage=stage.value, problems=problems)
        self.stage = stage
        self.raw_output = raw_output[:MAX_RAW_KEPT]
        self.problems = problems


class _Output(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")


class Fact(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    text: str = Field(min_length=1)
    refs: tuple[Segment, ...] = ()

    @field_validator("text")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("a fact has text")
        return v


class LeafOutput(_Output):
    """One leaf batch's result. `facts` is required (no default)."""

    facts: list[Fact]
    summary: str = ""


class NavigationOutput(_Output):
    """A merge node over leaf results or lower navigation nodes."""

    summary: str = Field(min_length=1)
    children: list[str] = Field(default_factory=list)
    facts: list[Any] | None = None

    @field_validator("facts")
    @classmethod
    def _never_replaces_leaf_facts(cls, v: list[Any] | None) -> list[Any] | None:
        if v:
            raise ValueError("navigation must not emit facts; leaf facts are kept as they are")
        return v


def _strip_fence(raw: str) -> str:
    text = raw.strip()
    if text.startswith("```"):
        first_newline = text.find("\n")
        if first_newline != -1 and text.endswith("```"):
            return text[first_newline + 1 : -3].strip()
    return text


def _parse(raw: str, stage: StageName, model: type[_Output]) -> Any:
    try:
        data = json.loads(_strip_fence(raw))
    except (json.JSONDecodeError, TypeError) as exc:
        raise InvalidModelOutput(
            f"{stage.value} output is not JSON", stage=stage, raw_output=raw, problems=[str(exc)]
        ) from None
    if not isinstance(data, dict):
        raise InvalidModelOutput(
            f"{stage.value} output is not an object",
            stage=stage,
            raw_output=raw,
            problems=[f"got {type(data).__name__}"],
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()
        ]
        raise InvalidModelOutput(
            f"{stage.value} output does not match its schema",
            stage=stage,
            raw_output=raw,
            problems=problems,
        ) from None


def parse_leaf_output(raw: str) -> LeafOutput:
    """Validate a leaf batch's model answer, or raise `InvalidModelOutput`."""
    result: LeafOutput = _parse(raw, StageName.LEAVES, LeafOutput)
    return result


def parse_navigation_output(raw: str) -> NavigationOutput:
    """Validate a navigation merge answer, or raise `InvalidModelOutput`."""
    result: NavigationOutput = _parse(raw, StageName.NAVIGATION, NavigationOutput)
    return result
