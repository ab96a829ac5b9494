"""docs/rules/reviews.md: paged manifest, leaf batches, per-batch commits, coverage."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import Conflict, InvalidInput, NotFound
from engine.review.manifest import (
    BatchState,
    ManifestPage,
    NavigationNode,
    SourceManifest,
    add_page,
    commit_batch,
    commit_node,
    committed_ranges,
    coverage_holes,
    fail_batch,
    navigation_root,
    next_pending,
    plan_leaves,
    resume,
    split_segments,
    unread_sources,
)
from engine.review.types import Segment
from tests.support.review import T0


def seg(source: str, start: int, end: int, version: str = "v1") -> Segment:
    return Segment(source_id=source, version=version, start=start, end=end)


def manifest(*segments: Segment) -> SourceManifest:
    return add_page(SourceManifest(), ManifestPage(segments=segments))


def test_manifest_is_read_page_by_page_until_no_cursor() -> None:
    m = add_page(SourceManifest(), ManifestPage(segments=(seg("a", 0, 10),), next_cursor="p2"))
    assert not m.complete and m.next_cursor == "p2"
    with pytest.raises(Conflict):
        plan_leaves(m, 100)
    m = add_page(m, ManifestPage(segments=(seg("b", 0, 5),)))
    assert m.complete and m.pages_read == 2 and len(m.segments) == 2
    with pytest.raises(Conflict):
        add_page(m, ManifestPage(segments=()))


def test_overlapping_manifest_entries_are_refused() -> None:
    m = add_page(SourceManifest(), ManifestPage(segments=(seg("a", 0, 10),), next_cursor="x"))
    with pytest.raises(InvalidInput):
        add_page(m, ManifestPage(segments=(seg("a", 5, 15),)))
    # other version of the same source is a different text: no overlap
    add_page(m, ManifestPage(segments=(seg("a", 5, 15, version="v2"),)))


def test_large_conversation_splits_into_at_least_six_batches() -> None:
    messages = [seg("conv", i * 100, (i + 1) * 100) for i in range(27)]
    ledger = plan_leaves(manifest(*messages), per_batch=450)
    assert len(ledger.batches) == 7
    assert all(b.size <= 450 for b in ledger.batches)


def test_a_segment_larger_than_a_batch_is_cut_at_offsets() -> None:
    assert split_segments([seg("a", 0, 25)], 10) == [
        [seg("a", 0, 10)],
        [seg("a", 10, 20)],
        [seg("a", 20, 25)],
    ]


segments_strategy = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 50), st.integers(1, 40)),
    max_size=30,
).map(
    # one segment per (source, slot) so they never overlap
    lambda items: list(
        {(s, slot): seg(s, slot * 100, slot * 100 + size) for s, slot, size in items}.values()
    )
)


@settings(deadline=None)  # no per-example deadline: CI machines run loaded
@given(segments_strategy, st.integers(1, 120))
def test_batching_covers_every_position_exactly_once(segs: list[Segment], per_batch: int) -> None:
    batches = split_segments(segs, per_batch)
    assert all(0 < sum(s.size for s in b) <= per_batch for b in batches)
    pieces = sorted((s.source_key, s.start, s.end) for b in batches for s in b)
    # pieces never overlap and together equal the input
    for (k1, _, e1), (k2, s2, _) in zip(pieces, pieces[1:], strict=False):
        assert k1 != k2 or e1 <= s2
    expected: dict[tuple[str, str], set[int]] = {}
    for s in segs:
        expected.setdefault(s.source_key, set()).update(range(s.start, s.end))
    got: dict[tuple[str, str], set[int]] = {}
    for key, start, end in pieces:
        got.setdefault(key, set()).update(range(start, end))
    assert got == expected


@settings(deadline=None)  # no per-example deadline: CI machines run loaded
@given(segments_strategy, st.integers(1, 120), st.data())
def test_holes_are_exactly_the_uncommitted_batches(
    segs: list[Segment], per_batch: int, data: st.DataObject
) -> None:
    ledger = plan_leaves(manifest(*segs), per_batch)
    chosen = data.draw(
        st.sets(st.sampled_from(range(len(ledger.batches)))) if ledger.batches else st.just(set())
    )
    for i in chosen:
        ledger = commit_batch(ledger, i, f"out-{i}", now=T0)
    hole_size = sum(h.size for h in coverage_holes(ledger))
    pending_size = sum(b.size for b in ledger.batches if b.index not in chosen)
    assert hole_size == pending_size


def test_each_batch_commits_alone_and_recommit_is_idempotent() -> None:
    ledger = plan_leaves(manifest(seg("a", 0, 30)), 10)
    ledger = commit_batch(ledger, 0, "o0", now=T0)
    assert [b.state for b in ledger.batches] == [
        BatchState.COMMITTED,
        BatchState.PENDING,
        BatchState.PENDING,
    ]
    assert commit_batch(ledger, 0, "o0", now=T0) == ledger
    with pytest.raises(Conflict):
        commit_batch(ledger, 0, "other", now=T0)
    with pytest.raises(NotFound):
        commit_batch(ledger, 9, "o9", now=T0)


def test_resume_keeps_committed_leaves_and_nodes_and_requeues_failed() -> None:
    ledger = plan_leaves(manifest(seg("a", 0, 30)), 10)
    ledger = commit_batch(ledger, 0, "o0", now=T0)
    ledger = commit_node(
        ledger,
        NavigationNode(node_id="n0", leaves=frozenset({0}), output_id="nav0", committed_at=T0),
    )
    ledger = fail_batch(ledger, 1, "model timeout")
    assert next_pending(ledger).index == 2  # type: ignore[union-attr]
    resumed = resume(ledger)
    assert resumed.batches[0].output_id == "o0"
    assert resumed.batches[1].state is BatchState.PENDING and resumed.batches[1].attempts == 1
    assert resumed.nodes == ledger.nodes
    assert next_pending(resumed).index == 1  # type: ignore[union-attr]
    assert committed_ranges(resumed) == {("a", "v1"): [(0, 10)]}


def test_a_committed_batch_cannot_fail_afterwards() -> None:
    ledger = commit_batch(plan_leaves(manifest(seg("a", 0, 5)), 10), 0, "o", now=T0)
    with pytest.raises(Conflict):
        fail_batch(ledger, 0, "late failure")


def test_navigation_nodes_cover_only_committed_leaves_and_root_must_cover_all() -> None:
    ledger = plan_leaves(manifest(seg("a", 0, 20)), 10)
    node = NavigationNode(
        node_id="root", leaves=frozenset({0, 1}), output_id="r", committed_at=T0, is_root=True
    )
    with pytest.raises(Conflict):
        commit_node(ledger, node)
    ledger = commit_batch(commit_batch(ledger, 0, "o0", now=T0), 1, "o1", now=T0)
    partial = commit_node(
        ledger, node.model_copy(update={"node_id": "p", "leaves": frozenset({0})})
    )
    assert navigation_root(partial) is None
    done = commit_node(partial, node)
    assert navigation_root(done) == node
    assert commit_node(done, node) == done
    with pytest.raises(Conflict):
        commit_node(done, node.model_copy(update={"output_id": "other"}))


def test_unread_sources_and_holes() -> None:
    ledger = plan_leaves(manifest(seg("a", 0, 10), seg("b", 0, 10), seg("a", 20, 30)), 10)
    assert unread_sources(ledger) == ["a", "b"]
    ledger = commit_batch(ledger, 0, "o", now=T0)  # a[0,10)
    assert unread_sources(ledger) == ["b"]
    assert coverage_holes(ledger) == [seg("b", 0, 10), seg("a", 20, 30)]
