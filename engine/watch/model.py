"""The heartbeat watch (docs/rules/watches.md) and the records a check leaves behind.

A watch is a standing check over bound sources; it creates no board (docs/rules/watches.md opening:
"持续关注不创建看板"). The checker decides whether something changed and whether follow-up
execution may start; when execution is enabled it hands the verified result, the document's
steps and the bound dependencies to the partner (original) session.

Every state model here is frozen: a decision returns a new value, so a rejected event can
never leave a half-applied state behind.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel


class Frozen(BaseModel):
    """Base for engine state: immutable, strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolInput(BaseModel):
    """Base for arguments a model sends to a checker tool (camelCase or snake_case)."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
    )


# --- sources ------------------------------------------------------------------------------


class SourceKind(StrEnum):
    NOTE = "note"
    KNOWLEDGE_DOCUMENT = "knowledge_document"
    KNOWLEDGE_LIBRARY = "knowledge_library"


_KEY_RE = re.compile(
    r"^(?:note:(?P<note>[^/\s:]+)|doc:(?P<library>[^/\s:]+)/(?P<document>[^/\s:]+))$"
)


class SourceKey(Frozen):
    """What a read returns and a step cites (docs/rules/watches.md sourceKey").

    Text form: `note:<note_id>` or `doc:<library_id>/<document_id>`. It names a readable
    source, never a library: a step always comes from one document or note.
    """

    kind: SourceKind
    item_id: str = Field(min_length=1)
    library_id: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.kind is SourceKind.KNOWLEDGE_LIBRARY:
            raise ValueError("a library is not a readable source; bind or read a document")
        if (self.kind is SourceKind.KNOWLEDGE_DOCUMENT) != (self.library_id is not None):
            raise ValueError("a document key needs its library id; a note key has none")
        return self

    @property
    def value(self) -> str:
        if self.kind is SourceKind.NOTE:
            return f"note:{self.item_id}"
        return f"doc:{self.library_id}/{self.item_id}"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str) -> SourceKey:
        """Parse the text form; raises ValueError when it is malformed."""
        match = _KEY_RE.match(text)
        if match is None:
            raise ValueError(
                f"malformed sourceKey {text!r}; expected note:<id> or doc:<library>/<id>"
            )
        if match["note"] is not None:
            return cls(kind=SourceKind.NOTE, item_id=match["note"])
        return cls(
            kind=SourceKind.KNOWLEDGE_DOCUMENT,
            library_id=match["library"],
            item_id=match["document"],
        )


class SourceBinding(Frozen):
    """A source bound to a watch (docs/rules/watches.md).

    A single-document binding grants read-only access across projects to that document
    alone; a whole-library binding grants none (reads inside it keep project limits).
    `title` is kept verbatim; it is never shortened for fuzzy recall.
    """

    binding_id: str = Field(min_length=1)
    kind: SourceKind
    project: str = Field(min_length=1)
    title: str = ""
    note_id: str | None = None
    library_id: str | None = None
    document_id: str | None = None
    bound_at: datetime

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        needs = {
            SourceKind.NOTE: (True, False, False),
            SourceKind.KNOWLEDGE_DOCUMENT: (False, True, True),
            SourceKind.KNOWLEDGE_LIBRARY: (False, True, False),
        }[self.kind]
        have = (self.note_id is not None, self.library_id is not None, self.document_id is not None)
        if needs != have:
            raise ValueError(f"binding {self.binding_id}: fields do not match kind {self.kind}")
        return self

    @property
    def key(self) -> SourceKey | None:
        """The sourceKey this binding names; None for a whole library."""
        if self.kind is SourceKind.NOTE:
            assert self.note_id is not None
            return SourceKey(kind=SourceKind.NOTE, item_id=self.note_id)
        if self.kind is SourceKind.KNOWLEDGE_DOCUMENT:
            assert self.document_id is not None
            return SourceKey(
                kind=SourceKind.KNOWLEDGE_DOCUMENT,
                library_id=self.library_id,
                item_id=self.document_id,
            )
        return None

    @property
    def grants_cross_project_read(self) -> bool:
        return self.kind is SourceKind.KNOWLEDGE_DOCUMENT


# --- the watch ----------------------------------------------------------------------------


class WatchStatus(StrEnum):
    ENABLED = "enabled"
    STOPPED = "stopped"
    DELETED = "deleted"


class Watch(Frozen):
    """A standing check over bound sources.

    `session_id` is the partner (original) session that receives hand-offs; the checker runs
    under its own temporary agent id but keeps this session's object and scopes
    (docs/rules/watches.md "检查器拥有独立的临时 Agent 标识"). `execution_enabled` is the only gate
    for follow-up execution: a document can never grant it (docs/rules/watches.md).
    """

    watch_id: str = Field(min_length=1)
    scope: str = Field(min_length=1)
    session_id: str = Field(min_length=1)
    title: str = ""
    bindings: tuple[SourceBinding, ...] = ()
    tag_limits: frozenset[str] = frozenset()
    status: WatchStatus = WatchStatus.ENABLED
    execution_enabled: bool = False
    record_location: str | None = None
    created_at: datetime
    changed_at: datetime | None = None

    @model_validator(mode="after")
    def _unique_bindings(self) -> Self:
        ids = [b.binding_id for b in self.bindings]
        if len(ids) != len(set(ids)):
            raise ValueError(f"watch {self.watch_id}: duplicate binding ids")
        return self

    @property
    def is_active(self) -> bool:
        return self.status is WatchStatus.ENABLED

    def bound_keys(self) -> tuple[SourceKey, ...]:
        return tuple(k for b in self.bindings if (k := b.key) is not None)


# --- workflow steps and evidence ----------------------------------------------------------


class StepKind(StrEnum):
    CHECK = "check"
    EXECUTE = "execute"


class StepStatus(StrEnum):
    PENDING = "pending"
    DONE = "done"
    BLOCKED = "blocked"


class Evidence(Frozen):
    """What supports a step's status, and who recorded it: the check run that saw it
    (`run_id`) or the person who entered it through `recordStepEvidence` (`recorded_by`,
    the token name), never both. A person's evidence is never attributed to a run.

    Evidence from another run, or from a person, is reference only for a check
    (docs/rules/watches.md).
    """

    text: str = Field(min_length=1)
    run_id: str | None = Field(default=None, min_length=1)
    recorded_by: str | None = Field(default=None, min_length=1)
    recorded_at: datetime

    @model_validator(mode="after")
    def _one_actor(self) -> Self:
        if (self.run_id is None) == (self.recorded_by is None):
            raise ValueError("evidence is recorded either by a run or by a person")
        return self

    @property
    def actor(self) -> str:
        """Who recorded it, as text: `run <id>` or `person <name>`."""
        return f"run {self.run_id}" if self.run_id is not None else f"person {self.recorded_by}"


class WorkflowStep(Frozen):
    """A step the checker found in a source (docs/rules/watches.md、方法/前置条件、完成标准").

    `verify_in_check` marks a condition the document says must be verified during the
    check; such a step can never become an execute step (docs/rules/watches.md).
    """

    step_id: str = Field(min_length=1)
    kind: StepKind
    source: str = Field(min_length=1)
    method: str = ""
    preconditions: tuple[str, ...] = ()
    completion_criteria: str = Field(min_length=1)
    verify_in_check: bool = False
    status: StepStatus = StepStatus.PENDING
    evidence: Evidence | None = None


class WorkflowCheck(Frozen):
    """One `{stepId, status, evidence}` entry as recorded on an observation."""

    step_id: str
    status: StepStatus
    evidence: str


# --- outcome, observation, hand-off, checkpoint -------------------------------------------


class OutcomeStatus(StrEnum):
    SUCCESS = "success"
    NEEDS_CORRECTION = "needs_correction"
    BLOCKED = "blocked"


class DeliveryState(StrEnum):
    """One name for what a step list shows (docs/rules/watches.md成")."""

    NOTHING_RECORDED = "nothing_recorded"
    FACTS_RECORDED = "facts_recorded"  # 事实已记录: a check step is done with evidence
    DELIVERABLE_DONE = "deliverable_done"  # 交付物已完成: every execute step is done


class Outcome(Frozen):
    """How a check ended (docs/rules/watches.md).

    `facts_recorded` ("事实已记录") and `deliverable_done` ("交付物已完成") are separate:
    a successful check records facts; only the execution side completes a deliverable.
    Both are computed by the same predicates as the watch's delivery state
    (engine/watch/outcome.py), so `delivery_state` here and on the watch agree for the
    step list the check left behind.
    """

    status: OutcomeStatus
    reasons: tuple[str, ...] = ()
    corrections_used: int = 0
    facts_recorded: bool = False
    deliverable_done: bool = False
    dispatch_execution: bool = False

    @property
    def delivery_state(self) -> DeliveryState:
        if self.deliverable_done:
            return DeliveryState.DELIVERABLE_DONE
        if self.facts_recorded:
            return DeliveryState.FACTS_RECORDED
        return DeliveryState.NOTHING_RECORDED


class HandOffStep(Frozen):
    step_id: str
    kind: StepKind
    source: str
    method: str
    preconditions: tuple[str, ...]
    completion_criteria: str
    status: StepStatus
    evidence: str | None


class HandOff(Frozen):
    """Verified result, steps and dependencies for the partner session (docs/rules/watches.md)."""

    execution_key: str = Field(min_length=1)
    watch_id: str
    session_id: str
    run_id: str
    observation_id: str
    steps: tuple[HandOffStep, ...]
    dependencies: tuple[str, ...]
    created_at: datetime


def observation_id(watch_id: str, run_id: str) -> str:
    """One observation per run of a watch: a run id is unique only within its scope (a
    runWatchNow requestId), the watch id is unique everywhere."""
    return f"obs-{watch_id}-{run_id}"


class Observation(Frozen):
    """What one check run saw. Old observations have `workflow_checks=None` and stay readable
    (docs/rules/watches.md)."""

    observation_id: str = Field(min_length=1)
    watch_id: str
    run_id: str
    observed_at: datetime
    summary: str = ""
    changed: bool = False
    workflow_checks: tuple[WorkflowCheck, ...] | None = None
    outcome: Outcome | None = None
    handoff: HandOff | None = None


class SyncStatus(StrEnum):
    PENDING = "pending"
    SYNCED = "synced"
    FAILED = "failed"


class Checkpoint(Frozen):
    """A check artefact to be written to the watch's record location by the independent
    record-sync task (docs/rules/watches.md任务")."""

    checkpoint_id: str
    watch_id: str
    run_id: str
    location: str
    data: dict[str, object]
    instructions: str
    recorded_at: datetime
    sync_status: SyncStatus = SyncStatus.PENDING
    sync_error: str | None = None
    synced_at: datetime | None = None
