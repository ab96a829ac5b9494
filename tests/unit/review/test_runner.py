"""Driving runs: next step from records, worker-start recovery, automatic continuation."""

from __future__ import annotations

from datetime import timedelta

from engine.review import lifecycle as lc
from engine.review.manifest import ManifestPage
from engine.review.runner import (
    StepKind,
    choose_automatic,
    next_step,
    recover_on_worker_start,
)
from engine.review.stages import StageState
from engine.review.types import Scope, StageName, Trigger
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

SEGS = (seg("conv", 0, 100), seg("conv", 100, 200))
VERSIONS = {"conv": "v1"}
ERR = lc.RunError(stage=StageName.LEAVES, kind=lc.ErrorKind.MODEL, message="x")


def test_next_step_walks_the_stages_from_records() -> None:
    run = new_run()
    assert next_step(run).kind is StepKind.COLLECT_PAGE
    run = lc.add_manifest_page(run, ManifestPage(segments=SEGS[:1], next_cursor="p2"), now=T0)
    assert (next_step(run).kind, next_step(run).cursor) == (StepKind.COLLECT_PAGE, "p2")
    run = lc.add_manifest_page(run, ManifestPage(segments=SEGS[1:]), now=T0)
    assert next_step(run).kind is StepKind.FINISH_COLLECT
    run = lc.finish_collect(run, now=T0).state
    assert (next_step(run).kind, next_step(run).batch_index) == (StepKind.LEAF, 0)
    run = commit_all_leaves(run)
    assert next_step(run).kind is StepKind.FINISH_LEAVES
    run = lc.finish_leaves(run, now=T0)
    assert next_step(run).kind is StepKind.NAVIGATE
    run = lc.commit_navigation_node(run, root_node(run), now=T0)
    assert next_step(run).kind is StepKind.FINISH_NAVIGATION
    run = lc.finish_navigation(run, now=T0)
    assert next_step(run).kind is StepKind.PUBLISH
    done = lc.publish(
        run.model_copy(update={"mode": lc.ReviewMode.INTERVAL}),
        result_id="r",
        checkpoint=None,
        now=T0,
    ).run
    # published: the worker records the stop in a transaction of its own, and only then
    # does the run read completed (its result transaction has closed by then)
    assert next_step(done).kind is StepKind.STOP
    assert done.display_status is lc.DisplayStatus.RUNNING and done.published_result_id is None
    stopped = lc.mark_stopped(done, now=T0).state
    assert next_step(stopped).kind is StepKind.DONE
    assert stopped.display_status is lc.DisplayStatus.COMPLETED
    assert stopped.published_result_id == "r"


def test_paused_or_cancelling_run_is_told_to_stop() -> None:
    assert next_step(lc.pause(new_run(), now=T0).state).kind is StepKind.STOP
    assert next_step(lc.cancel(new_run(), now=T0).state).kind is StepKind.STOP


def test_continued_run_does_only_the_missing_work() -> None:
    run = lc.commit_leaf(collected(new_run(), *SEGS), 0, "leaf-0", now=T0)
    failed = lc.fail(run, ERR, now=T0).state
    resumed = lc.continue_run(failed, worker_id="w2", current_versions=VERSIONS, now=T0)
    assert (next_step(resumed).kind, next_step(resumed).batch_index) == (StepKind.LEAF, 1)
    # a navigation failure resumes at navigation with leaves and nodes kept
    nav_failed = lc.fail(
        leaves_done(collected(new_run(), *SEGS)),
        ERR.model_copy(update={"stage": StageName.NAVIGATION}),
        now=T0,
    ).state
    resumed = lc.continue_run(nav_failed, worker_id="w2", current_versions=VERSIONS, now=T0)
    assert resumed.stages.get(StageName.LEAVES).state is StageState.SAVED
    assert next_step(resumed).kind is StepKind.NAVIGATE


def test_worker_start_marks_unfinished_runs_of_dead_workers_failed() -> None:
    dead_running = collected(new_run("r1", worker_id="dead"), *SEGS)
    alive_running = new_run("r2", worker_id="alive")
    paused = lc.mark_stopped(lc.pause(new_run("r3", worker_id="dead"), now=T0).state, now=T0).state
    cancelling = lc.cancel(new_run("r4", worker_id="dead"), now=T0).state
    published = lc.publish(
        navigated(
            leaves_done(
                collected(new_run("r5", worker_id="dead", mode=lc.ReviewMode.INTERVAL), *SEGS)
            )
        ),
        result_id="res",
        checkpoint=None,
        now=T0,
    ).run
    completed = lc.mark_stopped(published.model_copy(update={"run_id": "r6"}), now=T0).state
    later = T0 + timedelta(hours=1)
    changed = {
        r.run_id: r
        for r in recover_on_worker_start(
            [dead_running, alive_running, paused, cancelling, published, completed],
            {"alive"},
            now=later,
        )
    }
    # r5 died between its result transaction and recording the stop: it is stopped now
    assert set(changed) == {"r1", "r4", "r5"}
    assert changed["r5"].display_status is lc.DisplayStatus.COMPLETED
    assert changed["r5"].published_result_id == "res" and changed["r5"].ended_at == T0
    assert changed["r1"].status is lc.RunStatus.FAILED and changed["r1"].ended_at == later
    assert changed["r1"].error is not None
    assert changed["r1"].error.kind is lc.ErrorKind.WORKER_LOST
    assert changed["r1"].error.stage is StageName.LEAVES
    assert changed["r4"].display_status is lc.DisplayStatus.CANCELLED
    # the recovered run can be continued, keeping what it committed
    assert (
        lc.continue_run(
            changed["r1"], worker_id="alive", current_versions=VERSIONS, now=later
        ).status
        is lc.RunStatus.RUNNING
    )


def test_automatic_check_retries_the_scopes_latest_failed_run() -> None:
    failed = lc.fail(collected(new_run("r1"), *SEGS), ERR, now=T0).state
    assert choose_automatic([failed], failed.scope, VERSIONS).continue_run_id == "r1"
    # other scope, changed sources, or a newer run: start a new one
    assert choose_automatic([failed], Scope.global_(), VERSIONS).continue_run_id is None
    assert choose_automatic([failed], failed.scope, {"conv": "v2"}).continue_run_id is None
    newer = new_run("r2").model_copy(update={"created_at": T0 + timedelta(hours=1)})
    newer = lc.mark_stopped(lc.pause(newer, now=T0).state, now=T0).state
    assert choose_automatic([failed, newer], failed.scope, VERSIONS).continue_run_id is None


def test_a_check_delivered_again_keeps_to_the_run_it_linked() -> None:
    """A heartbeat's check that runs again after its worker died never starts a second run:
    its own failed run continues, or stays as it stands."""
    linked = lc.fail(collected(new_run("r1"), *SEGS), ERR, now=T0).state
    newer = lc.fail(
        collected(new_run("r2").model_copy(update={"created_at": T0 + timedelta(hours=1)}), *SEGS),
        ERR,
        now=T0,
    ).state
    again = choose_automatic([newer], linked.scope, VERSIONS, linked=linked)
    assert again.continue_run_id == "r1" and not again.settled
    changed = choose_automatic([], linked.scope, {"conv": "v2"}, linked=linked)
    assert changed.continue_run_id is None and changed.settled  # not a new run
    running = collected(new_run("r3"), *SEGS)  # a live worker still executes it
    assert choose_automatic([], running.scope, VERSIONS, linked=running).settled
    paused = lc.mark_stopped(lc.pause(running, now=T0).state, now=T0).state
    assert choose_automatic([], paused.scope, VERSIONS, linked=paused).settled  # a person's


def test_automatic_check_never_resumes_cancelled_or_manual_runs() -> None:
    cancelled = lc.mark_stopped(
        lc.cancel(collected(new_run("r1"), *SEGS), now=T0).state, now=T0
    ).state
    assert choose_automatic([cancelled], cancelled.scope, VERSIONS).continue_run_id is None
    manual_failed = lc.fail(
        collected(new_run("r2", trigger=Trigger.MANUAL), *SEGS), ERR, now=T0
    ).state
    assert choose_automatic([manual_failed], manual_failed.scope, VERSIONS).continue_run_id is None


def test_paused_or_failed_runs_do_not_block_a_new_review() -> None:
    paused = lc.mark_stopped(lc.pause(new_run("r1"), now=T0).state, now=T0).state
    failed = lc.fail(
        new_run("r2"), ERR.model_copy(update={"stage": StageName.COLLECT}), now=T0
    ).state
    cancelling = lc.cancel(new_run("r3"), now=T0).state
    assert not paused.blocks_new_review and not failed.blocks_new_review
    assert cancelling.blocks_new_review and new_run("r4").blocks_new_review
