"""The chaos audit held to known cases: what it counts as redelivered, lost or doubled
(tests/support/chaos_audit.py; the run itself is tests/e2e/test_chaos.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tests.support.chaos_audit import SKIPPED_CREATED, Tally, owner_told, ran_again

KILL = datetime(2035, 5, 7, 2, 0, tzinfo=UTC)


@dataclass
class Info:
    job_try: int
    start_time: datetime


def test_each_kill_records_its_moment_for_the_jobs_it_interrupted() -> None:
    tally = Tally()
    tally.record_kill(["a", "b"], KILL)
    tally.record_kill(["b", "c"], KILL + timedelta(seconds=5))  # b's key outlived one kill
    assert tally.kills == 2
    assert tally.interrupted == ["a", "b", "c"]
    assert tally.killed_at == {"a": KILL, "b": KILL, "c": KILL + timedelta(seconds=5)}


def test_a_job_claimed_but_not_begun_counts_when_its_first_try_began_after_the_kill() -> None:
    tally = Tally()
    tally.record_kill(["claimed"], KILL)
    after = Info(job_try=1, start_time=KILL + timedelta(seconds=2))
    before = Info(job_try=1, start_time=KILL - timedelta(seconds=2))
    assert ran_again(after, failed=False, killed_at=tally.killed_at["claimed"])
    assert not ran_again(before, failed=False, killed_at=tally.killed_at["claimed"])


def test_a_later_try_or_a_kept_failure_counts_and_no_result_does_not() -> None:
    begun = Info(job_try=2, start_time=KILL - timedelta(seconds=1))
    assert ran_again(begun, failed=False, killed_at=KILL)
    assert ran_again(None, failed=True, killed_at=KILL)
    assert not ran_again(None, failed=False, killed_at=KILL)


def report(concern: str, *kinds: str, person: str = "p_owner") -> dict[str, object]:
    return {"concern": concern, "person": person, "kind": "report", "report_kinds": list(kinds)}


def test_a_created_report_withheld_by_the_cap_is_not_lost_when_the_timeline_says_so() -> None:
    rows = [report("c1", "created"), report("c1", "contacted")]
    tally = Tally()
    owner_told(tally, rows, ["c1", "c2"], {"c2": [f"{SKIPPED_CREATED}，未发送"]},
               owner="p_owner", cap=2)  # fmt: skip
    assert (tally.lost, tally.duplicated) == ([], [])
    assert tally.jobs["report withheld by the daily cap"] == 1


def test_a_missing_created_report_is_lost_below_the_cap_or_without_a_timeline_entry() -> None:
    rows = [report("c1", "created")]
    below = Tally()
    owner_told(below, rows, ["c1", "c2"], {"c2": [f"{SKIPPED_CREATED}，未发送"]},
               owner="p_owner", cap=20)  # fmt: skip
    assert len(below.lost) == 1 and "c2 was told 0 times" in below.lost[0]
    unexplained = Tally()
    owner_told(unexplained, rows * 2, ["c1", "c2"], {}, owner="p_owner", cap=2)
    assert [x.split(" (")[0] for x in unexplained.lost] == [
        "the owner of c1 was told 2 times",
        "the owner of c2 was told 0 times",
    ]


def test_reports_over_the_cap_and_concerns_outside_the_test_are_doubles() -> None:
    rows = [report("c1", "created"), report("c1", "contacted"), report("x", "created")]
    tally = Tally()
    owner_told(tally, rows, ["c1"], {}, owner="p_owner", cap=2)
    assert tally.duplicated == [
        "the owner got 3 reports, over the cap of 2",
        "concern x outside the test",
    ]
