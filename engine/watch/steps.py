"""`check_workflow`: registering the steps a checker found in its sources (docs/rules/watches.md
维护边界).

The checker reads body text, numbered steps, tables and paragraphs and registers each step
with its source, method/preconditions and completion criteria. Validation rules:

- `source` must be a sourceKey of *this* watch: a bound note or document, or a document read
  through this watch in this run. A bad one is an error naming the step id and listing this
  watch's valid keys only ("不跨关注暴露来源").
- An invalid list is never partly saved: either the whole list is returned, or nothing.
- Step ids are unique; kind is `check` or `execute`.
- A condition the document says must be verified during the check (`verifyInCheck`) is a
  check step, and a step once registered that way cannot be re-registered as an execute step
  (docs/rules/watches.md能被移到执行阶段绕过").
- Nothing is hard-coded about sites, proxies or publishing platforms: method text is free.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import Field, ValidationError

from engine.errors import InvalidInput
from engine.watch.model import (
    Frozen,
    SourceKey,
    SourceKind,
    StepKind,
    ToolInput,
    Watch,
    WorkflowStep,
)
from engine.watch.paging import ReadingState


class StepInput(ToolInput):
    """One step as the model sends it to `check_workflow`."""

    step_id: str = Field(min_length=1)
    kind: str
    source: str
    method: str = ""
    preconditions: tuple[str, ...] = ()
    completion_criteria: str = ""
    verify_in_check: bool = False


class StepProblem(Frozen):
    step_id: str | None
    field: str
    message: str


def watch_source_keys(watch: Watch, reading: ReadingState | None) -> tuple[str, ...]:
    """The sourceKeys this watch's steps may cite, sorted.

    Bound notes and documents, plus documents of bound libraries this run has read. A
    reading state of another watch contributes nothing.
    """
    keys = {k.value for k in watch.bound_keys()}
    if reading is not None and reading.watch_id == watch.watch_id:
        libraries = {b.library_id for b in watch.bindings if b.kind is SourceKind.KNOWLEDGE_LIBRARY}
        keys.update(
            k.value
            for k in reading.read_keys()
            if k.kind is SourceKind.KNOWLEDGE_DOCUMENT and k.library_id in libraries
        )
    return tuple(sorted(keys))


def _source_problem(step_id: str, source: str, valid: Sequence[str]) -> StepProblem | None:
    listing = ", ".join(valid) if valid else "(none: read a bound source first)"
    try:
        SourceKey.parse(source)
    except ValueError:
        return StepProblem(
            step_id=step_id,
            field="source",
            message=f"step {step_id}: source {source!r} is not a sourceKey; valid values for "
            f"this watch: {listing}",
        )
    if source not in valid:
        return StepProblem(
            step_id=step_id,
            field="source",
            message=f"step {step_id}: source {source!r} is not a source of this watch; valid "
            f"values for this watch: {listing}",
        )
    return None


def _parse(raw: Iterable[Mapping[str, Any]]) -> tuple[list[StepInput], list[StepProblem]]:
    parsed: list[StepInput] = []
    problems: list[StepProblem] = []
    for index, item in enumerate(raw):
        try:
            parsed.append(StepInput.model_validate(item))
        except ValidationError as exc:
            step_id = (
                (item.get("stepId") or item.get("step_id")) if isinstance(item, Mapping) else None
            )
            for err in exc.errors():
                problems.append(
                    StepProblem(
                        step_id=str(step_id) if step_id else None,
                        field=".".join(str(p) for p in err["loc"]) or f"steps[{index}]",
                        message=f"steps[{index}]: {err['msg']}",
                    )
                )
    return parsed, problems


def check_workflow(
    watch: Watch,
    reading: ReadingState | None,
    existing: Sequence[WorkflowStep],
    raw_steps: Sequence[Mapping[str, Any]],
) -> tuple[WorkflowStep, ...]:
    """Validate a whole step list and return it; raise InvalidInput listing every problem.

    The returned list replaces `existing`. A step re-registered with the same id, kind,
    source and criteria keeps its status and evidence; any other change starts it afresh.
    """
    if not raw_steps:
        raise InvalidInput("check_workflow needs at least one step", field="steps", problems=[])
    valid = watch_source_keys(watch, reading)
    parsed, problems = _parse(raw_steps)
    previous = {s.step_id: s for s in existing}
    seen: set[str] = set()
    steps: list[WorkflowStep] = []
    for item in parsed:
        sid = item.step_id
        if sid in seen:
            problems.append(
                StepProblem(step_id=sid, field="stepId", message=f"step id {sid} is repeated")
            )
            continue
        seen.add(sid)
        if item.kind not in {k.value for k in StepKind}:
            problems.append(
                StepProblem(
                    step_id=sid,
                    field="kind",
                    message=f"step {sid}: kind {item.kind!r} must be check or execute",
                )
            )
            continue
        kind = StepKind(item.kind)
        if (problem := _source_problem(sid, item.source, valid)) is not None:
            problems.append(problem)
        if not item.completion_criteria.strip():
            problems.append(
                StepProblem(
                    step_id=sid,
                    field="completionCriteria",
                    message=f"step {sid}: completion criteria are required",
                )
            )
        if not item.method.strip() and not item.preconditions:
            problems.append(
                StepProblem(
                    step_id=sid,
                    field="method",
                    message=f"step {sid}: give the method or the preconditions",
                )
            )
        old = previous.get(sid)
        must_check = item.verify_in_check or (old is not None and old.verify_in_check)
        if must_check and kind is StepKind.EXECUTE:
            problems.append(
                StepProblem(
                    step_id=sid,
                    field="kind",
                    message=f"step {sid}: the document requires verifying it during the check; "
                    "it cannot be moved to execution",
                )
            )
        step = WorkflowStep(
            step_id=sid,
            kind=kind,
            source=item.source,
            method=item.method,
            preconditions=item.preconditions,
            completion_criteria=item.completion_criteria or "-",
            verify_in_check=must_check,
        )
        if old is not None and _same_definition(old, step):
            step = step.model_copy(update={"status": old.status, "evidence": old.evidence})
        steps.append(step)
    if problems:
        raise InvalidInput(
            "workflow rejected, nothing saved: " + "; ".join(p.message for p in problems),
            field="steps",
            problems=[p.model_dump() for p in problems],
            valid_sources=list(valid),
        )
    return tuple(steps)


def _same_definition(a: WorkflowStep, b: WorkflowStep) -> bool:
    keys = ("kind", "source", "method", "preconditions", "completion_criteria", "verify_in_check")
    return all(getattr(a, k) == getattr(b, k) for k in keys)
