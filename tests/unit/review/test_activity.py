"""docs/rules/reviews.md: activity rows joining heartbeat and supervision by real run id."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from engine.review import lifecycle as lc
from engine.review.activity import (
    Activity,
    ActivityFilter,
    ActivityStatus,
    activity_rows,
    build_activity,
    label,
    overall_status,
)
from engine.review.heartbeat import HeartbeatRun, HeartbeatState
from engine.review.manifest import ManifestPage
from engine.review.types import StageName, Trigger
from tests.support.review import SCOPE, T0, collected, new_run, ready_to_publish, seg

A = ActivityStatus


def hb(
    state: HeartbeatState = HeartbeatState.COMPLETED,
    *,
    run_id: str = "h1",
    sup: str | None = None,
    link_saved: bool = True,
    minutes: int = 0,
    scoped: bool = True,
) -> HeartbeatRun:
    return HeartbeatRun(
        run_id=run_id,
        config_id="c1",
        scope=SCOPE if scoped else None,
        trigger=Trigger.AUTOMATIC,
        state=state,
        claimed_at=T0 + timedelta(minutes=minutes),
        supervision_run_id=sup,
        link_saved=link_saved,
    )


def sup_completed(run_id: str = "s1", heartbeat: str | None = "h1") -> lc.SupervisionRun:
    run = ready_to_publish(
        new_run(run_id, mode=lc.ReviewMode.INTERVAL, heartbeat_run_id=heartbeat), seg("a", 0, 10)
    )
    published = lc.publish(run, result_id="res-1", checkpoint=None, now=T0).run
    return lc.mark_stopped(published, now=T0).state


def sup_no_change(run_id: str = "s1") -> lc.SupervisionRun:
    run = lc.add_manifest_page(
        new_run(run_id, heartbeat_run_id="h1"), ManifestPage(segments=()), now=T0
    )
    return lc.finish_collect(run, now=T0).state


def sup_failed() -> lc.SupervisionRun:
    err = lc.RunError(stage=StageName.LEAVES, kind=lc.ErrorKind.MODEL, message="x")
    return lc.fail(
        collected(new_run("s1", heartbeat_run_id="h1"), seg("a", 0, 10)), err, now=T0
    ).state


def row(heartbeat: HeartbeatRun, *sups: lc.SupervisionRun) -> Activity:
    rows = build_activity([heartbeat], list(sups))
    return next(r for r in rows if r.heartbeat_run_id == heartbeat.run_id)


def test_claimed_report_shows_running() -> None:
    assert row(hb(HeartbeatState.CLAIMED)).status is A.RUNNING


def test_report_finished_but_supervision_running_is_running() -> None:
    r = row(hb(sup="s1"), new_run("s1", heartbeat_run_id="h1"))
    assert (r.report, r.supervision, r.status) == (A.COMPLETED, A.RUNNING, A.RUNNING)


@pytest.mark.parametrize(
    ("report", "sup_factory"),
    [(HeartbeatState.FAILED, None), (HeartbeatState.COMPLETED, sup_failed)],
)
def test_any_stage_failed_shows_failed(
    report: HeartbeatState, sup_factory: Callable[[], lc.SupervisionRun] | None
) -> None:
    sups = [sup_factory()] if sup_factory else []
    assert row(hb(report, sup="s1" if sups else None), *sups).status is A.FAILED


def test_both_stages_without_input_show_no_change_model_not_called() -> None:
    r = row(hb(HeartbeatState.NO_CHANGE, sup="s1"), sup_no_change())
    assert r.status is A.NO_CHANGE
    assert r.label() == "无变化（未调用模型）"
    assert r.label("en") == "No change (model not called)"


def test_a_stage_saving_a_new_result_without_failure_shows_completed() -> None:
    r = row(hb(HeartbeatState.NO_CHANGE, sup="s1"), sup_completed())
    assert r.status is A.COMPLETED and r.result_id == "res-1"
    assert row(hb(HeartbeatState.COMPLETED, sup="s1"), sup_no_change()).status is A.COMPLETED


def test_no_downstream_record_is_said_explicitly() -> None:
    r = row(hb(HeartbeatState.NO_CHANGE))
    assert r.supervision is A.NO_RECORD and r.status is A.NO_RECORD
    assert label(r.status) == "无执行记录"


def test_cancelled_supervision_shows_on_the_heartbeat_row_report_keeps_its_state() -> None:
    cancelling = lc.cancel(new_run("s1", heartbeat_run_id="h1"), now=T0).state
    r = row(hb(sup="s1"), cancelling)
    assert (r.report, r.status) == (A.COMPLETED, A.CANCELLING)
    assert r.label() == "正在取消"
    stopped = lc.mark_stopped(cancelling, now=T0).state
    r = row(hb(sup="s1"), stopped)
    assert (r.report, r.status) == (A.COMPLETED, A.CANCELLED)
    assert r.label() == "已取消"


def test_join_uses_only_saved_ids_never_time_proximity() -> None:
    old_hb = hb(run_id="h-old", link_saved=False, scoped=False)
    nearby = sup_completed("s-near", heartbeat=None)  # same instant, no saved link
    rows = build_activity([old_hb], [nearby])
    assert len(rows) == 2
    hb_row = next(r for r in rows if r.heartbeat_run_id == "h-old")
    sup_row = next(r for r in rows if r.supervision_run_id == "s-near")
    assert hb_row.supervision_run_id is None and hb_row.unlinked
    assert hb_row.supervision is None and hb_row.status is A.COMPLETED
    assert sup_row.heartbeat_run_id is None and sup_row.unlinked
    assert hb_row.scope_label() == "不可用" and hb_row.scope_label("en") == "Unavailable"


def test_link_saved_on_the_supervision_side_joins_too() -> None:
    r = row(hb(sup=None), sup_completed("s9", heartbeat="h1"))
    assert r.supervision_run_id == "s9"


def test_supervision_kept_after_its_heartbeat_was_cleaned_up() -> None:
    rows = build_activity([], [sup_completed("s1", heartbeat="h-deleted")])
    assert len(rows) == 1 and rows[0].status is A.COMPLETED and not rows[0].unlinked


def test_overall_precedence_table() -> None:
    assert overall_status(A.SKIPPED, A.NO_RECORD) is A.NO_RECORD
    assert overall_status(A.COMPLETED, A.PAUSED) is A.PAUSED
    assert overall_status(A.FAILED, A.RUNNING) is A.RUNNING
    assert overall_status(A.NO_CHANGE, None) is A.NO_CHANGE


def test_the_status_filter_keeps_rows_of_the_asked_statuses_in_order() -> None:
    heartbeats = [
        hb(HeartbeatState.FAILED if i % 2 else HeartbeatState.NO_CHANGE, run_id=f"h{i}", minutes=i)
        for i in range(10)
    ]
    flt = ActivityFilter(statuses=frozenset({A.FAILED}))
    kept = [r for r in build_activity(heartbeats, []) if flt.matches(r)]
    assert [r.heartbeat_run_id for r in kept] == ["h9", "h7", "h5", "h3", "h1"]


def test_same_name_plans_filter_by_config_id() -> None:
    rows = build_activity(
        [hb(run_id="h1"), hb(run_id="h2").model_copy(update={"config_id": "c2"})], []
    )
    assert [r.heartbeat_run_id for r in rows if ActivityFilter(config_id="c2").matches(r)] == ["h2"]


def test_a_page_of_records_keeps_its_order_and_joins_by_saved_ids() -> None:
    linked = hb(run_id="h1", sup="s1", minutes=5)
    run = sup_completed("s1", heartbeat=None)
    alone = sup_completed("s2", heartbeat=None)
    rows = activity_rows([linked, alone], [run])
    assert [r.id for r in rows] == ["heartbeat:h1", "supervision:s2"]
    assert rows[0].supervision_run_id == "s1" and not rows[0].unlinked
    assert rows[1].supervision_run_id == "s2" and rows[1].unlinked
