"""The chaos test's bookkeeping and the parts of its audit that judge records, kept apart
from the run so a unit test can hold the audit itself to known cases
(tests/unit/platform/test_chaos_audit.py).

- `Tally`: what the run did and what the audit found; `record_kill` notes, at each kill,
  the jobs it interrupted and the moment of the kill (the first kill that found a job).
- `ran_again`: an interrupted job counts as redelivered when arq kept a result of a later
  try, or of a first try begun after the kill (a job the killed worker had claimed but not
  yet begun: arq never counted that try), or the worker kept its failure.
- `owner_told`: every concern told its owner once that it was raised, unless the daily
  report cap withheld it — then its timeline says so and the owner had had the cap's worth
  of reports; never more than the cap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

SKIPPED_CREATED = "汇报（created）：daily cap reached"


class ResultInfo(Protocol):
    """What the audit reads of arq's `JobResult`."""

    job_try: int
    start_time: datetime


@dataclass
class Tally:
    seed: int = 0
    kills: int = 0
    restarts: list[str] = field(default_factory=list)
    jobs: Counter[str] = field(default_factory=Counter)
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)  # job ids a kill landed in
    killed_at: dict[str, datetime] = field(default_factory=dict)  # each one's kill, wall clock
    redelivered: int = 0  # of those, the jobs that ran again to their end
    reposted: int = 0  # POSTs the receiver got again under the same key

    def record_kill(self, in_progress: Iterable[str], at: datetime) -> None:
        """After a kill at `at`: the jobs whose in-progress key outlived the worker. A key of
        an earlier kill may still be alive: that job keeps its first kill's moment."""
        self.kills += 1
        for job_id in in_progress:
            if job_id not in self.killed_at:
                self.interrupted.append(job_id)
                self.killed_at[job_id] = at

    def line(self) -> str:
        return (
            f"chaos seed={self.seed}: kills={self.kills} restarts={len(self.restarts)} "
            f"({', '.join(self.restarts) or '-'}) jobs={sum(self.jobs.values())} "
            f"({', '.join(f'{k} {v}' for k, v in sorted(self.jobs.items()))}) "
            f"lost={len(self.lost)} duplicated={len(self.duplicated)} "
            f"interrupted={len(self.interrupted)} redelivered={self.redelivered} "
            f"reposted={self.reposted}"
            + (f" | lost: {self.lost}" if self.lost else "")
            + (f" | duplicated: {self.duplicated}" if self.duplicated else "")
        )


def ran_again(info: ResultInfo | None, *, failed: bool, killed_at: datetime) -> bool:
    if failed:
        return True
    return info is not None and (info.job_try > 1 or info.start_time >= killed_at)


def owner_told(
    tally: Tally,
    rows: Iterable[Mapping[str, Any]],
    concerns: Iterable[str],
    timelines: Mapping[str, list[str]],
    *,
    owner: str,
    cap: int,
) -> None:
    """`rows`: the scope's outbox (`concern`, `person`, `kind`, `report_kinds`);
    `timelines`: each concern's timeline details."""
    reports = [r for r in rows if r["person"] == owner and r["kind"] == "report"]
    created = Counter(r["concern"] for r in reports if "created" in (r["report_kinds"] or []))
    concerns = list(concerns)
    if len(reports) > cap:
        tally.duplicated.append(f"the owner got {len(reports)} reports, over the cap of {cap}")
    for concern in concerns:
        skipped = any(d.startswith(SKIPPED_CREATED) for d in timelines.get(concern, []))
        if created[concern] == 1 and not skipped:
            continue
        if created[concern] == 0 and skipped and len(reports) >= cap:
            tally.jobs["report withheld by the daily cap"] += 1
            continue
        why = "its timeline names the skip" if skipped else "no skip on its timeline"
        tally.lost.append(
            f"the owner of {concern} was told {created[concern]} times"
            f" ({why}; {len(reports)} reports, cap {cap})"
        )
    tally.duplicated += [f"concern {c} outside the test" for c in created if c not in concerns]
