"""Automatic incremental progress and manual re-review (docs/rules/reviews.md).

"自动心跳报告和下游监督分别记录已成功处理的来源版本及正文位置。首次自动运行只读取计划范围和
回顾窗口内的来源；后续运行在同样边界内处理新增、修订或上次预算未覆盖的片段。项目列表顺序不改变
自动进度；不同项目集合和 Global 分开处理。失败、未送入模型或结果事务未提交的输入保留待处理状态。"

- A checkpoint is keyed by (track, scope): the heartbeat report and the supervision keep
  separate positions, and each project set and Global keep their own. No plan id and no
  report id is part of the key, so deleting a report or a plan never resets progress, and a
  new plan over the same scope carries on where the old one stopped.
- Per source it holds the processed version and text offset.
- `pending_segments` decides what an automatic run reads: on first sight of a source (or a
  revised version) only spans inside the review window; afterwards everything past the
  offset. Sources are taken in id order, so the order of a project list changes nothing.
  What does not fit the run budget is deferred and stays pending.
- `advance` moves positions to what a run committed. It is called only by the publish
  transaction (`engine.review.lifecycle.publish`); a failed, cancelled, paused or unsent run
  leaves the checkpoint as it was.
- `interval_segments` is the manual re-review: it reads a chosen interval and takes no
  checkpoint at all, so it can neither read nor move automatic progress.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import Field, model_validator

from engine.errors import Conflict, InvalidInput
from engine.review.manifest import Ledger, committed_ranges, coverage_holes
from engine.review.types import InputBudget, MissedRange, MissReason, ReviewModel, Scope, Segment


class Track(StrEnum):
    REPORT = "heartbeat_report"
    SUPERVISION = "supervision"


class CheckpointKey(ReviewModel):
    track: Track
    scope_key: str

    @classmethod
    def of(cls, track: Track, scope: Scope) -> CheckpointKey:
        return cls(track=track, scope_key=scope.key)


class SourcePosition(ReviewModel):
    source_id: str
    version: str
    offset: int = Field(ge=0)
    updated_at: datetime


class Checkpoint(ReviewModel):
    key: CheckpointKey
    positions: dict[str, SourcePosition] = Field(default_factory=dict)
    revision: int = 0  # bumped on every advance; the shell writes with compare-and-set


class Span(ReviewModel):
    """A natural unit of a source (a message, a paragraph) with the time it was written."""

    start: int = Field(ge=0)
    end: int
    at: datetime

    @model_validator(mode="after")
    def _non_empty(self) -> Span:
        if self.end <= self.start:
            raise ValueError("a span ends after it starts")
        return self


class SourceState(ReviewModel):
    """A source as it is now: id, current version, owning project (None: Global), spans.
    `unavailable`: why its current version's text cannot be read (no spans then), recorded
    `recorded_at`."""

    source_id: str
    version: str
    project_id: str | None = None
    spans: tuple[Span, ...]
    unavailable: MissReason | None = None
    recorded_at: datetime | None = None

    def missed(self) -> MissedRange:
        assert self.unavailable is not None
        return MissedRange(source_id=self.source_id, version=self.version, reason=self.unavailable)


class Selection(ReviewModel):
    included: tuple[Segment, ...] = ()
    deferred: tuple[Segment, ...] = ()
    missed: tuple[MissedRange, ...] = ()  # input the run should read and cannot

    @property
    def no_change(self) -> bool:
        """Nothing to send: record no_change without calling the model."""
        return not self.included


def _take(candidates: Iterable[Segment], budget: InputBudget) -> Selection:
    """In order, include segments until the run budget is spent; cut at the budget edge; the
    rest is deferred (stays pending for a later run)."""
    included: list[Segment] = []
    deferred: list[Segment] = []
    room = budget.per_run
    for seg in candidates:
        if room is None or (not deferred and seg.size <= room):
            included.append(seg)
            if room is not None:
                room -= seg.size
        elif not deferred and room > 0:
            included.append(seg.model_copy(update={"end": seg.start + room}))
            deferred.append(seg.model_copy(update={"start": seg.start + room}))
            room = 0
        else:
            deferred.append(seg)
    return Selection(included=tuple(included), deferred=tuple(deferred))


def _in_scope(sources: Sequence[SourceState], scope: Scope) -> list[SourceState]:
    return sorted((s for s in sources if scope.includes(s.project_id)), key=lambda s: s.source_id)


def pending_segments(
    checkpoint: Checkpoint,
    sources: Sequence[SourceState],
    *,
    scope: Scope,
    window: timedelta,
    budget: InputBudget,
    now: datetime,
) -> Selection:
    """What an automatic run (heartbeat report or supervision) should read now."""
    if checkpoint.key.scope_key != scope.key:
        raise Conflict(
            "checkpoint belongs to another scope",
            checkpoint_scope=checkpoint.key.scope_key,
            scope=scope.key,
        )
    since = now - window
    candidates: list[Segment] = []
    missed: list[MissedRange] = []
    for source in _in_scope(sources, scope):
        pos = checkpoint.positions.get(source.source_id)
        if source.unavailable is not None:
            # a version this track never read, recorded within the window, cannot be read
            unread = pos is None or pos.version != source.version
            at = source.recorded_at
            if unread and (at is None or since <= at <= now):
                missed.append(source.missed())
            continue
        for span in sorted(source.spans, key=lambda s: s.start):
            if span.at > now:
                continue
            if pos is None or pos.version != source.version:
                # first sight or a revised version: only the review window
                if span.at < since:
                    continue
                start = span.start
            else:
                # new text after the offset, or what an earlier budget left uncovered
                if span.end <= pos.offset:
                    continue
                start = max(span.start, pos.offset)
            candidates.append(
                Segment(
                    source_id=source.source_id, version=source.version, start=start, end=span.end
                )
            )
    return _take(candidates, budget).model_copy(update={"missed": tuple(missed)})


def interval_segments(
    sources: Sequence[SourceState],
    *,
    scope: Scope,
    start: datetime,
    end: datetime,
    budget: InputBudget,
) -> Selection:
    """Manual re-review of [start, end): bounded like any run, blind to automatic progress."""
    if end <= start:
        raise InvalidInput("the review interval must end after it starts")
    in_scope = _in_scope(sources, scope)
    candidates = [
        Segment(source_id=s.source_id, version=s.version, start=span.start, end=span.end)
        for s in in_scope
        for span in sorted(s.spans, key=lambda sp: sp.start)
        if start <= span.at < end
    ]
    missed = [
        s.missed()
        for s in in_scope
        if s.unavailable is not None and (s.recorded_at is None or start <= s.recorded_at < end)
    ]
    return _take(candidates, budget).model_copy(update={"missed": tuple(missed)})


def advance_to(checkpoint: Checkpoint, segments: Iterable[Segment], *, now: datetime) -> Checkpoint:
    """Positions after committed input: each source moves to the end of what was taken
    (never backwards). For a heartbeat report, `segments` is what its one model call read."""
    ends: dict[tuple[str, str], int] = {}
    for seg in segments:
        ends[seg.source_key] = max(ends.get(seg.source_key, 0), seg.end)
    positions = dict(checkpoint.positions)
    for (source_id, version), offset in sorted(ends.items()):
        old = positions.get(source_id)
        if old is not None and old.version == version and old.offset >= offset:
            continue
        positions[source_id] = SourcePosition(
            source_id=source_id, version=version, offset=offset, updated_at=now
        )
    return checkpoint.model_copy(
        update={"positions": positions, "revision": checkpoint.revision + 1}
    )


def advance(checkpoint: Checkpoint, ledger: Ledger, *, now: datetime) -> Checkpoint:
    """Positions after a published run. Refuses a ledger with coverage holes: a position
    never skips uncommitted input."""
    holes = coverage_holes(ledger)
    if holes:
        raise Conflict("cannot advance past uncommitted input", holes=len(holes))
    committed = [
        Segment(source_id=sid, version=version, start=start, end=end)
        for (sid, version), ranges in committed_ranges(ledger).items()
        for start, end in ranges
    ]
    return advance_to(checkpoint, committed, now=now)


def segment_times(
    states: Sequence[SourceState], segments: Sequence[Segment]
) -> dict[tuple[str, str, int], datetime]:
    """When the text at each segment's start was written (the span containing it), and
    when each further span (message) inside a segment begins: keyed (source, version, start),
    so the time of any position is that of the latest key at or before it."""
    spans = {(s.source_id, s.version): s.spans for s in states}
    times: dict[tuple[str, str, int], datetime] = {}
    for seg in segments:
        for span in spans.get(seg.source_key, ()):
            if span.start < seg.end and seg.start < span.end:
                times[(seg.source_id, seg.version, max(span.start, seg.start))] = span.at
    return times
