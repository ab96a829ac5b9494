"""docs/rules/reviews.md: stages recorded apart, progress from records, the completion rule."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.errors import Conflict
from engine.review import lifecycle as lc
from engine.review.stages import (
    Blocker,
    StageBook,
    StageState,
    completion_blockers,
    progress,
    start_stage,
)
from engine.review.types import StageName
from tests.support.review import (
    T0,
    collected,
    commit_all_leaves,
    leaves_done,
    navigated,
    new_run,
    root_node,
    seg,
)

SIX_BATCHES = tuple(seg("conv", i * 100, (i + 1) * 100) for i in range(6))


def states(run: lc.SupervisionRun) -> dict[str, str]:
    return {r.stage.value: r.state.value for r in run.stages.records}


def test_stages_run_in_order_and_are_recorded_separately() -> None:
    run = new_run()
    assert states(run) == {
        "collect": "running",
        "leaves": "pending",
        "navigation": "pending",
        "publish": "pending",
    }
    run = collected(run, *SIX_BATCHES)
    assert states(run)["collect"] == "saved" and states(run)["leaves"] == "running"
    run = leaves_done(run)
    assert states(run)["leaves"] == "saved" and states(run)["navigation"] == "running"
    run = navigated(run)
    assert states(run)["navigation"] == "saved" and states(run)["publish"] == "running"


def test_a_stage_cannot_start_before_the_previous_is_saved() -> None:
    with pytest.raises(Conflict):
        start_stage(StageBook(), StageName.LEAVES, now=T0)
    with pytest.raises(Conflict):
        start_stage(StageBook(), StageName.PUBLISH, now=T0)


def test_leaves_are_not_saved_while_a_batch_is_uncommitted() -> None:
    run = collected(new_run(), *SIX_BATCHES)
    run = lc.commit_leaf(run, 0, "leaf-0", now=T0)
    with pytest.raises(Conflict):
        lc.finish_leaves(run, now=T0)


def test_navigation_is_not_saved_without_a_root_over_every_leaf() -> None:
    run = leaves_done(collected(new_run(), *SIX_BATCHES))
    with pytest.raises(Conflict):
        lc.finish_navigation(run, now=T0)


def test_six_batches_saved_zero_left_can_still_be_a_failed_merge() -> None:
    run = commit_all_leaves(collected(new_run(), *SIX_BATCHES))
    run = lc.finish_leaves(run, now=T0)
    error = lc.RunError(stage=StageName.NAVIGATION, kind=lc.ErrorKind.MODEL, message="timeout")
    run = lc.fail(run, error, now=T0 + timedelta(minutes=1)).state
    p = progress(run.stages, run.ledger)
    leaves = next(s for s in p.stages if s.stage is StageName.LEAVES)
    nav = next(s for s in p.stages if s.stage is StageName.NAVIGATION)
    assert (leaves.done, leaves.total, leaves.state) == (6, 6, StageState.SAVED)
    assert nav.state is StageState.FAILED and nav.error == "timeout"
    assert run.status is lc.RunStatus.FAILED
    assert Blocker.NAVIGATION_FAILED in completion_blockers(run.stages, run.ledger)
    assert p.fraction < 1.0


def test_six_batches_saved_can_still_be_a_failed_publish() -> None:
    run = navigated(leaves_done(collected(new_run(), *SIX_BATCHES)))
    error = lc.RunError(stage=StageName.PUBLISH, kind=lc.ErrorKind.SAVE, message="tx aborted")
    run = lc.fail(run, error, now=T0).state
    assert states(run)["publish"] == "failed" and run.status is lc.RunStatus.FAILED
    assert run.result_id is None and run.outcome is None


def test_completion_is_blocked_by_unread_sources_and_holes() -> None:
    run = collected(new_run(per_batch=100), seg("a", 0, 100), seg("b", 0, 100))
    run = lc.commit_leaf(run, 0, "leaf-a", now=T0)
    blockers = completion_blockers(run.stages, run.ledger)
    assert {Blocker.UNREAD_SOURCES, Blocker.COVERAGE_HOLES, Blocker.LEAVES_NOT_SAVED} <= set(
        blockers
    )
    with pytest.raises(Conflict):
        lc.publish(run, result_id="res", checkpoint=None, now=T0)


def test_a_navigation_node_without_root_blocks_completion() -> None:
    run = leaves_done(collected(new_run(), *SIX_BATCHES))
    partial = root_node(run).model_copy(update={"is_root": False, "node_id": "n1"})
    run = lc.commit_navigation_node(run, partial, now=T0)
    assert Blocker.NAVIGATION_NOT_SAVED in completion_blockers(run.stages, run.ledger)


def test_progress_comes_from_batch_records_not_from_error_text() -> None:
    run = collected(new_run(), *SIX_BATCHES)
    run = lc.commit_leaf(run, 0, "leaf-0", now=T0)
    run = lc.commit_leaf(run, 1, "leaf-1", now=T0)
    error = lc.RunError(
        stage=StageName.LEAVES,
        kind=lc.ErrorKind.MODEL,
        message="6 batches saved, 0 sources left",  # misleading text must not count
    )
    failed = lc.fail(run, error, now=T0).state
    leaves = progress(failed.stages, failed.ledger).stages[1]
    assert (leaves.done, leaves.total) == (2, 6)
    assert leaves.state is StageState.FAILED


def test_collect_progress_is_unknown_until_the_last_page() -> None:
    run = new_run()
    collect = progress(run.stages, run.ledger).stages[0]
    assert collect.total is None and collect.state is StageState.RUNNING


def test_full_run_reaches_fraction_one_only_after_publish() -> None:
    run = navigated(leaves_done(collected(new_run(mode=lc.ReviewMode.INTERVAL), *SIX_BATCHES)))
    assert progress(run.stages, run.ledger).fraction == pytest.approx(0.75)
    done = lc.publish(run, result_id="res", checkpoint=None, now=T0).run
    assert progress(done.stages, done.ledger).fraction == 1.0
