"""Shared vocabulary of the review engine: the base model, scopes, triggers and budgets.

A bottom module: it imports nothing else from `engine.review`.

Field names are snake_case in Python and camelCase on the wire (`configId`,
`heartbeatEnabled`), so records written by GraphQL or stored in Neo4j load by either name.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from engine.scope import GLOBAL


class ReviewModel(BaseModel):
    """Immutable value: every decision returns a new one (`model_copy(update=...)`)."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
    )


class Scope(ReviewModel):
    """What a plan or a run looks at: Global, or a set of projects.

    docs/rules/reviews.md: "项目列表顺序不改变自动进度；不同项目集合和 Global 分开处理". The project
    ids are kept sorted and unique so the order a client sends them in never changes the key,
    and Global never shares progress, plans or entities with a project set.
    A source with no project belongs to Global; a project's source to the sets naming it.
    """

    is_global: bool = False
    project_ids: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: object) -> object:
        if isinstance(data, dict):
            key = "project_ids" if "project_ids" in data else "projectIds"
            ids = data.get(key)
            if ids is not None:
                data = {**data, key: tuple(sorted({str(i) for i in ids}))}
        return data

    @model_validator(mode="after")
    def _one_kind(self) -> Scope:
        if self.is_global and self.project_ids:
            raise ValueError("a Global scope names no projects")
        if not self.is_global and not self.project_ids:
            raise ValueError("a project scope names at least one project")
        if any(not p.strip() for p in self.project_ids):
            raise ValueError("project ids are non-empty")
        return self

    @classmethod
    def global_(cls) -> Scope:
        return cls(is_global=True)

    @classmethod
    def projects(cls, *project_ids: str) -> Scope:
        return cls(project_ids=tuple(project_ids))

    @property
    def key(self) -> str:
        """The stable identity used for checkpoints and plan lookup."""
        if self.is_global:
            return GLOBAL
        return "projects:" + ",".join(self.project_ids)

    def includes(self, project_id: str | None) -> bool:
        if self.is_global:
            return project_id is None
        return project_id in self.project_ids


class Trigger(StrEnum):
    """Who asked: a person (manual) or the heartbeat schedule (automatic)."""

    MANUAL = "manual"
    AUTOMATIC = "automatic"


class InputBudget(ReviewModel):
    """How much source text one model call and one run may take (docs/rules/reviews.md).

    Units are text positions (characters) of the source manifest; `per_run` bounds the whole
    run, and what does not fit stays pending for a later run (预算未覆盖的片段).
    """

    per_batch: int = Field(gt=0)
    per_run: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _batch_fits_run(self) -> InputBudget:
        if self.per_run is not None and self.per_run < self.per_batch:
            raise ValueError("per_run must be at least per_batch")
        return self


class StageName(StrEnum):
    """The four stages of a supervision run, in order (docs/rules/reviews.md: 收集、叶子整理、
    导航合并和发布分别展示)."""

    COLLECT = "collect"
    LEAVES = "leaves"
    NAVIGATION = "navigation"
    PUBLISH = "publish"


STAGE_ORDER: tuple[StageName, ...] = (
    StageName.COLLECT,
    StageName.LEAVES,
    StageName.NAVIGATION,
    StageName.PUBLISH,
)


class Segment(ReviewModel):
    """A half-open text range [start, end) of one version of one source.

    It points at the original, never copies its text (定位，不复制正文; docs/rules/story-graph.md).
    """

    source_id: str
    version: str
    start: int = Field(ge=0)
    end: int

    @model_validator(mode="after")
    def _non_empty(self) -> Segment:
        if self.end <= self.start:
            raise ValueError("a segment ends after it starts")
        return self

    @property
    def size(self) -> int:
        return self.end - self.start

    @property
    def source_key(self) -> tuple[str, str]:
        return (self.source_id, self.version)


class MissReason(StrEnum):
    """Why a run could not read a range of its input (部分来源不可用; docs/rules/reviews.md)."""

    WITHDRAWN = "withdrawn"  # the app withdrew the version: its text left the store
    UNRECOVERABLE = "unrecoverable"  # the version is known, its text was never supplied
    GONE = "gone"  # the text was there when the run collected it and gone when it read it


class MissedRange(ReviewModel):
    """A range of one source version a run should have read and could not, with why.
    `end` None: the whole version (its length is unknown without its text)."""

    source_id: str
    version: str
    start: int = Field(default=0, ge=0)
    end: int | None = None
    reason: MissReason

    @property
    def source_key(self) -> tuple[str, str]:
        return (self.source_id, self.version)
