"""docs/rules/reviews.md: incremental progress per track, scope and source."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import Conflict, InvalidInput
from engine.review.checkpoints import (
    Checkpoint,
    CheckpointKey,
    Selection,
    SourcePosition,
    SourceState,
    Span,
    Track,
    advance,
    interval_segments,
    pending_segments,
)
from engine.review.manifest import ManifestPage, SourceManifest, add_page, commit_batch, plan_leaves
from engine.review.types import InputBudget, Scope
from tests.support.review import T0, seg

DAY = timedelta(days=1)
SCOPE = Scope.projects("p1")
WIDE = InputBudget(per_batch=1000)


def source(
    sid: str, *ages_days: float, version: str = "v1", project: str | None = "p1", size: int = 10
) -> SourceState:
    spans = tuple(
        Span(start=i * size, end=(i + 1) * size, at=T0 - timedelta(days=age))
        for i, age in enumerate(ages_days)
    )
    return SourceState(source_id=sid, version=version, project_id=project, spans=spans)


def cp(
    scope: Scope = SCOPE, track: Track = Track.SUPERVISION, **positions: tuple[str, int]
) -> Checkpoint:
    return Checkpoint(
        key=CheckpointKey.of(track, scope),
        positions={
            k: SourcePosition(source_id=k, version=v, offset=o, updated_at=T0)
            for k, (v, o) in positions.items()
        },
    )


def pending(
    checkpoint: Checkpoint,
    *sources: SourceState,
    budget: InputBudget = WIDE,
    scope: Scope = SCOPE,
    window: timedelta = 7 * DAY,
) -> Selection:
    return pending_segments(
        checkpoint, list(sources), scope=scope, window=window, budget=budget, now=T0
    )


def test_first_run_reads_only_the_review_window() -> None:
    sel = pending(cp(), source("a", 30, 10, 2, 1))
    assert sel.included == (seg("a", 20, 30), seg("a", 30, 40))
    assert sel.deferred == ()


def test_first_run_reads_only_the_plan_scope_and_global_is_apart() -> None:
    sources = [source("a", 1), source("b", 1, project="p2"), source("g", 1, project=None)]
    assert [s.source_id for s in pending(cp(), *sources).included] == ["a"]
    g = Scope.global_()
    assert [s.source_id for s in pending(cp(g), *sources, scope=g).included] == ["g"]


def test_checkpoint_of_another_scope_is_refused() -> None:
    with pytest.raises(Conflict):
        pending(cp(Scope.global_()), source("a", 1))


def test_later_run_takes_only_new_text_after_the_offset() -> None:
    sel = pending(cp(a=("v1", 20)), source("a", 30, 10, 2, 1))
    assert sel.included == (seg("a", 20, 30), seg("a", 30, 40))
    sel = pending(cp(a=("v1", 25)), source("a", 30, 10, 2, 1))
    assert sel.included == (seg("a", 25, 30), seg("a", 30, 40))


def test_revised_source_is_read_again_within_the_window() -> None:
    sel = pending(cp(a=("v1", 40)), source("a", 30, 10, 2, 1, version="v2"))
    assert sel.included == (seg("a", 20, 30, "v2"), seg("a", 30, 40, "v2"))


def test_nothing_pending_is_no_change() -> None:
    assert pending(cp(a=("v1", 40)), source("a", 3, 2, 2, 1)).no_change
    assert pending(cp(), source("a", 30)).no_change  # only outside the window


def test_budget_leftover_is_deferred_and_taken_by_the_next_run() -> None:
    budget = InputBudget(per_batch=10, per_run=15)
    src = source("a", 3, 2, 1)
    first = pending(cp(), src, budget=budget)
    assert first.included == (seg("a", 0, 10), seg("a", 10, 15))
    assert first.deferred == (seg("a", 15, 20), seg("a", 20, 30))
    # the run publishes what it took; the next picks up the deferred part
    ledger = plan_leaves(add_page(SourceManifest(), ManifestPage(segments=first.included)), 10)
    for b in ledger.batches:
        ledger = commit_batch(ledger, b.index, f"o{b.index}", now=T0)
    moved = advance(cp(), ledger, now=T0)
    second = pending(moved, src, budget=budget)
    assert second.included == (seg("a", 15, 20), seg("a", 20, 30))


def test_budget_skipped_old_text_stays_pending_even_after_the_window_passed() -> None:
    # a position exists: what lies past it is pending regardless of age
    sel = pending(cp(a=("v1", 10)), source("a", 40, 39))
    assert sel.included == (seg("a", 10, 20),)


@settings(deadline=None)  # no per-example deadline: CI machines run loaded
@given(st.permutations(["a", "b", "c", "d"]))
def test_project_list_order_does_not_change_what_is_pending(order: list[str]) -> None:
    sources = [source(s, 3, 1) for s in order]
    scope = Scope.projects("p1", "zz") if order[0] < "c" else Scope.projects("zz", "p1")
    checkpoint = cp(scope)
    sel = pending(checkpoint, *sources, budget=InputBudget(per_batch=10, per_run=50), scope=scope)
    assert [(s.source_id, s.start) for s in sel.included] == [
        ("a", 0),
        ("a", 10),
        ("b", 0),
        ("b", 10),
        ("c", 0),
    ]


def test_tracks_and_scopes_have_separate_keys_and_no_plan_in_the_key() -> None:
    keys = {
        CheckpointKey.of(Track.REPORT, SCOPE),
        CheckpointKey.of(Track.SUPERVISION, SCOPE),
        CheckpointKey.of(Track.SUPERVISION, Scope.global_()),
        CheckpointKey.of(Track.SUPERVISION, Scope.projects("p1", "p2")),
    }
    assert len(keys) == 4
    assert set(CheckpointKey.model_fields) == {"track", "scope_key"}


def test_a_new_plan_over_the_same_scope_continues_old_progress() -> None:
    # deleting plan A and saving plan B for the same scope: same key, same positions
    progress = cp(a=("v1", 20))
    key_for_new_plan = CheckpointKey.of(Track.SUPERVISION, Scope.projects("p1"))
    assert key_for_new_plan == progress.key
    assert pending(progress, source("a", 2, 1)).no_change


def test_advance_refuses_to_skip_uncommitted_input() -> None:
    ledger = plan_leaves(
        add_page(SourceManifest(), ManifestPage(segments=(seg("a", 0, 10), seg("a", 10, 20)))),
        10,
    )
    ledger = commit_batch(ledger, 1, "o1", now=T0)
    with pytest.raises(Conflict):
        advance(cp(), ledger, now=T0)


def test_advance_never_moves_a_position_backwards() -> None:
    ledger = plan_leaves(add_page(SourceManifest(), ManifestPage(segments=(seg("a", 0, 10),))), 10)
    ledger = commit_batch(ledger, 0, "o", now=T0)
    moved = advance(cp(a=("v1", 50)), ledger, now=T0)
    assert moved.positions["a"].offset == 50 and moved.revision == 1


def test_manual_interval_reads_the_chosen_interval_only() -> None:
    src = source("a", 30, 10, 2, 1)
    sel = interval_segments(
        [src, source("x", 10, project="p9")],
        scope=SCOPE,
        start=T0 - 11 * DAY,
        end=T0 - 1.5 * DAY,
        budget=WIDE,
    )
    assert sel.included == (seg("a", 10, 20), seg("a", 20, 30))
    with pytest.raises(InvalidInput):
        interval_segments([src], scope=SCOPE, start=T0, end=T0, budget=WIDE)


@settings(deadline=None)  # no per-example deadline: CI machines run loaded
@given(
    st.lists(st.integers(1, 50), min_size=1, max_size=12),
    st.integers(1, 60),
    st.randoms(use_true_random=False),
)
def test_repeated_runs_cover_every_span_once_and_end_in_no_change(
    sizes: list[int], per_run: int, rnd: random.Random
) -> None:
    """Run after run, each publishing what it took: all text is read exactly once."""
    bounds: list[Span] = []
    start = 0
    for size in sizes:
        bounds.append(Span(start=start, end=start + size, at=T0 - DAY))
        start += size
    src = SourceState(source_id="a", version="v1", project_id="p1", spans=tuple(bounds))
    budget = InputBudget(per_batch=min(per_run, rnd.randint(1, 60)), per_run=per_run)
    checkpoint = cp()
    read: list[int] = []
    for _ in range(start + 1):
        sel = pending(checkpoint, src, budget=budget)
        if sel.no_change:
            break
        read.extend(i for s in sel.included for i in range(s.start, s.end))
        ledger = plan_leaves(
            add_page(SourceManifest(), ManifestPage(segments=sel.included)), budget.per_batch
        )
        for b in ledger.batches:
            ledger = commit_batch(ledger, b.index, "o", now=T0)
        checkpoint = advance(checkpoint, ledger, now=T0)
    assert sorted(read) == list(range(start))
