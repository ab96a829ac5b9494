"""`record_checkpoint` field errors and the record sync (docs/rules/watches.md)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import Conflict, InvalidInput, NotFound
from engine.watch.checkpoint import (
    MAX_DATA_CHARS,
    MAX_INSTRUCTIONS_CHARS,
    FailureKind,
    apply_sync_result,
    record_checkpoint,
    run_report,
)
from engine.watch.model import Outcome, OutcomeStatus, SyncStatus
from tests.support.watch import LATER, NOW, RUN, make_watch

WATCHES = {"w1": make_watch("w1", record_location="记录/每周检查.md"), "w2": make_watch("w2")}
GOOD: dict[str, Any] = {
    "watchId": "w1",
    "data": {"version": "v2.3"},
    "instructions": "下次核对版本号",
}


def save(raw: dict[str, Any], *, complete: bool = True) -> Any:
    return record_checkpoint(
        raw,
        watches=WATCHES,
        verification_complete=complete,
        run_id=RUN,
        checkpoint_id="cp1",
        now=NOW,
    )


def codes(raw: dict[str, Any], complete: bool = True) -> list[tuple[str, str]]:
    with pytest.raises(InvalidInput) as err:
        save(raw, complete=complete)
    return [(p["field"], p["code"]) for p in err.value.details["problems"]]


def test_valid_checkpoint_uses_the_watchs_record_location() -> None:
    cp = save(GOOD)
    assert cp.location == "记录/每周检查.md" and cp.sync_status is SyncStatus.PENDING
    assert save({**GOOD, "location": "其他/位置.md"}).location == "其他/位置.md"


def test_unknown_watch_is_not_found() -> None:
    with pytest.raises(NotFound) as err:
        save({**GOOD, "watchId": "w9"})
    assert err.value.details == {"field": "watchId", "code": "unknown_watch"}
    with pytest.raises(NotFound):
        save({**GOOD, "watchId": None})


@pytest.mark.parametrize(
    ("change", "complete", "expected"),
    [
        ({"watchId": "w2"}, True, [("location", "no_record_location")]),
        ({"location": "  "}, True, []),  # blank falls back to the watch's location
        ({}, False, [("verification", "verification_incomplete")]),
        ({"data": "v2.3"}, True, [("data", "data_type")]),
        ({"data": ["v2.3"]}, True, [("data", "data_type")]),
        ({"data": {"x": {1, 2}}}, True, [("data", "data_type")]),
        ({"data": {"x": "长" * MAX_DATA_CHARS}}, True, [("data", "data_too_long")]),
        ({"instructions": {"a": 1}}, True, [("instructions", "instructions_type")]),
        ({"instructions": None}, True, [("instructions", "instructions_type")]),
        (
            {"instructions": "x" * (MAX_INSTRUCTIONS_CHARS + 1)},
            True,
            [("instructions", "instructions_too_long")],
        ),
    ],
)
def test_each_field_has_its_own_error(
    change: dict[str, Any], complete: bool, expected: list[tuple[str, str]]
) -> None:
    raw = {**GOOD, **change}
    if not expected:
        assert save(raw, complete=complete).location == "记录/每周检查.md"
    else:
        assert codes(raw, complete) == expected


def test_several_field_problems_are_reported_together() -> None:
    raw = {"watchId": "w2", "data": 5, "instructions": 5}
    assert codes(raw, complete=False) == [
        ("location", "no_record_location"),
        ("verification", "verification_incomplete"),
        ("data", "data_type"),
        ("instructions", "instructions_type"),
    ]


def test_limits_are_inclusive() -> None:
    assert save({**GOOD, "instructions": "x" * MAX_INSTRUCTIONS_CHARS}).instructions


SUCCESS = Outcome(status=OutcomeStatus.SUCCESS, facts_recorded=True)


def test_sync_failure_is_a_record_sync_failure_not_a_source_check_failure() -> None:
    cp = save(GOOD)
    failed, report = apply_sync_result(cp, ok=False, error="disk full", now=LATER)
    assert failed.sync_status is SyncStatus.FAILED and failed.sync_error == "disk full"
    assert report.failure_kind is FailureKind.RECORD_SYNC
    summary = run_report(SUCCESS, report)
    assert summary.check_status == "success"
    assert summary.failure_kind is FailureKind.RECORD_SYNC
    assert "record sync" in summary.message and "source check" not in summary.message


def test_source_check_failure_is_reported_as_such() -> None:
    blocked = Outcome(status=OutcomeStatus.BLOCKED, reasons=("c1 is not done",))
    summary = run_report(blocked, None)
    assert summary.failure_kind is FailureKind.SOURCE_CHECK and "c1 is not done" in summary.message


def test_successful_sync_is_final() -> None:
    synced, report = apply_sync_result(save(GOOD), ok=True, error=None, now=LATER)
    assert synced.sync_status is SyncStatus.SYNCED and synced.synced_at == LATER
    assert run_report(SUCCESS, report).failure_kind is None
    with pytest.raises(Conflict):
        apply_sync_result(synced, ok=False, error="late", now=LATER)
