"""What a run covered and missed (docs/rules/reviews.md: 部分来源不可用…显示已覆盖与遗漏范围；部分结果不标为
完整): the selection names unreadable sources, the run merges and keeps them, and neither the
run nor its activity row reads as complete while anything was missed."""

from __future__ import annotations

from datetime import timedelta

from engine.review import lifecycle as lc
from engine.review.activity import ActivityStatus, overall_status, supervision_status
from engine.review.checkpoints import (
    Checkpoint,
    CheckpointKey,
    SourcePosition,
    Track,
    interval_segments,
    pending_segments,
)
from engine.review.spans import source_state
from engine.review.types import InputBudget, MissedRange, MissReason
from tests.support.review import SCOPE, T0, collected, new_run, seg

BUDGET = InputBudget(per_batch=1000)
TEXT = f"[{T0.isoformat()}] 张三: 提测\n"


def _sources() -> list:  # type: ignore[type-arg]
    return [
        source_state("a", "v1", TEXT, project_id="p1", recorded_at=T0),
        source_state("b", "v1", None, project_id="p1", recorded_at=T0, withdrawn=True),
        source_state("c", "v1", None, project_id="p1", recorded_at=T0),
    ]


def test_an_interval_review_names_every_unreadable_source_with_why() -> None:
    picked = interval_segments(
        _sources(), scope=SCOPE, start=T0 - timedelta(hours=1), end=T0 + timedelta(hours=1),
        budget=BUDGET,
    )  # fmt: skip
    assert [s.source_id for s in picked.included] == ["a"]
    assert picked.missed == (
        MissedRange(source_id="b", version="v1", reason=MissReason.WITHDRAWN),
        MissedRange(source_id="c", version="v1", reason=MissReason.UNRECOVERABLE),
    )
    outside = interval_segments(
        _sources(), scope=SCOPE, start=T0 + timedelta(hours=1), end=T0 + timedelta(hours=2),
        budget=BUDGET,
    )  # fmt: skip
    assert outside.missed == ()  # recorded outside the interval: not this review's input


def test_an_automatic_review_misses_only_versions_it_never_read() -> None:
    key = CheckpointKey.of(Track.SUPERVISION, SCOPE)
    read_b = SourcePosition(source_id="b", version="v1", offset=10, updated_at=T0)
    fresh = pending_segments(
        Checkpoint(key=key), _sources(), scope=SCOPE, window=timedelta(days=1),
        budget=BUDGET, now=T0,
    )  # fmt: skip
    assert [m.source_id for m in fresh.missed] == ["b", "c"]
    later = pending_segments(
        Checkpoint(key=key, positions={"b": read_b}), _sources(), scope=SCOPE,
        window=timedelta(days=1), budget=BUDGET, now=T0,
    )  # fmt: skip
    assert [m.source_id for m in later.missed] == ["c"]


def test_gone_ranges_merge_and_are_not_covered_and_the_run_is_not_complete() -> None:
    run = collected(new_run(mode=lc.ReviewMode.INTERVAL), seg("a", 0, 10), seg("a", 10, 20))
    gone = [
        MissedRange(source_id="a", version="v1", start=0, end=5, reason=MissReason.GONE),
        MissedRange(source_id="a", version="v1", start=5, end=10, reason=MissReason.GONE),
    ]
    for batch in run.ledger.batches:
        run = lc.commit_leaf(run, batch.index, f"o{batch.index}", now=T0, missed=gone)
    assert run.missed == (
        MissedRange(source_id="a", version="v1", start=0, end=10, reason=MissReason.GONE),
    )
    assert [(s.start, s.end) for s in run.covered()] == [(10, 20)]
    assert not run.complete
    done = run.model_copy(update={"status": lc.RunStatus.COMPLETED, "stopped": True})
    assert supervision_status(done) is ActivityStatus.PARTIAL
    assert done.display_status is lc.DisplayStatus.PARTIAL
    assert overall_status(ActivityStatus.COMPLETED, ActivityStatus.PARTIAL) is (
        ActivityStatus.PARTIAL
    )
    whole = done.model_copy(update={"missed": ()})
    assert supervision_status(whole) is ActivityStatus.COMPLETED
    assert whole.display_status is lc.DisplayStatus.COMPLETED
