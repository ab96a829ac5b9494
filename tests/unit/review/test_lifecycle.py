"""docs/rules/reviews.md: supervision run states and transitions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import Conflict
from engine.review import lifecycle as lc
from engine.review.checkpoints import Checkpoint, CheckpointKey, Track
from engine.review.effects import ReleaseLease, StopExecution
from engine.review.manifest import BatchState, ManifestPage, next_pending
from engine.review.outputs import InvalidModelOutput, parse_leaf_output
from engine.review.stages import StageState
from engine.review.types import StageName
from tests.support.review import (
    SCOPE,
    T0,
    collected,
    navigated,
    new_run,
    ready_to_publish,
    seg,
)

LATER = T0 + timedelta(minutes=3)
SEGS = tuple(seg("conv", i * 100, (i + 1) * 100) for i in range(3))
VERSIONS = {"conv": "v1"}


def empty_checkpoint() -> Checkpoint:
    return Checkpoint(key=CheckpointKey.of(Track.SUPERVISION, SCOPE))


def model_error(stage: StageName = StageName.LEAVES) -> lc.RunError:
    return lc.RunError(stage=stage, kind=lc.ErrorKind.MODEL, message="model timed out")


def test_run_is_stored_running_before_collecting() -> None:
    run = new_run()
    assert run.status is lc.RunStatus.RUNNING
    assert run.stages.get(StageName.COLLECT).state is StageState.RUNNING
    assert run.ledger.manifest.pages_read == 0 and run.ended_at is None


def test_interval_mode_needs_an_interval_and_incremental_takes_none() -> None:
    with pytest.raises(Conflict):
        lc.create_run(
            run_id="r",
            scope=SCOPE,
            trigger=lc.Trigger.MANUAL,
            mode=lc.ReviewMode.INTERVAL,
            worker_id="w",
            per_batch=10,
            stage_timeout=timedelta(minutes=1),
            now=T0,
        )


def test_completed_only_through_publish_which_advances_the_checkpoint() -> None:
    run = ready_to_publish(new_run(), *SEGS)
    published = lc.publish(run, result_id="res-1", checkpoint=empty_checkpoint(), now=LATER)
    assert published.run.status is lc.RunStatus.COMPLETED
    assert published.run.outcome is lc.RunOutcome.NEW_RESULT
    assert published.run.result_id == "res-1" and published.run.ended_at == LATER
    assert published.checkpoint is not None
    assert published.checkpoint.positions["conv"].offset == 300


def test_publish_of_an_incremental_run_needs_its_scope_checkpoint() -> None:
    run = ready_to_publish(new_run(), *SEGS)
    other = Checkpoint(key=CheckpointKey.of(Track.REPORT, SCOPE))
    with pytest.raises(Conflict):
        lc.publish(run, result_id="r", checkpoint=other, now=T0)
    with pytest.raises(Conflict):
        lc.publish(run, result_id="r", checkpoint=None, now=T0)


def test_nothing_pending_completes_as_no_change_without_model_or_publish() -> None:
    run = lc.add_manifest_page(new_run(), ManifestPage(segments=()), now=T0)
    decision = lc.finish_collect(run, now=T0)
    assert decision.state.status is lc.RunStatus.COMPLETED
    assert decision.state.outcome is lc.RunOutcome.NO_CHANGE
    assert decision.state.result_id is None
    assert {r.state for r in decision.state.stages.records} == {StageState.NO_INPUT}
    assert decision.effects == (ReleaseLease(run_id="r1"),)


@pytest.mark.parametrize("stage", [StageName.COLLECT, StageName.LEAVES])
def test_failure_becomes_failed_with_error_and_end_time(stage: StageName) -> None:
    run = new_run() if stage is StageName.COLLECT else collected(new_run(), *SEGS)
    decision = lc.fail(run, model_error(stage), now=LATER)
    failed = decision.state
    assert failed.status is lc.RunStatus.FAILED
    assert failed.error == model_error(stage) and failed.ended_at == LATER
    assert failed.stages.get(stage).state is StageState.FAILED
    assert ReleaseLease(run_id="r1") in decision.effects


def test_invalid_model_output_fails_the_stage_keeping_raw_output() -> None:
    run = collected(new_run(), *SEGS)
    raw = '{"summary": "forgot the facts"}'
    with pytest.raises(InvalidModelOutput) as info:
        parse_leaf_output(raw)
    failed = lc.fail(run, lc.RunError.from_invalid_output(info.value), now=T0).state
    assert failed.error is not None and failed.error.raw_output == raw
    assert failed.error.kind is lc.ErrorKind.VALIDATION
    assert failed.stages.get(StageName.LEAVES).state is StageState.FAILED


def test_pause_keeps_committed_batches_and_the_run_is_continuable() -> None:
    run = lc.commit_leaf(collected(new_run(), *SEGS), 0, "leaf-0", now=T0)
    paused = lc.pause(run, now=T0)
    assert paused.state.status is lc.RunStatus.PAUSED
    assert paused.effects == (StopExecution(run_id="r1"),)
    # the batch in flight when pausing may still land
    landed = lc.commit_leaf(paused.state, 1, "leaf-1", now=T0)
    stopped = lc.mark_stopped(landed, now=T0)
    assert stopped.effects == (ReleaseLease(run_id="r1"),)
    resumed = lc.continue_run(stopped.state, worker_id="w2", current_versions=VERSIONS, now=LATER)
    assert resumed.status is lc.RunStatus.RUNNING and resumed.worker_id == "w2"
    assert [b.state for b in resumed.ledger.batches] == [
        BatchState.COMMITTED,
        BatchState.COMMITTED,
        BatchState.PENDING,
    ]


def test_pause_twice_is_harmless_and_pausing_a_finished_run_is_conflict() -> None:
    paused = lc.pause(new_run(), now=T0).state
    assert lc.pause(paused, now=T0).state == paused
    done = lc.publish(
        ready_to_publish(new_run(mode=lc.ReviewMode.INTERVAL), *SEGS),
        result_id="x",
        checkpoint=None,
        now=T0,
    ).run
    with pytest.raises(Conflict):
        lc.pause(done, now=T0)


def test_continue_is_refused_while_still_stopping() -> None:
    paused = lc.pause(new_run(), now=T0).state
    with pytest.raises(Conflict):
        lc.continue_run(paused, worker_id="w", current_versions={}, now=T0)


def test_cancel_is_stored_at_once_and_reads_cancelling_until_stopped() -> None:
    run = lc.commit_leaf(collected(new_run(), *SEGS), 0, "leaf-0", now=T0)
    decision = lc.cancel(run, now=T0)
    cancelled = decision.state
    assert cancelled.status is lc.RunStatus.CANCELLED
    assert cancelled.display_status is lc.DisplayStatus.CANCELLING
    assert cancelled.blocks_new_review
    assert decision.effects == (StopExecution(run_id="r1"),)
    stopped = lc.mark_stopped(cancelled, now=LATER).state
    assert stopped.display_status is lc.DisplayStatus.CANCELLED
    assert not stopped.blocks_new_review and stopped.ended_at == LATER
    # batches saved before the cancel stay
    assert stopped.ledger.batches[0].output_id == "leaf-0"


def test_cancelled_run_commits_nothing_publishes_nothing_and_cannot_continue() -> None:
    run = ready_to_publish(new_run(), *SEGS)
    cancelled = lc.cancel(run, now=T0).state
    with pytest.raises(Conflict):
        lc.publish(cancelled, result_id="r", checkpoint=empty_checkpoint(), now=T0)
    with pytest.raises(Conflict):
        lc.commit_leaf(cancelled, 0, "late", now=T0)
    stopped = lc.mark_stopped(cancelled, now=T0).state
    with pytest.raises(Conflict):
        lc.continue_run(stopped, worker_id="w", current_versions=VERSIONS, now=T0)


def test_cancelling_a_stopped_paused_run_is_cancelled_at_once() -> None:
    paused = lc.mark_stopped(lc.pause(new_run(), now=T0).state, now=T0).state
    decision = lc.cancel(paused, now=LATER)
    assert decision.state.display_status is lc.DisplayStatus.CANCELLED
    assert decision.effects == ()


def test_failure_during_cancel_cleanup_keeps_it_cancelled() -> None:
    cancelled = lc.cancel(new_run(), now=T0).state
    after = lc.fail(cancelled, model_error(StageName.COLLECT), now=LATER).state
    assert after.status is lc.RunStatus.CANCELLED and after.stopped


@pytest.mark.parametrize("status", ["completed", "cancelled"])
def test_final_runs_cannot_be_paused_or_continued(status: str) -> None:
    run = ready_to_publish(new_run(mode=lc.ReviewMode.INTERVAL), *SEGS)
    if status == "completed":
        final = lc.publish(run, result_id="r", checkpoint=None, now=T0).run
    else:
        final = lc.mark_stopped(lc.cancel(run, now=T0).state, now=T0).state
    with pytest.raises(Conflict):
        lc.continue_run(final, worker_id="w", current_versions=VERSIONS, now=T0)
    with pytest.raises(Conflict):
        lc.pause(final, now=T0)


def test_completed_run_cannot_be_cancelled_or_failed() -> None:
    run = ready_to_publish(new_run(mode=lc.ReviewMode.INTERVAL), *SEGS)
    final = lc.publish(run, result_id="r", checkpoint=None, now=T0).run
    with pytest.raises(Conflict):
        lc.cancel(final, now=T0)
    with pytest.raises(Conflict):
        lc.fail(final, model_error(), now=T0)


def test_failed_run_continues_from_committed_batches_retrying_the_failed_stage() -> None:
    run = lc.commit_leaf(collected(new_run(), *SEGS), 0, "leaf-0", now=T0)
    failed = lc.fail(run, model_error(), now=T0).state
    resumed = lc.continue_run(failed, worker_id="w2", current_versions=VERSIONS, now=LATER)
    assert resumed.stages.get(StageName.LEAVES).state is StageState.RUNNING
    assert resumed.error is None and resumed.ended_at is None
    assert resumed.ledger.batches[0].output_id == "leaf-0"


def test_continue_is_refused_when_sources_changed() -> None:
    failed = lc.fail(collected(new_run(), *SEGS), model_error(), now=T0).state
    with pytest.raises(Conflict) as info:
        lc.continue_run(failed, worker_id="w", current_versions={"conv": "v2"}, now=T0)
    assert info.value.details["sources"] == ["conv"]


def test_interval_review_neither_reads_nor_moves_automatic_progress() -> None:
    run = ready_to_publish(new_run(mode=lc.ReviewMode.INTERVAL, trigger=lc.Trigger.MANUAL), *SEGS)
    with pytest.raises(Conflict):
        lc.publish(run, result_id="r", checkpoint=empty_checkpoint(), now=T0)
    published = lc.publish(run, result_id="r", checkpoint=None, now=T0)
    assert published.checkpoint is None and published.run.status is lc.RunStatus.COMPLETED


# "commit" is weighted so that many sequences reach publish; the others interleave anywhere.
EVENTS = st.lists(
    st.sampled_from(
        ["commit"] * 6 + ["publish"] * 3 + ["fail", "pause", "cancel", "stop", "continue"]
    ),
    max_size=30,
)


@settings(deadline=None)  # no per-example deadline: CI machines run loaded
@given(EVENTS)
def test_checkpoint_moves_only_when_publish_commits(events: list[str]) -> None:
    """Any order of events: the checkpoint changes iff the run completed through publish."""
    run = collected(new_run(per_batch=100), *SEGS)
    checkpoint = empty_checkpoint()
    for event in events:
        try:
            if event == "commit":
                batch = next_pending(run.ledger)
                if batch is not None:
                    run = lc.commit_leaf(run, batch.index, f"leaf-{batch.index}", now=T0)
                elif run.stages.get(StageName.LEAVES).state is StageState.RUNNING:
                    run = navigated(lc.finish_leaves(run, now=T0))
            elif event == "fail":
                run = lc.fail(run, model_error(), now=T0).state
            elif event == "pause":
                run = lc.pause(run, now=T0).state
            elif event == "cancel":
                run = lc.cancel(run, now=T0).state
            elif event == "stop":
                run = lc.mark_stopped(run, now=T0).state
            elif event == "continue":
                run = lc.continue_run(run, worker_id="w", current_versions=VERSIONS, now=T0)
            else:
                published = lc.publish(run, result_id="res", checkpoint=checkpoint, now=T0)
                run, checkpoint = published.run, published.checkpoint or checkpoint
        except Conflict:
            pass
    if run.status is lc.RunStatus.COMPLETED:
        assert checkpoint.positions["conv"].offset == 300 and checkpoint.revision == 1
    else:
        assert checkpoint == empty_checkpoint()
        assert run.result_id is None
