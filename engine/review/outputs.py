"""The contracts for model output of the leaf and navigation stages (docs/rules/reviews.md).

- A leaf output must carry a `facts` array (it may be empty: a batch with nothing worth
  keeping says so explicitly). A leaf output without one fails.
- A navigation (merge) output may omit `facts`; it summarises and links leaf results. It
  must never emit a non-empty `facts` array, which would replace the leaves' facts.
- Model output is validated against the schema; an invalid one fails the stage with
  `InvalidModelOutput`, which keeps the raw text so it can be inspected and the run retried.

Extra keys (events, entities, relations for the story graph) pass through; their own
contract belongs to the story-graph publish path, except what only the request can tell:
a leaf answer is checked against what it was sent (`check_grounded`). An entity (a person
above all) may carry a stored `id` only if the request offered it (`known_entities`,
`known_people`), a fact an event `id` only if `known_events` listed it, an entity a
`same_as` only if `earlier_entities` listed that ref, and a relation names entities of the
answer. Anything else is invented, and the whole answer fails like a malformed one
(docs/rules/story-graph.md#identity: a model cannot make someone a stored person by naming an
id).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
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


class Offered(BaseModel):
    """What a leaf request offered the model to name by id."""

    model_config = ConfigDict(frozen=True)

    entity_ids: frozenset[str] = frozenset()  # known_entities and known_people
    event_ids: frozenset[str] = frozenset()  # known_events
    earlier_refs: frozenset[str] = frozenset()  # earlier_entities


def _unoffered(value: object, offered: Collection[str]) -> bool:
    return value not in (None, "") and (not isinstance(value, str) or value not in offered)


def grounding_problems(output: LeafOutput, offered: Offered) -> list[str]:
    """Every id in a leaf answer its request did not offer (empty: the answer is grounded)."""
    problems = []
    refs: set[str] = set()
    for i, raw in enumerate(getattr(output, "entities", None) or []):
        if not isinstance(raw, Mapping):
            continue
        refs.add(str(raw.get("ref") or raw.get("local_id") or f"e{i}"))
        if _unoffered(raw.get("id"), offered.entity_ids):
            problems.append(f"entities.{i}.id: {raw.get('id')!r} was not offered")
        if _unoffered(raw.get("same_as"), offered.earlier_refs):
            problems.append(f"entities.{i}.same_as: {raw.get('same_as')!r} was not offered")
    for i, fact in enumerate(output.facts):
        event_id = (fact.model_extra or {}).get("id")
        if _unoffered(event_id, offered.event_ids):
            problems.append(f"facts.{i}.id: {event_id!r} was not offered")
    for i, raw in enumerate(getattr(output, "relations", None) or []):
        if not isinstance(raw, Mapping):
            continue
        for end in ("from", "to"):
            if raw.get(end) not in refs:
                problems.append(f"relations.{i}.{end}: {raw.get(end)!r} is no entity of the answer")
    return problems


def check_grounded(raw: str, offered: Offered) -> LeafOutput:
    """Validate a leaf answer and that it names only what its request offered, or raise
    `InvalidModelOutput` (the raw text kept)."""
    output = parse_leaf_output(raw)
    problems = grounding_problems(output, offered)
    if problems:
        raise InvalidModelOutput(
            "leaves output names what its request did not offer: " + "; ".join(problems),
            stage=StageName.LEAVES,
            raw_output=raw,
            problems=problems,
        )
    return output
