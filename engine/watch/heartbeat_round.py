"""One heartbeat round over a scope's candidate watches (last sentence; docs/rules/watches.md).

"多候选关注每轮优先闭环一个事项，除非明确要求全量核验，不让无关候选阻断已核实事项".

`decide_round` composes `candidates.settle_round` and `candidates.plan_round`:

1. **Settle.** Every candidate whose latest, not yet closed observation is a success is a
   verified item; it is closed on its own outcome. Other candidates — blocked, failed, never
   checked, still running — never hold it back (only its own `depends_on` could).
2. **Plan.** Among the candidates left open, one item is chosen for a check this round
   (never checked first, then the one checked longest ago); with an explicit full
   verification every candidate is checked, the ones just closed included.

The jobs layer records the decision under a stable round id and enqueues the chosen checks
with stable job ids, so a repeated trigger of the same round enqueues nothing twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engine.watch.candidates import Candidate, plan_round, settle_round
from engine.watch.model import Frozen, Outcome, OutcomeStatus


class CandidateSnapshot(Frozen):
    """A candidate watch as loaded for a round."""

    watch_id: str
    last_checked_at: datetime | None = None
    observation_id: str | None = None  # the latest observation
    outcome: Outcome | None = None  # its outcome (None: no outcome, e.g. a failed request)
    closed_observation_id: str | None = None  # the observation the last closure used
    depends_on: frozenset[str] = frozenset()

    @property
    def verified(self) -> bool:
        return (
            self.outcome is not None
            and self.outcome.status is OutcomeStatus.SUCCESS
            and self.observation_id is not None
            and self.observation_id != self.closed_observation_id
        )


class Closure(Frozen):
    watch_id: str
    observation_id: str


class RoundDecision(Frozen):
    full_verification: bool
    closed: tuple[Closure, ...]
    to_check: tuple[str, ...]
    later: tuple[str, ...]
    still_open: tuple[str, ...]


def decide_round(
    snapshots: Sequence[CandidateSnapshot], *, full_verification: bool = False
) -> RoundDecision:
    by_id = {s.watch_id: s for s in snapshots}
    candidates = [
        Candidate(
            watch_id=s.watch_id,
            verified=s.verified,
            last_checked_at=s.last_checked_at,
            depends_on=s.depends_on,
        )
        for s in snapshots
    ]
    outcomes = {s.watch_id: s.outcome for s in snapshots if s.verified and s.outcome}
    settled = settle_round(candidates, outcomes)
    closed = set(settled.closed)
    remaining = [
        c.model_copy(update={"verified": False}) if c.watch_id in closed else c
        for c in candidates
        if full_verification or c.watch_id not in closed
    ]
    plan = plan_round(remaining, full_verification=full_verification)
    return RoundDecision(
        full_verification=full_verification,
        closed=tuple(
            Closure(watch_id=w, observation_id=by_id[w].observation_id or "")
            for w in settled.closed
        ),
        to_check=plan.focus,
        later=plan.later,
        still_open=settled.still_open,
    )
