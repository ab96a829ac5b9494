"""The paged source manifest and its leaf batches (docs/rules/reviews.md).

"完整回顾的生产接线已增加分页来源清单、逐批输出/offset 事务和导航节点":

- collect reads the manifest page by page (`add_page`); it is complete when a page has no
  next cursor. Each entry is a `Segment`: source id, version, text offsets.
- `plan_leaves` splits the manifest into leaf batches under the per-batch input budget; every
  manifest position lands in exactly one batch (a segment larger than a batch is cut at
  offsets).
- each batch's output and offsets are committed on their own (`commit_batch`), so a crash
  loses at most the batch in flight; committing the same batch again with the same output is
  a no-op, so a retried job duplicates nothing.
- continuing (`resume`) keeps committed leaves and navigation nodes and re-queues the rest.
- `coverage_holes` and `unread_sources` say what the run has not covered; a run with any of
  them cannot complete (see `engine.review.stages.completion_blockers`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum

from engine.errors import Conflict, InvalidInput, NotFound
from engine.review.types import ReviewModel, Segment


class ManifestPage(ReviewModel):
    segments: tuple[Segment, ...]
    next_cursor: str | None = None


class SourceManifest(ReviewModel):
    segments: tuple[Segment, ...] = ()
    pages_read: int = 0
    next_cursor: str | None = None
    complete: bool = False


def _overlaps(a: Segment, b: Segment) -> bool:
    return a.source_key == b.source_key and a.start < b.end and b.start < a.end


def add_page(manifest: SourceManifest, page: ManifestPage) -> SourceManifest:
    """Append one page read during collect. Overlapping entries are refused: a position that
    appears twice would be reviewed twice."""
    if manifest.complete:
        raise Conflict("the manifest is already complete", pages_read=manifest.pages_read)
    by_source: dict[tuple[str, str], list[Segment]] = defaultdict(list)
    for seg in manifest.segments:
        by_source[seg.source_key].append(seg)
    for seg in page.segments:
        if any(_overlaps(seg, other) for other in by_source[seg.source_key]):
            raise InvalidInput(
                "manifest entries overlap", source_id=seg.source_id, start=seg.start, end=seg.end
            )
        by_source[seg.source_key].append(seg)
    return SourceManifest(
        segments=manifest.segments + page.segments,
        pages_read=manifest.pages_read + 1,
        next_cursor=page.next_cursor,
        complete=page.next_cursor is None,
    )


class BatchState(StrEnum):
    PENDING = "pending"
    COMMITTED = "committed"
    FAILED = "failed"


class LeafBatch(ReviewModel):
    index: int
    segments: tuple[Segment, ...]
    state: BatchState = BatchState.PENDING
    output_id: str | None = None
    committed_at: datetime | None = None
    attempts: int = 0
    error: str | None = None

    @property
    def size(self) -> int:
        return sum(s.size for s in self.segments)


class NavigationNode(ReviewModel):
    """A committed merge node. `leaves` are the batch indices it covers (directly or below)."""

    node_id: str
    leaves: frozenset[int]
    output_id: str
    committed_at: datetime
    is_root: bool = False


class Ledger(ReviewModel):
    """Everything a run has planned and committed for its leaves and navigation."""

    manifest: SourceManifest
    batches: tuple[LeafBatch, ...] = ()
    nodes: tuple[NavigationNode, ...] = ()


def split_segments(segments: Sequence[Segment], per_batch: int) -> list[list[Segment]]:
    """Greedy packing in (source, version, start) order; a batch never exceeds `per_batch`.

    A segment that does not fit the current batch opens a new one; a segment larger than a
    whole batch is cut into `per_batch`-sized pieces at offsets.
    """
    if per_batch <= 0:
        raise InvalidInput("per_batch must be positive", per_batch=per_batch)
    batches: list[list[Segment]] = []
    current: list[Segment] = []
    used = 0
    for seg in sorted(segments, key=lambda s: (s.source_id, s.version, s.start)):
        if seg.size <= per_batch - used:
            current.append(seg)
            used += seg.size
            continue
        if current:
            batches.append(current)
            current, used = [], 0
        start = seg.start
        while seg.end - start > per_batch:
            batches.append([seg.model_copy(update={"start": start, "end": start + per_batch})])
            start += per_batch
        current = [seg.model_copy(update={"start": start})]
        used = seg.end - start
    if current:
        batches.append(current)
    return batches


def plan_leaves(manifest: SourceManifest, per_batch: int) -> Ledger:
    """Leaf batches for a complete manifest (collect must have read every page first)."""
    if not manifest.complete:
        raise Conflict("collect has not read the whole manifest", pages_read=manifest.pages_read)
    batches = tuple(
        LeafBatch(index=i, segments=tuple(segs))
        for i, segs in enumerate(split_segments(manifest.segments, per_batch))
    )
    return Ledger(manifest=manifest, batches=batches)


def _batch(ledger: Ledger, index: int) -> LeafBatch:
    if not 0 <= index < len(ledger.batches):
        raise NotFound("no such leaf batch", index=index)
    return ledger.batches[index]


def _replace(ledger: Ledger, batch: LeafBatch) -> Ledger:
    batches = list(ledger.batches)
    batches[batch.index] = batch
    return ledger.model_copy(update={"batches": tuple(batches)})


def next_pending(ledger: Ledger) -> LeafBatch | None:
    """The first batch not yet committed: where a run (or its continuation) picks up."""
    return next((b for b in ledger.batches if b.state is BatchState.PENDING), None)


def commit_batch(ledger: Ledger, index: int, output_id: str, *, now: datetime) -> Ledger:
    """Commit one batch's output with its offsets (its own transaction in the shell)."""
    batch = _batch(ledger, index)
    if batch.state is BatchState.COMMITTED:
        if batch.output_id == output_id:
            return ledger
        raise Conflict(
            "batch already committed with another output", index=index, output_id=batch.output_id
        )
    return _replace(
        ledger,
        batch.model_copy(
            update={
                "state": BatchState.COMMITTED,
                "output_id": output_id,
                "committed_at": now,
                "attempts": batch.attempts + 1,
                "error": None,
            }
        ),
    )


def fail_batch(ledger: Ledger, index: int, error: str) -> Ledger:
    """A batch whose model call, validation or save failed: nothing of it is committed."""
    batch = _batch(ledger, index)
    if batch.state is BatchState.COMMITTED:
        raise Conflict("a committed batch cannot fail afterwards", index=index)
    return _replace(
        ledger,
        batch.model_copy(
            update={"state": BatchState.FAILED, "attempts": batch.attempts + 1, "error": error}
        ),
    )


def commit_node(ledger: Ledger, node: NavigationNode) -> Ledger:
    """Commit a navigation node; re-committing the same node id with the same output is a
    no-op. Nodes may only cover committed leaves."""
    for existing in ledger.nodes:
        if existing.node_id == node.node_id:
            if existing.output_id == node.output_id and existing.leaves == node.leaves:
                return ledger
            raise Conflict("navigation node already committed differently", node_id=node.node_id)
    committed = {b.index for b in ledger.batches if b.state is BatchState.COMMITTED}
    if not node.leaves <= committed:
        raise Conflict(
            "a navigation node may only cover committed leaves",
            missing=sorted(node.leaves - committed),
        )
    return ledger.model_copy(update={"nodes": ledger.nodes + (node,)})


def resume(ledger: Ledger) -> Ledger:
    """For `continueReview`: committed leaves and navigation nodes stay, failed batches are
    pending again. Nothing committed is redone."""
    batches = tuple(
        b.model_copy(update={"state": BatchState.PENDING}) if b.state is BatchState.FAILED else b
        for b in ledger.batches
    )
    return ledger.model_copy(update={"batches": batches})


def _merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def committed_ranges(ledger: Ledger) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Committed offsets per (source, version), merged: the only basis for progress."""
    ranges: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for batch in ledger.batches:
        if batch.state is BatchState.COMMITTED:
            for seg in batch.segments:
                ranges[seg.source_key].append((seg.start, seg.end))
    return {key: _merge(r) for key, r in ranges.items()}


def coverage_holes(ledger: Ledger) -> list[Segment]:
    """Manifest positions no committed batch covers."""
    covered = committed_ranges(ledger)
    holes: list[Segment] = []
    for seg in ledger.manifest.segments:
        cursor = seg.start
        for start, end in covered.get(seg.source_key, []):
            if end <= cursor or start >= seg.end:
                continue
            if start > cursor:
                holes.append(seg.model_copy(update={"start": cursor, "end": start}))
            cursor = max(cursor, end)
        if cursor < seg.end:
            holes.append(seg.model_copy(update={"start": cursor}))
    return holes


def unread_sources(ledger: Ledger) -> list[str]:
    """Sources in the manifest with nothing committed at all."""
    covered = committed_ranges(ledger)
    unread = {s.source_id for s in ledger.manifest.segments if s.source_key not in covered}
    return sorted(unread)


def navigation_root(ledger: Ledger) -> NavigationNode | None:
    """The root navigation node, if one covers every leaf batch."""
    every = {b.index for b in ledger.batches}
    for node in ledger.nodes:
        if node.is_root and node.leaves == every:
            return node
    return None
